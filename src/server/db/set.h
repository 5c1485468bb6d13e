// Set: the value of a set key. Encodings, as Redis 7.0 has them:
//   "intset"    a db::Intset while every member is an integer and there are
//               at most set-max-intset-entries of them;
//   "hashtable" a common::Dict of one-allocation member nodes.
// setAdd() converts intset -> hashtable as members arrive; nothing converts
// back. Redis 7.2's listpack sets (RDB type 20) load as one of these. Every
// object is 16 bytes (vptr + one pointer).
//
// Views handed out point into the set or into the caller's scratch (>=
// kScratch bytes) and stay valid until the set is next modified.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "server/db/intset.h"
#include "server/db/value.h"

namespace server::db {

struct SetLimits {
  size_t max_intset_entries;
};

class Set : public Collection {
 public:
  static constexpr size_t kScratch = 24;
  using MemberFn = std::function<void(std::string_view member)>;
  enum class Encoding { kIntset, kTable };

  static Set* createIntset();
  static Set* createTable();
  // A set over a ready intset (RDB loading): the caller has checked the
  // members are sorted and distinct and the limit holds.
  static Set* adoptIntset(Intset is);

  virtual Encoding encoding() const = 0;
  // The intset of an intset set, else nullptr (RDB saving copies its bytes).
  virtual const Intset* intset() const { return nullptr; }
  virtual size_t size() const = 0;
  virtual bool contains(std::string_view m) const = 0;
  // Adds without any conversion (an intset takes only canonical integers);
  // false when already present. Use setAdd() in commands.
  virtual bool add(std::string_view m) = 0;
  virtual bool remove(std::string_view m) = 0;
  // Every member in storage order (an intset ascending).
  virtual void forEach(const MemberFn& fn) const = 0;
  // A random member (the set must not be empty).
  virtual std::string_view random(char* scratch) = 0;
  // Removes a random member and returns it.
  virtual std::string popRandom() = 0;
  // SSCAN step (see common::Dict::scan); an intset visits everything and
  // returns 0.
  virtual uint64_t scan(uint64_t cursor, const MemberFn& fn) = 0;

  // A copy of this set's members in the given encoding.
  Set* convertTo(Encoding enc) const;
};

// The empty set a new key starts as, for its first member: an intset for
// an integer whatever the count (setAdd converts it once it holds too
// many), else a hashtable (Redis 7.0's setTypeCreate).
Set* setCreateFor(std::string_view first);
// Adds m to the set owned by *v (kind kSet), converting the encoding when
// the limits require it. True when m was not a member.
bool setAdd(Value* v, std::string_view m, const SetLimits& lim);

inline Set* asSet(const Value& v) {
  return static_cast<Set*>(v.collection());
}

}  // namespace server::db
