# Typed replies for tests that must see RESP types, not only values
# (scripting conversions, RESP3): the reply as a tree of {type value}.
#
#   typed_reply $c eval {return {1,'a'}} 0   ->  {array {{int 1} {bulk a}}}
#
# Types are named after the RESP type bytes: int (:), bulk ($), status (+),
# err (-), double (,), bool (#), big (lparen), null (_), verbatim (=), and
# the aggregates array (*), set (~), map (%; it lists key, value, key,
# value...), push (>). Null bulks and arrays are {bulk -1} and
# {array -1}; errors do not raise.

array set ::typed_names {
  : int $ bulk + status - err , double # bool ( big _ null = verbatim
  * array ~ set % map > push
}

proc typed_read {c line} {
  set t [string index $line 0]
  set rest [string range $line 1 end]
  set name $::typed_names($t)
  switch -exact -- $t {
    * - ~ - % - > {
      if {$rest < 0} { return [list $name -1] }
      set n [expr {$t eq "%" ? 2 * $rest : $rest}]
      set out {}
      for {set i 0} {$i < $n} {incr i} { lappend out [typed_read $c [$c read]] }
      return [list $name $out]
    }
    $ - = {
      if {$rest < 0} { return [list $name -1] }
      return [list $name [$c read]]
    }
    default { return [list $name $rest] }
  }
}

proc typed_reply {c args} {
  $c readraw 1
  set failed [catch {typed_read $c [$c {*}$args]} v]
  $c readraw 0
  if {$failed} { error $v }
  return $v
}
