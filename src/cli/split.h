// Splitting an interactive/stdin command line into arguments with
// redis-cli's quoting rules:
// - blanks separate arguments;
// - "double quotes" allow \n \r \t \b \a, \xHH (two hex digits) and \<c>
//   for a literal c;
// - 'single quotes' take everything literally except \' ;
// - a closing quote must be followed by a blank or the end of the line;
//   an unbalanced quote is an error.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cli {

// nullopt on unbalanced quotes or a closing quote glued to more text.
std::optional<std::vector<std::string>> splitArgs(std::string_view line);

// Decodes one argument given with --quoted-input / -X style quoting: the
// whole of s must be a single (possibly quoted) argument.
std::optional<std::string> unquoteArg(std::string_view s);

}  // namespace cli
