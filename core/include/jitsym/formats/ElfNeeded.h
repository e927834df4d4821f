// The libraries an ELF program or library names as its dependencies
// (DT_NEEDED), read from its dynamic section: how jitsym's plugin learns,
// before a launch, that a program links a sanitizer runtime, which must come
// first among its libraries, ahead of the compile watch's preloaded filter
// (LLDB on Linux lists only the program until it runs).
#pragma once

#include <string>
#include <vector>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace jitsym {

// The DT_NEEDED names of the 64-bit little-endian ELF file `bytes`, in order
// (none for a static program). An error names `fileName` and what is wrong.
llvm::Expected<std::vector<std::string>> parseNeededLibraries(llvm::StringRef bytes,
                                                              llvm::StringRef fileName);

} // namespace jitsym
