// The cluster manager's way in: its command-line options, taken the way
// redis-cli 7.0 takes them (the subcommand's arguments run up to the next
// word starting with '-'), the table of subcommands with their arity and
// help, and run().
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <iostream>
#include <iterator>

#include "cli/askpass.h"
#include "cli/cluster/manager.h"

namespace cli::cluster {

namespace {

struct Subcommand {
  const char* name;
  bool (*run)(Manager*);
  int arity;  // > 0: exactly; < 0: at least -arity
  const char* args;
  const char* options;  // comma-separated, without "--cluster-"
};

bool cmdHelp(Manager*);

const Subcommand kSubcommands[] = {
    {"create", cmdCreate, -2, "host1:port1 ... hostN:portN", "replicas <arg>"},
    {"check", cmdCheck, -1, "<host:port> or <host> <port> - separated by either colon or space",
     "search-multiple-owners"},
    {"info", cmdInfo, -1, "<host:port> or <host> <port> - separated by either colon or space",
     nullptr},
    {"fix", cmdFix, -1, "<host:port> or <host> <port> - separated by either colon or space",
     "search-multiple-owners,fix-with-unreachable-masters"},
    {"reshard", cmdReshard, -1, "<host:port> or <host> <port> - separated by either colon or space",
     "from <arg>,to <arg>,slots <arg>,yes,timeout <arg>,pipeline <arg>,replace"},
    {"rebalance", cmdRebalance, -1,
     "<host:port> or <host> <port> - separated by either colon or space",
     "weight <node1=w1...nodeN=wN>,use-empty-masters,timeout <arg>,simulate,pipeline <arg>,"
     "threshold <arg>,replace"},
    {"add-node", cmdAddNode, 2, "new_host:new_port existing_host:existing_port",
     "slave,master-id <arg>"},
    {"del-node", cmdDelNode, 2, "host:port node_id", nullptr},
    {"call", cmdCall, -2, "host:port command arg arg .. arg", "only-masters,only-replicas"},
    {"set-timeout", cmdSetTimeout, 2, "host:port milliseconds", nullptr},
    {"import", cmdImport, 1, "host:port",
     "from <arg>,from-user <arg>,from-pass <arg>,from-askpass,copy,replace"},
    {"backup", cmdBackup, 2, "host:port backup_directory", nullptr},
    {"help", cmdHelp, 0, nullptr, nullptr},
};

bool cmdHelp(Manager*) {
  constexpr int kPad = 15;
  printf("Cluster Manager Commands:\n");
  for (const Subcommand& s : kSubcommands) {
    printf("  %-*s%s\n", kPad, s.name, s.args ? s.args : "");
    if (s.options == nullptr) continue;
    std::string opts = s.options;
    size_t start = 0;
    while (start < opts.size()) {
      size_t comma = opts.find(',', start);
      if (comma == std::string::npos) comma = opts.size();
      printf("%*s  --cluster-%s\n", kPad, "", opts.substr(start, comma - start).c_str());
      start = comma + 1;
    }
  }
  printf(
      "\nFor check, fix, reshard, del-node, set-timeout, info, rebalance, call, import, backup "
      "you can specify the host and port of any working node in the cluster.\n");
  printf("\nCluster Manager Options:\n");
  printf("  %-*s%s\n", kPad, "--cluster-yes", "Automatic yes to cluster commands prompts");
  printf("\n");
  return false;  // redis-cli exits with 1 after the help
}

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

int run(Options* opt) {
  Command& cmd = opt->cluster_command;
  if (cmd.from_askpass) cmd.from_pass = askPassword("Please input import source node password: ");
  // -x / -X give the subcommand's last or tagged argument from stdin.
  if (opt->stdin_last_arg || opt->stdin_tag) {
    std::string data((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    if (opt->stdin_last_arg) {
      cmd.args.push_back(data);
    } else {
      bool matched = false;
      for (auto& a : cmd.args) {
        if (a == *opt->stdin_tag) {
          a = data;
          matched = true;
          break;
        }
      }
      if (!matched) {
        fprintf(stderr, "Using -X option but stdin tag not match.\n");
        return 1;
      }
    }
  }
  const Subcommand* found = nullptr;
  for (const Subcommand& s : kSubcommands) {
    if (cmd.name != s.name) continue;
    int argc = static_cast<int>(cmd.args.size());
    if ((s.arity > 0 && argc != s.arity) || (s.arity < 0 && argc < -s.arity)) {
      fprintf(stderr, "[ERR] Wrong number of arguments for specified --cluster sub command\n");
      return 1;
    }
    found = &s;
  }
  if (found == nullptr) {
    fprintf(stderr, "Unknown --cluster subcommand\n");
    return 1;
  }
  Manager m(opt, &cmd);
  bool ok = found->run(&m);
  fflush(stdout);
  return ok ? 0 : 1;
}

}  // namespace cli::cluster
