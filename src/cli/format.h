// Reply formatting of redis-cli: the human "tty" form ("(integer) 1",
// "1) ...", quoted strings), the raw form (bare values, one per line), CSV
// and JSON (--json, --quoted-json). Pure functions of a resp::Reply; no I/O.
#pragma once

#include <string>
#include <string_view>

#include "resp/reply.h"

namespace cli {

enum class OutputMode { kStandard, kRaw, kCsv, kJson, kQuotedJson };

struct FormatOptions {
  OutputMode mode = OutputMode::kStandard;
  std::string bulk_delim = "\n";   // -d: between elements in raw mode
  std::string reply_delim = "\n";  // -D: after each top-level reply in raw mode
};

// The complete text redis-cli writes for one top-level reply, final
// delimiter included.
std::string formatReply(const resp::Reply& r, const FormatOptions& opt);

// Human form of one reply; `prefix` is the indentation of nested lines.
std::string formatTty(const resp::Reply& r, const std::string& prefix);
// Raw form without the final reply delimiter.
std::string formatRaw(const resp::Reply& r, const FormatOptions& opt);
std::string formatCsv(const resp::Reply& r);
// JSON form without the final newline (format_json.cpp). quoted: the
// ASCII-only --quoted-json form.
std::string formatJson(const resp::Reply& r, bool quoted);

// Appends s in double quotes with \n \r \t \a \b \\ \" and \xHH escapes
// (what redis-cli prints for bulk strings).
void appendQuoted(std::string* out, std::string_view s);

}  // namespace cli
