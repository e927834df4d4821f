// LLVM calls the tests make whose form changed between LLVM 19 and 22, each
// in one form here (the project's own code keeps its few #ifs beside the
// call they concern).
#pragma once

#include <optional>

#include "llvm/Config/llvm-config.h"
#include "llvm/DebugInfo/DIContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugFrame.h"

namespace jitsym::test_support {

// DWARFContext::getLineInfoForAddress's answer: a DILineInfo before LLVM 20,
// an optional one since (none: the empty DILineInfo, line 0).
inline llvm::DILineInfo lineOrNone(llvm::DILineInfo info) { return info; }
inline llvm::DILineInfo lineOrNone(std::optional<llvm::DILineInfo> info) {
  return info.value_or(llvm::DILineInfo());
}

// The rows LLVM computes for an FDE (a free function since LLVM 21).
inline auto unwindTableOf(const llvm::dwarf::FDE *fde) {
#if LLVM_VERSION_MAJOR >= 21
  return llvm::dwarf::createUnwindTable(fde);
#else
  return llvm::dwarf::UnwindTable::create(fde);
#endif
}

} // namespace jitsym::test_support
