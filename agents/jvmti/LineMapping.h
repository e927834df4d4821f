// From the JVM's address-to-bytecode maps to jitdump line entries. Pure
// functions: the JVMTI calls that gather their inputs live in JvmtiMethods.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jitsym/formats/JitdumpWriter.h"

namespace jitsym::jvmti {

// One row of a method's line number table (JVMTI GetLineNumberTable).
struct BytecodeLine {
  int64_t startBci = 0;
  uint32_t line = 0;
};

// The line of bytecode index `bci`: the row with the greatest start at or
// below it (tables need not be sorted). nullopt for a negative bci (HotSpot's
// "before the first bytecode", "synchronization entry"...) or an empty table.
std::optional<uint32_t> lineOfBci(const std::vector<BytecodeLine> &table, int64_t bci);

// What the JVM says about one pc of compiled code (`address`): the innermost
// frame's source position (the inlined method's, when code was inlined). The
// same fields as the line entries written, which linesBeforePcs returns; the
// file names are views of what the caller holds.
using PcLine = DebugLineFields;

// HotSpot describes a pc where a call returns or a safepoint poll ends: the
// instructions *before* it, since the previous described pc, belong to that
// position. So each entry starts at the previous pc (the first at the code's
// start): a caller's return address minus one, which debuggers look up,
// then gets the line of the call. Pcs outside (start, end] are dropped, runs
// with the same file and line are merged, and the code after the last pc gets
// line 0 (no line). `pcs` in any order.
std::vector<PcLine> linesBeforePcs(uint64_t start, uint64_t end, std::vector<PcLine> pcs);

} // namespace jitsym::jvmti
