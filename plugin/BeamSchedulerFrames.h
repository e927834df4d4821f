// The unwind rules that lead a backtrace from an Erlang process's stack back
// to its scheduler's C stack (core plan/BeamFrames.h), made from BEAM's
// process_main stub as the process holds it and the call of process_main in
// beam's own code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jitsym/formats/PhpOpArray.h"
#include "jitsym/plan/BeamFrames.h"
#include "jitsym/symbols/JitTables.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class BeamSchedulerFrames {
public:
  // For new symbols of the stub and of normal_exit: their rules into
  // `tables.unwind`; without frame pointers (no perf map: +JPperf dump),
  // every other piece of BEAM's code gets the stack scan's rule (its BIF-call
  // stub's code says which, when announced; `framePointers` until then). Returns the
  // starts of symbols LLDB already has that got their rules only now (the
  // stub came after them).
  std::vector<uint64_t> describe(lldb::SBTarget &target, const ReadPieces &read,
                                 const std::vector<const Symbol *> &added, JitTables &tables,
                                 bool framePointers);
  void forget() { *this = BeamSchedulerFrames(); }
  // For --status, once the stub was seen.
  std::optional<std::string> status() const;

private:
  std::optional<uint64_t> processMainReturn(lldb::SBTarget &target);

  bool seen_ = false;
  std::optional<BeamProcessMain> stub_;
  std::optional<uint64_t> returnAddress_;
  std::string missing_; // why there are no rules
  std::vector<AddressRange> exits_; // normal_exit's pieces, with rules or waiting for the stub
  std::vector<AddressRange> scanned_; // code given the scan's rule, or waiting for the stub
  size_t savedStackStubs_ = 0;       // stubs whose saved stack pointer was found
  std::optional<bool> framePointers_; // as the BIF-call stub's code says
};

} // namespace jitsym::plugin
