// The process title (what ps and /proc/<pid>/cmdline show), as Redis's
// set-proc-title / proc-title-template: the template's {variables} are
// expanded and written over the process's argument area.
#pragma once

#include <string>

namespace server::process {

// Must run first thing in main(), before argv or environ are read
// elsewhere: moves the environment and the arguments to the heap so the
// original argument area (extended over the environment strings that
// follow it) can hold a title. argv[i] are repointed to the copies.
void initProcTitle(int argc, char** argv);

// What the template variables expand to.
struct TitleVars {
  std::string title;        // {title}: argv[0] as the server was run
  std::string listen_addr;  // {listen-addr}: "bind0:port", "*:port" or the unix socket
  std::string server_mode;  // {server-mode}: "" (no cluster or sentinel mode here)
  std::string port, tls_port, unixsocket, config_file;
};

// Expands a template as Redis does: "{name}" is a variable, "{{" stands
// for "{", any other character (a lone "}" too) is itself; the result is
// trimmed of spaces at both ends. Returns false for an unknown variable, an
// unclosed "{" or an empty result: Redis refuses such a template.
bool expandProcTitle(const std::string& tmpl, const TitleVars& vars, std::string* out);

// Writes the title over the argument area (cut to its size).
void setProcTitle(const std::string& title);

}  // namespace server::process
