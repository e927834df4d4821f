// Unwind tables as a .debug_frame section for LLDB: one CIE per distinct CIE
// content, then one FDE per frame with absolute 64-bit addresses. The CFA
// programs are copied as they came from .eh_frame (the encoding is the same).
#pragma once

#include <string>
#include <vector>

#include "jitsym/formats/EhFrameParser.h"

namespace jitsym {

std::string buildDebugFrame(const std::vector<const CallFrameInfo *> &frames);

} // namespace jitsym
