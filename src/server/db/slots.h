// Cluster hash slots: the key-to-slot rule, and the per-slot key index a
// Db keeps in cluster mode (Db::enableSlotIndex, db.h).
//
// The rule (keyHashSlot): a key maps to crc16(k) mod 16384, where k is the
// whole key, unless the key holds a '{' followed later by a '}' with at
// least one byte between the first '{' and the first '}' after it: then k
// is only those bytes (the "hash tag"), so {user1}.a and {user1}.b share a
// slot.
//
// The index (SlotIndex): for every slot, a doubly linked list of the
// entries whose key maps to it, and their count. The links live in 16 bytes
// allocated just before the Entry (Entry itself stays 32 bytes); an entry
// allocated that way carries Entry::kHasSlotLinks so that whoever frees it
// knows where its block starts. Linking and unlinking are O(1) (one crc16 of
// the key), counting is O(1), listing a slot is O(keys listed).
//
// Cost in cluster mode: 16 bytes per key (the links; with jemalloc's size
// classes, spaced 16 bytes apart up to 128, exactly one class up), plus a
// fixed table of 16384 x 16 bytes = 256 KiB per indexed db. Without the
// index nothing is allocated and Db's paths test one pointer.
//
// Part of module db/ (see db.h); includes only the C++ library.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace server::db {

constexpr int kClusterSlots = 16384;

// The hash slot of a key, 0 .. kClusterSlots-1 (see the rule above).
int keyHashSlot(std::string_view key);

struct Entry;

// The prefix of an entry with Entry::kHasSlotLinks: its neighbours in its
// slot's list (nullptr at either end).
struct SlotLinks {
  Entry* prev;
  Entry* next;
};
static_assert(sizeof(SlotLinks) == 16, "slot links must keep an entry 16-byte aligned");

inline SlotLinks* slotLinksOf(Entry* e) {
  return reinterpret_cast<SlotLinks*>(e) - 1;
}
inline const SlotLinks* slotLinksOf(const Entry* e) {
  return reinterpret_cast<const SlotLinks*>(e) - 1;
}

// The lists and counts of one db. Knows nothing of the keyspace dict: the
// Db links each entry it inserts and unlinks each entry it removes, and
// only entries allocated with slot links may be passed in.
class SlotIndex {
 public:
  // Pushes e to the front of its slot's list. e must not be linked.
  void link(Entry* e);
  // Takes e out of its slot's list. e must be linked in this index.
  void unlink(Entry* e);
  // Forgets every entry (their links are left stale, never read again).
  void reset() { slots_.fill(Slot{}); }

  size_t count(int slot) const { return slots_[static_cast<size_t>(slot)].count; }
  // The first entry of a slot's list, nullptr when empty; next() walks on.
  Entry* first(int slot) const { return slots_[static_cast<size_t>(slot)].head; }
  static Entry* next(const Entry* e) { return slotLinksOf(e)->next; }

  // Sum of the counts (tests and checks).
  size_t total() const;

 private:
  struct Slot {
    Entry* head = nullptr;
    size_t count = 0;
  };
  std::array<Slot, kClusterSlots> slots_{};
};

}  // namespace server::db
