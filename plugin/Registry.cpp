// The registry of targets and the exit watcher.
#include "Registry.h"

#include <cstdlib>
#include <cstring>

namespace jitsym::plugin {

TargetSettings initialSettings() {
  TargetSettings settings;
  const char *portable = std::getenv("JITSYM_PORTABLE");
  settings.portable = portable && std::strcmp(portable, "1") == 0;
  const char *filter = std::getenv("JITSYM_FILTER_WRITES"); // "0": the stop per write
  settings.filterWrites = !(filter && std::strcmp(filter, "0") == 0);
  return settings;
}

Registry &registry() {
  static Registry *instance = new Registry(); // lives as long as liblldb
  return *instance;
}
std::mutex &registryMutex() {
  static std::mutex *m = new std::mutex();
  return *m;
}

ExitWatcher &exitWatcher() {
  static ExitWatcher *instance = new ExitWatcher(); // never destroyed: see stop()
  return *instance;
}

// The watcher's thread runs this library's code: it ends before the library is
// unloaded (SBDebugger::Terminate, as at Python's exit, unloads plugins without
// destroying the debuggers first) or the process exits.
__attribute__((destructor)) void stopExitWatcherAtUnload() { exitWatcher().stop(); }

} // namespace jitsym::plugin
