#include "net/socket/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace net::sock {

static std::string sysError(const std::string& what) {
  return what + ": " + strerror(errno);
}

static std::string joinHostPort(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

int listenTcp(const std::string& addr_in, int port, int backlog, std::string* err) {
  std::string addr = addr_in;
  if (!addr.empty() && addr[0] == '-') addr.erase(0, 1);
  bool v6 = addr.find(':') != std::string::npos;
  const char* node = nullptr;
  if (addr == "*" || addr.empty()) {
    node = nullptr;
  } else if (addr == "::*") {
    node = "::";
  } else {
    node = addr.c_str();
  }
  struct addrinfo hints = {};
  hints.ai_family = v6 ? AF_INET6 : AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  struct addrinfo* res = nullptr;
  std::string portstr = std::to_string(port);
  int rc = getaddrinfo(node, portstr.c_str(), &hints, &res);
  if (rc != 0) {
    *err = "getaddrinfo(" + addr + "): " + gai_strerror(rc);
    errno = rc == EAI_SYSTEM ? errno : EINVAL;
    return -1;
  }
  int fd = -1;
  int failure = 0;  // the errno of the last failed step
  for (auto* p = res; p != nullptr; p = p->ai_next) {
    fd = socket(p->ai_family, p->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, p->ai_protocol);
    if (fd == -1) {
      failure = errno;
      *err = sysError("socket() for " + joinHostPort(addr, port));
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (p->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, p->ai_addr, p->ai_addrlen) == -1) {
      failure = errno;
      *err = sysError("bind(" + joinHostPort(addr.empty() ? "*" : addr, port) + ")");
      ::close(fd);
      fd = -1;
      continue;
    }
    if (::listen(fd, backlog) == -1) {
      failure = errno;
      *err = sysError("listen(" + joinHostPort(addr, port) + ")");
      ::close(fd);
      fd = -1;
      continue;
    }
    break;
  }
  freeaddrinfo(res);
  if (fd == -1) errno = failure != 0 ? failure : EADDRNOTAVAIL;
  return fd;
}

// A non-blocking AF_UNIX socket and the address for `path`; -1 with *err
// set when the path does not fit or socket() fails.
static int unixSocket(const std::string& path, struct sockaddr_un* sa, std::string* err) {
  *sa = {};
  if (path.size() >= sizeof(sa->sun_path)) {
    *err = "unix socket path too long: " + path;
    return -1;
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd == -1) {
    *err = sysError("socket(AF_UNIX)");
    return -1;
  }
  sa->sun_family = AF_UNIX;
  memcpy(sa->sun_path, path.data(), path.size());
  return fd;
}

int listenUnix(const std::string& path, unsigned perm, int backlog, std::string* err) {
  struct sockaddr_un sa;
  int fd = unixSocket(path, &sa, err);
  if (fd == -1) return -1;
  unlink(path.c_str());
  if (bind(fd, reinterpret_cast<struct sockaddr*>(&sa), sizeof(sa)) == -1) {
    *err = sysError("bind(" + path + ")");
    ::close(fd);
    return -1;
  }
  if (perm != 0 && chmod(path.c_str(), perm) == -1) {
    *err = sysError("chmod(" + path + ")");
    ::close(fd);
    return -1;
  }
  if (::listen(fd, backlog) == -1) {
    *err = sysError("listen(" + path + ")");
    ::close(fd);
    return -1;
  }
  return fd;
}

int accept(int lfd, std::string* err) {
  for (;;) {
    int fd = accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      err->clear();
    } else {
      int saved = errno;
      *err = sysError("accept4()");
      errno = saved;  // callers tell EMFILE and the like apart
    }
    return -1;
  }
}

int connectTcp(const std::string& host, int port, const std::string& source, std::string* err) {
  struct addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* res = nullptr;
  std::string portstr = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), portstr.c_str(), &hints, &res);
  if (rc != 0) {
    *err = "getaddrinfo(" + host + "): " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (auto* p = res; p != nullptr; p = p->ai_next) {
    fd = socket(p->ai_family, p->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, p->ai_protocol);
    if (fd == -1) {
      *err = sysError("socket()");
      continue;
    }
    if (!source.empty()) {
      struct addrinfo* src = nullptr;
      struct addrinfo shints = {};
      shints.ai_family = p->ai_family;
      shints.ai_socktype = SOCK_STREAM;
      if (getaddrinfo(source.c_str(), nullptr, &shints, &src) != 0 ||
          bind(fd, src->ai_addr, src->ai_addrlen) == -1) {
        *err = sysError("bind(" + source + ")");
        if (src) freeaddrinfo(src);
        ::close(fd);
        fd = -1;
        continue;
      }
      freeaddrinfo(src);
    }
    if (::connect(fd, p->ai_addr, p->ai_addrlen) == -1 && errno != EINPROGRESS) {
      *err = sysError("connect(" + joinHostPort(host, port) + ")");
      ::close(fd);
      fd = -1;
      continue;
    }
    break;
  }
  freeaddrinfo(res);
  return fd;
}

int connectUnix(const std::string& path, std::string* err) {
  struct sockaddr_un sa;
  int fd = unixSocket(path, &sa, err);
  if (fd == -1) return -1;
  if (::connect(fd, reinterpret_cast<struct sockaddr*>(&sa), sizeof(sa)) == -1 &&
      errno != EINPROGRESS && errno != EAGAIN) {
    *err = sysError("connect(" + path + ")");
    ::close(fd);
    return -1;
  }
  return fd;
}

int connectResult(int fd, std::string* err) {
  int soerr = 0;
  socklen_t len = sizeof(soerr);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1) soerr = errno;
  if (soerr == 0) return 0;
  errno = soerr;
  *err = sysError("connect()");
  return -1;
}

int setNoDelay(int fd, bool on) {
  int v = on ? 1 : 0;
  return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v));
}

int setKeepAlive(int fd, int interval_s) {
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) == -1) return -1;
  if (interval_s <= 0) return 0;
  int idle = interval_s;
  int intvl = interval_s / 3 > 0 ? interval_s / 3 : 1;
  int cnt = 3;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
  return 0;
}

std::string formatAddress(int fd, bool peer) {
  struct sockaddr_storage ss = {};
  socklen_t len = sizeof(ss);
  auto* sa = reinterpret_cast<struct sockaddr*>(&ss);
  int rc = peer ? getpeername(fd, sa, &len) : getsockname(fd, sa, &len);
  if (rc == -1) return "";
  char ip[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    auto* s = reinterpret_cast<struct sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(s->sin_port));
  }
  if (ss.ss_family == AF_INET6) {
    auto* s = reinterpret_cast<struct sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
    return joinHostPort(ip, ntohs(s->sin6_port));
  }
  if (ss.ss_family == AF_UNIX) {
    auto* s = reinterpret_cast<struct sockaddr_un*>(&ss);
    size_t n = len > offsetof(struct sockaddr_un, sun_path)
                   ? strnlen(s->sun_path, len - offsetof(struct sockaddr_un, sun_path))
                   : 0;
    return std::string(s->sun_path, n);
  }
  return "";
}

bool isLocalPeer(int fd) {
  struct sockaddr_storage ss = {};
  socklen_t len = sizeof(ss);
  if (getpeername(fd, reinterpret_cast<struct sockaddr*>(&ss), &len) == -1) return false;
  if (ss.ss_family == AF_UNIX) return true;
  // Exactly the two addresses Redis 7.0 compares the peer's printed address
  // with: 127.0.0.2 or ::ffff:127.0.0.1 are remote for protected mode.
  if (ss.ss_family == AF_INET) {
    auto* s = reinterpret_cast<struct sockaddr_in*>(&ss);
    return ntohl(s->sin_addr.s_addr) == INADDR_LOOPBACK;
  }
  if (ss.ss_family == AF_INET6) {
    auto* s = reinterpret_cast<struct sockaddr_in6*>(&ss);
    return IN6_IS_ADDR_LOOPBACK(&s->sin6_addr);
  }
  return false;
}

}  // namespace net::sock
