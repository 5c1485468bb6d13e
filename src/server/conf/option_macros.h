// Row makers for the options table (table.cpp, cluster_options.cpp): an
// option whose value is one Config field, parsed by the helpers of
// options.h. Only the conf/ sources that build rows include this.
#pragma once

#include "server/conf/options.h"

#define BOOL_OPT(NAME, FIELD, MUT)                                                             \
  Option {                                                                                     \
    NAME, MUT, 1, 1,                                                                           \
        [](Config& c, const Args& a, std::string* e) { return parseBool(a[0], &c.FIELD, e); }, \
        [](const Config& c) { return yesno(c.FIELD); }                                         \
  }
#define INT_OPT(NAME, FIELD, LO, HI, MUT)                       \
  Option {                                                      \
    NAME, MUT, 1, 1,                                            \
        [](Config& c, const Args& a, std::string* e) {          \
          return parseRange(a[0], LO, HI, &c.FIELD, e);         \
        },                                                      \
        [](const Config& c) { return std::to_string(c.FIELD); } \
  }
#define MEM_OPT(NAME, FIELD, LO, HI, MUT)                       \
  Option {                                                      \
    NAME, MUT, 1, 1,                                            \
        [](Config& c, const Args& a, std::string* e) {          \
          return parseMemoryRange(a[0], LO, HI, &c.FIELD, e);   \
        },                                                      \
        [](const Config& c) { return std::to_string(c.FIELD); } \
  }
#define STR_OPT(NAME, FIELD, MUT)                    \
  Option {                                           \
    NAME, MUT, 1, 1,                                 \
        [](Config& c, const Args& a, std::string*) { \
          c.FIELD = a[0];                            \
          return true;                               \
        },                                           \
        [](const Config& c) { return c.FIELD; }      \
  }

#define ENUM_OPT(NAME, FIELD, VALUES, MUT)             \
  Option {                                             \
    NAME, MUT, 1, 1,                                   \
        [](Config& c, const Args& a, std::string* e) { \
          return parseEnum(a[0], VALUES, &c.FIELD, e); \
        },                                             \
        [](const Config& c) { return c.FIELD; }        \
  }
