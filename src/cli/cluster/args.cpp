// The cluster manager's command-line options, taken the way redis-cli 7.0
// takes them (the subcommand's arguments run up to the next word starting
// with '-'), and the parsing of -MOVED / -ASK redirections for -c.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/cluster/cluster.h"

namespace cli::cluster {

namespace {

bool startsWithDash(const char* s) {
  return s[0] == '-';
}

}  // namespace

OptionMatch takeOption(int argc, char** argv, int* i, Command* cmd) {
  const char* a = argv[*i];
  bool has_value = *i + 1 < argc;
  auto is = [a](const char* name) { return strcmp(a, name) == 0; };
  if (is("--cluster")) {
    if (!has_value || !cmd->name.empty()) return OptionMatch::kExit;  // usage
    cmd->name = argv[++*i];
    while (*i + 1 < argc && !startsWithDash(argv[*i + 1])) cmd->args.emplace_back(argv[++*i]);
    return OptionMatch::kTaken;
  }
  // Flags.
  struct Flag {
    const char* name;
    bool Command::*field;
  };
  static const Flag kFlags[] = {
      {"--cluster-only-masters", &Command::only_masters},
      {"--cluster-only-replicas", &Command::only_replicas},
      {"--cluster-from-askpass", &Command::from_askpass},
      {"--cluster-yes", &Command::yes},
      {"--cluster-simulate", &Command::simulate},
      {"--cluster-replace", &Command::replace},
      {"--cluster-copy", &Command::copy},
      {"--cluster-slave", &Command::replica},
      {"--cluster-replica", &Command::replica},  // an alias redis-cli 7.2 added
      {"--cluster-use-empty-masters", &Command::use_empty_masters},
      {"--cluster-search-multiple-owners", &Command::search_multiple_owners},
      {"--cluster-fix-with-unreachable-masters", &Command::fix_with_unreachable},
  };
  for (const Flag& f : kFlags) {
    if (is(f.name)) {
      cmd->*f.field = true;
      return OptionMatch::kTaken;
    }
  }
  if (has_value) {
    if (is("--cluster-weight")) {
      if (cmd->weight_given) {
        fprintf(stderr,
                "WARNING: you cannot use --cluster-weight more than once.\nYou can set more "
                "weights by adding them as a space-separated list, ie:\n--cluster-weight n1=w "
                "n2=w\n");
        return OptionMatch::kExit;
      }
      // The node=weight words that follow (none taken: the option is a no-op).
      while (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0 &&
             strchr(argv[*i + 1], '=') != nullptr) {
        cmd->weights.emplace_back(argv[++*i]);
      }
      cmd->weight_given = !cmd->weights.empty();
      return OptionMatch::kTaken;
    }
    struct Text {
      const char* name;
      std::string Command::*field;
    };
    static const Text kTexts[] = {
        {"--cluster-master-id", &Command::master_id},
        {"--cluster-from", &Command::from},
        {"--cluster-to", &Command::to},
        {"--cluster-from-user", &Command::from_user},
        {"--cluster-from-pass", &Command::from_pass},
    };
    for (const Text& t : kTexts) {
      if (is(t.name)) {
        cmd->*t.field = argv[++*i];
        return OptionMatch::kTaken;
      }
    }
    struct Number {
      const char* name;
      int Command::*field;
    };
    static const Number kNumbers[] = {
        {"--cluster-replicas", &Command::replicas},
        {"--cluster-slots", &Command::slots},
        {"--cluster-timeout", &Command::timeout_ms},
        {"--cluster-pipeline", &Command::pipeline},
    };
    for (const Number& n : kNumbers) {
      if (is(n.name)) {
        cmd->*n.field = atoi(argv[++*i]);
        return OptionMatch::kTaken;
      }
    }
    if (is("--cluster-threshold")) {
      cmd->threshold = static_cast<float>(atof(argv[++*i]));
      return OptionMatch::kTaken;
    }
  }
  // In cluster mode a loose word gives the subcommand its arguments, when
  // none followed it directly.
  if (!cmd->name.empty() && !startsWithDash(a)) {
    if (cmd->args.empty()) {
      cmd->args.emplace_back(a);
      while (*i + 1 < argc && !startsWithDash(argv[*i + 1])) cmd->args.emplace_back(argv[++*i]);
    }
    return OptionMatch::kTaken;
  }
  return OptionMatch::kNo;
}

bool parseRedirect(const std::string& err, int* slot, std::string* host, int* port, bool* ask) {
  if (err.compare(0, 6, "MOVED ") == 0) {
    *ask = false;
  } else if (err.compare(0, 4, "ASK ") == 0) {
    *ask = true;
  } else {
    return false;
  }
  size_t sp1 = err.find(' ');
  size_t sp2 = err.find(' ', sp1 + 1);
  if (sp2 == std::string::npos) return false;
  std::string addr = err.substr(sp2 + 1);
  size_t colon = addr.rfind(':');
  if (colon == std::string::npos) return false;
  *slot = atoi(err.c_str() + sp1 + 1);
  *host = addr.substr(0, colon);
  *port = atoi(addr.c_str() + colon + 1);
  return true;
}

}  // namespace cli::cluster
