#include "net/connection.h"

#include <strings.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace net {

thread_local constinit bool t_io_thread = false;

void markIoThread() {
  t_io_thread = true;
}

void Connection::close() {
  if (close_pending_) return;
  read_handler_ = nullptr;
  write_handler_ = nullptr;
  if (refs_ > 0) {
    // Inside one of our own handlers: the transport may still touch the
    // object on the way out, so the real close happens in callHandler().
    close_pending_ = true;
    return;
  }
  doClose();
  delete this;
}

bool settingInt(const std::string& v, long long* out) {
  if (v.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long n = strtoll(v.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = n;
  return true;
}

bool settingYesNo(const std::string& v, bool* out) {
  if (strcasecmp(v.c_str(), "yes") == 0) {
    *out = true;
  } else if (strcasecmp(v.c_str(), "no") == 0) {
    *out = false;
  } else {
    return false;
  }
  return true;
}

std::vector<std::string> settingWords(const std::string& v) {
  std::vector<std::string> out;
  std::istringstream in(v);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string Connection::peerLabel() const {
  std::string peer = peerAddress();
  if (!peer.empty()) return peer;
  return std::string(type_->name()) + ":" + localAddress();
}

std::string Connection::doTransport() const {
  return type_->name();
}

bool Connection::callHandler(ConnHandler h) {
  if (h == nullptr) return true;
  refs_++;
  h(this);
  refs_--;
  if (refs_ == 0 && close_pending_) {
    doClose();
    delete this;
    return false;
  }
  return true;
}

}  // namespace net
