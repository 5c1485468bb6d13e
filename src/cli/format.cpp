#include "cli/format.h"

#include <cstdio>

namespace cli {

using resp::Reply;
using resp::ReplyType;

void appendQuoted(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '\\':
        out->append("\\\\");
        break;
      case '"':
        out->append("\\\"");
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
      case '\a':
        out->append("\\a");
        break;
      case '\b':
        out->append("\\b");
        break;
      default: {
        auto u = static_cast<unsigned char>(c);
        if (u >= 32 && u < 127) {
          out->push_back(c);
        } else {
          char tmp[8];
          snprintf(tmp, sizeof(tmp), "\\x%02x", u);
          out->append(tmp);
        }
      }
    }
  }
  out->push_back('"');
}

namespace {

const char* emptyText(ReplyType t) {
  switch (t) {
    case ReplyType::kArray:
      return "(empty array)\n";
    case ReplyType::kMap:
      return "(empty hash)\n";
    case ReplyType::kSet:
      return "(empty set)\n";
    case ReplyType::kPush:
      return "(empty push)\n";
    default:
      return "(empty aggregate type)\n";
  }
}

// The character after the index: "1) " arrays, "1~ " sets, "1# " maps.
char indexMark(ReplyType t) {
  if (t == ReplyType::kSet) return '~';
  if (t == ReplyType::kMap) return '#';
  return ')';
}

bool nonEmptyAggregate(const Reply& r) {
  return r.isAggregate() && !r.elements.empty();
}

}  // namespace

std::string formatTty(const Reply& r, const std::string& prefix) {
  std::string out;
  switch (r.type) {
    case ReplyType::kError:
      out = "(error) " + r.str + "\n";
      break;
    case ReplyType::kStatus:
      out = r.str + "\n";
      break;
    case ReplyType::kInteger:
      out = "(integer) " + std::to_string(r.integer) + "\n";
      break;
    case ReplyType::kDouble:
      out = "(double) " + r.str + "\n";
      break;
    case ReplyType::kBigNumber:
      out = "(big number) " + r.str + "\n";
      break;
    case ReplyType::kBool:
      out = r.integer ? "(true)\n" : "(false)\n";
      break;
    case ReplyType::kVerbatim:
      out = r.str + "\n";
      break;
    case ReplyType::kBulk:
      appendQuoted(&out, r.str);
      out += "\n";
      break;
    case ReplyType::kNil:
      out = "(nil)\n";
      break;
    case ReplyType::kArray:
    case ReplyType::kMap:
    case ReplyType::kSet:
    case ReplyType::kPush:
    case ReplyType::kAttribute: {
      if (r.elements.empty()) {
        out = emptyText(r.type);
        break;
      }
      bool is_map = r.type == ReplyType::kMap || r.type == ReplyType::kAttribute;
      size_t count = is_map ? r.elements.size() / 2 : r.elements.size();
      int width = static_cast<int>(std::to_string(count).size());
      // Nested lines line up under the first character after "N) ".
      std::string child_prefix = prefix + std::string(static_cast<size_t>(width) + 2, ' ');
      char mark = indexMark(r.type);
      for (size_t i = 0; i < count; i++) {
        char head[48];
        snprintf(head, sizeof(head), "%*zu%c ", width, i + 1, mark);
        if (i > 0) out += prefix;
        out += head;
        if (!is_map) {
          out += formatTty(r.elements[i], child_prefix);
          continue;
        }
        std::string key = formatTty(r.elements[2 * i], child_prefix);
        key.pop_back();  // the key's newline
        out += key;
        out += " => ";
        const Reply& val = r.elements[2 * i + 1];
        if (nonEmptyAggregate(val)) {
          out += "\n" + child_prefix;
        }
        out += formatTty(val, child_prefix);
      }
      break;
    }
  }
  return out;
}

std::string formatRaw(const Reply& r, const FormatOptions& opt) {
  switch (r.type) {
    case ReplyType::kNil:
      return "";
    case ReplyType::kError:
      return r.str + "\n";
    case ReplyType::kStatus:
    case ReplyType::kBulk:
    case ReplyType::kVerbatim:
    case ReplyType::kDouble:
    case ReplyType::kBigNumber:
      return r.str;
    case ReplyType::kInteger:
      return std::to_string(r.integer);
    case ReplyType::kBool:
      return r.integer ? "(true)" : "(false)";
    case ReplyType::kArray:
    case ReplyType::kSet:
    case ReplyType::kPush:
    case ReplyType::kMap:
    case ReplyType::kAttribute: {
      bool is_map = r.type == ReplyType::kMap || r.type == ReplyType::kAttribute;
      std::string out;
      for (size_t i = 0; i < r.elements.size(); i++) {
        if (i > 0) out += (is_map && i % 2 == 1) ? std::string(" ") : opt.bulk_delim;
        out += formatRaw(r.elements[i], opt);
      }
      return out;
    }
  }
  return "";
}

std::string formatCsv(const Reply& r) {
  switch (r.type) {
    case ReplyType::kError: {
      std::string out = "ERROR,";
      appendQuoted(&out, r.str);
      return out;
    }
    case ReplyType::kStatus:
    case ReplyType::kBulk:
    case ReplyType::kVerbatim: {
      std::string out;
      appendQuoted(&out, r.str);
      return out;
    }
    case ReplyType::kInteger:
      return std::to_string(r.integer);
    case ReplyType::kDouble:
    case ReplyType::kBigNumber:
      return r.str;
    case ReplyType::kBool:
      return r.integer ? "true" : "false";
    case ReplyType::kNil:
      return "NULL";
    default: {
      std::string out;
      for (size_t i = 0; i < r.elements.size(); i++) {
        if (i > 0) out += ",";
        out += formatCsv(r.elements[i]);
      }
      return out;
    }
  }
}

std::string formatReply(const Reply& r, const FormatOptions& opt) {
  switch (opt.mode) {
    case OutputMode::kStandard:
      return formatTty(r, "");
    case OutputMode::kRaw:
      return formatRaw(r, opt) + opt.reply_delim;
    case OutputMode::kCsv:
      return formatCsv(r) + "\n";
    case OutputMode::kJson:
    case OutputMode::kQuotedJson:
      return formatJson(r, opt.mode == OutputMode::kQuotedJson) + "\n";
  }
  return "";
}

}  // namespace cli
