#include "server/limits/open_files.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"

namespace server::limits {

namespace {
// Step by which a refused limit is lowered before trying again: a hard limit
// below what was asked still lets the server use everything up to it.
constexpr rlim_t kStep = 16;
}  // namespace

bool adjustOpenFilesLimit(int64_t* maxclients) {
  rlim_t wanted = static_cast<rlim_t>(*maxclients + kReservedFds);
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == -1) {
    LOG_WARNING(
        "Unable to obtain the current NOFILE limit (%s), assuming 1024 and setting the max "
        "clients configuration accordingly.",
        strerror(errno));
    *maxclients = 1024 - kReservedFds;
    return true;
  }
  rlim_t old = limit.rlim_cur;
  if (old >= wanted) return true;

  // Both limits are set: an unprivileged process may raise the soft limit up
  // to the hard one, and lowering the hard one to what it uses is harmless.
  rlim_t best = wanted;
  int set_errno = 0;
  while (best > old) {
    limit.rlim_cur = best;
    limit.rlim_max = best;
    if (setrlimit(RLIMIT_NOFILE, &limit) != -1) break;
    set_errno = errno;
    if (best < kStep) break;
    best -= kStep;
  }
  if (best < old) best = old;
  if (best >= wanted) {
    LOG_NOTICE("Increased maximum number of open files to %llu (it was originally set to %llu).",
               static_cast<unsigned long long>(wanted), static_cast<unsigned long long>(old));
    return true;
  }
  int64_t requested = *maxclients;
  if (static_cast<int64_t>(best) <= kReservedFds) {
    LOG_WARNING(
        "Your current 'ulimit -n' of %llu is not enough for the server to start. Please "
        "increase your open file limit to at least %llu. Exiting.",
        static_cast<unsigned long long>(old), static_cast<unsigned long long>(wanted));
    return false;
  }
  *maxclients = static_cast<int64_t>(best) - kReservedFds;
  LOG_WARNING("You requested maxclients of %lld requiring at least %llu max file descriptors.",
              static_cast<long long>(requested), static_cast<unsigned long long>(wanted));
  LOG_WARNING("Server can't set maximum open files to %llu because of OS error: %s.",
              static_cast<unsigned long long>(wanted), strerror(set_errno));
  LOG_WARNING(
      "Current maximum open files is %llu. maxclients has been reduced to %lld to compensate "
      "for low ulimit. If you need higher maxclients increase 'ulimit -n'.",
      static_cast<unsigned long long>(best), static_cast<long long>(*maxclients));
  return true;
}

bool applyMaxclients(int64_t* maxclients, std::string* err) {
  // A value the current limit already covers changes nothing (lowering
  // maxclients never gives descriptors back, as in Redis).
  int64_t requested = *maxclients;
  if (adjustOpenFilesLimit(maxclients) && *maxclients == requested) return true;
  LOG_WARNING(
      "Failed applying new configuration. Possibly related to new maxclients setting. "
      "Restoring previous settings.");
  *err = "The operating system is not able to handle the specified number of clients, try with " +
         std::to_string(*maxclients);
  return false;
}

}  // namespace server::limits
