// MONITOR: clients that receive a line for every command any client runs,
// over any transport, in Redis's format:
//
//   +1339518083.107412 [0 127.0.0.1:60866] "keys" "*"
//
// (time the command finished, db index after it ran, client address, or
// "unix:<socket path>" for unix-socket clients, then each argument quoted
// with escapes for binary bytes). Admin commands and those flagged
// skip-monitor are not shown, nor requests that were refused before
// running; secrets are redacted (cmdlog.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace server {

class Client;
struct Command;

namespace monitor {

// Makes c a monitor (sets kMonitor). Idempotent.
void add(Client* c);
// Called when a monitor goes away (a client close hook).
void remove(Client* c);
size_t count();

// Sends the executed command to every monitor; cheap when there is none.
void feed(Client* c, const Command& cmd);
// The same without the flag checks: EVAL and FCALL (flagged skip-monitor)
// are shown before they run, ahead of the commands their script calls.
void feedAlways(Client* c, const Command& cmd);

// Appends a quoted argument: '"', then printable bytes as they are, \\ \"
// \n \r \t \a \b escaped, any other byte as \xhh, then '"'.
void appendQuoted(std::string* out, std::string_view arg);
// One full line, without the leading '+' and trailing CRLF.
std::string formatLine(int64_t unix_us, int db, std::string_view addr,
                       const std::vector<std::string_view>& argv,
                       const std::vector<bool>& redacted);

}  // namespace monitor
}  // namespace server
