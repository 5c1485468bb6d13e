// redis-server: parses the command line, loads the configuration and runs
// the event loop until shutdown.
#include <strings.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/log.h"
#include "server/core/version.h"
#include "server/process/proc_title.h"
#include "server/server.h"

namespace {

void usage() {
  fprintf(stderr,
          "Usage: ./redis-server [/path/to/redis.conf] [options] [-]\n"
          "       ./redis-server - (read config from stdin)\n"
          "       ./redis-server -v or --version\n"
          "       ./redis-server -h or --help\n\n"
          "Examples:\n"
          "       ./redis-server (run the server with default conf)\n"
          "       ./redis-server /etc/redis/6379.conf\n"
          "       ./redis-server --port 7777\n"
          "       ./redis-server --rdma-port 6379 --bind 10.0.0.1 --protected-mode no\n"
          "       ./redis-server /etc/myredis.conf --loglevel verbose\n");
}

}  // namespace

int main(int argc, char** argv) {
  // First: the title takes over the argument area (set-proc-title).
  server::process::initProcTitle(argc, argv);
  std::string config_file, extra;
  int i = 1;
  if (argc >= 2) {
    std::string first = argv[1];
    if (first == "-v" || first == "--version") {
      printf("Redis server v=%s sha=00000000:0 malloc=%s bits=64 build=rdma-redis\n",
             server::kRedisVersion,
#ifdef USE_JEMALLOC
             "jemalloc"
#else
             "libc"
#endif
      );
      return 0;
    }
    if (first == "-h" || first == "--help") {
      usage();
      return 0;
    }
    if (first[0] != '-' || first == "-") {
      config_file = first;
      i = 2;
    }
  }
  // "--name v1 v2 --other v" becomes the lines "name v1 v2" and "other v",
  // read after the file so they override it. As Redis 7.0 reads them: a
  // name takes the next argument as its value even when it starts with
  // "--" ("--port --loglevel" gives port the value "--loglevel"); an
  // argument with spaces after its name ("--maxmemory 700mb") is a whole
  // line; a bare "--save" last or before another option is save "" (no
  // save points).
  bool line_open = false;
  bool has_value = true;  // the open line has a value: a "--" starts another
  for (; i < argc; i++) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] == '-' && has_value) {
      if (line_open) extra += '\n';
      extra += a.substr(2);
      line_open = true;
      has_value = a.find(' ') != std::string::npos;
      bool next_is_option = i + 1 < argc && strncmp(argv[i + 1], "--", 2) == 0;
      if (strcasecmp(a.c_str(), "--save") == 0 && (i + 1 == argc || next_is_option)) {
        extra += " \"\"";
        has_value = true;
      }
    } else if (a == "-" && i == argc - 1 && config_file.empty()) {
      config_file = "-";
    } else {
      // Words before any "--name" make a line of their own ("loglevel
      // verbose" after the file reads as that line, as Redis takes it).
      if (line_open) extra += ' ';
      extra += server::quoteConfigValue(a, true);
      line_open = true;
      has_value = true;
    }
  }
  if (line_open) extra += '\n';

  server::Instance srv;
  srv.executable = argv[0];
  // Absolute, as INFO and CONFIG REWRITE need it after `dir` changes the
  // working directory.
  srv.config_file = config_file;
  if (!config_file.empty() && config_file != "-") {
    char* abs = realpath(config_file.c_str(), nullptr);
    if (abs != nullptr) {
      srv.config_file = abs;
      free(abs);
    }
  }
  std::string err;
  if (!server::loadConfig(&srv.config, config_file, extra, &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  if (!srv.start()) return 1;
  srv.run();
  // As Redis, the keyspace is left to the operating system on the way out:
  // freeing millions of keys one at a time only delays the exit. Held by a
  // static pointer, so that a leak checker sees it reachable; empty
  // databases take the places, for whatever the teardown looks up.
  static auto* kept = new std::vector<std::unique_ptr<server::db::Db>>();
  for (auto& d : srv.dbs) {
    int id = d->id();
    kept->push_back(std::move(d));
    d = std::make_unique<server::db::Db>(id);
  }
  return srv.shutdown_exit_code;
}
