# oom-score-adj: the server and its background-save child take the values
# of oom-score-adj-values (master, replica, background child), as Redis.

start_server {tags {oom-score-adj external:skip} overrides {oom-score-adj absolute oom-score-adj-values {10 200 800} rdb-key-save-delay 200000}} {
  test {The server and its BGSAVE child get their oom_score_adj} {
    for {set i 0} {$i < 20} {incr i} { r set k$i v }
    set main [string trim [read_file /proc/[srv pid]/oom_score_adj]]
    r bgsave
    set child ""
    wait_for_condition 200 50 {
      [set child [lindex [split [exec ps -o pid= --ppid [srv pid]] "\n"] 0]] ne ""
    } {
      fail "no BGSAVE child"
    }
    set child_adj [string trim [read_file /proc/[string trim $child]/oom_score_adj]]
    catch {exec kill -9 [string trim $child]}
    list $main $child_adj
  } {10 800}
}

start_server {tags {oom-score-adj external:skip} overrides {oom-score-adj absolute oom-score-adj-values {10 200 800}}} {
  test {REPLICAOF moves the server into the replica class and back} {
    set adj {}
    lappend adj [string trim [read_file /proc/[srv pid]/oom_score_adj]]
    # Port 1: nothing answers there, the server stays a replica all the same.
    r replicaof 127.0.0.1 1
    lappend adj [string trim [read_file /proc/[srv pid]/oom_score_adj]]
    # A new value of the current class applies at once.
    r config set oom-score-adj-values {10 300 800}
    lappend adj [string trim [read_file /proc/[srv pid]/oom_score_adj]]
    r replicaof no one
    lappend adj [string trim [read_file /proc/[srv pid]/oom_score_adj]]
  } {10 200 300 10}
}

start_server {tags {oom-score-adj external:skip} overrides {oom-score-adj absolute oom-score-adj-values {10 200 800} replicaof {127.0.0.1 1}}} {
  test {A server started as a replica starts in the replica class} {
    string trim [read_file /proc/[srv pid]/oom_score_adj]
  } {200}
}
