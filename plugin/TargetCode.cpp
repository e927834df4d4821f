// A target's architecture, from its triple.
#include "TargetCode.h"

namespace jitsym::plugin {

llvm::Expected<TargetCode> targetCode(lldb::SBTarget &target) {
  TargetCode code;
  const char *triple = target.GetTriple();
  code.triple = triple && *triple ? triple : std::string(hostArchitecture().linuxTriple);
  code.arch = architectureOfTriple(code.triple);
  if (!code.arch)
    return llvm::createStringError(std::errc::not_supported,
                                   "the target's code is %s: jitsym knows x86_64 and aarch64 "
                                   "code only",
                                   code.triple.c_str());
  return code;
}

} // namespace jitsym::plugin
