// LLDB reads new modules on a thread of its own: `SBModule(spec)` puts the
// module in LLDB's module cache and reading its symbols makes LLDB parse the
// object (about half of what adding a module to a target costs: a busy
// Node's stop adds ~34). SBTarget::AddModule with the same spec then finds it
// there, read. The publisher queues each new region's module as soon as its
// object is written and adds it two regions later (RegionModules::stage,
// finish): LLDB reads one module while the next objects are built and the
// ones before are added.
//
// Only the module cache is shared with the thread the SB API is used on (as
// LLDB's own parallel module loading does): the module read is new, and no
// target holds it until `take` hands it over.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class ModuleReader {
public:
  ModuleReader() = default;
  ~ModuleReader(); // what is queued and not started is dropped
  ModuleReader(const ModuleReader &) = delete;
  ModuleReader &operator=(const ModuleReader &) = delete;

  // Queues the module of `spec`; its ticket for `take`.
  size_t read(const lldb::SBModuleSpec &spec);
  // The module of `ticket`, once read (invalid where LLDB could not make it);
  // read here if no thread could be started.
  lldb::SBModule take(size_t ticket);

private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<size_t, lldb::SBModuleSpec>> queue_;
  std::map<size_t, lldb::SBModule> read_;
  size_t next_ = 0;
  bool stopping_ = false;
  bool noThread_ = false;
  std::thread thread_;
};

} // namespace jitsym::plugin
