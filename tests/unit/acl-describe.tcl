# ACL LIST / ACL GETUSER wording of command rules. Redis 7.0 keeps no rule
# text: it rebuilds the description from the command bitmap (+@all or
# -@all, then the best-fitting categories one at a time, then single
# commands, subcommands and first arguments), so what it prints can differ
# from what was typed. Each case: the ACL SETUSER arguments and the ACL
# LIST line Redis 7.0.15 printed for them (after "user u "). The rules were
# chosen among those whose commands and categories both servers know:
# Redis's geo, stream and cluster commands, which this server lacks, change
# the category counts. The file passes against /usr/bin/redis-server.

# Compares two descriptions: Redis lists single-command rules after the
# category rules in hash-table order (it varies between runs), so within the
# root selector and each "(...)" selector those are compared as a set and
# every other word in order.
proc describe_parts {line} {
  set parts {}
  set root $line
  set sels {}
  set open [string first " (" $line]
  if {$open >= 0} {
    set root [string range $line 0 [expr {$open - 1}]]
    set sels [regexp -all -inline {\(([^)]*)\)} [string range $line $open end]]
  }
  set texts [list $root]
  foreach {whole inner} $sels { lappend texts $inner }
  foreach t $texts {
    set fixed {}
    set single {}
    foreach w $t {
      if {[regexp {^[+-][^@]} $w]} { lappend single $w } else { lappend fixed $w }
    }
    lappend parts [list $fixed [lsort $single]]
  }
  return $parts
}

set ::describe_cases {
  {{-@all +get} {off resetchannels -@all +get}}
  {{+@all} {off resetchannels +@all}}
  {{-@all} {off resetchannels -@all}}
  {{-@all +config|get} {off resetchannels -@all +config|get}}
  {{+@all -config|set} {off resetchannels +@all -config|set}}
  {{-@all +@hash -hset} {off resetchannels -@all +@hash -hset}}
  {{+@all -@hash +hset} {off resetchannels +@all -@hash +hset}}
  {{-@all +@read} {off resetchannels -@all +@read}}
  {{-@all +@write} {off resetchannels -@all +@write}}
  {{-@all +@read +@write} {off resetchannels -@all +@write +@read}}
  {{+@all -@read} {off resetchannels +@all -@read}}
  {{+@all -@write -@admin} {off resetchannels +@all -@write -@admin}}
  {{-@all +@string +@hash +@list} {off resetchannels -@all +@list +@string +@hash}}
  {{-@all +select|0 +select|1} {off resetchannels -@all +select|0 +select|1}}
  {{-@all +@fast} {off resetchannels -@all +@fast}}
  {{+@all -@slow} {off resetchannels +@all -@slow}}
  {{-@all +@slow} {off resetchannels -@all +@slow}}
  {{-@all +@admin} {off resetchannels -@all +@admin}}
  {{+@all -@admin} {off resetchannels +@all -@admin}}
  {{-@all +@dangerous} {off resetchannels -@all +@dangerous}}
  {{-@all +@keyspace -del} {off resetchannels -@all +@keyspace -del}}
  {{+@all -@keyspace +del} {off resetchannels +@all -@keyspace +del}}
  {{-@all +config} {off resetchannels -@all +config}}
  {{+@all -config} {off resetchannels +@all -config}}
  {{-@all +client -client|kill} {off resetchannels -@all +client -client|kill}}
  {{-@all +@pubsub} {off resetchannels -@all +@pubsub}}
  {{-@all +@scripting} {off resetchannels -@all +@scripting}}
  {{-@all +@connection} {off resetchannels -@all +@connection}}
  {{-@all +@transaction} {off resetchannels -@all +@transaction}}
  {{-@all +@blocking} {off resetchannels -@all +@blocking}}
  {{-@all +@bitmap +@hyperloglog} {off resetchannels -@all +@bitmap +@hyperloglog}}
  {{-@all +@sortedset +@set} {off resetchannels -@all +@sortedset +@set}}
  {{+@all -@sortedset -@set} {off resetchannels +@all -@sortedset -@set}}
  {{-@all +get +set +hset +config|get +select|0} {off resetchannels -@all +set +config|get +hset +select|0 +get}}
  {{+@all -@all +get} {off resetchannels -@all +get}}
  {{-@all +@all -get} {off resetchannels +@all -get}}
  {{-@all +acl|whoami +acl|cat} {off resetchannels -@all +acl|whoami +acl|cat}}
  {{-@all +acl} {off resetchannels -@all +acl}}
  {{+@all -acl +acl|whoami} {off resetchannels +@all -acl +acl|whoami}}
  {{-@all +object|encoding +debug} {off resetchannels -@all +debug +object|encoding}}
  {{-@all +@admin -@dangerous} {off resetchannels -@all}}
  {{+@all -@dangerous} {off resetchannels +@all -@dangerous}}
  {{-@all +@hash +@string -hget -get} {off resetchannels -@all +@string +@hash -hget -get}}
  {{+@all -@string -@hash +hget} {off resetchannels +@all -@string -@hash +hget}}
  {{-@all +@string +@hash -hget} {off resetchannels -@all +@string +@hash -hget}}
  {{+select|0 -@all +select|1 +select|2} {off resetchannels -@all +select|1 +select|2}}
  {{-@all +@all -@dangerous +config|get -config|set} {off resetchannels +@all -@dangerous +config|get}}
  {{-@all +@list -blpop -brpop -blmove -brpoplpush -blmpop} {off resetchannels -@all +@list -blpop -blmove -brpop -blmpop -brpoplpush}}
  {{-@all +@set -sadd +@sortedset} {off resetchannels -@all +@sortedset +@set -sadd}}
  {{+@all -@pubsub +publish} {off resetchannels +@all -@pubsub +publish}}
  {{-@all +@pubsub -publish} {off resetchannels -@all +@pubsub -publish}}
  {{-@all +script|load +script|exists} {off resetchannels -@all +script|exists +script|load}}
  {{-@all +function +function|list -function|delete} {off resetchannels -@all +function -function|delete}}
  {{+@all -function|delete -function|flush} {off resetchannels +@all -function|flush -function|delete}}
  {{-@all +@scripting -eval} {off resetchannels -@all +@scripting -eval}}
  {{+@all -@fast +get} {off resetchannels +@all -@fast +get}}
  {{+@all -@blocking -@pubsub -@scripting} {off resetchannels +@all -@scripting -@pubsub -@blocking}}
  {{-@all +info +client|id +client|setname +ping} {off resetchannels -@all +client|id +client|setname +info +ping}}
  {{+@all -client +client|id} {off resetchannels +@all -client +client|id}}
  {{-@all +@connection -auth} {off resetchannels -@all +@connection -auth}}
  {{-@all +@transaction +@connection} {off resetchannels -@all +@connection +@transaction}}
  {{-@all +@bitmap -setbit} {off resetchannels -@all +@bitmap -setbit}}
  {{-@all +memory +object -object|freq} {off resetchannels -@all +memory +object -object|freq}}
  {{-@all +@admin +@dangerous} {off resetchannels -@all +@dangerous}}
  {{on nopass ~a* (+get ~b*) (-@all +@hash -hdel %R~c*)} {on nopass ~a* resetchannels -@all (~b* resetchannels -@all +get) (%R~c* resetchannels -@all +@hash -hdel)}}
  {{-@all +client|id +client|setname +client|getname} {off resetchannels -@all +client|getname +client|id +client|setname}}
  {{+@all -client|kill -client|pause} {off resetchannels +@all -client|kill -client|pause}}
  {{-@all +@hash +@set +@list +@string +@sortedset} {off resetchannels -@all +@sortedset +@string +@hash +@list +@set}}
  {{+@all -@hash -@set -@list -@string -@sortedset} {off resetchannels +@all -@sortedset -@string -@hash -@list -@set}}
  {{-@all +@read -get -mget -exists} {off resetchannels -@all +@read -mget -exists -get}}
  {{-@all +@keyspace -del -unlink -rename} {off resetchannels -@all +@keyspace -rename -unlink -del}}
  {{-@all +@pubsub +@connection -subscribe} {off resetchannels -@all +@connection +@pubsub -subscribe}}
  {{+@all -@pubsub -@connection +ping} {off resetchannels +@all -@pubsub -@connection +ping}}
  {{-@all +@scripting +@transaction -multi} {off resetchannels -@all +@scripting +@transaction -multi}}
  {{-@all +@blocking +@sortedset} {off resetchannels -@all +@sortedset +@blocking}}
  {{+@all -@blocking -@sortedset +zadd} {off resetchannels +@all -@blocking -@sortedset +zadd}}
  {{-@all +debug +shutdown +monitor} {off resetchannels -@all +debug +shutdown +monitor}}
  {{-@all +@hyperloglog -pfdebug} {off resetchannels -@all +@hyperloglog -pfdebug}}
  {{-@all +@bitmap +@string -bitop} {off resetchannels -@all +@string +@bitmap -bitop}}
  {{+@all +@dangerous -@admin} {off resetchannels +@all -@admin}}
  {{-@all +@admin -config +config|get} {off resetchannels -@all +@admin -config|set -config|resetstat -config|rewrite}}
  {{-@all +acl|whoami +auth +hello -@connection +ping} {off resetchannels -@all +acl|whoami +ping}}
  {{-@all +select|0 +select|1 +select} {off resetchannels -@all +select}}
  {{-@all +set|foo} {off resetchannels -@all +set|foo}}
  {{+@all -select +select|2 +select|5} {off resetchannels +@all -select +select|2 +select|5}}
  {{on >p1 +@all -@dangerous +get -set ~foo* %R~bar &ch* +config|get +select|0} {on #f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a ~foo* %R~bar resetchannels &ch* +@all -@dangerous +config|get -set}}
}

start_server {tags {acl}} {
  test {ACL LIST rebuilds command rules from the bitmap as Redis 7.0 does} {
    set failures {}
    foreach case $::describe_cases {
      lassign $case rules want
      r acl deluser u
      r acl setuser u {*}$rules
      set got [lsearch -inline [r acl list] {user u *}]
      if {[describe_parts $got] ne [describe_parts "user u $want"]} {
        lappend failures "rules '$rules': got '$got', want 'user u $want'"
      }
    }
    r acl deluser u
    join $failures "\n"
  } {}

  test {ACL GETUSER shows the same command rules as ACL LIST} {
    r acl setuser u reset +@all -@dangerous +flushall -set
    set line [lsearch -inline [r acl list] {user u *}]
    set cmds [dict get [r acl getuser u] commands]
    r acl deluser u
    string match "*resetchannels $cmds" $line
  } {1}

  test {A selector may be given as several arguments, joined up to the closing one} {
    r acl setuser u reset (+get {~b*)} ( +set )
    set line [lsearch -inline [r acl list] {user u *}]
    set errs {}
    foreach args {{(+get ~b*} {(+get foo)} {(+get) (~x} {)} {{(+get ~c)x}}} {
      catch {r acl setuser v {*}$args} e
      lappend errs $e
    }
    r acl deluser u v
    list $line {*}$errs
  } {{user u off sanitize-payload resetchannels -@all (~b* resetchannels -@all +get) (resetchannels -@all +set)} {ERR Unmatched parenthesis in acl selector starting at '(+get'.} {ERR Error in ACL SETUSER modifier '(+get foo)': Syntax error} {ERR Unmatched parenthesis in acl selector starting at '(~x'.} {ERR Error in ACL SETUSER modifier ')': Syntax error} {ERR Unmatched parenthesis in acl selector starting at '(+get ~c)x'.}}
}
