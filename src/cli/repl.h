// Line mode of redis-cli: interactive (a terminal, with libedit line
// editing, history and a prompt) or reading one command per line from a
// non-terminal standard input.
#pragma once

#include "cli/session.h"

namespace cli {

// Runs until end of input or "quit"/"exit". Returns the process exit code.
int runRepl(Options* opt, Session* session, bool tty);

// Prints the short help of interactive mode.
void printReplHelp();

}  // namespace cli
