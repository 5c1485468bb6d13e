# Geo commands: points stored as 52-bit geohash scores of a sorted set,
# distances on Redis's sphere, the reply shapes of each WITH* option in
# RESP2 and RESP3, STORE/STOREDIST, COUNT/ANY, the argument errors with
# Redis 7.0's texts, and a randomized check of radius and box membership
# against a haversine written here in Tcl. Expected values come from
# Debian's Redis 7.0.15 (tests/compat/geo_compat_test.py compares whole
# replies with it at random).

source [file join $::support_dir repl_stream.tcl]

# Distance in metres on the sphere Redis uses (radius 6372797.560856 m).
proc geo_haversine {lon1 lat1 lon2 lat2} {
  set k [expr {acos(-1) / 180.0}]
  set u [expr {sin(($lat2 - $lat1) * $k / 2)}]
  set v [expr {sin(($lon2 - $lon1) * $k / 2)}]
  expr {2.0 * 6372797.560856 * asin(sqrt($u * $u + cos($lat1 * $k) * cos($lat2 * $k) * $v * $v))}
}

start_server {tags {geo}} {
  proc load_paris {} {
    r del g
    r geoadd g 2.2945 48.8584 eiffel 2.3376 48.8606 louvre 2.3499 48.8530 notredame \
        -0.1276 51.5072 london 12.4964 41.9028 rome
  }

  test {GEOADD stores each point as the sorted-set score of its 52-bit geohash} {
    load_paris
    assert_equal [r zcard g] 5
    assert_equal [r type g] zset
    r zscore g eiffel
  } {3663832614297766}

  test {GEOADD NX, XX and CH decide what is added, updated and counted} {
    load_paris
    assert_equal [r geoadd g nx 0 0 eiffel 1 1 newcomer] 1
    assert_equal [r zscore g eiffel] 3663832614297766
    assert_equal [r geoadd g xx 3 3 newcomer 4 4 ghost] 0
    assert_equal [r zscore g ghost] {}
    assert_equal [r geoadd g xx ch 5 5 newcomer] 1
    assert_equal [r geoadd g ch 5 5 newcomer 6 6 another] 1
  }

  test {GEOADD refuses bad coordinates, option mixes and argument counts} {
    assert_error {ERR invalid longitude,latitude pair 200.000000,10.000000} {r geoadd g 200 10 x}
    assert_error {ERR invalid longitude,latitude pair 10.000000,86.000000} {r geoadd g 10 86 x}
    assert_error {ERR value is not a valid float} {r geoadd g abc 10 x}
    assert_error {ERR syntax error} {r geoadd g nx xx 1 1 x}
    assert_error {ERR syntax error} {r geoadd g 1 1 x 2}
    assert_error {ERR syntax error} {r geoadd g gt 1 1 x}
    r set str v
    assert_error {WRONGTYPE*} {r geoadd str 1 1 x}
  }

  test {GEODIST in each unit, with four decimals} {
    load_paris
    assert_equal [r geodist g eiffel louvre] 3163.6189
    assert_equal [r geodist g eiffel london km] 341.3607
    assert_equal [r geodist g eiffel rome MI] 689.0606
    assert_equal [r geodist g eiffel eiffel] 0.0000
    assert_equal [r geodist g eiffel nobody] {}
    assert_equal [r geodist nokey a b] {}
    assert_error {ERR unsupported unit provided. please use M, KM, FT, MI} {r geodist g eiffel rome yd}
    assert_error {ERR syntax error} {r geodist g eiffel rome km extra}
  }

  test {GEOHASH gives 11-character standard geohashes, null for missing members} {
    load_paris
    r geohash g eiffel london rome nobody
  } {u09tunquc90 gcpvj0e54w0 sr2ykk5te00 {}}

  test {GEOPOS gives the centre of the stored cell, a null array for missing members} {
    load_paris
    assert_equal [r geopos g eiffel nobody] {{2.29449838399887085 48.85839918237243751} {}}
    assert_equal [r geopos nokey a] {{}}
  }

  test {GEORADIUS unsorted, sorted and with each WITH option} {
    load_paris
    assert_equal [lsort [r georadius g 2.3 48.86 5 km]] {eiffel louvre notredame}
    assert_equal [r georadius g 2.3 48.86 5 km asc] {eiffel louvre notredame}
    assert_equal [r georadius g 2.3 48.86 5 km desc] {notredame louvre eiffel}
    assert_equal [r georadius g 2.3 48.86 5 km asc withdist] \
        {{eiffel 0.4402} {louvre 2.7523} {notredame 3.7340}}
    assert_equal [r georadius g 2.3 48.86 1 km withhash withcoord] \
        {{eiffel 3663832614297766 {2.29449838399887085 48.85839918237243751}}}
  }

  test {COUNT keeps the nearest (ascending unless told), ANY stops at the first found} {
    load_paris
    assert_equal [r georadius g 2.3 48.86 2000 km count 2] {eiffel louvre}
    assert_equal [r georadius g 2.3 48.86 2000 km count 2 desc] {rome london}
    assert_equal [llength [r georadius g 2.3 48.86 2000 km count 3 any]] 3
    assert_error {ERR COUNT must be > 0} {r georadius g 2.3 48.86 5 km count 0}
    assert_error {ERR the ANY argument requires COUNT argument} {r georadius g 2.3 48.86 5 km any}
  }

  test {GEORADIUSBYMEMBER and the _RO forms; an unknown member is an error} {
    load_paris
    assert_equal [r georadiusbymember g louvre 3 km asc] {louvre notredame}
    assert_equal [r georadiusbymember_ro g louvre 3 km asc] {louvre notredame}
    assert_equal [r georadius_ro g 2.3 48.86 1 km] {eiffel}
    assert_error {ERR could not decode requested zset member} {r georadiusbymember g nobody 3 km}
    assert_error {ERR syntax error} {r georadius_ro g 2.3 48.86 1 km store dst}
    assert_error {ERR syntax error} {r georadiusbymember_ro g louvre 1 km storedist dst}
    # A missing key answers an empty array before the radius is looked at.
    assert_equal [r georadiusbymember nokey m notanumber km] {}
  }

  test {GEOSEARCH by radius and by box, from a member or a point} {
    load_paris
    assert_equal [r geosearch g frommember eiffel bybox 2000 1000 km desc withdist] \
        {{london 341.3607} {notredame 4.0988} {louvre 3.1636} {eiffel 0.0000}}
    assert_equal [r geosearch g fromlonlat 2.3 48.86 byradius 5 km asc] {eiffel louvre notredame}
    # The box is 2 km high: notredame (0.6 km south) is in, a point 1.5 km north is not.
    r geoadd g 2.2945 48.8719 north
    assert_equal [r geosearch g frommember eiffel bybox 10 2 km asc] {eiffel louvre notredame}
  }

  test {GEOSEARCH argument errors} {
    load_paris
    assert_error {ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geosearch} \
        {r geosearch g byradius 1 km asc withdist}
    assert_error {ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH} \
        {r GEOSEARCH g frommember eiffel asc withdist withhash}
    assert_error {ERR syntax error} {r geosearch g frommember eiffel fromlonlat 1 1 byradius 1 km}
    assert_error {ERR syntax error} {r geosearch g frommember eiffel byradius 1 km bybox 1 1 km}
    assert_error {ERR syntax error} {r geosearch g frommember eiffel byradius 1 km store dst}
    assert_error {ERR need numeric radius} {r geosearch g frommember eiffel byradius x km}
    assert_error {ERR radius cannot be negative} {r geosearch g frommember eiffel byradius -1 km}
    assert_error {ERR need numeric width} {r geosearch g frommember eiffel bybox x 1 km}
    assert_error {ERR height or width cannot be negative} {r geosearch g frommember eiffel bybox 1 -1 km}
    assert_error {ERR could not decode requested zset member} {r geosearch g frommember x byradius 1 km}
    assert_equal [r geosearch nokey frommember x byradius 1 km] {}
  }

  test {STORE keeps geohash scores, STOREDIST distances in the unit; empty results delete} {
    load_paris
    assert_equal [r georadius g 2.3 48.86 5 km store dst] 3
    assert_equal [r zscore dst eiffel] [r zscore g eiffel]
    assert_equal [r georadius g 2.3 48.86 5 km count 1 storedist dst] 1
    assert_equal [r zrange dst 0 -1 withscores] {eiffel 0.44020832330521148}
    assert_equal [r geosearchstore dst g frommember louvre byradius 3 km storedist] 2
    assert_equal [r zrange dst 0 -1] {louvre notredame}
    assert_equal [r object encoding dst] listpack
    assert_equal [r georadius g 100 10 1 km store dst] 0
    assert_equal [r exists dst] 0
    r set dst x
    assert_equal [r geosearchstore dst nokey fromlonlat 0 0 byradius 1 km] 0
    assert_equal [r exists dst] 0
    assert_error {ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options} \
        {r georadius g 2.3 48.86 5 km withdist store dst}
    assert_error {ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options} \
        {r geosearchstore dst g frommember louvre byradius 3 km withcoord}
  }

  test {RESP3: coordinates are doubles, distances stay bulk strings} {
    load_paris
    r hello 3
    set got [r geosearch g fromlonlat 2.3 48.86 byradius 1 km withcoord withdist]
    set pos [r geopos g eiffel nobody]
    r hello 2
    assert_equal $got {{eiffel 0.4402 {2.29449838399887085 48.85839918237243751}}}
    assert_equal $pos {{2.29449838399887085 48.85839918237243751} {}}
  }

  test {COMMAND GETKEYS finds the STORE targets of GEORADIUS; ACL category geo} {
    assert_equal [r command getkeys georadius src 1 2 3 km store a storedist b] {src a b}
    assert_equal [r command getkeys georadiusbymember src m 3 km store a] {src a}
    assert_equal [r command getkeys geosearchstore dst src fromlonlat 0 0 byradius 1 km] {dst src}
    assert_equal [lsort [r acl cat geo]] \
        {geoadd geodist geohash geopos georadius georadius_ro georadiusbymember georadiusbymember_ro geosearch geosearchstore}
  }

  test {Random point clouds: radius and box results match a haversine computed here} {
    for {set round 0} {$round < 20} {incr round} {
      r del cloud
      set clon [expr {rand() * 340 - 170}]
      set clat [expr {rand() * 150 - 75}]
      set spread [lindex {0.01 0.3 3} [expr {$round % 3}]]
      set args {}
      for {set i 0} {$i < 200} {incr i} {
        lappend args [expr {$clon + (rand() * 2 - 1) * $spread}] \
            [expr {$clat + (rand() * 2 - 1) * $spread}] p$i
      }
      r geoadd cloud {*}$args
      set radius [expr {$spread * 60000}]
      set want {}
      set margin {}
      foreach {member pos} [r geosearch cloud fromlonlat 0 0 byradius 30000 km withcoord] {}
      foreach member [r zrange cloud 0 -1] pos [r geopos cloud {*}[r zrange cloud 0 -1]] {
        set d [geo_haversine $clon $clat {*}$pos]
        # Points within a metre of the circle may round either way.
        if {abs($d - $radius) < 1} { lappend margin $member; continue }
        if {$d <= $radius} { lappend want $member }
      }
      set got {}
      foreach m [r georadius cloud $clon $clat $radius m] {
        if {$m ni $margin} { lappend got $m }
      }
      assert_equal [lsort $want] [lsort $got]
    }
  }
}

start_server {tags {geo propagation external:skip}} {
  test {GEOADD reaches replicas as ZADD with the scores; GEORADIUS STORE as sent} {
    if {![repl_stream_supported]} { return }
    set s [repl_stream_open]
    r geoadd g ch 2.2945 48.8584 eiffel
    r georadius g 2.3 48.86 5 km store dst
    r georadius g 2.3 48.86 5 km
    set got [repl_stream_take $s]
    repl_stream_close $s
    assert_equal $got {{SELECT 0} {zadd g ch 3663832614297766 eiffel} {georadius g 2.3 48.86 5 km store dst}}
  }
}
