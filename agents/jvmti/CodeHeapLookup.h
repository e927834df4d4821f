// Finding the nmethod that owns an address, through the code heap's segment
// map: every read bounded to the committed heap, so any address is safe to
// ask about. Private to the HotSpotNmethods files.
#pragma once

#include <cstdint>
#include <optional>

#include "NmethodLayouts.h"

namespace jitsym::jvmti {

// The nmethod (its CodeBlob header) whose code begins at `address`. Reads
// only the code heap.
std::optional<uintptr_t> nmethodAt(const NmethodLayout &layout, uintptr_t address);

} // namespace jitsym::jvmti
