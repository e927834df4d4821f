// The frames runtimes' JIT code runs on, read from the runtime's binary as
// LLDB holds it (core jitsym/plan/RuntimeFrame.h): PHP's JIT code runs on
// execute_ex's frame, so its unwind rule is execute_ex's body row.
#pragma once

#include <optional>
#include <string>

#include "jitsym/arch/Architecture.h"
#include "jitsym/plan/RuntimeFrame.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

// execute_ex's deepest row, from the .eh_frame of the module that defines it
// (php, or libphp.so in a server); nullopt when no module does or its table
// cannot be read.
std::optional<RuntimeFrame> phpVmFrame(lldb::SBTarget &target, const Architecture &arch);

// The bytes of a module's section as its file holds them (.eh_frame, .text);
// nullopt when it has none or it cannot be read.
std::optional<std::string> sectionBytes(lldb::SBModule &module, const char *name);

} // namespace jitsym::plugin
