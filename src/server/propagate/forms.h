// The rewritten forms command handlers give propagate::rewrite(), shared
// here so that each handler adds one line. Call them only when
// propagate::wanted(); each applies to the current call (see propagate.h).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace server::propagate {

// "SET key value PXAT <when_ms>": SET with EX/PX/EXAT/PXAT, SETEX, PSETEX
// (NX, XX and GET are dropped: the write happened).
void asSetPxat(std::string_view key, std::string_view value, int64_t when_ms);
// "PEXPIREAT key <when_ms>" followed by argv[3..] (EXPIRE's NX/XX/GT/LT
// stay, as Redis 7.0 keeps them); GETEX passes a two-element argv.
void asPexpireat(std::span<const std::string_view> argv, int64_t when_ms);
// "DEL key", or "UNLINK key" when `unlink`.
void asDel(std::string_view key, bool unlink);
// argv without its tokens equal to `token` (case-insensitive) at index
// `from` and beyond: SET ... GET is fed without GET.
void asWithout(std::span<const std::string_view> argv, size_t from, std::string_view token);

}  // namespace server::propagate
