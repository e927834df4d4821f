// `jitsym dump`: a jitdump's records as stable text, one line each (the test
// seam for the jitdump reader).
#pragma once

#include <string>

#include "llvm/Support/raw_ostream.h"

namespace jitsym {

// Prints the header and the records of `path` to `out`, problems to `err`;
// returns the exit status (1 when the file cannot be read at all).
int runJitdumpDump(const std::string &path, llvm::raw_ostream &out, llvm::raw_ostream &err);

} // namespace jitsym
