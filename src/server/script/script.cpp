#include "server/script/script.h"

#include "common/strutil.h"
#include "server/core/reply_helpers.h"
#include "server/script/eval.h"
#include "server/script/functions.h"
#include "server/script/run_context.h"

namespace server::script {

void registerScriptingCommands(CommandTable& t) {
  registerEvalCommands(t);
  registerFunctionCommands(t);
}

bool scriptKeys(const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
  int64_t n;
  if (argv.size() < 3 || !common::strutil::parseInt64(argv[2], &n) || n < 0 ||
      static_cast<uint64_t>(n) > argv.size() - 3)
    return false;
  for (size_t i = 0; i < static_cast<size_t>(n); i++) out->push_back(3 + i);
  return true;
}

bool running() {
  return current() != nullptr;
}

void afterScripts() {
  releaseRetiredBuffers();
}

Client* runningCaller() {
  return current() != nullptr ? current()->caller : nullptr;
}

void startEngines() {
  evalVmMemory();
  functionsVmMemory();
}

void appendMemoryInfo(std::string* o) {
  using ull = unsigned long long;
  size_t eval_vm = evalVmMemory();
  size_t func_vm = functionsVmMemory();
  size_t eval_scripts = evalScriptsMemory();
  size_t func_mem = functionsMemory();
  appendFormat(o, "used_memory_lua:%llu\r\nused_memory_vm_eval:%llu\r\n", static_cast<ull>(eval_vm),
               static_cast<ull>(eval_vm));
  appendFormat(o, "used_memory_lua_human:%s\r\n", bytesToHuman(eval_vm).c_str());
  appendFormat(o, "used_memory_scripts_eval:%llu\r\nnumber_of_cached_scripts:%llu\r\n",
               static_cast<ull>(eval_scripts), static_cast<ull>(evalCachedScripts()));
  appendFormat(o, "number_of_functions:%llu\r\nnumber_of_libraries:%llu\r\n",
               static_cast<ull>(functionsCount()), static_cast<ull>(librariesCount()));
  appendFormat(o, "used_memory_vm_functions:%llu\r\nused_memory_vm_total:%llu\r\n",
               static_cast<ull>(func_vm), static_cast<ull>(eval_vm + func_vm));
  appendFormat(o, "used_memory_vm_total_human:%s\r\n", bytesToHuman(eval_vm + func_vm).c_str());
  appendFormat(o, "used_memory_functions:%llu\r\nused_memory_scripts:%llu\r\n",
               static_cast<ull>(func_mem), static_cast<ull>(eval_scripts + func_mem));
  appendFormat(o, "used_memory_scripts_human:%s\r\n",
               bytesToHuman(eval_scripts + func_mem).c_str());
}

}  // namespace server::script
