// What a DynamicCodeGenerated event says about a stub, checked before the
// agent writes it. Pure functions: the event handler lives in Agent.cpp.
#pragma once

#include <cstdint>

namespace jitsym::jvmti {

// Whether a stub that GenerateEvents replays (not one posted live) is one
// HotSpot is still generating. HotSpot's replay lists every StubCodeDesc,
// and the one a thread is generating at that moment has no end yet (a null
// `_end`, set when its StubCodeMark ends); the event's length is then
// (jint)(nullptr - begin), so begin + length is a multiple of 2^32. That
// length is negative or up to 2 GiB, depending on bit 31 of the address: a
// positive one runs from the stub through the rest of the code heap and past
// its committed end (Temurin 25 generates its compiler stubs on the C2
// thread while VM init replays, DelayCompilerStubsGeneration; under LLDB,
// with ASLR off, the code heap is at 0x7fffdf9xxxxx, and the length ~543 MB).
// The finished stub is posted live when its generation ends, with its true
// range. A stub that truly ends at a 4 GiB boundary is taken for one being
// generated too: in the replay only, and it loses a stub's name, nothing more.
bool replayedStubIsUnfinished(uint64_t address, int64_t length);

} // namespace jitsym::jvmti
