#include "StubEvents.h"

namespace jitsym::jvmti {

bool replayedStubIsUnfinished(uint64_t address, int64_t length) {
  if (length <= 0)
    return true; // negative: the same null end, with bit 31 of the address clear
  return ((address + static_cast<uint64_t>(length)) & 0xffffffffu) == 0;
}

} // namespace jitsym::jvmti
