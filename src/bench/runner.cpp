#include "bench/runner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "client/client.h"
#include "event/event_loop.h"

namespace bench {

namespace {

constexpr int kProgressIntervalMs = 250;
// How often a worker loop looks whether another one hit a fatal error.
constexpr int kFailCheckIntervalMs = 50;

// State shared by every thread of one test.
struct Shared {
  const Options* opt = nullptr;
  ClusterMap* cluster = nullptr;  // --cluster
  Prelude prelude;
  std::atomic<long long> issued{0};    // requests claimed by some client
  std::atomic<long long> finished{0};  // replies received
  std::atomic<uint64_t> latency_sum_us{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<int64_t> last_error_print_s{0};
  std::atomic<bool> failed{false};
  std::mutex fail_mu;
  std::string fail_msg;

  void fail(const std::string& msg) {
    std::lock_guard<std::mutex> lock(fail_mu);
    if (failed.load()) return;
    fail_msg = msg;
    failed.store(true);
  }
};

class Worker;

// One connection and its pipeline in flight.
class BenchClient {
 public:
  // node: the master it talks to in cluster mode (ignored otherwise).
  BenchClient(Worker* w, const std::string& request, size_t node);
  void start() { connect(); }
  void shutdown() { closing_ = true; }

 private:
  static void onReply(client::Client* c, const resp::ReplySummary& r, void* data);
  void connect();
  void issue();
  void batchDone();
  void finish();
  // Cluster mode: what an error reply means; false when it ends the test.
  bool clusterError(std::string_view err);

  Worker* w_;
  client::Client cli_;
  RequestBuffer buf_;
  size_t node_;
  client::Endpoint endpoint_;
  uint64_t map_version_ = 0;  // the slot map's version when the batch was sent
  int prelude_pending_ = 0;
  int pending_ = 0;
  int batch_ = 0;
  int64_t start_us_ = 0;
  uint64_t batch_latency_us_ = 0;
  bool closing_ = false;
  bool connected_ = false;  // the current connection attempt succeeded
  bool done_ = false;
};

// One event loop with its share of the clients.
class Worker {
 public:
  // first_client: the index of its first client among all of them; index:
  // this worker's (thread's) number. Both place clients on masters.
  Worker(Shared* shared, int nclients, const std::string& request, uint64_t seed, int first_client,
         int index, int nworkers)
      : shared_(shared), rng_(seed) {
    client::installLoopHooks(&loop_);
    loop_.setBusyPoll(shared->opt->busy_poll_us);
    for (int i = 0; i < nclients; i++) {
      size_t node = 0;
      if (ClusterMap* cm = shared->cluster) {
        // As redis-benchmark: by thread when there are threads enough for
        // every master, else client by client.
        size_t n = cm->size();
        node = static_cast<size_t>(nworkers) >= n ? static_cast<size_t>(index) % n
                                                  : static_cast<size_t>(first_client + i) % n;
      }
      clients_.push_back(std::make_unique<BenchClient>(this, request, node));
    }
  }
  ~Worker() {
    for (auto& c : clients_) c->shutdown();
  }

  // Runs until every client is done or a fatal error stops the test.
  void run() {
    active_ = static_cast<int>(clients_.size());
    loop_.addTimer(kFailCheckIntervalMs, [this](event::EventLoop* loop, event::TimerId) {
      if (shared_->failed.load()) loop->stop();
      return kFailCheckIntervalMs;
    });
    for (auto& c : clients_) c->start();
    if (active_ > 0 && !shared_->failed.load()) loop_.run();
  }

  event::EventLoop* loop() { return &loop_; }
  Shared* shared() { return shared_; }
  Histogram* histogram() { return &hist_; }
  Random* rng() { return &rng_; }
  void clientDone() {
    if (--active_ == 0) loop_.stop();
  }
  void fail(const std::string& msg) {
    shared_->fail(msg);
    loop_.stop();
  }

 private:
  Shared* shared_;
  event::EventLoop loop_;
  Histogram hist_;
  Random rng_;
  std::vector<std::unique_ptr<BenchClient>> clients_;
  int active_ = 0;
};

BenchClient::BenchClient(Worker* w, const std::string& request, size_t node)
    : w_(w),
      cli_(w->loop()),
      buf_(request, w->shared()->opt->pipeline),
      node_(node),
      endpoint_(w->shared()->cluster ? w->shared()->cluster->endpoint(node)
                                     : w->shared()->opt->endpoint) {
  cli_.setSkimHandler(onReply, this);
  cli_.setDisconnectHandler([this]() {
    // Before the connect callback, a failure is reported there instead.
    if (closing_ || done_ || !connected_) return;
    w_->fail("Error: " + cli_.lastError());
  });
}

void BenchClient::connect() {
  cli_.close();  // with -k 0, the previous connection (closing_ is still set)
  closing_ = false;
  connected_ = false;
  cli_.connectAsync(endpoint_, [this](bool ok) {
    connected_ = ok;
    if (!ok) {
      w_->fail("Could not connect to Redis at " + client::describe(cli_.endpoint()) + ": " +
               cli_.lastError());
      return;
    }
    const Prelude& p = w_->shared()->prelude;
    if (p.replies > 0) {
      cli_.appendRaw(p.bytes);
      prelude_pending_ = p.replies;
    }
    issue();
  });
}

void BenchClient::issue() {
  Shared* s = w_->shared();
  const Options& opt = *s->opt;
  long long first = s->issued.fetch_add(opt.pipeline, std::memory_order_relaxed);
  if (first >= opt.requests) {
    finish();
    return;
  }
  batch_ = static_cast<int>(std::min<long long>(opt.pipeline, opt.requests - first));
  pending_ = batch_;
  batch_latency_us_ = 0;
  if (s->cluster && buf_.hasTags()) {
    map_version_ = s->cluster->version();
    buf_.setTag(s->cluster->tagBytes(node_));
  }
  cli_.appendRaw(buf_.prepare(batch_, opt.keyspace, w_->rng()));
  start_us_ = event::EventLoop::nowUs();
  if (!cli_.flush()) w_->fail("Error: " + cli_.lastError());
}

void BenchClient::finish() {
  if (done_) return;
  done_ = true;
  if (!w_->shared()->opt->keepalive) cli_.close();
  w_->clientDone();
}

void BenchClient::onReply(client::Client*, const resp::ReplySummary& r, void* data) {
  auto* self = static_cast<BenchClient*>(data);
  Shared* s = self->w_->shared();
  bool is_error = r.type == resp::ReplyType::kError;
  if (self->prelude_pending_ > 0) {
    self->prelude_pending_--;
    if (is_error) {
      self->w_->fail("Node " + client::describe(self->cli_.endpoint()) + " replied with error:\n" +
                     std::string(r.error));
    }
    return;
  }
  if (self->pending_ == 0) return;  // nothing of ours in flight: ignore
  if (is_error && s->cluster != nullptr) {
    s->errors.fetch_add(1, std::memory_order_relaxed);
    if (!self->clusterError(r.error)) return;
  } else if (is_error) {
    s->errors.fetch_add(1, std::memory_order_relaxed);
    // At most one message per second, like redis-benchmark -e.
    int64_t now_s = event::EventLoop::nowMs() / 1000;
    int64_t last = s->last_error_print_s.load();
    if (s->opt->show_errors && last != now_s &&
        s->last_error_print_s.compare_exchange_strong(last, now_s)) {
      fprintf(stderr, "Error from server: %.*s\n", static_cast<int>(r.error.size()),
              r.error.data());
    }
  }
  int64_t lat = event::EventLoop::nowUs() - self->start_us_;
  lat = std::max<int64_t>(lat, 0);
  self->w_->histogram()->record(static_cast<uint64_t>(lat));
  self->batch_latency_us_ += static_cast<uint64_t>(lat);
  if (--self->pending_ == 0) self->batchDone();
}

bool BenchClient::clusterError(std::string_view err) {
  Shared* s = w_->shared();
  std::string where = client::describe(endpoint_);
  // Redirections and a cluster that is down only mean the slot map moved:
  // read it again (after a second for CLUSTERDOWN) and go on. Anything else,
  // or keys without a tag, would measure the wrong thing: stop.
  bool moved = err.substr(0, 5) == "MOVED" || err.substr(0, 3) == "ASK";
  bool down = err.substr(0, 11) == "CLUSTERDOWN";
  if (buf_.hasTags() && (moved || down)) {
    if (down) {
      fprintf(stderr, "Error from server %s: %.*s.\n", where.c_str(), static_cast<int>(err.size()),
              err.data());
      sleep(1);
    }
    if (s->cluster->refresh(*s->opt, map_version_)) return true;
    w_->fail("");
    return false;
  }
  w_->fail("Error from server " + where + ": " + std::string(err));
  return false;
}

void BenchClient::batchDone() {
  Shared* s = w_->shared();
  s->finished.fetch_add(batch_, std::memory_order_relaxed);
  s->latency_sum_us.fetch_add(batch_latency_us_, std::memory_order_relaxed);
  if (s->opt->keepalive) {
    issue();
    return;
  }
  // -k 0: a new connection per pipeline. Reconnect from a timer, not from
  // inside this read handler, which still runs on the old connection.
  closing_ = true;
  w_->loop()->addTimer(0, [this](event::EventLoop*, event::TimerId) {
    if (w_->shared()->issued.load() >= w_->shared()->opt->requests) {
      finish();
    } else {
      connect();
    }
    return event::kNoMore;
  });
}

// Redraws "TITLE: rps=... (overall: ...) avg_msec=... (overall: ...)".
class Progress {
 public:
  Progress(const Shared* s, const std::string& title, int64_t start_us)
      : s_(s), title_(title), start_us_(start_us), last_us_(start_us) {}

  void tick() {
    int64_t now = event::EventLoop::nowUs();
    long long done = s_->finished.load();
    uint64_t sum = s_->latency_sum_us.load();
    double dt = static_cast<double>(now - last_us_) / 1e6;
    double all_dt = static_cast<double>(now - start_us_) / 1e6;
    long long d_done = done - last_done_;
    double rps = dt > 0 ? static_cast<double>(d_done) / dt : 0;
    double overall = all_dt > 0 ? static_cast<double>(done) / all_dt : 0;
    double avg = d_done > 0 ? static_cast<double>(sum - last_sum_) / d_done / 1000.0 : 0;
    double avg_all = done > 0 ? static_cast<double>(sum) / done / 1000.0 : 0;
    clear();
    width_ = printf("%s: rps=%.1f (overall: %.1f) avg_msec=%.3f (overall: %.3f)", title_.c_str(),
                    rps, overall, avg, avg_all);
    printf("\r");
    fflush(stdout);
    last_us_ = now;
    last_done_ = done;
    last_sum_ = sum;
  }
  // Blanks the line so the report starts on a clean one.
  void clear() {
    if (width_ <= 0) return;
    printf("\r%*s\r", width_, "");
    width_ = 0;
    fflush(stdout);
  }

 private:
  const Shared* s_;
  std::string title_;
  int64_t start_us_;
  int64_t last_us_;
  long long last_done_ = 0;
  uint64_t last_sum_ = 0;
  int width_ = 0;
};

}  // namespace

Prelude buildPrelude(const Options& opt) {
  Prelude p;
  if (opt.resp3) {
    p.bytes += encodeCommand({"HELLO", "3"});
    p.replies++;
  }
  if (opt.auth) {
    std::vector<std::string> argv = {"AUTH"};
    if (opt.user) argv.push_back(*opt.user);
    argv.push_back(*opt.auth);
    p.bytes += encodeCommand(argv);
    p.replies++;
  }
  if (opt.dbnum != 0 && !opt.cluster) {  // a cluster has db 0 only
    p.bytes += encodeCommand({"SELECT", std::to_string(opt.dbnum)});
    p.replies++;
  }
  if (opt.tracking) {
    p.bytes += encodeCommand({"CLIENT", "TRACKING", "ON"});
    p.replies++;
  }
  return p;
}

bool runTest(const Options& opt, const Test& test, TestResult* result, ClusterMap* cluster) {
  Shared shared;
  shared.opt = &opt;
  shared.cluster = cluster;
  shared.prelude = buildPrelude(opt);
  int nthreads = std::max(opt.threads, 1);
  bool show_progress = !opt.csv;

  std::vector<std::unique_ptr<Worker>> workers;
  uint64_t seed =
      static_cast<uint64_t>(event::EventLoop::nowUs()) ^ (static_cast<uint64_t>(getpid()) << 32);
  int first_client = 0;
  for (int t = 0; t < nthreads; t++) {
    int n = opt.clients / nthreads + (t < opt.clients % nthreads ? 1 : 0);
    workers.push_back(std::make_unique<Worker>(&shared, n, test.request, seed + t * 7919,
                                               first_client, t, nthreads));
    first_client += n;
  }

  int64_t start_us = event::EventLoop::nowUs();
  Progress progress(&shared, test.title, start_us);
  if (opt.threads == 0) {
    // Everything on one loop in this thread; the progress line is a timer.
    if (show_progress) {
      workers[0]->loop()->addTimer(kProgressIntervalMs, [&](event::EventLoop*, event::TimerId) {
        progress.tick();
        return kProgressIntervalMs;
      });
    }
    workers[0]->run();
  } else {
    std::mutex mu;
    std::condition_variable cv;
    int running = nthreads;
    std::vector<std::thread> threads;
    for (auto& w : workers) {
      threads.emplace_back([&, wp = w.get()]() {
        wp->run();
        std::lock_guard<std::mutex> lock(mu);
        running--;
        cv.notify_all();
      });
    }
    std::unique_lock<std::mutex> lock(mu);
    while (running > 0) {
      if (!cv.wait_for(lock, std::chrono::milliseconds(kProgressIntervalMs),
                       [&] { return running == 0; }) &&
          show_progress) {
        progress.tick();
      }
    }
    lock.unlock();
    for (auto& t : threads) t.join();
  }
  int64_t end_us = event::EventLoop::nowUs();
  progress.clear();

  if (shared.failed.load()) {
    if (!shared.fail_msg.empty()) fprintf(stderr, "%s\n", shared.fail_msg.c_str());
    return false;
  }
  result->title = test.title;
  result->requests = shared.finished.load();
  result->seconds = static_cast<double>(end_us - start_us) / 1e6;
  result->errors = shared.errors.load();
  result->latency_us.reset();
  for (auto& w : workers) result->latency_us.merge(*w->histogram());
  return true;
}

}  // namespace bench
