#include "net/connection.h"

namespace net {

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
