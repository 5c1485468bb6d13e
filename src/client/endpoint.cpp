#include "client/endpoint.h"

#include <cstring>

#include "net/registry.h"

namespace client {

namespace {

// --rdma-<setting> flags and the names the rdma type's configure() takes.
struct SettingFlag {
  const char* flag;
  const char* setting;
};
constexpr SettingFlag kRdmaFlags[] = {
    {"--rdma-dialect", "dialect"},
    {"--rdma-keepalive-interval", "keepalive-interval"},
};

}  // namespace

EndpointOptions::Match EndpointOptions::take(int argc, char** argv, int* i) {
  const char* a = argv[*i];
  bool has_value = *i + 1 < argc;
  if (strcmp(a, "--rdma") == 0) {
    rdma_ = true;
    return Match::kTaken;
  }
  if (strcmp(a, "-s") == 0) {
    if (!has_value) return Match::kMissingValue;
    path_ = argv[++*i];
    return Match::kTaken;
  }
  for (const SettingFlag& f : kRdmaFlags) {
    if (strcmp(a, f.flag) != 0) continue;
    if (!has_value) return Match::kMissingValue;
    rdma_settings_.emplace_back(f.setting, argv[++*i]);
    return Match::kTaken;
  }
  return Match::kNo;
}

bool EndpointOptions::finish(const char* program, Endpoint* ep, std::string* err) const {
  if (!path_.empty()) {
    ep->path = path_;
    ep->type = "unix";
  }
  if (rdma_) {
    if (!path_.empty()) {
      *err = "Options --rdma and -s cannot be used together.";
      return false;
    }
    ep->type = "rdma";
  }
  if (!rdma_) {
    if (rdma_settings_.empty()) return true;
    *err = "Option --rdma-" + rdma_settings_.front().first + " needs --rdma.";
    return false;
  }
  net::ConnectionType* t = net::findType("rdma");
  if (t == nullptr) {
    *err = std::string("RDMA support is not compiled in this ") + program;
    return false;
  }
  for (const auto& [name, value] : rdma_settings_) {
    std::string why;
    if (!t->configure(name.c_str(), value.c_str(), &why)) {
      *err = "Invalid --rdma-" + name + ": " + why;
      return false;
    }
  }
  return true;
}

}  // namespace client
