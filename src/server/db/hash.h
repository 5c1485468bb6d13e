// Hash: the value of a hash key. Two encodings, chosen by the command layer
// with the hash-max-listpack-* limits (Redis's rules):
//   "listpack"  field, value, field, value ... in one db::Listpack, while the
//               hash is small and every field/value is short;
//   "hashtable" a common::Dict of nodes that hold field and value in one
//               allocation.
// A hash converts from listpack to hashtable when a limit is crossed and
// never back (as Redis). Both objects are 16 bytes (vptr + one pointer).
//
// Views handed out (get(), forEach() ...) point into the hash or into the
// caller's scratch; they stay valid until the hash is next modified.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "server/db/listpack.h"
#include "server/db/value.h"

namespace server::db {

// The listpack limits (hash-max-listpack-entries / -value).
struct HashLimits {
  size_t max_entries;
  size_t max_value;
};

class Hash : public Collection {
 public:
  // Scratch big enough for an integer formatted by a listpack.
  static constexpr size_t kScratch = 24;
  using PairFn = std::function<void(std::string_view field, std::string_view value)>;

  // An empty listpack-encoded hash.
  static Hash* createListpack();
  static Hash* createTable();
  // A listpack hash over lp (field, value, ...): the caller has checked
  // the fields are distinct and the limits hold (RDB loading).
  static Hash* adoptListpack(Listpack lp);

  virtual bool isListpack() const = 0;
  // The listpack of a listpack hash (field, value, ...), else nullptr: for
  // readers that walk the elements as stored (RDB saving).
  virtual const Listpack* listpack() const { return nullptr; }
  virtual size_t size() const = 0;
  // The value of field in *value (may point into scratch); false if absent.
  virtual bool get(std::string_view field, char* scratch, std::string_view* value) const = 0;
  // Sets field to value; true when the field is new. Does not convert: use
  // hashSet() for the limit checks.
  virtual bool set(std::string_view field, std::string_view value) = 0;
  // False if the field was absent.
  virtual bool remove(std::string_view field) = 0;
  // Every pair in storage order.
  virtual void forEach(const PairFn& fn) const = 0;
  // One random pair (the hash must not be empty); views valid as above.
  virtual void randomPair(char* fscratch, char* vscratch, std::string_view* field,
                          std::string_view* value) = 0;
  // HSCAN step (see common::Dict::scan); a listpack visits everything and
  // returns 0.
  virtual uint64_t scan(uint64_t cursor, const PairFn& fn) = 0;

  // A hashtable copy of this hash's pairs (for conversion).
  Hash* toTable() const;
};

// Sets field=value in the hash owned by *v (kind kHash), first converting a
// listpack to a hashtable when the field or value is longer than
// lim.max_value, and afterwards when the size passes lim.max_entries.
// Returns true when the field is new.
bool hashSet(Value* v, std::string_view field, std::string_view value, const HashLimits& lim);
inline Hash* asHash(const Value& v) {
  return static_cast<Hash*>(v.collection());
}

}  // namespace server::db
