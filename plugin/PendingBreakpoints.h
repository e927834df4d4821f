// What the compile stops watch for: the names, patterns and source files of
// the target's enabled breakpoints that have no location yet or have one in
// JIT code (those can resolve to new JIT code: a breakpoint on a JIT function
// wants every copy the runtime compiles), and the addresses of locations in
// JIT modules (code compiled again, moved or freed there must reach LLDB
// before it runs). The compile watch runs while there is any.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lldb/API/LLDB.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"
#include "jitsym/formats/WatchList.h"

namespace jitsym::plugin {

class PendingBreakpoints {
public:
  // `ignore` is the compile watch's own breakpoint; `isJitModule` tells the
  // modules whose code a runtime may replace.
  static PendingBreakpoints of(lldb::SBTarget &target, lldb::break_id_t ignore,
                               const std::function<bool(lldb::SBModule &)> &isJitModule);

  // What --status says: breakpoints by name, pattern or file waiting for
  // code, and locations in JIT code.
  size_t waiting() const { return waiting_; }
  size_t locations() const { return locations_.size(); }
  // Less what cannot be Java code: in a JVM, a name without a '.' (a native
  // function, as in `b jitdemo_stop`) and a file that is not Java, Kotlin or
  // Scala wait for a library, not for HotSpot. Watching for them would stop
  // the JVM at every compile for nothing (and LLDB shows some of those stops).
  void keepJavaOnly();
  bool empty() const {
    return names_.empty() && patterns_.empty() && files_.empty() && locations_.empty();
  }
  // Whether a symbol of this name may resolve one of them. Generous on purpose:
  // a name containing a wanted name matches (LLDB matches demangled base names
  // and the names of methods), since a false match costs one early publish;
  // so does one whose name as typed (RuntimeNames.h) contains it.
  bool mayResolve(std::string_view symbolName) const;
  // Whether lines in this source file may resolve a file-and-line breakpoint.
  bool mayResolveFile(std::string_view file) const;
  // Whether [address, address + size) holds a location: the code there changed.
  bool touchesLocation(uint64_t address, uint64_t size) const;
  // The locations in [begin, end), ascending.
  std::vector<uint64_t> locationsIn(uint64_t begin, uint64_t end) const;
  // What a producer built on libjitsym-writer is told to announce (core
  // formats/WatchList.h): code by these names or over these locations; all
  // of it for a pattern or a file and line, which a name cannot stand for.
  jitsym_watch_list watchList() const;

private:
  std::vector<std::string> names_;
  std::vector<llvm::Regex> patterns_;
  std::vector<std::string> files_;  // base names
  std::vector<uint64_t> locations_; // sorted
  size_t waiting_ = 0;              // breakpoints with no location
};

// The load addresses of all resolved locations of the target's breakpoints
// (where LLDB may have put a trap in memory), ascending.
std::vector<uint64_t> breakpointLocationAddresses(lldb::SBTarget &target);

} // namespace jitsym::plugin
