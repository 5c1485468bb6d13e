// The slot rule, the slot index, and Db's members that use it (the rest of
// Db is in db.cpp; every path there that adds or removes an entry links or
// unlinks it here).
#include "server/db/slots.h"

#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "common/crc16.h"
#include "server/db/db.h"

namespace server::db {

static_assert((kClusterSlots & (kClusterSlots - 1)) == 0, "the slot mask needs a power of two");

int keyHashSlot(std::string_view key) {
  std::string_view hashed = key;
  size_t open = key.find('{');
  if (open != std::string_view::npos) {
    size_t close = key.find('}', open + 1);
    // An empty tag ("{}") hashes the whole key.
    if (close != std::string_view::npos && close > open + 1) {
      hashed = key.substr(open + 1, close - open - 1);
    }
  }
  return common::crc16(hashed.data(), hashed.size()) & (kClusterSlots - 1);
}

// ---- SlotIndex

void SlotIndex::link(Entry* e) {
  assert(e->hasSlotLinks());
  Slot& s = slots_[static_cast<size_t>(keyHashSlot(e->keyView()))];
  SlotLinks* l = slotLinksOf(e);
  l->prev = nullptr;
  l->next = s.head;
  if (s.head != nullptr) slotLinksOf(s.head)->prev = e;
  s.head = e;
  s.count++;
}

void SlotIndex::unlink(Entry* e) {
  assert(e->hasSlotLinks());
  Slot& s = slots_[static_cast<size_t>(keyHashSlot(e->keyView()))];
  SlotLinks* l = slotLinksOf(e);
  if (l->prev != nullptr) {
    slotLinksOf(l->prev)->next = l->next;
  } else {
    assert(s.head == e);
    s.head = l->next;
  }
  if (l->next != nullptr) slotLinksOf(l->next)->prev = l->prev;
  l->prev = l->next = nullptr;
  assert(s.count > 0);
  s.count--;
}

size_t SlotIndex::total() const {
  size_t n = 0;
  for (const Slot& s : slots_) n += s.count;
  return n;
}

// ---- Db's slot members

void Db::enableSlotIndex() {
  if (slots_) return;
  auto index = std::make_unique<SlotIndex>();
  // Collect first: moving an entry relinks it in keys_, which forEach
  // does not allow.
  std::vector<Entry*> entries;
  entries.reserve(keys_.size());
  keys_.forEach([&](Entry* e) { entries.push_back(e); });
  for (Entry* e : entries) {
    // An entry may have links already (a db that had an index once and
    // got these keys by a swap); they are stale and link() rewrites them.
    if (!e->hasSlotLinks()) e = moveToLinkedBlock(e);
    index->link(e);
  }
  slots_ = std::move(index);
}

Entry* Db::moveToLinkedBlock(Entry* e) {
  keys_.unlink(e);
  // The expires index is keyed by the entry's address: take its record out
  // under the old address, put it back under the new one.
  ExpireNode* x = e->hasExpire() ? expires_.erase(e) : nullptr;
  Entry* moved = newEntry<true>(e->keyView(), std::move(e->val));
  moved->lru = e->lru;
  moved->flags = e->flags | Entry::kHasSlotLinks;
  releaseEntry(e);
  keys_.insert(moved);
  if (x != nullptr) {
    x->entry = moved;
    expires_.insert(x);
  }
  return moved;
}

size_t Db::countKeysInSlot(int slot) const {
  assert(slots_ && slot >= 0 && slot < kClusterSlots);
  return slots_->count(slot);
}

size_t Db::keysInSlot(int slot, size_t max, const std::function<void(std::string_view)>& fn) const {
  assert(slots_ && slot >= 0 && slot < kClusterSlots);
  size_t n = 0;
  for (Entry* e = slots_->first(slot); e != nullptr && n < max; e = SlotIndex::next(e)) {
    fn(e->keyView());
    n++;
  }
  return n;
}

size_t Db::removeKeysInSlot(int slot) {
  assert(slots_ && slot >= 0 && slot < kClusterSlots);
  size_t n = 0;
  while (Entry* e = slots_->first(slot)) {
    deleteEntry(e, lazy_server_del);
    n++;
  }
  return n;
}

}  // namespace server::db
