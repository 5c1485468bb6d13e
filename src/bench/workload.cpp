#include "bench/workload.h"

#include <algorithm>

namespace bench {

std::string encodeCommand(const std::vector<std::string>& argv) {
  std::string out = "*" + std::to_string(argv.size()) + "\r\n";
  for (const auto& a : argv) {
    out += "$" + std::to_string(a.size()) + "\r\n";
    out += a;
    out += "\r\n";
  }
  return out;
}

namespace {

bool selected(const Options& opt, std::string_view name) {
  return std::find(opt.tests.begin(), opt.tests.end(), name) != opt.tests.end();
}

}  // namespace

std::vector<Test> selectTests(const Options& opt) {
  std::vector<Test> tests;
  if (!opt.command.empty()) {
    std::string title;
    // The -x argument (stdin, often long or multi-line) stays out of the title.
    size_t shown = opt.command.size() - (opt.stdin_last_arg ? 1 : 0);
    for (size_t i = 0; i < shown; i++) {
      const std::string& a = opt.command[i];
      if (!title.empty()) title += ' ';
      title += a;
    }
    tests.push_back({title, encodeCommand(opt.command)});
    return tests;
  }
  // With no -t every test runs, in redis-benchmark's order.
  auto want = [&](std::string_view name, std::string_view group = {}) {
    return opt.tests.empty() || selected(opt, name) || (!group.empty() && selected(opt, group));
  };
  const std::string data(static_cast<size_t>(opt.data_size), 'x');
  const std::string score = opt.keyspace > 0 ? "__rand_int__" : "0";
  // In cluster mode every key names the slot its client's master serves.
  const std::string tag = opt.cluster ? std::string(":") + std::string(kTagPlaceholder) : "";
  const std::string key = "key" + tag + ":__rand_int__";
  const std::string counter = "counter" + tag + ":__rand_int__";
  const std::string mylist = "mylist" + tag, myset = "myset" + tag, myhash = "myhash" + tag,
                    myzset = "myzset" + tag;

  if (want("ping_inline", "ping")) tests.push_back({"PING_INLINE", "PING\r\n"});
  if (want("ping_mbulk", "ping")) tests.push_back({"PING_MBULK", encodeCommand({"PING"})});
  if (want("set")) tests.push_back({"SET", encodeCommand({"SET", key, data})});
  if (want("get")) tests.push_back({"GET", encodeCommand({"GET", key})});
  if (want("incr")) {
    tests.push_back({"INCR", encodeCommand({"INCR", counter})});
  }
  if (want("lpush")) tests.push_back({"LPUSH", encodeCommand({"LPUSH", mylist, data})});
  if (want("rpush")) tests.push_back({"RPUSH", encodeCommand({"RPUSH", mylist, data})});
  if (want("lpop")) tests.push_back({"LPOP", encodeCommand({"LPOP", mylist})});
  if (want("rpop")) tests.push_back({"RPOP", encodeCommand({"RPOP", mylist})});
  if (want("sadd")) {
    tests.push_back({"SADD", encodeCommand({"SADD", myset, "element:__rand_int__"})});
  }
  if (want("hset")) {
    tests.push_back({"HSET", encodeCommand({"HSET", myhash, "element:__rand_int__", data})});
  }
  if (want("spop")) tests.push_back({"SPOP", encodeCommand({"SPOP", myset})});
  if (want("zadd")) {
    tests.push_back({"ZADD", encodeCommand({"ZADD", myzset, score, "element:__rand_int__"})});
  }
  if (want("zpopmin")) tests.push_back({"ZPOPMIN", encodeCommand({"ZPOPMIN", myzset})});
  static constexpr int kRanges[] = {100, 300, 500, 600};
  bool any_range = false;
  for (int r : kRanges) any_range = any_range || want("lrange_" + std::to_string(r), "lrange");
  if (any_range) {
    tests.push_back({"LPUSH (needed to benchmark LRANGE)", encodeCommand({"LPUSH", mylist, data})});
    for (int r : kRanges) {
      std::string id = "lrange_" + std::to_string(r);
      if (!want(id, "lrange")) continue;
      tests.push_back(
          {"LRANGE_" + std::to_string(r) + " (first " + std::to_string(r) + " elements)",
           encodeCommand({"LRANGE", mylist, "0", std::to_string(r - 1)})});
    }
  }
  if (want("mset")) {
    std::vector<std::string> argv = {"MSET"};
    for (int k = 0; k < 10; k++) {
      argv.push_back(key);
      argv.push_back(data);
    }
    tests.push_back({"MSET (10 keys)", encodeCommand(argv)});
  }
  return tests;
}

RequestBuffer::RequestBuffer(const std::string& request, int copies)
    : request_size_(request.size()) {
  bytes_.reserve(request.size() * static_cast<size_t>(copies));
  std::vector<size_t> one, tags;
  for (size_t pos = request.find(kRandPlaceholder); pos != std::string::npos;
       pos = request.find(kRandPlaceholder, pos + kRandDigits)) {
    one.push_back(pos);
  }
  for (size_t pos = request.find(kTagPlaceholder); pos != std::string::npos;
       pos = request.find(kTagPlaceholder, pos + kTagPlaceholder.size())) {
    tags.push_back(pos + 1);  // the bytes after '{'
  }
  for (int c = 0; c < copies; c++) {
    for (size_t off : one) rand_offsets_.push_back(bytes_.size() + off);
    for (size_t off : tags) tag_offsets_.push_back(bytes_.size() + off);
    bytes_ += request;
  }
}

void RequestBuffer::setTag(std::string_view tag3) {
  for (size_t off : tag_offsets_) bytes_.replace(off, 3, tag3.substr(0, 3));
}

std::string_view RequestBuffer::prepare(int n, long long keyspace, Random* rng) {
  size_t len = request_size_ * static_cast<size_t>(n);
  if (keyspace > 0) {
    for (size_t off : rand_offsets_) {
      if (off >= len) break;
      uint64_t v = rng->next() % static_cast<uint64_t>(keyspace);
      // Zero-padded, written right to left; the keyspace is < 10^12 in
      // practice, larger values keep their low 12 digits.
      for (size_t d = kRandDigits; d-- > 0;) {
        bytes_[off + d] = static_cast<char>('0' + v % 10);
        v /= 10;
      }
    }
  }
  return std::string_view(bytes_.data(), len);
}

}  // namespace bench
