// What the target's pending breakpoints wait for: the names and patterns of its
// enabled by-name breakpoints that have no location yet. Only those can resolve
// to a JIT symbol; the compile watch runs while there are any.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lldb/API/LLDB.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

namespace jitsym::plugin {

class PendingBreakpoints {
public:
  // `ignore` is the compile watch's own breakpoint.
  static PendingBreakpoints of(lldb::SBTarget &target, lldb::break_id_t ignore);

  bool empty() const { return names_.empty() && patterns_.empty(); }
  // Whether a symbol of this name may resolve one of them. Generous on purpose:
  // a name containing a wanted name matches (LLDB matches demangled base names
  // and the names of methods), since a false match costs one early publish.
  bool mayResolve(std::string_view symbolName) const;

private:
  std::vector<std::string> names_;
  std::vector<llvm::Regex> patterns_;
};

} // namespace jitsym::plugin
