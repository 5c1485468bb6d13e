// Slot operations: CLUSTER SETSLOT and friends, moving a slot's keys with
// MIGRATE, and the reshard plan (which slots leave which node).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cli/cluster/manager.h"

namespace cli::cluster {

bool Manager::setSlot(Node* n, const Node& other, int slot, const char* state, std::string* err) {
  Reply r;
  if (err != nullptr) err->clear();
  if (!command(n, {"CLUSTER", "SETSLOT", std::to_string(slot), state, other.name}, &r)) {
    if (err != nullptr) *err = "CLUSTER SETSLOT failed to run";
    return false;
  }
  if (!r.isError()) return true;
  if (err != nullptr) {
    *err = r.str;
  } else {
    printReplyError(*n, r.str);
  }
  return false;
}

bool Manager::clearSlotStatus(Node* n, int slot) {
  return commandOk(n, {"CLUSTER", "SETSLOT", std::to_string(slot), "STABLE"});
}

bool Manager::delSlot(Node* n, int slot, bool ignore_unassigned) {
  Reply r;
  std::string err;
  bool ok = commandOk(n, {"CLUSTER", "DELSLOTS", std::to_string(slot)}, &r, &err);
  if (!ok && r.isError() && ignore_unassigned) {
    // Failing because nobody owns the slot is what we wanted anyway.
    std::string owner_err;
    if (slotOwner(n, slot, &owner_err) == nullptr) {
      if (owner_err.empty()) {
        ok = true;
      } else {
        printReplyError(*n, owner_err);
      }
    }
  }
  if (!ok && !err.empty()) printReplyError(*n, err);
  return ok;
}

int Manager::countKeysInSlot(Node* n, int slot) {
  Reply r;
  if (!commandOk(n, {"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}, &r)) return -1;
  return r.type == resp::ReplyType::kInteger ? static_cast<int>(r.integer) : -1;
}

Node* Manager::slotOwner(Node* n, int slot, std::string* err) {
  Reply r;
  if (!commandOk(n, {"CLUSTER", "SLOTS"}, &r, err)) return nullptr;
  for (const Reply& range : r.elements) {
    if (range.elements.size() < 3) continue;
    if (slot < range.elements[0].integer || slot > range.elements[1].integer) continue;
    const Reply& who = range.elements[2];
    if (who.elements.size() >= 3) {
      if (Node* owner = nodeByName(who.elements[2].str)) return owner;
    } else if (who.elements.size() >= 2) {
      for (auto& nd : nodes_) {
        if (nd->ip == who.elements[0].str && nd->port == who.elements[1].integer) return nd.get();
      }
    }
  }
  return nullptr;
}

bool Manager::setSlotOwner(Node* owner, int slot, bool clear) {
  std::string s = std::to_string(slot);
  if (!commandOk(owner, {"MULTI"})) return false;
  std::vector<Argv> queued = {{"CLUSTER", "DELSLOTS", s}, {"CLUSTER", "ADDSLOTS", s}};
  if (clear) queued.push_back({"CLUSTER", "SETSLOT", s, "STABLE"});
  queued.push_back({"CLUSTER", "BUMPEPOCH"});
  for (const Argv& a : queued) {
    Reply ignored;
    command(owner, a, &ignored);
  }
  Reply r;
  if (!commandOk(owner, {"EXEC"}, &r)) return false;
  if (r.type != resp::ReplyType::kArray) return false;
  for (size_t i = 0; i < r.elements.size(); i++) {
    // Only a failed ADDSLOTS counts: DELSLOTS of an unassigned slot fails
    // on purpose.
    if (r.elements[i].isError() && i == 1) {
      printReplyError(*owner, r.elements[i].str);
      return false;
    }
  }
  return true;
}

bool Manager::migrateKeys(Node* src, Node* dst, const std::vector<std::string>& keys, bool replace,
                          Reply* r) {
  Argv argv = {"MIGRATE", dst->ip, std::to_string(dst->port),
               "",        "0",     std::to_string(cmd_->timeout_ms)};
  if (replace) argv.push_back("REPLACE");
  if (opt_->auth) {
    if (opt_->user) {
      argv.insert(argv.end(), {"AUTH2", *opt_->user, *opt_->auth});
    } else {
      argv.insert(argv.end(), {"AUTH", *opt_->auth});
    }
  }
  argv.push_back("KEYS");
  argv.insert(argv.end(), keys.begin(), keys.end());
  return command(src, argv, r);
}

bool Manager::compareKeyValues(Node* n1, Node* n2, const std::vector<std::string>& keys,
                               std::vector<std::string>* diffs) {
  Argv argv = {"DEBUG", "DIGEST-VALUE"};
  argv.insert(argv.end(), keys.begin(), keys.end());
  Reply r1, r2;
  if (!command(n1, argv, &r1) || !command(n2, argv, &r2)) return false;
  bool ok = true;
  if (r1.isError()) {
    printReplyError(*n1, r1.str);
    ok = false;
  }
  if (r2.isError()) {
    printReplyError(*n2, r2.str);
    ok = false;
  }
  if (!ok) return false;
  static const std::string kZero(40, '0');
  for (size_t i = 0; i < keys.size() && i < r1.elements.size() && i < r2.elements.size(); i++) {
    const std::string& h1 = r1.elements[i].str;
    const std::string& h2 = r2.elements[i].str;
    if (h1 == kZero || h2 == kZero) continue;  // missing on one side
    if (h1 != h2) diffs->push_back(keys[i]);
  }
  return true;
}

bool Manager::migrateKeysInSlot(Node* src, Node* dst, int slot, bool dots, bool fixing,
                                std::string* err) {
  for (;;) {
    Reply r;
    if (!command(src,
                 {"CLUSTER", "GETKEYSINSLOT", std::to_string(slot), std::to_string(cmd_->pipeline)},
                 &r)) {
      return false;
    }
    if (r.isError()) {
      if (err != nullptr) {
        *err = r.str;
        printReplyError(*src, r.str);
      }
      return false;
    }
    if (r.elements.empty()) return true;
    std::vector<std::string> keys;
    for (const Reply& k : r.elements) keys.push_back(k.str);
    Reply mr;
    if (!migrateKeys(src, dst, keys, false, &mr)) return false;
    if (mr.isError()) {
      bool busy = mr.str.find("BUSYKEY") != std::string::npos;
      bool not_served = false;
      if (!busy) {
        std::string owner_err;
        if (slotOwner(src, slot, &owner_err) == nullptr) {
          if (owner_err.empty()) {
            not_served = true;
          } else {
            printReplyError(*src, owner_err);
          }
        }
      }
      bool ok = false;
      if (busy || not_served) {
        if (fixing && not_served) {
          log(Level::kWarn, "*** Slot was not served, setting owner to node %s:%d.\n",
              dst->ip.c_str(), dst->port);
          setSlot(src, *dst, slot, "node", nullptr);
        }
        if (busy) {
          log(Level::kWarn, "\n*** Target key exists\n");
          if (!cmd_->replace) {
            log(Level::kWarn, "*** Checking key values on both nodes...\n");
            std::vector<std::string> diffs;
            if (!compareKeyValues(src, dst, keys, &diffs)) {
              log(Level::kErr, "*** Value check failed!\n");
              return false;
            }
            if (!diffs.empty()) {
              log(Level::kErr,
                  "*** Found %zu key(s) in both source node and target node having different "
                  "values.\n    Source node: %s:%d\n    Target node: %s:%d\n    Keys(s):\n",
                  diffs.size(), src->ip.c_str(), src->port, dst->ip.c_str(), dst->port);
              for (const auto& k : diffs) log(Level::kErr, "    - %s\n", k.c_str());
              log(Level::kErr,
                  "Please fix the above key(s) manually and try again or relaunch the command \n"
                  "with --cluster-replace option to force key overriding.\n");
              return false;
            }
          }
          log(Level::kWarn, "*** Replacing target keys...\n");
        }
        ok = migrateKeys(src, dst, keys, busy, &mr) && !mr.isError();
      }
      if (!ok) {
        if (mr.isError()) {
          if (err != nullptr) *err = mr.str;
          printf("\n");
          printReplyError(*src, mr.str);
        }
        return false;
      }
    }
    if (dots) {
      printf("%s", std::string(keys.size(), '.').c_str());
      fflush(stdout);
    }
  }
}

bool Manager::moveSlot(Node* src, Node* dst, int slot, int flags, std::string* err) {
  if (!(flags & kQuiet)) {
    printf("Moving slot %d from %s:%d to %s:%d: ", slot, src->ip.c_str(), src->port,
           dst->ip.c_str(), dst->port);
    fflush(stdout);
  }
  if (err != nullptr) err->clear();
  bool cold = flags & kCold;
  if (!cold) {
    if (!setSlot(dst, *src, slot, "importing", err)) return false;
    if (!setSlot(src, *dst, slot, "migrating", err)) return false;
  }
  bool ok = migrateKeysInSlot(src, dst, slot, flags & kVerbose, cmd_->name == "fix", err);
  if (!(flags & kQuiet)) printf("\n");
  if (!ok) return false;
  if (!cold) {
    // The target first: it spreads the news; a source told first could be
    // left pointing at an owner that never took the slot.
    if (!setSlot(dst, *dst, slot, "node", err)) return false;
    // The source may have just become a replica of the target after losing
    // its last slot: that refusal is expected.
    bool src_ok = setSlot(src, *dst, slot, "node", err);
    if (!src_ok && err != nullptr) {
      if (err->compare(0, 41, "ERR Please use SETSLOT only with masters.") == 0) {
        err->clear();
      } else {
        return false;
      }
    }
    for (auto& n : nodes_) {
      if (n.get() == src || n.get() == dst || n->replica) continue;
      if (!setSlot(n.get(), *dst, slot, "node", err)) return false;
    }
  }
  if (flags & kUpdate) {
    src->slots[slot] = 0;
    dst->slots[slot] = 1;
  }
  return true;
}

std::vector<Manager::Move> Manager::reshardTable(std::vector<Node*> sources, int numslots) {
  std::vector<Move> moved;
  int total = 0;
  for (Node* n : sources) total += n->slots_count;
  std::stable_sort(sources.begin(), sources.end(),
                   [](const Node* a, const Node* b) { return a->slots_count > b->slots_count; });
  for (size_t i = 0; i < sources.size(); i++) {
    Node* n = sources[i];
    float share = static_cast<float>(numslots) / static_cast<float>(total) *
                  static_cast<float>(n->slots_count);
    int max = static_cast<int>(i == 0 ? std::ceil(share) : std::floor(share));
    int count = 0;
    for (int s = 0; s < kSlots; s++) {
      if (!n->slots[s]) continue;
      if (count >= max || static_cast<int>(moved.size()) >= numslots) break;
      moved.push_back({n, s});
      count++;
    }
  }
  return moved;
}

Node* Manager::nodeWithMostKeys(const std::vector<Node*>& nodes, int slot) {
  Node* best = nullptr;
  long long most = 0;
  for (Node* n : nodes) {
    if (n->replica || !n->replicate.empty()) continue;
    Reply r;
    std::string err;
    if (!commandOk(n, {"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}, &r, &err)) {
      if (!err.empty()) printReplyError(*n, err);
      return nullptr;
    }
    if (r.integer > most || best == nullptr) {
      most = r.integer;
      best = n;
    }
  }
  return best;
}

}  // namespace cli::cluster
