// Set: the value of a set key. Encodings:
//   "intset"    a db::Intset while every member is an integer and there are
//               at most set-max-intset-entries of them;
//   "listpack"  a db::Listpack of members while there are at most
//               SetLimits::max_listpack_entries, each at most
//               max_listpack_value bytes (Redis 7.2's encoding; the server
//               passes zero limits, so as in Redis 7.0 sets never use it);
//   "hashtable" a common::Dict of one-allocation member nodes.
// setAdd() converts upwards as members arrive (intset -> listpack ->
// hashtable, or intset -> hashtable); nothing converts back. Every object is
// 16 bytes (vptr + one pointer).
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
#include "server/db/listpack.h"
#include "server/db/value.h"

namespace db {

struct SetLimits {
  size_t max_intset_entries;
  size_t max_listpack_entries;
  size_t max_listpack_value;
};

class Set : public Collection {
 public:
  static constexpr size_t kScratch = 24;
  using MemberFn = std::function<void(std::string_view member)>;
  enum class Encoding { kIntset, kListpack, kTable };

  static Set* createIntset();
  static Set* createListpack();
  static Set* createTable();
  // Sets over ready contents (RDB loading): the caller has checked the
  // members are distinct (an intset's sorted) and the limits hold.
  static Set* adoptIntset(Intset is);
  static Set* adoptListpack(Listpack lp);

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
  // SSCAN step (see common::Dict::scan); intset and listpack visit
  // everything and return 0.
  virtual uint64_t scan(uint64_t cursor, const MemberFn& fn) = 0;

  // A copy of this set's members in the given encoding.
  Set* convertTo(Encoding enc) const;
};

// The empty set a new key starts as, for its first member and the number
// of members about to be added (Redis 7.2's choice).
Set* setCreateFor(std::string_view first, size_t size_hint, const SetLimits& lim);
// Adds m to the set owned by *v (kind kSet), converting the encoding when
// the limits require it. True when m was not a member.
bool setAdd(Value* v, std::string_view m, const SetLimits& lim);

inline Set* asSet(const Value& v) {
  return static_cast<Set*>(v.collection());
}

}  // namespace db
