// List: the value of a list key, in one of two forms (OBJECT ENCODING says
// "quicklist" for both, as Redis 7.0):
//   "listpack"   small lists: one db::Listpack;
//   "quicklist"  past list-max-listpack-size: a db::Quicklist of listpack
//                nodes.
// Commands change the list through the methods below, then call
// updateEncoding() once, which converts in either direction: up when the
// listpack exceeds the per-node limit, back down (hysteresis) only when all
// elements fit in half the limit, so a list at the boundary does not
// convert on every push/pop.
//
// Size: vptr + listpack + quicklist pointer (24 bytes). Lists are not among
// the types with a memory target, and a second indirection per small list
// would cost more than the extra word.
#pragma once

#include <string>
#include <string_view>

#include "server/db/listpack.h"
#include "server/db/quicklist.h"
#include "server/db/value.h"

namespace server::db {

class List : public Collection {
 public:
  // An element position in either encoding (node is null for listpack).
  struct Iter {
    Quicklist::Node* node = nullptr;
    Listpack::Pos pos = Listpack::kNone;
    bool valid() const { return pos != Listpack::kNone; }
  };

  List() = default;
  ~List() override;
  List(const List&) = delete;
  List& operator=(const List&) = delete;
  Collection* clone() const override;
  const char* encodingName() const override;
  size_t memoryUsage() const override;

  bool isQuicklist() const { return ql_ != nullptr; }
  // The single listpack while !isQuicklist().
  const Listpack& listpack() const { return lp_; }
  const Quicklist* quicklist() const { return ql_; }
  size_t size() const;
  bool empty() const { return size() == 0; }

  // ---- walking (invalidated by any modification but the returned one)
  Iter at(int64_t index) const;  // negative from the end; invalid if out of range
  Iter first() const;
  Iter last() const;
  Iter next(Iter it) const;
  Iter prev(Iter it) const;
  LpValue get(Iter it) const;

  // ---- modifying
  void push(std::string_view s, bool head);
  // Removes the head or tail element into *out; false when empty.
  bool pop(bool head, std::string* out);
  void insert(Iter it, std::string_view s, bool after);
  void replace(Iter it, std::string_view s);
  Iter erase(Iter it);  // returns the following element
  void eraseRange(size_t start, size_t n);

  // Converts to the encoding the current size calls for (see above).
  // compress: list-compress-depth for a quicklist made now.
  void updateEncoding(int fill, int compress = 0);
  // Before adding `count` elements of `bytes` encoded bytes in all: turns a
  // listpack that would exceed the limit into a quicklist first, so a big
  // multi-element push never grows (and memmoves) one oversized listpack.
  void prepareGrowth(int fill, size_t bytes, size_t count, int compress = 0);
  // Appends the elements of lp at the tail as a unit (RDB loading), when lp
  // is within the fill limit: a listpack list takes them while it stays
  // within the limit, else it becomes a quicklist and lp a node of it.
  // False (nothing done) when lp is over the limit: the caller then pushes
  // the elements one by one.
  bool appendWhole(Listpack& lp, int fill, int compress = 0);

 private:
  Listpack lp_;
  Quicklist* ql_ = nullptr;
};

}  // namespace server::db
