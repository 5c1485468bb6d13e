// --askpass: read a password from the terminal without showing it.
#pragma once

#include <string>

namespace cli {

// On a terminal: prints prompt, reads one line with echo off (each character
// shows as '*', backspace removes one) and returns it. Otherwise reads the
// line from standard input without a prompt, as redis-cli does.
std::string askPassword(const char* prompt);

}  // namespace cli
