#!/usr/bin/env bash
# The layering of src/: which includes run from a lower floor up to a higher
# one, files over 800 lines, files loose at the top of src/server/, and who
# includes the server-state header. Usage: utils/layering.sh [-q]
# (-q: the figures only, without the list of includes).
#
# Floors, lowest first. A file's floor is the one of the longest folder below
# that names it; a file may include from its own floor and any floor below.
# Folders on one floor are siblings (they may include each other).
#   0 common          status, logging, hashing, string utilities
#   1 event           the event loop
#   2 resp            RESP request parser, writer, reply buffer, reply parser
#   3 net             connection table, wrappers, registry (names no transport)
#   4 net/socket net/rdma net/tls       the connection types
#   5 client          the client library
#   6 cli bench       the two client programs (top of the client side)
# The server, above net (it never includes client/ cli/ bench/):
#   10 server/db server/geo  values, encodings, the keyspace of one database;
#                     geohash encoding (algorithms only)
#   11 server/conf    the options table, parsing, values, file and rewrite
#   12 server/core    server state, client, command table, key specs, reply helpers
#   13 server/process server/limits server/latency
#                     the process, file limits, latency figures
#   14 server/acl server/propagate server/pubsub
#                     permissions, write propagation, pub/sub, keyspace
#                     notifications, client-side caching
#   15 server/request client I/O, call, MULTI, blocking, pause, slowlog, monitor
#   16 server/evict server/persist server/script server/repl server/crash
#      server/cluster what runs commands or walks the whole state; MIGRATE
#   17 server/commands the command families
#   18 server         main, start-up and wiring, dispatch (the top)
# Tests (*_test.cpp) and tests/ are left out: a test may include anything.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PYEOF'
import os, re, sys
quiet = '-q' in sys.argv[1:]
floors = {
    'src/common': 0, 'src/event': 1, 'src/resp': 2, 'src/net': 3,
    'src/net/socket': 4, 'src/net/rdma': 4, 'src/net/tls': 4,
    'src/client': 5, 'src/cli': 6, 'src/bench': 6,
    'src/server/db': 10, 'src/server/geo': 10, 'src/server/conf': 11, 'src/server/core': 12,
    'src/server/process': 13, 'src/server/limits': 13, 'src/server/crash': 16,
    'src/server/latency': 13,
    'src/server/acl': 14, 'src/server/propagate': 14, 'src/server/pubsub': 14,
    'src/server/request': 15,
    'src/server/evict': 16, 'src/server/persist': 16, 'src/server/script': 16,
    'src/server/repl': 16, 'src/server/cluster': 16,
    'src/server/commands': 17, 'src/server': 18,
}
STATE = 'src/server/core/state.h'
if not os.path.exists(STATE):  # before the split of server.h
    STATE = 'src/server/server.h'
REQUEST = floors['src/server/request']

def floor_of(path):
    d = os.path.dirname(path)
    while d:
        if d in floors:
            return d, floors[d]
        d = os.path.dirname(d)
    return None, None

files = []
for root, _, names in os.walk('src'):
    for n in names:
        if n.endswith(('.cpp', '.h')) and not n.endswith('_test.cpp'):
            files.append(os.path.join(root, n))
files.sort()
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
up, state_users, long_files = [], [], []
for f in files:
    text = open(f, encoding='utf-8', errors='replace').read()
    lines = text.count('\n')
    if lines > 800:
        long_files.append((lines, f))
    mod, fl = floor_of(f)
    if fl is None:
        print(f'no floor for {f}: add its folder to utils/layering.sh', file=sys.stderr)
        sys.exit(2)
    for inc in inc_re.findall(text):
        target = 'src/' + inc
        if not os.path.exists(target):
            continue
        tmod, tfl = floor_of(target)
        if tfl is not None and tfl > fl:
            up.append((f, target, mod, tmod))
        if target == STATE and fl < REQUEST and os.path.dirname(f) != os.path.dirname(STATE):
            state_users.append(f)
loose = [n for n in os.listdir('src/server') if os.path.isfile(os.path.join('src/server', n))]
if not quiet:
    for f, t, m, tm in up:
        print(f'up: {f} -> {t}  ({m} -> {tm})')
    for n, f in sorted(long_files, reverse=True):
        print(f'long: {f} {n} lines')
    for f in state_users:
        print(f'state: {f} (below request/) includes {STATE}')
print(f'includes running up: {len(up)}')
print(f'files over 800 lines: {len(long_files)}')
print(f'files loose at the top of src/server: {len(loose)}')
print(f'modules below request/ including {STATE}: {len(state_users)}')
PYEOF
