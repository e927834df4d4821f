// What a user set on one location of a breakpoint in JIT code (`breakpoint
// disable 2.1`, `breakpoint modify -c COND 2.1`), carried to the location
// LLDB makes anew when jitsym replaces the module the location was in: LLDB
// gives a new location its breakpoint's options, and leaves the old one,
// with the user's, at an address no module holds.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class LocationOptions {
public:
  // The locations in modules `ours` says are jitsym's whose options differ
  // from their breakpoint's.
  static LocationOptions save(lldb::SBTarget &target,
                              const std::function<bool(lldb::SBModule &)> &ours);
  // Gives them to the breakpoint's other locations at the same addresses
  // (made since); returns how many were given.
  size_t restore(lldb::SBTarget &target) const;
  bool empty() const { return saved_.empty(); }

private:
  struct Saved {
    lldb::break_id_t breakpoint = LLDB_INVALID_BREAK_ID;
    lldb::break_id_t location = LLDB_INVALID_BREAK_ID;
    lldb::addr_t address = LLDB_INVALID_ADDRESS;
    bool enabled = true;
    std::string condition;
    uint32_t ignoreCount = 0;
    bool autoContinue = false;
  };
  std::vector<Saved> saved_;
};

} // namespace jitsym::plugin
