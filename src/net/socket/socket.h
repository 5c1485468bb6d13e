// System-call layer for stream sockets (TCP over IPv4/IPv6, Unix).
// Convention: functions return an fd (>= 0) or 0 on success, and -1 on
// failure with *err set to a sentence naming the address and the call that
// failed. Every fd returned is non-blocking and close-on-exec.
#pragma once

#include <string>

namespace net::sock {

// Binds and listens on addr:port ("*" or "" = all IPv4 addresses, "::" /
// "::*" = all IPv6; a leading '-' marks the address optional as in Redis).
// On failure (-1, *err set) errno tells why (EADDRNOTAVAIL, EAFNOSUPPORT...).
int listenTcp(const std::string& addr, int port, int backlog, std::string* err);
// Removes a stale socket file first; perm 0 leaves the umask's mode.
int listenUnix(const std::string& path, unsigned perm, int backlog, std::string* err);
// Returns the new fd, or -1: *err empty on EAGAIN (nothing to accept), else
// set, with errno still holding the accept4() error.
int accept(int lfd, std::string* err);
// Non-blocking connect: the fd may still be connecting (wait for writable,
// then check connectResult()).
int connectTcp(const std::string& host, int port, const std::string& source, std::string* err);
int connectUnix(const std::string& path, std::string* err);
// 0 if the pending connect succeeded, else -1 with *err set.
int connectResult(int fd, std::string* err);

int setNoDelay(int fd, bool on);
int setKeepAlive(int fd, int interval_s);
// "ip:port" or "[v6]:port" as Redis prints them; the socket path for unix
// sockets ("" on failure).
std::string formatAddress(int fd, bool peer);
// True for unix peers and for the peers 127.0.0.1 and ::1 only (Redis 7.0).
bool isLocalPeer(int fd);

}  // namespace net::sock
