#include "cli/session.h"

#include <signal.h>
#include <strings.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "client/cluster.h"
#include "event/event_loop.h"

namespace cli {

using resp::Reply;
using resp::ReplyType;

namespace {

bool eq(const std::string& a, const char* b) {
  return strcasecmp(a.c_str(), b) == 0;
}

// Commands whose bulk text is meant for humans as is: redis-cli prints it
// raw even in formatted mode.
bool printsRaw(const std::vector<std::string>& a) {
  size_t n = a.size();
  if (n == 0) return false;
  if (eq(a[0], "info") || eq(a[0], "lolwut")) return true;
  if (n >= 2 && eq(a[0], "debug") && (eq(a[1], "htstats") || eq(a[1], "htstats-key"))) {
    return true;
  }
  if (n >= 2 && eq(a[0], "memory") && (eq(a[1], "malloc-stats") || eq(a[1], "doctor"))) {
    return true;
  }
  if (n == 2 && eq(a[0], "cluster") && (eq(a[1], "nodes") || eq(a[1], "info"))) return true;
  if (n >= 2 && eq(a[0], "client") && eq(a[1], "list")) return true;
  if (n == 3 && eq(a[0], "latency") && eq(a[1], "graph")) return true;
  if (n == 2 && eq(a[0], "latency") && eq(a[1], "doctor")) return true;
  return false;
}

volatile sig_atomic_t g_interrupted = 0;

void onInterrupt(int) {
  g_interrupted = 1;
}

// How often a stream started from the prompt looks for Ctrl-C.
constexpr int kInterruptPollMs = 100;

bool isInvalidation(const Reply& push) {
  return push.elements.size() == 2 && push.elements[0].type == ReplyType::kBulk &&
         push.elements[0].str == "invalidate" && push.elements[1].type == ReplyType::kArray;
}

}  // namespace

Session::Session(Options* opt) : opt_(opt), type_(opt->endpoint.type) {
  installPushHandler();
}

void Session::installPushHandler() {
  client_.setPushHandler([this](Reply&& push) {
    bool show = opt_->show_pushes.value_or(interactive_);
    if (!show) return;
    if (opt_->format.mode == OutputMode::kStandard && isInvalidation(push)) {
      // Client-side caching news, shown the way redis-cli shows it.
      std::string line = "-> invalidate: ";
      const Reply& keys = push.elements[1];
      for (size_t i = 0; i < keys.elements.size(); i++) {
        if (i > 0) line += ", ";
        line += "'" + keys.elements[i].str + "'";
      }
      printf("%s\n", line.c_str());
      return;
    }
    printReply(push, false);
  });
}

std::string Session::lastReason() const {
  const std::string& e = client_.lastError();
  size_t pos = e.rfind(": ");
  return pos == std::string::npos ? e : e.substr(pos + 2);
}

bool Session::connect(bool quiet, bool cluster_node) {
  in_multi_ = false;
  installPushHandler();
  // A redirection's target may have no RDMA endpoint (see connectNode).
  bool ok = cluster_node ? client::connectNode(&client_, &opt_->endpoint, 0)
                         : client_.connect(opt_->endpoint, 0);
  if (!ok) {
    if (!quiet) {
      fprintf(stderr, "Could not connect to Redis at %s: %s\n",
              client::describe(opt_->endpoint).c_str(), lastReason().c_str());
    }
    return false;
  }
  return handshake();
}

bool Session::handshake() {
  Reply r;
  if (opt_->auth) {
    std::vector<std::string> argv = {"AUTH"};
    if (opt_->user) argv.push_back(*opt_->user);
    argv.push_back(*opt_->auth);
    if (!client_.call(argv, &r)) return false;
    if (r.isError()) fprintf(stderr, "AUTH failed: %s\n", r.str.c_str());
  }
  if (opt_->db != 0) {
    if (!client_.call({"SELECT", std::to_string(opt_->db)}, &r)) return false;
    if (r.isError()) fprintf(stderr, "SELECT %d failed: %s\n", opt_->db, r.str.c_str());
  }
  if (opt_->resp_set) {
    if (!client_.call({"HELLO", std::to_string(opt_->resp)}, &r)) return false;
    if (r.isError()) fprintf(stderr, "HELLO %d failed: %s\n", opt_->resp, r.str.c_str());
  }
  return true;
}

bool Session::query(const std::vector<std::string>& argv, Reply* reply) {
  return client_.connected() && client_.call(argv, reply);
}

std::string Session::prompt() const {
  if (!client_.connected()) return "not connected> ";
  std::string p;
  if (opt_->endpoint.type == "unix") {
    p = "redis " + opt_->endpoint.path;
  } else {
    p = client::describe(opt_->endpoint);
  }
  if (opt_->db != 0) p += "[" + std::to_string(opt_->db) + "]";
  if (in_multi_) p += "(TX)";
  return p + "> ";
}

void Session::printReply(const Reply& r, bool force_raw) {
  std::string out;
  if (force_raw && r.type == ReplyType::kBulk) {
    out = r.str;
  } else if (force_raw) {
    out = formatRaw(r, opt_->format);
  } else {
    out = formatReply(r, opt_->format);
  }
  fwrite(out.data(), 1, out.size(), stdout);
}

Session::RunResult Session::streamReplies(bool pubsub, bool force_raw, int64_t start_ms) {
  if (pubsub && opt_->format.mode != OutputMode::kRaw) {
    printf("Reading messages... (press Ctrl-C to quit)\n");
  }
  fflush(stdout);
  // Subscribe confirmations and messages are RESP3 pushes: here they are
  // the output itself, not out-of-band news.
  client_.setPushHandler(nullptr);
  // From the prompt, Ctrl-C ends the stream rather than the program (as
  // redis-cli); elsewhere SIGINT keeps its default action.
  struct sigaction old_action;
  if (in_repl_) {
    struct sigaction sa = {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    g_interrupted = 0;
    sigaction(SIGINT, &sa, &old_action);
  }
  RunResult result = RunResult::kOk;
  for (;;) {
    if (in_repl_ && g_interrupted) break;
    Reply r;
    if (!client_.readReply(&r, in_repl_ ? kInterruptPollMs : 0)) {
      if (client_.connected()) continue;  // only the poll interval passed
      result = RunResult::kConnectionLost;
      break;
    }
    printReply(r, force_raw);
    fflush(stdout);
    if (r.isError()) {
      result = RunResult::kErrorReply;
      break;
    }
  }
  if (!in_repl_) return result;
  sigaction(SIGINT, &old_action, nullptr);
  if (g_interrupted) {
    // The connection is still subscribed or monitoring: start a new one
    // (same db, user and protocol) for the next command.
    g_interrupted = 0;
    int64_t elapsed = event::EventLoop::nowMs() - start_ms;
    if (elapsed >= 500 && opt_->format.mode == OutputMode::kStandard) {
      printf("(%.2fs)\n", static_cast<double>(elapsed) / 1000);
    }
    connect();
    return RunResult::kOk;
  }
  installPushHandler();
  return result;
}

Session::RunResult Session::callFollowing(const std::vector<std::string>& argv, Reply* r) {
  for (;;) {
    if (!client_.call(argv, r)) return RunResult::kConnectionLost;
    client::Redirect to;
    if (!opt_->cluster || !r->isError() || !client::parseRedirect(r->str, &to)) {
      return RunResult::kOk;
    }
    // Announced at the prompt only (piped commands too), as redis-cli does.
    if (in_repl_) {
      printf("-> Redirected to slot [%d] located at %s:%d\n", to.slot, to.host.c_str(), to.port);
    }
    opt_->endpoint.type = type_;
    opt_->endpoint.host = to.host;
    opt_->endpoint.port = to.port;
    if (!connect(false, true)) return RunResult::kRedirectFailed;
    if (to.ask) {
      Reply asking;
      // Failing, redis-cli adds its "Error: <connection error>" line, empty
      // when the connection itself is fine.
      if (!client_.call({"ASKING"}, &asking)) {
        fprintf(stderr, "\nI/O error\nError: %s\n", lastReason().c_str());
        return RunResult::kRedirectFailed;
      }
      if (asking.isError()) {
        fprintf(stderr, "ASKING failed: %s\nError: \n", asking.str.c_str());
        return RunResult::kRedirectFailed;
      }
    }
  }
}

Session::RunResult Session::run(const std::vector<std::string>& argv, int64_t repeat) {
  if (argv.empty()) return RunResult::kOk;
  const std::string& name = argv[0];
  bool force_raw = printsRaw(argv);
  bool pubsub = eq(name, "subscribe") || eq(name, "psubscribe") || eq(name, "ssubscribe");
  bool monitor = eq(name, "monitor");
  RunResult result = RunResult::kOk;
  for (int64_t i = 0; repeat < 0 || i < repeat; i++) {
    if (!client_.connected()) return RunResult::kConnectionLost;
    if (pubsub || monitor) {
      client_.append(argv);
      if (!client_.flush()) return RunResult::kConnectionLost;
      return streamReplies(pubsub, force_raw, event::EventLoop::nowMs());
    }
    int64_t start = event::EventLoop::nowMs();
    Reply r;
    if (RunResult sent = callFollowing(argv, &r); sent != RunResult::kOk) {
      // A server that shut down as asked closes without a reply: that is
      // SHUTDOWN's success, and redis-cli says nothing of it.
      if (sent == RunResult::kConnectionLost && eq(name, "shutdown") && !client_.connected()) {
        return RunResult::kOk;
      }
      return sent;
    }
    int64_t elapsed = event::EventLoop::nowMs() - start;
    if (r.isError()) {
      result = RunResult::kErrorReply;
      if (opt_->exit_on_error) {
        fprintf(stderr, "%s\n", r.str.c_str());
        return result;
      }
    }
    printReply(r, force_raw);
    if (!r.isError()) {
      if (eq(name, "select") && argv.size() == 2) {
        opt_->db = atoi(argv[1].c_str());
      } else if (eq(name, "multi")) {
        in_multi_ = true;
      } else if (eq(name, "exec") || eq(name, "discard")) {
        in_multi_ = false;
      } else if (eq(name, "hello") && argv.size() >= 2) {
        opt_->resp = atoi(argv[1].c_str());
        opt_->resp_set = true;
      } else if (eq(name, "auth") && (argv.size() == 2 || argv.size() == 3)) {
        opt_->auth = argv.back();
        opt_->user.reset();
        if (argv.size() == 3) opt_->user = argv[1];
      }
    } else if (eq(name, "exec")) {
      in_multi_ = false;
    }
    // Slow commands show their time at the prompt (piped lines too, as in
    // redis-cli), never in one-shot mode.
    if (in_repl_ && elapsed >= 500 && opt_->format.mode == OutputMode::kStandard) {
      printf("(%.2fs)\n", static_cast<double>(elapsed) / 1000);
    }
    fflush(stdout);
    if (opt_->interval_us > 0 && (repeat < 0 || i + 1 < repeat)) {
      usleep(static_cast<useconds_t>(opt_->interval_us));
    }
  }
  return result;
}

}  // namespace cli
