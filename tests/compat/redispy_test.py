"""Compatibility check with Debian's redis-py (RESP2), over TCP and unix socket.

Usage: /usr/bin/python3 redispy_test.py HOST PORT UNIX_SOCKET_PATH
Prints one line per check, "[ok] name" or "[err] name: detail"; exits 1 if
any check failed.
"""
import sys

import redis

failures = 0


def check(name, got, want):
    global failures
    if got == want:
        print(f"[ok] {name}")
    else:
        failures += 1
        print(f"[err] {name}: got {got!r}, want {want!r}")


def check_true(name, cond, detail):
    if cond:
        print(f"[ok] {name}")
    else:
        report_fail(name, detail)


def report_fail(name, detail):
    global failures
    failures += 1
    print(f"[err] {name}: {detail}")


def run_suite(r, transport):
    def name(s):
        return f"{transport}: {s}"

    check(name("ping"), r.ping(), True)
    r.delete("a", "b", "n", "e", "f", "nokey")
    check(name("set"), r.set("a", b"\x00\xffbin"), True)
    check(name("get binary"), r.get("a"), b"\x00\xffbin")
    check(name("get missing"), r.get("nokey"), None)
    check(name("set nx on existing"), r.set("a", "x", nx=True), None)
    check(name("mset"), r.mset({"b": "2", "n": "10"}), True)
    check(name("mget"), r.mget("a", "nokey", "b"), [b"\x00\xffbin", None, b"2"])
    check(name("incr"), r.incr("n"), 11)
    check(name("incrby"), r.incrby("n", 5), 16)
    r.set("f", "1.25")
    check(name("incrbyfloat"), r.incrbyfloat("f", 0.5), 1.75)

    r.set("e", "v")
    check(name("expire"), r.expire("e", 100), True)
    ttl = r.ttl("e")
    check_true(name("ttl"), 90 < ttl <= 100, f"ttl {ttl}")
    check(name("ttl missing"), r.ttl("nokey"), -2)
    check(name("set ex"), r.set("e", "v", ex=50), True)
    check_true(name("pttl"), 45000 < r.pttl("e") <= 50000, f"pttl {r.pttl('e')}")

    try:
        r.execute_command("NOSUCHCMD")
        report_fail(name("unknown command raises"), "no exception")
    except redis.ResponseError as exc:
        check(name("unknown command raises"),
              str(exc).startswith("unknown command 'NOSUCHCMD'"), True)

    # scan_iter over a few hundred keys returns each of them.
    pipe = r.pipeline(transaction=False)
    for i in range(300):
        pipe.set(f"scan:{transport}:{i}", i)
    results = pipe.execute()
    check(name("pipeline of 300 sets"), results, [True] * 300)
    seen = set(r.scan_iter(match=f"scan:{transport}:*", count=25))
    check(name("scan_iter"), len(seen), 300)

    pipe = r.pipeline(transaction=False)
    pipe.get(f"scan:{transport}:7").incr("n").get("nokey")
    check(name("pipeline mixed"), pipe.execute(), [b"7", 17, None])

    info = r.info()
    check_true(name("info"), "redis_version" in info and "connected_clients" in info,
               f"keys {sorted(info)[:10]}")
    check(name("info keyspace"), r.info("keyspace")["db0"]["keys"], r.dbsize())

    r.client_setname(f"py-{transport}")
    clients = r.client_list()
    names = [c.get("name") for c in clients]
    check_true(name("client_list"), f"py-{transport}" in names, f"names {names}")

    check(name("config_get"), r.config_get("maxclients"), {"maxclients": "10000"})
    check_true(name("config_get glob"), "maxmemory" in r.config_get("max*"), "no maxmemory")

    r.delete(*[f"scan:{transport}:{i}" for i in range(300)])

    # Scripts the way libraries use them: register_script runs EVALSHA and
    # falls back to EVAL (and SCRIPT LOAD) on NOSCRIPT.
    r.script_flush()
    limiter = r.register_script(
        "local n = redis.call('incr', KEYS[1]) "
        "if n == 1 then redis.call('expire', KEYS[1], ARGV[1]) end "
        "return n")
    r.delete(f"rate:{transport}")
    check(name("register_script first call"), limiter(keys=[f"rate:{transport}"], args=[60]), 1)
    check(name("register_script cached"), limiter(keys=[f"rate:{transport}"], args=[60]), 2)
    check(name("register_script sha cached"), r.script_exists(limiter.sha), [True])
    check_true(name("register_script expire"), 0 < r.ttl(f"rate:{transport}") <= 60,
               f"ttl {r.ttl(f'rate:{transport}')}")
    pipe = r.pipeline()
    limiter(keys=[f"rate:{transport}"], args=[60], client=pipe)
    pipe.get(f"rate:{transport}")
    check(name("register_script in a pipeline"), pipe.execute(), [3, b"3"])
    check(name("eval table"), r.eval("return {1, 'two', {3}}", 0), [1, b"two", [3]])
    try:
        r.eval("return redis.call('nosuch')", 0)
        report_fail(name("eval error"), "no error raised")
    except redis.exceptions.ResponseError as exc:
        check_true(name("eval error"), "Unknown Redis command called from script" in str(exc),
                   str(exc))
    r.function_load("#!lua name=pylib\nredis.register_function('pyf', "
                    "function(keys, args) return args[1] end)", replace=True)
    check(name("fcall"), r.fcall("pyf", 0, "arg"), b"arg")
    check(name("function_list"), r.function_list(library="pylib")[0][1], b"pylib")


def run_acl(admin, transport, kwargs):
    """ACL through redis-py's API: a user with a password and key pattern,
    a client that authenticates with username=, NOPERM as
    NoPermissionError, a wrong password refused with WRONGPASS, ACL LOG."""
    def name(s):
        return f"{transport}: acl {s}"

    user = f"py-{transport}"
    check(name("setuser"),
          admin.acl_setuser(user, enabled=True, reset=True, passwords=["+s3cret"],
                            commands=["+get", "+set", "+acl|whoami", "+ping"], keys=["app:*"]),
          True)
    check_true(name("list"), any(line.startswith(f"user {user} on ") and " #" in line for line in
                                 (x.decode() if isinstance(x, bytes) else x
                                  for x in admin.acl_list())), "user missing in ACL LIST")
    app = redis.Redis(username=user, password="s3cret", socket_timeout=10, **kwargs)
    check(name("whoami"), app.acl_whoami(), user)
    check(name("set allowed key"), app.set("app:1", "v"), True)
    check(name("get allowed key"), app.get("app:1"), b"v")
    for what, call in (("key", lambda: app.set("other", "x")),
                       ("command", lambda: app.delete("app:1"))):
        try:
            call()
            report_fail(name(f"denied {what}"), "no exception")
        except redis.exceptions.NoPermissionError as exc:
            check_true(name(f"denied {what}"), "no permissions" in str(exc), str(exc))
    app.close()
    bad = redis.Redis(username=user, password="wrong", socket_timeout=10, **kwargs)
    try:
        bad.ping()
        report_fail(name("wrong password"), "no exception")
    except redis.ResponseError as exc:  # redis-py 4.3 raises the server's error as is
        check(name("wrong password"), str(exc),
              "WRONGPASS invalid username-password pair or user is disabled.")
    bad.close()
    log = admin.acl_log()
    reasons = {e.get("reason") for e in log}
    check_true(name("log"), {"key", "command", "auth"} <= reasons, f"reasons {reasons}")
    admin.acl_log_reset()
    check(name("deluser"), admin.acl_deluser(user), 1)
    admin.delete("app:1")


def main():
    host, port, sock = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    for transport, kwargs in (("tcp", {"host": host, "port": port}),
                              ("unix", {"unix_socket_path": sock})):
        try:
            client = redis.Redis(socket_timeout=10, **kwargs)
            run_suite(client, transport)
            run_acl(client, transport, kwargs)
            client.close()
        except Exception as exc:  # A crash of the suite is one failure.
            report_fail(f"{transport}: suite", f"{type(exc).__name__}: {exc}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
