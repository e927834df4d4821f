// What the entries of JIT functions say about their frame pointer, read from
// the process's memory (live, remote or a core file alike) through its
// ProcessSide. Made for one sync: code is rewritten between stops.
//
// Two ways to ask for many at once:
//   prefetch   reads them in one batch now (the local side: a process_vm_readv
//              per 1024 runs of close functions); only the answers are kept.
//   readAhead  reads them on a thread of its own, in address order, while the
//              caller goes on (a first sync gives LLDB one region's module
//              while the next region's entries are read: the two costs overlap
//              instead of adding up). `at` waits for the one it asks for.
//              Only with a direct read (one that needs no LLDB); else it is
//              prefetch.
// A function asked for and not read ahead (nor remembered) is read alone.
//
// Read ahead is safe against LLDB's breakpoint traps because of the order a
// publish works in: LLDB writes traps only into a module it is given, and a
// module is given after `at` was asked for all its functions, so after their
// entries were read. Traps already in memory when reading starts are named to
// readAhead; the entries under them are read through LLDB when asked for.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "jitsym/plan/FramePointer.h"
#include "jitsym/plan/PublishPlan.h"
#include "jitsym/plan/Regions.h"

namespace jitsym::plugin {

class FunctionEntries : public EntryReader {
public:
  // The bytes of each piece (sorted by start); an empty string where a piece
  // could not be read.
  using ReadPieces = std::function<std::vector<std::string>(const std::vector<AddressRange> &)>;
  // `arch`: the code's; `read`: on the caller's thread, traps taken out
  // (ProcessSide::readPieces); `direct`: on any thread, traps left in
  // (ProcessSide::directRead), or none.
  FunctionEntries(const Architecture &arch, ReadPieces read, ReadPieces direct = {});
  ~FunctionEntries() override; // stops reading ahead
  FunctionEntries(const FunctionEntries &) = delete;
  FunctionEntries &operator=(const FunctionEntries &) = delete;

  // Reads the entries of these functions (start, size; 0: unknown) in one batch.
  void prefetch(std::vector<std::pair<uint64_t, uint64_t>> functions) override;
  // What is known of these functions' entries without reading them (what
  // LLDB's module of their region says: core PublishPlan.h's heldEntryRule).
  using Known = PublishPlan::KnownEntry;
  void remember(const std::vector<Known> &functions);
  // Starts reading them ahead; `traps`: where LLDB has traps in memory now
  // (ascending). Once per object.
  void readAhead(std::vector<std::pair<uint64_t, uint64_t>> functions,
                 std::vector<uint64_t> traps);
  // The function at `start`, of `size` bytes (0: unknown); Unknown when its
  // bytes cannot be read.
  EntryRule at(uint64_t start, uint64_t size) override;
  // The same, as core's EntryProbe (valid while this object lives).
  EntryProbe probe() {
    return [this](uint64_t start, uint64_t size) { return at(start, size); };
  }

private:
  // What the reading thread shares with `at`.
  struct Ahead {
    std::vector<AddressRange> pieces; // ascending, fixed before `sorted`
    std::vector<EntryRule> found;
    std::vector<char> throughLLDB; // unreadable directly, or under a trap
    std::atomic<bool> sorted{false};
    std::atomic<size_t> done{0}; // pieces [0, done) are read
    std::atomic<bool> finished{false}, cancel{false};
    std::mutex mutex;
    std::condition_variable progressed;
  };
  static void readInOrder(const Architecture &arch, Ahead &ahead, const ReadPieces &direct,
                          std::vector<std::pair<uint64_t, uint64_t>> functions,
                          std::vector<uint64_t> traps);
  // Waits until `ready` holds or the thread is finished.
  template <class Ready> void waitFor(Ready ready);
  const std::pair<AddressRange, EntryRule> *knownAt(const AddressRange &entry) const;

  const Architecture &arch_;
  ReadPieces read_, direct_;
  // What prefetch found, by start and bytes looked at.
  std::vector<std::pair<AddressRange, EntryRule>> known_;
  std::unique_ptr<Ahead> ahead_;
  std::thread reader_;
};

} // namespace jitsym::plugin
