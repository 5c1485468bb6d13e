// Redis 7.0 directives of features this server does not have yet
// (replication, cluster, TLS, AOF, ...): each is accepted in the config
// file and by CONFIG SET with Redis's validation and error texts, listed
// by CONFIG GET with Redis's default, kept by CONFIG REWRITE, and logged as
// not implemented: at start for every one set to a non-default value, and
// at run time the first time CONFIG SET gives one a non-default value.
// README.md "Not implemented yet" lists them.
//
// A feature that gets implemented moves its options out of this table into
// config.cpp's (config_options_test.cpp fails while a name is in both).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace server {
struct Config;
}

namespace server::conf {

enum class Kind {
  kBool,      // yes | no
  kInt,       // integer in [lo, hi]
  kMemory,    // memory value ("64mb") in [lo, hi]; shown in bytes
  kString,    // any single value
  kFileOnly,  // config-file directive, not a CONFIG parameter
};

struct UnimplementedOption {
  const char* name;
  const char* alias;  // the older name Redis also takes (slave-*), or nullptr
  Kind kind;
  const char* def;  // what CONFIG GET shows by default
  bool is_mutable;
  int64_t lo, hi;       // kInt, kMemory; kFileOnly: min and max (-1: any) args
  const char* feature;  // what is missing ("replication", "TLS", ...)
};

const std::vector<UnimplementedOption>& unimplementedOptions();
// By name or alias, case-insensitive; nullptr if none.
const UnimplementedOption* findUnimplemented(std::string_view name);
bool unimplementedArity(const UnimplementedOption& o, size_t nvalues);
// Validates and stores a value (in cfg->unimplemented); false with Redis's
// error text.
bool setUnimplemented(Config* cfg, const UnimplementedOption& o,
                      const std::vector<std::string>& values, std::string* err);
// The value CONFIG GET shows.
std::string getUnimplemented(const Config& cfg, const UnimplementedOption& o);

// Start-up: one warning for each option set to a non-default value and
// each file-only directive used.
void logUnimplemented(const Config& cfg);
// After CONFIG SET: warns the first time an option gets a non-default value.
void noteUnimplementedSet(const Config& cfg, const UnimplementedOption& o);

}  // namespace server::conf
