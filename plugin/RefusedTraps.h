// Breakpoint locations in JIT code whose trap LLDB could not write: the code
// is in memory the process maps shared and without write permission (PHP's
// JIT buffer with opcache.jit_debug=0x10), where the kernel refuses a
// debugger's write (FOLL_FORCE breaks copy-on-write mappings only). LLDB
// shows such a location as unresolved and says no more; jitsym says why
// and what to do, once per location.
#pragma once

#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "jitsym/base/Diagnostic.h"
#include "jitsym/formats/MemoryMap.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class RefusedTraps {
public:
  // The notes for locations in modules `ours` says are jitsym's, not said yet.
  // The memory map is asked for only when such a location is not set.
  std::vector<Diagnostic> check(lldb::SBTarget &target,
                                const std::function<const std::vector<Mapping> &()> &mappings,
                                const std::function<bool(lldb::SBModule &)> &ours);
  void forget() { said_.clear(); }

private:
  std::set<std::pair<lldb::break_id_t, lldb::break_id_t>> said_;
};

} // namespace jitsym::plugin
