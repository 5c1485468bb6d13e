/* Compatibility check with Debian's hiredis (0.14): real commands over TCP
 * and over the unix socket, every reply checked for type and value.
 *
 * Usage: hiredis_test HOST PORT UNIX_SOCKET_PATH
 * Prints one line per check, "[ok] name" or "[err] name: detail", and exits
 * non-zero if any check failed. hiredis 0.14 predates RESP3, so HELLO 3 is
 * not exercised; HELLO 2 is. */
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void report(int ok, const char* name, const char* fmt, ...) {
  if (ok) {
    printf("[ok] %s\n", name);
    return;
  }
  failures++;
  printf("[err] %s: ", name);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

/* Checks that reply has the given type and, for strings/status/errors, the
 * exact bytes; frees the reply. */
static void expect_str(redisReply* r, int type, const char* want, size_t want_len,
                       const char* name) {
  if (r == NULL) {
    report(0, name, "no reply (connection error)");
    return;
  }
  int ok = r->type == type && (size_t)r->len == want_len && memcmp(r->str, want, want_len) == 0;
  report(ok, name, "type %d len %zu '%.*s'", r->type, (size_t)r->len, (int)r->len,
         r->str ? r->str : "");
  freeReplyObject(r);
}

static void expect_int(redisReply* r, long long want, const char* name) {
  if (r == NULL) {
    report(0, name, "no reply (connection error)");
    return;
  }
  report(r->type == REDIS_REPLY_INTEGER && r->integer == want, name, "type %d value %lld", r->type,
         r->integer);
  freeReplyObject(r);
}

static void expect_nil(redisReply* r, const char* name) {
  if (r == NULL) {
    report(0, name, "no reply (connection error)");
    return;
  }
  report(r->type == REDIS_REPLY_NIL, name, "type %d", r->type);
  freeReplyObject(r);
}

static void run_suite(redisContext* c, const char* transport) {
  char name[128];
#define NAME(s) (snprintf(name, sizeof(name), "%s: %s", transport, s), name)
  redisReply* r;

  expect_str(redisCommand(c, "PING"), REDIS_REPLY_STATUS, "PONG", 4, NAME("PING"));
  freeReplyObject(redisCommand(c, "DEL bin counter l1 l2 nokey ex"));

  /* Binary-safe SET/GET through %b. */
  char bin[256];
  for (int i = 0; i < 256; i++) bin[i] = (char)i;
  expect_str(redisCommand(c, "SET bin %b", bin, sizeof(bin)), REDIS_REPLY_STATUS, "OK", 2,
             NAME("SET binary"));
  expect_str(redisCommand(c, "GET bin"), REDIS_REPLY_STRING, bin, sizeof(bin), NAME("GET binary"));
  expect_int(redisCommand(c, "STRLEN bin"), 256, NAME("STRLEN"));

  expect_int(redisCommand(c, "INCR counter"), 1, NAME("INCR"));
  expect_int(redisCommand(c, "INCRBY counter %d", 41), 42, NAME("INCRBY"));
  expect_nil(redisCommand(c, "GET nokey"), NAME("GET missing is nil"));

  /* MGET: an array mixing strings and nil. */
  r = redisCommand(c, "MGET counter nokey bin");
  int ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
           r->element[0]->type == REDIS_REPLY_STRING && strcmp(r->element[0]->str, "42") == 0 &&
           r->element[1]->type == REDIS_REPLY_NIL && r->element[2]->len == 256;
  report(ok, NAME("MGET"), "unexpected reply shape");
  if (r) freeReplyObject(r);

  /* Errors come back as error replies and leave the connection usable. */
  r = redisCommand(c, "NOSUCHCOMMAND x");
  ok = r && r->type == REDIS_REPLY_ERROR &&
       strncmp(r->str, "ERR unknown command 'NOSUCHCOMMAND'", 35) == 0;
  report(ok, NAME("unknown command error"), "'%s'", r && r->str ? r->str : "(null)");
  if (r) freeReplyObject(r);
  expect_str(redisCommand(c, "GET"), REDIS_REPLY_ERROR,
             "ERR wrong number of arguments for 'get' command", 47, NAME("arity error"));
  expect_str(redisCommand(c, "SET bin x"), REDIS_REPLY_STATUS, "OK", 2,
             NAME("usable after errors"));

  /* EXPIRE / TTL. */
  freeReplyObject(redisCommand(c, "SET ex v"));
  expect_int(redisCommand(c, "EXPIRE ex 100"), 1, NAME("EXPIRE"));
  r = redisCommand(c, "TTL ex");
  report(r && r->type == REDIS_REPLY_INTEGER && r->integer > 90 && r->integer <= 100, NAME("TTL"),
         "value %lld", r ? r->integer : -99);
  if (r) freeReplyObject(r);
  expect_int(redisCommand(c, "TTL nokey"), -2, NAME("TTL missing"));

  /* Pipelining: many appended commands, replies read in order. */
  const int n = 1000;
  for (int i = 0; i < n; i++) redisAppendCommand(c, "INCR pipe:%s", transport);
  redisAppendCommand(c, "GET pipe:%s", transport);
  ok = 1;
  for (int i = 1; i <= n; i++) {
    if (redisGetReply(c, (void**)&r) != REDIS_OK) {
      ok = 0;
      break;
    }
    if (r->type != REDIS_REPLY_INTEGER) ok = 0;
    freeReplyObject(r);
  }
  report(ok, NAME("pipelined INCR x1000"), "bad reply in pipeline");
  if (ok && redisGetReply(c, (void**)&r) == REDIS_OK) {
    char want[16];
    snprintf(want, sizeof(want), "%d", n);
    /* The counter may have a previous run's value if the DB was not
     * flushed; run.sh starts a fresh server, so it must be exactly n. */
    expect_str(r, REDIS_REPLY_STRING, want, strlen(want), NAME("pipelined GET"));
  }
  freeReplyObject(redisCommand(c, "DEL pipe:%s", transport));

  /* EVAL / EVALSHA / FCALL: a script's table comes back as nested arrays,
   * its errors as error replies. */
  r = redisCommand(c, "EVAL %s 1 %s %s", "redis.call('set', KEYS[1], ARGV[1]) "
                   "return {redis.call('get', KEYS[1]), 7, {'nested'}}", "evalkey", "v1");
  ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
       r->element[0]->type == REDIS_REPLY_STRING && strcmp(r->element[0]->str, "v1") == 0 &&
       r->element[1]->type == REDIS_REPLY_INTEGER && r->element[1]->integer == 7 &&
       r->element[2]->type == REDIS_REPLY_ARRAY && r->element[2]->elements == 1;
  report(ok, NAME("EVAL nested reply"), "unexpected reply shape");
  if (r) freeReplyObject(r);
  r = redisCommand(c, "SCRIPT LOAD %s", "return ARGV[1] .. '!'");
  ok = r && r->type == REDIS_REPLY_STRING && r->len == 40;
  report(ok, NAME("SCRIPT LOAD"), "no sha");
  if (ok) {
    char sha[41];
    memcpy(sha, r->str, 41);
    expect_str(redisCommand(c, "EVALSHA %s 0 %s", sha, "hi"), REDIS_REPLY_STRING, "hi!", 3,
               NAME("EVALSHA"));
  }
  if (r) freeReplyObject(r);
  r = redisCommand(c, "EVAL %s 0", "return redis.call('incr', 'bin')");
  ok = r && r->type == REDIS_REPLY_ERROR &&
       strncmp(r->str, "ERR value is not an integer or out of range script:", 51) == 0;
  report(ok, NAME("EVAL error reply"), "'%s'", r && r->str ? r->str : "(null)");
  if (r) freeReplyObject(r);
  freeReplyObject(redisCommand(c, "FUNCTION LOAD REPLACE %s",
                               "#!lua name=hiredislib\n"
                               "redis.register_function('hiredis_f', function(keys, args) "
                               "return #keys + #args end)"));
  expect_int(redisCommand(c, "FCALL hiredis_f 2 a b c"), 3, NAME("FCALL"));

  /* HELLO 2: a flat array of 14 elements starting with "server". */
  r = redisCommand(c, "HELLO 2");
  ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == 14 &&
       strcmp(r->element[0]->str, "server") == 0;
  report(ok, NAME("HELLO 2"), "unexpected reply");
  if (r) freeReplyObject(r);
#undef NAME
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s HOST PORT UNIX_SOCKET\n", argv[0]);
    return 2;
  }
  struct timeval tv = {10, 0};
  redisContext* tcp = redisConnectWithTimeout(argv[1], atoi(argv[2]), tv);
  if (tcp == NULL || tcp->err) {
    report(0, "tcp: connect", "%s", tcp ? tcp->errstr : "alloc failed");
  } else {
    redisSetTimeout(tcp, tv);
    report(1, "tcp: connect", "");
    run_suite(tcp, "tcp");
  }
  if (tcp) redisFree(tcp);

  redisContext* unix_ctx = redisConnectUnixWithTimeout(argv[3], tv);
  if (unix_ctx == NULL || unix_ctx->err) {
    report(0, "unix: connect", "%s", unix_ctx ? unix_ctx->errstr : "alloc failed");
  } else {
    redisSetTimeout(unix_ctx, tv);
    report(1, "unix: connect", "");
    run_suite(unix_ctx, "unix");
  }
  if (unix_ctx) redisFree(unix_ctx);
  return failures ? 1 : 0;
}
