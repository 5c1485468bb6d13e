// --json and --quoted-json output: one JSON value per top-level reply.
// --json passes UTF-8 (and any other byte >= 0x20) through and escapes what
// JSON requires; --quoted-json prints the redis-cli quoted form of the
// string with its backslashes escaped, so the output is plain ASCII.
#include <cstdio>

#include "cli/format.h"

namespace cli {

using resp::Reply;
using resp::ReplyType;

namespace {

void appendJsonString(std::string* out, std::string_view s, bool quoted) {
  if (quoted) {
    std::string repr;
    appendQuoted(&repr, s);
    // The quotes around repr delimit the JSON string; only its escapes'
    // backslashes need escaping again (redis-cli 7.0 does the same).
    for (char c : repr) {
      if (c == '\\') out->push_back('\\');
      out->push_back(c);
    }
    return;
  }
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char tmp[8];
          snprintf(tmp, sizeof(tmp), "\\u%04x", static_cast<unsigned char>(c));
          out->append(tmp);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

bool isStringLike(ReplyType t) {
  return t == ReplyType::kBulk || t == ReplyType::kStatus || t == ReplyType::kVerbatim;
}

void appendJson(std::string* out, const Reply& r, bool quoted) {
  switch (r.type) {
    case ReplyType::kStatus:
    case ReplyType::kBulk:
    case ReplyType::kVerbatim:
      appendJsonString(out, r.str, quoted);
      return;
    case ReplyType::kError:
      out->append("error:");
      appendJsonString(out, r.str, quoted);
      return;
    case ReplyType::kInteger:
      out->append(std::to_string(r.integer));
      return;
    case ReplyType::kDouble:
    case ReplyType::kBigNumber:
      out->append(r.str);  // the server's own digits
      return;
    case ReplyType::kBool:
      out->append(r.integer ? "true" : "false");
      return;
    case ReplyType::kNil:
      out->append("null");
      return;
    case ReplyType::kMap: {
      out->push_back('{');
      for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
        if (i > 0) out->push_back(',');
        const Reply& key = r.elements[i];
        if (isStringLike(key.type)) {
          appendJsonString(out, key.str, quoted);
        } else {
          // JSON keys are strings: a number or other value becomes its text.
          std::string text;
          appendJson(&text, key, quoted);
          appendJsonString(out, text, false);
        }
        out->push_back(':');
        appendJson(out, r.elements[i + 1], quoted);
      }
      out->push_back('}');
      return;
    }
    default: {  // array, set, push, attribute
      out->push_back('[');
      for (size_t i = 0; i < r.elements.size(); i++) {
        if (i > 0) out->push_back(',');
        appendJson(out, r.elements[i], quoted);
      }
      out->push_back(']');
      return;
    }
  }
}

}  // namespace

std::string formatJson(const Reply& r, bool quoted) {
  std::string out;
  appendJson(&out, r, quoted);
  return out;
}

}  // namespace cli
