#include "cli/askpass.h"

#include <termios.h>
#include <unistd.h>

#include <cstdio>

namespace cli {

std::string askPassword(const char* prompt) {
  std::string pass;
  termios saved;
  bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
  if (tty) {
    fputs(prompt, stdout);
    fflush(stdout);
  }
  if (tty) {
    termios raw = saved;
    raw.c_lflag &= ~static_cast<tcflag_t>(ECHO | ICANON);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
  }
  char c;
  while (read(STDIN_FILENO, &c, 1) == 1) {
    if (c == '\n' || c == '\r') break;
    if (tty && (c == 127 || c == '\b')) {
      if (!pass.empty()) {
        pass.pop_back();
        fputs("\b \b", stdout);
        fflush(stdout);
      }
      continue;
    }
    pass.push_back(c);
    if (tty) {
      fputc('*', stdout);
      fflush(stdout);
    }
  }
  if (tty) {
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    fputc('\n', stdout);
    fflush(stdout);
  }
  return pass;
}

}  // namespace cli
