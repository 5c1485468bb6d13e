# ACL model test: random users (command, category, key and channel rules,
# selectors) are set with ACL SETUSER and then run random commands; a
# permission model written here says for each command whether it is
# allowed or which -NOPERM it gets, and the server must agree. The model's
# facts (categories, which keys a command reads or writes) are Redis 7.0's;
# the file passes against /usr/bin/redis-server too.

# command -> {categories key-perms arg-shape}; key perms: R (access), W
# (insert/delete/update), RW, or "" (the key is named but neither read nor
# written: only a matching pattern is needed).
set ::model_cmds {
  get     {{read string fast} R {k}}
  set     {{write string slow} W {k v}}
  exists  {{keyspace read fast} {} {k}}
  del     {{keyspace write slow} W {k}}
  incr    {{write string fast} RW {k}}
  lpush   {{write list fast} W {k v}}
  lrange  {{read list slow} R {k 0 -1}}
  mget    {{read string fast} R {k k}}
  append  {{write string fast} W {k v}}
  strlen  {{read string fast} {} {k}}
  hget    {{read hash fast} R {k f}}
  hset    {{write hash fast} W {k f v}}
  publish {{pubsub fast} {} {c v}}
  ping    {{fast connection} {} {}}
}
set ::model_cats {read write string list hash keyspace fast slow pubsub connection}
set ::model_keys {a1 a2 b1 b2 k1 zz}
set ::model_key_patterns {a* b* k1 *1 zz}
set ::model_channels {news sport n1 x}
set ::model_channel_patterns {news n* s* x}

proc model_pick {l} { lindex $l [expr {int(rand() * [llength $l])}] }

# A selector: dict with cmds (dict name -> 0/1), keys (list of {pattern
# perms}), allkeys, chans (list), allchans.
proc model_new_selector {} {
  set cmds {}
  foreach {name _} $::model_cmds { dict set cmds $name 0 }
  dict create cmds $cmds keys {} allkeys 0 chans {} allchans 0
}

# One random selector rule.
proc model_random_rule {} {
  set r [expr {rand()}]
  if {$r < 0.25} { return "[model_pick {+ -}][model_pick [dict keys $::model_cmds]]" }
  if {$r < 0.45} { return "[model_pick {+ -}]@[model_pick $::model_cats]" }
  if {$r < 0.5} { return [model_pick {allcommands nocommands}] }
  if {$r < 0.75} { return "[model_pick {~ %R~ %W~ %RW~}][model_pick $::model_key_patterns]" }
  if {$r < 0.8} { return [model_pick {allkeys resetkeys}] }
  if {$r < 0.95} { return "&[model_pick $::model_channel_patterns]" }
  return [model_pick {allchannels resetchannels}]
}

# Applies a rule to a selector model; returns {ok selector} or {err}.
proc model_apply {sel rule} {
  if {$rule eq "allcommands" || $rule eq "nocommands"} {
    set v [expr {$rule eq "allcommands"}]
    foreach name [dict keys [dict get $sel cmds]] { dict set sel cmds $name $v }
    return [list ok $sel]
  }
  if {$rule eq "allkeys"} { dict set sel allkeys 1; dict set sel keys {}; return [list ok $sel] }
  if {$rule eq "resetkeys"} { dict set sel allkeys 0; dict set sel keys {}; return [list ok $sel] }
  if {$rule eq "allchannels"} {
    dict set sel allchans 1; dict set sel chans {}; return [list ok $sel]
  }
  if {$rule eq "resetchannels"} {
    dict set sel allchans 0; dict set sel chans {}; return [list ok $sel]
  }
  set op [string index $rule 0]
  if {$op eq "+" || $op eq "-"} {
    set v [expr {$op eq "+"}]
    set what [string range $rule 1 end]
    if {[string index $what 0] eq "@"} {
      set cat [string range $what 1 end]
      foreach {name info} $::model_cmds {
        if {[lsearch [lindex $info 0] $cat] >= 0} { dict set sel cmds $name $v }
      }
    } else {
      dict set sel cmds $what $v
    }
    return [list ok $sel]
  }
  if {$op eq "~" || $op eq "%"} {
    if {[dict get $sel allkeys]} { return err }
    regexp {^%?([RW]*)~(.*)$} $rule -> perms pat
    if {$op eq "~" || $perms eq "RW"} { set perms RW }
    if {$pat eq "*" && $perms eq "RW"} {
      dict set sel allkeys 1
      dict set sel keys {}
      return [list ok $sel]
    }
    set keys [dict get $sel keys]
    set i [lsearch -index 0 -exact $keys $pat]
    if {$i >= 0} {
      set old [lindex $keys $i 1]
      set merged [expr {[string match *R* "$old$perms"] ? "R" : ""}][expr {[string match *W* "$old$perms"] ? "W" : ""}]
      lset keys $i [list $pat $merged]
    } else {
      lappend keys [list $pat $perms]
    }
    dict set sel keys $keys
    return [list ok $sel]
  }
  if {$op eq "&"} {
    if {[dict get $sel allchans]} { return err }
    set ch [string range $rule 1 end]
    if {[lsearch -exact [dict get $sel chans] $ch] < 0} { dict lappend sel chans $ch }
    return [list ok $sel]
  }
  error "model: unknown rule $rule"
}

# The denial one selector gives: "" (allowed), command, keys or channels.
proc model_check_selector {sel name args} {
  if {![dict get $sel cmds $name]} { return command }
  lassign [dict get $::model_cmds $name] cats need shape
  if {![dict get $sel allkeys]} {
    for {set i 0} {$i < [llength $shape]} {incr i} {
      if {[lindex $shape $i] ne "k"} continue
      set key [lindex $args $i]
      set ok 0
      foreach kp [dict get $sel keys] {
        lassign $kp pat perms
        set has 1
        foreach p [split $need ""] { if {[string first $p $perms] < 0} { set has 0 } }
        if {$has && [string match $pat $key]} { set ok 1; break }
      }
      if {!$ok} { return keys }
    }
  }
  if {$name eq "publish" && ![dict get $sel allchans]} {
    set ok 0
    foreach pat [dict get $sel chans] { if {[string match $pat [lindex $args 0]]} { set ok 1 } }
    if {!$ok} { return channels }
  }
  return ""
}

# Over every selector: allowed when one allows; else the denial that got
# furthest (command < keys < channels), as Redis reports it.
proc model_check {sels name args} {
  set rank {command 1 keys 2 channels 3}
  set worst ""
  foreach sel $sels {
    set d [model_check_selector $sel $name {*}$args]
    if {$d eq ""} { return "" }
    if {$worst eq "" || [dict get $rank $d] > [dict get $rank $worst]} { set worst $d }
  }
  return $worst
}

proc model_random_args {name} {
  set out {}
  foreach a [lindex [dict get $::model_cmds $name] 2] {
    switch -- $a {
      k { lappend out [model_pick $::model_keys] }
      c { lappend out [model_pick $::model_channels] }
      default { lappend out $a }
    }
  }
  return $out
}

start_server {tags {acl}} {
  test {ACL model: random rules allow and deny exactly as the model says} {
    expr {srand(4242)}
    set checked 0
    for {set u 0} {$u < 150} {incr u} {
      r acl setuser mdl reset on nopass
      set sels [list [model_new_selector]]
      # Root-selector rules, one SETUSER each: a rule the model refuses must
      # be refused by the server too.
      for {set i 0} {$i < 1 + int(rand() * 8)} {incr i} {
        set rule [model_random_rule]
        set res [model_apply [lindex $sels 0] $rule]
        set rc [catch {r acl setuser mdl $rule} err]
        if {[lindex $res 0] eq "err"} {
          assert_equal $rc 1 "server accepted '$rule' after [r acl getuser mdl]"
          assert_match {*Adding a pattern after the \* pattern*} $err
        } else {
          assert_equal $rc 0 "server refused '$rule': $err"
          lset sels 0 [lindex $res 1]
        }
      }
      # Sometimes a selector, given in one piece.
      if {rand() < 0.4} {
        set sel [model_new_selector]
        set words {}
        for {set i 0} {$i < 1 + int(rand() * 5)} {incr i} {
          set rule [model_random_rule]
          set res [model_apply $sel $rule]
          if {[lindex $res 0] eq "err"} continue
          set sel [lindex $res 1]
          lappend words $rule
        }
        r acl setuser mdl "([join $words " "])"
        lappend sels $sel
      }
      set c [redis_client]
      $c auth mdl x
      for {set j 0} {$j < 12} {incr j} {
        set name [model_pick [dict keys $::model_cmds]]
        set args [model_random_args $name]
        set want [model_check $sels $name {*}$args]
        set rc [catch {$c $name {*}$args} reply]
        set got ""
        if {$rc} {
          if {[string match "NOPERM*command" $reply]} { set got command }
          if {[string match "NOPERM*keys used as arguments" $reply]} { set got keys }
          if {[string match "NOPERM*channels used as arguments" $reply]} { set got channels }
        }
        if {$got ne $want} {
          fail "$name $args: model says '$want', server replied '$reply'; user: [r acl list]"
        }
        # DRYRUN agrees with the real call.
        set dry [r acl dryrun mdl $name {*}$args]
        assert_equal [expr {$dry eq "OK"}] [expr {$want eq ""}] "dryrun $name $args: $dry"
        incr checked
      }
      $c close
    }
    r acl deluser mdl
    set checked
  } {1800}
}
