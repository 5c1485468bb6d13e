// The cluster check (check, fix, and the sanity test before reshard,
// rebalance, add-node, import and backup): agreement on the slot map, open
// slots, coverage of the 16384 slots, and optionally slots with several
// owners. With fix, each problem found is handed to fix.cpp.
#include <cstdio>
#include <map>

#include "cli/cluster/manager.h"

namespace cli::cluster {

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

}  // namespace cli::cluster
