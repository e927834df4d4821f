// The name and descriptor of the Method an nmethod compiles, read from
// metadata outside the code heap: nmethod -> Method -> ConstMethod ->
// ConstantPool -> Symbol. How MethodHandle intrinsics, which JVMTI names all
// alike, get their own names. Private to the HotSpotNmethods files.
#pragma once

#include <cstdint>
#include <optional>

#include "HotSpotNmethods.h"
#include "NmethodLayouts.h"

namespace jitsym::jvmti {

// `nmethod` as nmethodAt found it, and alive (CompiledMethodLoad's, during
// that event); nullopt when what is read is not a method's name and
// descriptor.
std::optional<CompiledMethodName> compiledMethodName(const DescriptorLayout &layout,
                                                     uintptr_t nmethod);

} // namespace jitsym::jvmti
