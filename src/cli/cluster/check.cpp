// The cluster check (check, fix, and the sanity test before reshard,
// rebalance, add-node, import and backup): agreement on the slot map, open
// slots, coverage of the 16384 slots, and optionally slots with several
// owners. With fix, the repairs follow: uncovered slots (given to a node,
// by who holds their keys), open slots (a migration left half done), and
// slots several masters claim. Each repair asks for "yes" where redis-cli
// asks, even with --cluster-yes for the coverage repairs, as redis-cli does.
#include <cstdio>
#include <cstdlib>
#include <map>

#include "cli/cluster/manager.h"

namespace cli::cluster {

namespace {

void printSlotList(const std::vector<int>& slots) {
  Node n("", 0);
  for (int s : slots) {
    if (s >= 0 && s < kSlots) n.slots[s] = 1;
  }
  printf("%s\n", n.slotsString().c_str());
}

void removeNode(std::vector<Node*>* list, Node* n) {
  for (auto it = list->begin(); it != list->end(); ++it) {
    if (*it == n) {
      list->erase(it);
      return;
    }
  }
}

std::string joinAddrs(const std::vector<Node*>& nodes) {
  std::string s;
  for (size_t i = 0; i < nodes.size(); i++) s += (i ? "," : "") + nodes[i]->addr();
  return s;
}

}  // namespace

bool Manager::checkCluster(bool quiet, bool fix) {
  if (nodes_.empty()) return false;
  Node* first = nodes_.front().get();
  log(Level::kInfo, ">>> Performing Cluster Check (using node %s:%d)\n", first->ip.c_str(),
      first->port);
  bool result = true;
  if (!quiet) showNodes();
  if (!configConsistent()) {
    onError("[ERR] Nodes don't agree about configuration!");
    result = false;
  } else {
    log(Level::kOk, "[OK] All nodes agree about slots configuration.\n");
  }

  log(Level::kInfo, ">>> Check for open slots...\n");
  std::map<int, std::string> open_slots;
  for (auto& n : nodes_) {
    if (!n->migrating.empty()) {
      std::string e = "[WARNING] Node " + n->addr() + " has slots in migrating state ";
      for (size_t i = 0; i < n->migrating.size(); i++) {
        open_slots[atoi(n->migrating[i].first.c_str())] = n->migrating[i].first;
        e += (i ? "," : "") + n->migrating[i].first;
      }
      onError(e + ".");
    }
    if (!n->importing.empty()) {
      std::string e = "[WARNING] Node " + n->addr() + " has slots in importing state ";
      for (size_t i = 0; i < n->importing.size(); i++) {
        open_slots[atoi(n->importing[i].first.c_str())] = n->importing[i].first;
        e += (i ? "," : "") + n->importing[i].first;
      }
      onError(e + ".");
    }
  }
  if (!open_slots.empty()) {
    result = false;
    std::string e = "[WARNING] The following slots are open: ";
    bool firstslot = true;
    for (auto& [slot, text] : open_slots) {
      e += (firstslot ? "" : ",") + text;
      firstslot = false;
    }
    log(Level::kErr, "%s.\n", e.c_str());
    if (fix) {
      for (auto& [slot, text] : open_slots) {
        result = fixOpenSlot(slot);
        if (!result) break;
      }
    }
  }

  log(Level::kInfo, ">>> Check slots coverage...\n");
  std::vector<uint8_t> covered(kSlots, 0);
  int coverage = 0;
  for (auto& n : nodes_) {
    for (int s = 0; s < kSlots; s++) {
      if (n->slots[s] && !covered[s]) {
        covered[s] = 1;
        coverage++;
      }
    }
  }
  if (coverage == kSlots) {
    log(Level::kOk, "[OK] All %d slots covered.\n", kSlots);
  } else {
    onError("[ERR] Not all " + std::to_string(kSlots) + " slots are covered by nodes.\n");
    result = false;
    if (fix && fixSlotsCoverage(&covered) > 0) result = true;
  }

  if (cmd_->search_multiple_owners) {
    log(Level::kInfo, ">>> Check for multiple slot owners...\n");
    int with_many = 0;
    for (int slot = 0; slot < kSlots; slot++) {
      std::vector<Node*> owners;
      for (auto& n : nodes_) {
        if (n->replica) continue;
        if (n->slots[slot] || countKeysInSlot(n.get(), slot) > 0) owners.push_back(n.get());
      }
      if (owners.size() <= 1) continue;
      result = false;
      log(Level::kErr, "[WARNING] Slot %d has %zu owners:\n", slot, owners.size());
      for (Node* n : owners) log(Level::kErr, "    %s:%d\n", n->ip.c_str(), n->port);
      with_many++;
      if (fix) {
        result = fixMultipleOwners(slot, owners);
        if (!result) {
          log(Level::kErr, "Failed to fix multiple owners for slot %d\n", slot);
          break;
        }
        with_many--;
      }
    }
    if (with_many == 0) log(Level::kOk, "[OK] No multiple owners found.\n");
  }
  return result;
}

int Manager::fixSlotsCoverage(std::vector<uint8_t>* covered) {
  if (unreachable_masters_ > 0 && !cmd_->fix_with_unreachable) {
    log(Level::kWarn,
        "*** Fixing slots coverage with %d unreachable masters is dangerous: redis-cli will "
        "assume that slots about masters that are not reachable are not covered, and will try to "
        "reassign them to the reachable nodes. This can cause data loss and is rarely what you "
        "want to do. If you really want to proceed use the "
        "--cluster-fix-with-unreachable-masters option.\n",
        unreachable_masters_);
    exit(1);
  }
  log(Level::kInfo, ">>> Fixing slots coverage...\n");
  std::map<int, std::vector<Node*>> uncovered;  // slot -> masters holding its keys
  for (int s = 0; s < kSlots; s++) {
    if ((*covered)[s]) continue;
    std::vector<Node*>& holders = uncovered[s];
    for (auto& n : nodes_) {
      if (n->replica || !n->replicate.empty()) continue;
      Reply r;
      if (!commandOk(n.get(), {"CLUSTER", "GETKEYSINSLOT", std::to_string(s), "1"}, &r)) return -1;
      if (!r.elements.empty()) holders.push_back(n.get());
    }
  }
  std::vector<int> none, single, multi;
  for (auto& [slot, holders] : uncovered) {
    (holders.empty() ? none : holders.size() == 1 ? single : multi).push_back(slot);
  }
  int fixed = 0;
  if (!none.empty()) {
    printf("The following uncovered slots have no keys across the cluster:\n");
    printSlotList(none);
    if (confirm("Fix these slots by covering with a random node?", true)) {
      for (int s : none) {
        Node* n = randomMaster();
        log(Level::kInfo, ">>> Covering slot %d with %s:%d\n", s, n->ip.c_str(), n->port);
        if (!setSlotOwner(n, s, false)) return -1;
        n->slots[s] = 1;
        fixed++;
      }
    }
  }
  if (!single.empty()) {
    printf("The following uncovered slots have keys in just one node:\n");
    printSlotList(single);
    if (confirm("Fix these slots by covering with those nodes?", true)) {
      for (int s : single) {
        Node* n = uncovered[s].front();
        log(Level::kInfo, ">>> Covering slot %d with %s:%d\n", s, n->ip.c_str(), n->port);
        if (!setSlotOwner(n, s, false)) return -1;
        n->slots[s] = 1;
        fixed++;
      }
    }
  }
  if (!multi.empty()) {
    printf("The following uncovered slots have keys in multiple nodes:\n");
    printSlotList(multi);
    if (confirm("Fix these slots by moving keys into a single node?", true)) {
      for (int s : multi) {
        const std::vector<Node*>& holders = uncovered[s];
        Node* target = nodeWithMostKeys(holders, s);
        if (target == nullptr) return -1;
        log(Level::kInfo, ">>> Covering slot %d moving keys to %s:%d\n", s, target->ip.c_str(),
            target->port);
        if (!setSlotOwner(target, s, true)) return -1;
        target->slots[s] = 1;
        for (Node* src : holders) {
          if (src == target) continue;
          if (!setSlot(src, *target, s, "NODE", nullptr)) return -1;
          // Importing keeps MIGRATE from being redirected.
          if (!setSlot(src, *target, s, "IMPORTING", nullptr)) return -1;
          if (!moveSlot(src, target, s, kVerbose | kCold, nullptr)) return -1;
          if (!clearSlotStatus(src, s)) return -1;
        }
        fixed++;
      }
    }
  }
  return fixed;
}

bool Manager::fixOpenSlot(int slot) {
  if (unreachable_masters_ > 0 && !cmd_->fix_with_unreachable) {
    log(Level::kWarn,
        "*** Fixing open slots with %d unreachable masters is dangerous: redis-cli will assume "
        "that slots about masters that are not reachable are not covered, and will try to "
        "reassign them to the reachable nodes. This can cause data loss and is rarely what you "
        "want to do. If you really want to proceed use the "
        "--cluster-fix-with-unreachable-masters option.\n",
        unreachable_masters_);
    exit(1);
  }
  log(Level::kInfo, ">>> Fixing open slot %d\n", slot);
  std::vector<Node*> owners, migrating, importing;
  for (auto& n : nodes_) {
    if (n->replica) continue;
    if (n->slots[slot]) {
      owners.push_back(n.get());
      continue;
    }
    Reply r;
    if (!commandOk(n.get(), {"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}, &r)) return false;
    if (r.integer > 0) {
      log(Level::kWarn, "*** Found keys about slot %d in non-owner node %s:%d!\n", slot,
          n->ip.c_str(), n->port);
      owners.push_back(n.get());
    }
  }
  Node* owner = owners.size() == 1 ? owners.front() : nullptr;
  for (auto& n : nodes_) {
    if (n->replica) continue;
    bool is_migrating = false, is_importing = false;
    for (auto& [s, id] : n->migrating) {
      if (atoi(s.c_str()) == slot) {
        migrating.push_back(n.get());
        is_migrating = true;
        break;
      }
    }
    if (!is_migrating) {
      for (auto& [s, id] : n->importing) {
        if (atoi(s.c_str()) == slot) {
          importing.push_back(n.get());
          is_importing = true;
          break;
        }
      }
    }
    if (!is_migrating && !is_importing && n.get() != owner) {
      Reply r;
      if (!commandOk(n.get(), {"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}, &r)) {
        return false;
      }
      if (r.integer > 0) {
        log(Level::kWarn, "*** Found keys about slot %d in node %s:%d!\n", slot, n->ip.c_str(),
            n->port);
        importing.push_back(n.get());
      }
    }
  }
  std::string migrating_str = joinAddrs(migrating), importing_str = joinAddrs(importing);
  if (!migrating_str.empty()) printf("Set as migrating in: %s\n", migrating_str.c_str());
  if (!importing_str.empty()) printf("Set as importing in: %s\n", importing_str.c_str());

  if (owner == nullptr) {
    log(Level::kInfo,
        ">>> No single clear owner for the slot, selecting an owner by # of keys...\n");
    std::vector<Node*> all;
    for (auto& n : nodes_) all.push_back(n.get());
    owner = nodeWithMostKeys(all, slot);
    if (owner == nullptr) {
      log(Level::kErr, "[ERR] Can't select a slot owner. Impossible to fix.\n");
      return false;
    }
    log(Level::kWarn, "*** Configuring %s:%d as the slot owner\n", owner->ip.c_str(), owner->port);
    if (!clearSlotStatus(owner, slot)) return false;
    if (!setSlotOwner(owner, slot, false)) return false;
    owner->slots[slot] = 1;
    removeNode(&migrating, owner);
    removeNode(&importing, owner);
  }

  // Several owners: one keeps the slot, the others import it from there.
  if (owners.size() > 1) {
    for (Node* n : owners) {
      if (n == owner) continue;
      if (!delSlot(n, slot, true)) return false;
      n->slots[slot] = 0;
      if (!setSlot(n, *owner, slot, "node", nullptr)) return false;
      if (!setSlot(n, *owner, slot, "importing", nullptr)) return false;
      removeNode(&importing, n);
      importing.push_back(n);
      removeNode(&migrating, n);
    }
  }

  int flags = kVerbose;
  if (migrating.size() == 1 && importing.size() == 1) {
    // Case 1: one migrating side, one importing side: finish the move.
    Node* src = migrating.front();
    Node* dst = importing.front();
    log(Level::kInfo, ">>> Case 1: Moving slot %d from %s:%d to %s:%d\n", slot, src->ip.c_str(),
        src->port, dst->ip.c_str(), dst->port);
    return moveSlot(src, dst, slot, flags | kUpdate, nullptr);
  }
  if (migrating.empty() && !importing.empty()) {
    // Case 2: only importing sides: their keys go to the owner.
    log(Level::kInfo, ">>> Case 2: Moving all the %d slot keys to its owner %s:%d\n", slot,
        owner->ip.c_str(), owner->port);
    for (Node* n : importing) {
      if (n == owner) continue;
      if (!moveSlot(n, owner, slot, flags | kCold, nullptr)) return false;
      log(Level::kInfo, ">>> Setting %d as STABLE in %s:%d\n", slot, n->ip.c_str(), n->port);
      if (!clearSlotStatus(n, slot)) return false;
    }
    for (auto& n : nodes_) {
      if (n.get() == owner || n->replica) continue;
      if (!setSlot(n.get(), *owner, slot, "NODE", nullptr)) return false;
    }
    return true;
  }
  if (migrating.size() == 1 && importing.size() > 1) {
    // Case 3: one migrating side, several empty importing sides.
    Node* src = migrating.front();
    std::string target_id;
    for (auto& [s, id] : src->migrating) {
      if (atoi(s.c_str()) == slot) {
        target_id = id;
        break;
      }
    }
    Node* dst = nullptr;
    bool try_to_fix = true;
    for (Node* n : importing) {
      if (countKeysInSlot(n, slot) > 0) {
        try_to_fix = false;
        break;
      }
      if (n->name == target_id) dst = n;
    }
    if (try_to_fix) {
      if (dst != nullptr) {
        log(Level::kInfo,
            ">>> Case 3: Moving slot %d from %s:%d to %s:%d and closing it on all the other "
            "importing nodes.\n",
            slot, src->ip.c_str(), src->port, dst->ip.c_str(), dst->port);
        if (!moveSlot(src, dst, slot, flags, nullptr)) return false;
        for (Node* n : importing) {
          if (n != dst && !clearSlotStatus(n, slot)) return false;
        }
      } else {
        log(Level::kInfo, ">>> Case 3: Closing slot %d on both migrating and importing nodes.\n",
            slot);
        if (!clearSlotStatus(src, slot)) return false;
        for (Node* n : importing) {
          if (!clearSlotStatus(n, slot)) return false;
        }
      }
      return true;
    }
  } else {
    // Case 4: a migrating side alone, with no keys left (or the owner).
    bool close = importing.empty() && migrating.size() == 1;
    if (close) {
      Node* n = migrating.front();
      if (owner != n) {
        Reply r;
        if (!commandOk(n, {"CLUSTER", "GETKEYSINSLOT", std::to_string(slot), "10"}, &r)) {
          return false;
        }
        close = r.elements.empty();
      }
    }
    if (close) {
      Node* n = migrating.front();
      log(Level::kInfo, ">>> Case 4: Closing slot %d on %s:%d\n", slot, n->ip.c_str(), n->port);
      return clearSlotStatus(n, slot);
    }
  }
  log(Level::kErr,
      "[ERR] Sorry, redis-cli can't fix this slot yet (work in progress). Slot is set as "
      "migrating in %s, as importing in %s, owner is %s:%d\n",
      migrating_str.c_str(), importing_str.c_str(), owner->ip.c_str(), owner->port);
  return false;
}

bool Manager::fixMultipleOwners(int slot, const std::vector<Node*>& owners) {
  log(Level::kInfo, ">>> Fixing multiple owners for slot %d...\n", slot);
  Node* owner = nodeWithMostKeys(owners, slot);
  if (owner == nullptr) owner = owners.front();
  log(Level::kInfo, ">>> Setting slot %d owner: %s:%d\n", slot, owner->ip.c_str(), owner->port);
  if (!setSlotOwner(owner, slot, false)) return false;
  bool ok = false;
  for (auto& n : nodes_) {
    if (n.get() == owner || n->replica) continue;
    int count = countKeysInSlot(n.get(), slot);
    ok = count >= 0;
    if (!ok) break;
    delSlot(n.get(), slot, true);
    if (!setSlot(n.get(), *owner, slot, "node", nullptr)) return false;
    if (count > 0) {
      ok = moveSlot(n.get(), owner, slot, kVerbose | kCold, nullptr);
      if (!ok) break;
    }
  }
  return ok;
}

}  // namespace cli::cluster
