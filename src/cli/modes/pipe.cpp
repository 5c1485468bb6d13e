// --pipe: mass insertion. Standard input (RESP or inline commands, as the
// user wrote it) streams to the server unparsed while replies are counted as
// they arrive; nothing waits per command. At end of input an ECHO of a random
// token is sent: its reply marks the last reply. Error replies go to stderr,
// then "errors: N, replies: M"; the exit status is 1 when N > 0.
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "cli/modes/modes.h"

namespace cli::modes {

namespace {

// Input is read in chunks of this size while less than kHighWater bytes wait
// to be written; above it the loop only writes and reads replies, so memory
// stays bounded whatever the input size and however slow the server.
constexpr size_t kChunk = 64 * 1024;
constexpr size_t kHighWater = 1024 * 1024;
constexpr size_t kTokenLen = 20;

struct PipeState {
  int64_t errors = 0;
  int64_t replies = 0;
  bool eof = false;
  bool done = false;  // the closing ECHO came back
  std::string token;
  time_t last_reply = 0;
};

void onReply(client::Client*, const resp::ReplySummary& r, void* data) {
  auto* st = static_cast<PipeState*>(data);
  st->last_reply = time(nullptr);
  if (st->eof && r.type == resp::ReplyType::kBulk && r.text == st->token) {
    st->done = true;
    return;
  }
  if (r.type == resp::ReplyType::kError) {
    fprintf(stderr, "%.*s\n", static_cast<int>(r.error.size()), r.error.data());
    st->errors++;
  }
  st->replies++;
}

std::string randomToken() {
  static const char kHex[] = "0123456789abcdef";
  std::random_device rd;
  std::mt19937_64 gen(rd());
  std::string t;
  for (size_t i = 0; i < kTokenLen; i++) t.push_back(kHex[gen() % 16]);
  return t;
}

}  // namespace

int pipeMode(Session* s) {
  client::Client& c = s->client();
  event::EventLoop* loop = c.loop();
  PipeState st;
  st.token = randomToken();
  st.last_reply = time(nullptr);
  c.setSkimHandler(onReply, &st);
  const int timeout = s->options().pipe_timeout_s;
  std::string chunk(kChunk, '\0');
  bool lost = false;

  while (!st.done) {
    if (!c.connected()) {
      lost = true;
      break;
    }
    if (!st.eof && c.pendingOutput() < kHighWater) {
      ssize_t n = read(STDIN_FILENO, chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        fprintf(stderr, "Error reading from stdin: %s\n", strerror(errno));
        return 1;
      }
      if (n > 0) {
        c.appendRaw(std::string_view(chunk.data(), static_cast<size_t>(n)));
      } else {
        // The closing ECHO: its reply is the last one.
        st.eof = true;
        c.append(std::vector<std::string>{"ECHO", st.token});
        st.last_reply = time(nullptr);
        printf("All data transferred. Waiting for the last reply...\n");
        fflush(stdout);
      }
      if (!c.flush()) {
        lost = true;
        break;
      }
      loop->processEvents(false);  // take whatever replies are already here
      continue;
    }
    // Waiting: for the output to drain, or for replies after end of input.
    event::TimerId t =
        loop->addTimer(100, [](event::EventLoop*, event::TimerId) { return event::kNoMore; });
    loop->processEvents(true);
    loop->deleteTimer(t);
    if (st.eof && !st.done && timeout > 0 && time(nullptr) - st.last_reply > timeout) {
      fprintf(stderr, "No replies for %d seconds: exiting.\n", timeout);
      st.errors++;
      break;
    }
  }
  c.setSkimHandler(nullptr, nullptr);
  if (lost) {
    fprintf(stderr, "Error writing to the server: %s\n", s->lastReason().c_str());
    return 1;
  }
  if (st.done) printf("Last reply received from server.\n");
  printf("errors: %lld, replies: %lld\n", static_cast<long long>(st.errors),
         static_cast<long long>(st.replies));
  return st.errors > 0 ? 1 : 0;
}

}  // namespace cli::modes
