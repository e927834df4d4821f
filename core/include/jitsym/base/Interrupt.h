// How a long read learns that the user wants it to stop (Ctrl-C in LLDB): the
// reader asks between chunks and, when told to, stops at the next record or
// line boundary, keeping what it read so the next read goes on from there.
#pragma once

#include <functional>

namespace jitsym {

// True: stop at the next safe point. An empty check never interrupts.
using InterruptCheck = std::function<bool()>;

inline bool interruptRequested(const InterruptCheck &check) { return check && check(); }

} // namespace jitsym
