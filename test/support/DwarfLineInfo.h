// DWARFContext::getLineInfoForAddress's answer as one type across LLVM
// versions: a DILineInfo before LLVM 20, an optional one since (none: the
// empty DILineInfo, line 0).
#pragma once

#include <optional>

#include "llvm/DebugInfo/DIContext.h"

namespace jitsym::test_support {

inline llvm::DILineInfo lineOrNone(llvm::DILineInfo info) { return info; }
inline llvm::DILineInfo lineOrNone(std::optional<llvm::DILineInfo> info) {
  return info.value_or(llvm::DILineInfo());
}

} // namespace jitsym::test_support
