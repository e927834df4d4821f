// What a target's code is, for the files jitsym writes for it: its
// architecture (jitsym/arch/Architecture.h) and the triple its JSON symbol
// files carry. Asked once per process (TargetSync::beginProcess).
#pragma once

#include <string>

#include "jitsym/arch/Architecture.h"
#include "lldb/API/LLDB.h"
#include "llvm/Support/Error.h"

namespace jitsym::plugin {

struct TargetCode {
  const Architecture *arch = nullptr;
  std::string triple;
};

// The target's triple, or this host's Linux triple when it names none; an
// error naming it when jitsym knows no architecture of that name.
llvm::Expected<TargetCode> targetCode(lldb::SBTarget &target);

} // namespace jitsym::plugin
