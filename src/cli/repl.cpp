#include "cli/repl.h"

#include <editline/readline.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "cli/help.h"
#include "cli/hints.h"
#include "cli/split.h"

namespace cli {

namespace {

// Path of the history file: $REDISCLI_HISTFILE, else ~/.rediscli_history;
// nullopt when history is off (/dev/null or no home).
std::optional<std::string> historyPath() {
  const char* env = getenv("REDISCLI_HISTFILE");
  if (env != nullptr && *env != '\0') {
    if (strcmp(env, "/dev/null") == 0) return std::nullopt;
    return std::string(env);
  }
  const char* home = getenv("HOME");
  if (home == nullptr || *home == '\0') return std::nullopt;
  return std::string(home) + "/.rediscli_history";
}

// Lines carrying secrets stay out of the history file.
bool isSensitive(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const char* c = argv[0].c_str();
  if (strcasecmp(c, "auth") == 0) return true;
  if (strcasecmp(c, "hello") == 0 || strcasecmp(c, "migrate") == 0) {
    for (const auto& a : argv) {
      if (strcasecmp(a.c_str(), "auth") == 0 || strcasecmp(a.c_str(), "auth2") == 0) return true;
    }
  }
  if (strcasecmp(c, "acl") == 0 && argv.size() > 1 && strcasecmp(argv[1].c_str(), "setuser") == 0) {
    return true;
  }
  if (strcasecmp(c, "config") == 0 && argv.size() > 2 && strcasecmp(argv[1].c_str(), "set") == 0) {
    for (size_t i = 2; i < argv.size(); i++) {
      if (strcasecmp(argv[i].c_str(), "masterauth") == 0 ||
          strcasecmp(argv[i].c_str(), "requirepass") == 0) {
        return true;
      }
    }
  }
  return false;
}

// redis-cli keeps a plain file, one command per line (libedit's own
// format would differ); the newest kHistoryMax lines are kept.
constexpr size_t kHistoryMax = 100;

std::vector<std::string> loadHistory(const std::string& path) {
  std::vector<std::string> lines;
  FILE* f = fopen(path.c_str(), "r");
  if (f == nullptr) return lines;
  char* buf = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&buf, &cap, f)) > 0) {
    std::string l(buf, static_cast<size_t>(n));
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    add_history(l.c_str());
    lines.push_back(std::move(l));
  }
  free(buf);
  fclose(f);
  if (lines.size() > kHistoryMax) lines.erase(lines.begin(), lines.end() - kHistoryMax);
  return lines;
}

void saveHistory(const std::string& path, const std::vector<std::string>& lines) {
  FILE* f = fopen(path.c_str(), "w");
  if (f == nullptr) return;
  fchmod(fileno(f), 0600);
  for (const auto& l : lines) fprintf(f, "%s\n", l.c_str());
  fclose(f);
}

// Tab completion of the first word: the server's command names (COMMAND
// LIST, fetched on the first Tab of a connection) and "help", in the case
// of what was typed so far.
Session* g_complete_session = nullptr;
std::vector<std::string> g_command_names;

char* completeCommand(const char* text, int state) {
  static size_t next;
  if (state == 0) {
    next = 0;
    if (g_command_names.empty() && g_complete_session != nullptr) {
      resp::Reply r;
      if (g_complete_session->query({"COMMAND", "LIST"}, &r) && !r.isError()) {
        for (const resp::Reply& n : r.elements)
          if (n.str.find('|') == std::string::npos) g_command_names.push_back(n.str);
        g_command_names.push_back("help");
        std::sort(g_command_names.begin(), g_command_names.end());
      }
    }
  }
  size_t len = strlen(text);
  bool lower = len == 0 || islower(static_cast<unsigned char>(text[0]));
  while (next < g_command_names.size()) {
    const std::string& name = g_command_names[next++];
    if (strncasecmp(name.c_str(), text, len) != 0) continue;
    std::string out = name;
    if (!lower)
      for (char& ch : out) ch = static_cast<char>(toupper(static_cast<unsigned char>(ch)));
    return strdup(out.c_str());
  }
  return nullptr;
}

char** completeLine(const char* text, int start, int) {
  rl_attempted_completion_over = 1;  // no file-name completion
  if (start != 0) return nullptr;
  return rl_completion_matches(text, completeCommand);
}

// ---- hints: the grey syntax after what is typed (cli/hints.h)
//
// libedit's readline layer keeps no line buffer up to date while a line is
// edited, so the line is followed from the keys read here: printable keys
// and Backspace at the end of the line. Any other key (arrows, Tab,
// history) may change the line in ways not followed, so the hint stays off
// until the next prompt: a missing hint, never a wrong one.
Hints g_hints;
std::string g_typed;       // the line as typed so far
bool g_typed_ok = true;    // g_typed is the line, cursor at its end
size_t g_prompt_cols = 0;  // width of the prompt on screen

size_t terminalColumns() {
  winsize ws;
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

void writeAll(const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(STDOUT_FILENO, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

int hintingGetc(FILE* in) {
  // Draw the hint right of the cursor and put the cursor back; once a key
  // is read, clear it again before libedit echoes the key. Nothing is
  // written when no hint shows.
  static bool drawn = false;
  std::string draw;
  if (g_typed_ok) {
    if (g_complete_session != nullptr) g_hints.load(g_complete_session);
    std::string hint = g_hints.hintFor(g_typed);
    size_t used = g_prompt_cols + g_typed.size();
    size_t cols = terminalColumns();
    hint = used < cols ? hint.substr(0, cols - used) : "";
    if (!hint.empty()) {
      draw = "\x1b[0;90;49m" + hint + "\x1b[0m\x1b[" + std::to_string(hint.size()) + "D";
    }
  }
  if (!draw.empty()) {
    writeAll(draw);
    drawn = true;
  }
  unsigned char c;
  ssize_t n;
  do {
    n = read(fileno(in), &c, 1);
  } while (n < 0 && errno == EINTR);
  if (drawn) {
    writeAll("\x1b[0K");
    drawn = false;
  }
  if (n != 1) return EOF;
  if (c == 127 || c == '\b') {
    if (!g_typed.empty()) g_typed.pop_back();
  } else if (c >= 32) {
    g_typed.push_back(static_cast<char>(c));
  } else {
    g_typed_ok = false;
  }
  return c;
}

bool readLine(bool tty, const std::string& prompt, std::string* line) {
  if (tty) {
    g_typed.clear();
    g_typed_ok = true;
    g_prompt_cols = prompt.size();
    char* l = readline(prompt.c_str());
    if (l == nullptr) return false;
    *line = l;
    free(l);
    return true;
  }
  return static_cast<bool>(std::getline(std::cin, *line));
}

bool isNumber(const std::string& s) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

void printReplHelp() {
  printf(
      "redis-cli %s\n"
      "Type a Redis command and its arguments, e.g. \"set key value\".\n"
      "Arguments may be quoted: \"a b\\x00\" (with escapes) or 'a b'.\n"
      "A leading number repeats the command: \"5 incr counter\".\n"
      "\"connect <host> <port>\" switches to another server, \"clear\" clears\n"
      "the screen, \"quit\" or \"exit\" (or Ctrl-D) leaves.\n",
      cliVersion());
}

int runRepl(Options* opt, Session* session, bool tty) {
  session->setInRepl(true);
  std::optional<std::string> hist_path;
  std::vector<std::string> history;
  if (tty) {
    g_complete_session = session;
    rl_attempted_completion_function = completeLine;
    rl_getc_function = hintingGetc;
    using_history();
    stifle_history(static_cast<int>(kHistoryMax));
    hist_path = historyPath();
    if (hist_path) history = loadHistory(*hist_path);
  }
  std::string line;
  while (readLine(tty, session->prompt(), &line)) {
    if (line.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    auto parsed = splitArgs(line);
    // Like linenoise: a line equal to the previous one is not recorded twice.
    if (tty && (!parsed || !isSensitive(*parsed)) && (history.empty() || history.back() != line)) {
      add_history(line.c_str());
      history.push_back(line);
      if (history.size() > kHistoryMax) history.erase(history.begin());
      if (hist_path) saveHistory(*hist_path, history);
    }
    if (!parsed) {
      printf("Invalid argument(s)\n");
      fflush(stdout);
      continue;
    }
    std::vector<std::string> argv = std::move(*parsed);
    const std::string& cmd = argv[0];
    if (strcasecmp(cmd.c_str(), "quit") == 0 || strcasecmp(cmd.c_str(), "exit") == 0) break;
    if (argv.size() == 1 && strcasecmp(cmd.c_str(), "clear") == 0) {
      printf("\x1b[H\x1b[2J");
      fflush(stdout);
      continue;
    }
    if (strcasecmp(cmd.c_str(), "help") == 0 || cmd == "?") {
      std::vector<std::string> topics(argv.begin() + 1, argv.end());
      if (topics.empty()) {
        printReplHelp();
        printHelp(session, topics, false);
        continue;
      }
      if (!session->connected() && !session->connect()) continue;
      if (!printHelp(session, topics, stdoutIsTerminal())) {
        fprintf(stderr, "Error: %s\n", session->lastReason().c_str());
      }
      fflush(stdout);
      continue;
    }
    if (argv.size() == 3 && strcasecmp(cmd.c_str(), "connect") == 0) {
      opt->endpoint.type = "tcp";
      opt->endpoint.host = argv[1];
      opt->endpoint.port = atoi(argv[2].c_str());
      opt->endpoint.path.clear();
      opt->db = 0;
      session->connect();
      g_command_names.clear();
      continue;
    }
    int64_t repeat = 1;
    if (argv.size() > 1 && isNumber(cmd)) {
      repeat = strtoll(cmd.c_str(), nullptr, 10);
      argv.erase(argv.begin());
    }
    // Not connected (the server was down or dropped us): try again now,
    // as redis-cli does before each command.
    if (!session->connected() && !session->connect()) continue;
    if (session->run(argv, repeat) == Session::RunResult::kConnectionLost) {
      fflush(stdout);
      fprintf(stderr, "Error: %s\n", session->lastReason().c_str());
    }
  }
  return 0;
}

}  // namespace cli
