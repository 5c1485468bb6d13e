// The options table's internals, shared by the files of conf/: the row of
// one option (name, arity, setter, getter), the value parsers the rows use
// (values.cpp), the table and its lookup (table.cpp), the hooks the file
// loader calls (file.cpp). Not for use outside src/server/conf/: the rest of
// the server includes conf/config.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "server/conf/config.h"

namespace server::conf {

using Args = std::vector<std::string>;
// std::function: the rows of connection types' settings capture their spec.
using Setter = std::function<bool(Config&, const Args&, std::string* err)>;
using Getter = std::function<std::string(const Config&)>;

struct Option {
  const char* name;
  bool is_mutable;
  int min_args;  // value arguments after the name
  int max_args;  // -1: any
  Setter set;
  Getter get;
  // Redis's hidden configs (test aids): CONFIG GET shows them only when
  // asked by their exact name, never for a pattern.
  bool hidden = false;
  // CONFIG SET applies it even when the value is unchanged (it names a
  // file whose content may have changed).
  bool apply_unchanged = false;
  // A secret: SLOWLOG and MONITOR show its CONFIG SET value as (redacted).
  bool sensitive = false;
};

// Allowed values of an enumerated option, listed in the error as Redis does.
struct EnumValues {
  const char* const* names;
  size_t count;
};
inline constexpr const char* kMaxmemoryPolicyNames[] = {
    "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
    "allkeys-lru",  "allkeys-lfu",  "allkeys-random",  "noeviction"};
inline constexpr EnumValues kMaxmemoryPolicies = {kMaxmemoryPolicyNames, 8};
inline constexpr const char* kPropagationErrorNames[] = {"ignore", "panic", "panic-on-replicas"};
inline constexpr EnumValues kPropagationErrorBehaviors = {kPropagationErrorNames, 3};
inline constexpr const char* kPubsubDefaultNames[] = {"allchannels", "resetchannels"};
inline constexpr EnumValues kPubsubDefaults = {kPubsubDefaultNames, 2};
inline constexpr const char* kProtectedModeNames[] = {"no", "yes", "local"};
inline constexpr EnumValues kProtectedModes = {kProtectedModeNames, 3};
inline constexpr const char* kSupervisedNames[] = {"upstart", "systemd", "auto", "no"};
inline constexpr EnumValues kSupervisedModes = {kSupervisedNames, 4};
inline constexpr const char* kOomScoreAdjNames[] = {"no", "yes", "relative", "absolute"};
inline constexpr EnumValues kOomScoreAdjModes = {kOomScoreAdjNames, 4};
inline constexpr const char* kSyslogFacilityNames[] = {
    "user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"};
inline constexpr EnumValues kSyslogFacilities = {kSyslogFacilityNames, 9};
inline constexpr const char* kAppendFsyncNames[] = {"everysec", "always", "no"};
inline constexpr EnumValues kAppendFsync = {kAppendFsyncNames, 3};
inline constexpr const char* kDisklessLoadNames[] = {"disabled", "on-empty-db", "swapdb"};
inline constexpr EnumValues kDisklessLoad = {kDisklessLoadNames, 3};

// ---- value parsers and the setters/getters of structured options (values.cpp)
bool parseBool(const std::string& v, bool* out, std::string* err);
bool parseRange(const std::string& v, int64_t lo, int64_t hi, int64_t* out, std::string* err);
bool parseMemory(const std::string& v, int64_t* out);
bool parseMemoryRange(const std::string& v, int64_t lo, int64_t hi, int64_t* out, std::string* err);
std::vector<std::string> splitWords(const Args& a);
std::string yesno(bool b);
std::string joinArgs(const std::vector<std::string>& v);
bool validSave(const Args& a, std::string* err);
bool setOutputBufferLimits(Config& c, const Args& a, std::string* err);
std::string getOutputBufferLimits(const Config& c);
// shutdown-on-sigint / -sigterm: "default" or any of save nosave now force
// (not save with nosave); canonical in that order.
bool parseShutdownFlags(const Args& a, std::string* out, std::string* err);
bool setLatencyPercentiles(Config& c, const Args& a, std::string* err);
std::string getLatencyPercentiles(const Config& c);
bool setMaxmemoryClients(Config& c, const Args& a, std::string* err);
bool setReplicaOf(Config& c, const std::vector<std::string>& a, std::string* e);
bool setAofName(std::string* field, const std::string& v, const char* what, std::string* e);
bool parseEnum(const std::string& v, const EnumValues& allowed, std::string* out, std::string* err);

// ---- the table (table.cpp)
const std::vector<Option>& options();
// The cluster-* rows (cluster_options.cpp).
std::vector<Option> clusterOptions();
// The row of an option by name or old alias; nullptr when unknown.
const Option* findOption(const std::string& name);

// ---- the file loader (file.cpp)
extern ConfigApplyHook g_apply_hook;
extern ConfigUserLinesHook g_user_lines_hook;
// The whole file in *out; false (errno set) when it cannot be opened.
bool readWholeFile(const std::string& path, std::string* out);
std::string trim(const std::string& s);

}  // namespace server::conf
