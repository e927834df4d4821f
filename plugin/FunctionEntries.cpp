// Function entries from process memory, read in batches or ahead.
#include "FunctionEntries.h"

#include <algorithm>
#include <system_error>

namespace jitsym::plugin {
namespace {

// The bytes of a function's entry that say what it does with its frame pointer.
AddressRange entryOf(uint64_t start, uint64_t size) {
  uint64_t want = kFramePointerProbeBytes;
  if (size > 0)
    want = std::min(want, size);
  return {start, start + want};
}

bool before(const AddressRange &a, const AddressRange &b) {
  return a.start != b.start ? a.start < b.start : a.end < b.end;
}

// Sorted, each once.
std::vector<AddressRange> entriesOf(const std::vector<std::pair<uint64_t, uint64_t>> &functions) {
  std::vector<AddressRange> pieces;
  pieces.reserve(functions.size());
  for (const auto &[start, size] : functions)
    pieces.push_back(entryOf(start, size));
  std::sort(pieces.begin(), pieces.end(), before);
  pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
  return pieces;
}

EntryRule classify(const Architecture &arch, const std::string &bytes) {
  // What could be read may be enough to tell.
  return entryRuleAt(
      arch, llvm::ArrayRef(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
}

// Pieces read ahead are handed over this many at a time: small enough that
// the first region waits little, large enough for process_vm_readv's batches.
constexpr size_t kAheadChunk = 1024;

} // namespace

FunctionEntries::FunctionEntries(const Architecture &arch, ReadPieces read, ReadPieces direct)
    : arch_(arch), read_(std::move(read)), direct_(std::move(direct)) {}

FunctionEntries::~FunctionEntries() {
  if (ahead_)
    ahead_->cancel = true;
  if (reader_.joinable())
    reader_.join();
}

const std::pair<AddressRange, EntryRule> *
FunctionEntries::knownAt(const AddressRange &entry) const {
  auto it = std::lower_bound(known_.begin(), known_.end(), entry,
                             [](const auto &a, const AddressRange &b) { return before(a.first, b); });
  return it != known_.end() && it->first == entry ? &*it : nullptr;
}

void FunctionEntries::prefetch(std::vector<std::pair<uint64_t, uint64_t>> functions) {
  std::vector<AddressRange> pieces = entriesOf(functions);
  // Only what is not known yet.
  pieces.erase(std::remove_if(pieces.begin(), pieces.end(),
                              [&](const AddressRange &piece) { return knownAt(piece); }),
               pieces.end());
  if (pieces.empty())
    return;
  const std::vector<std::string> bytes = read_(pieces);
  const size_t before = known_.size();
  for (size_t i = 0; i < pieces.size(); ++i)
    known_.emplace_back(pieces[i], classify(arch_, i < bytes.size() ? bytes[i] : std::string()));
  std::inplace_merge(known_.begin(), known_.begin() + before, known_.end(),
                     [](const auto &a, const auto &b) { return jitsym::plugin::before(a.first, b.first); });
}

void FunctionEntries::remember(const std::vector<Known> &functions) {
  const size_t before = known_.size();
  for (const Known &function : functions)
    known_.emplace_back(entryOf(function.start, function.size), function.rule);
  auto byStart = [](const auto &a, const auto &b) {
    return jitsym::plugin::before(a.first, b.first);
  };
  std::sort(known_.begin() + before, known_.end(), byStart);
  std::inplace_merge(known_.begin(), known_.begin() + before, known_.end(), byStart);
}

void FunctionEntries::readAhead(std::vector<std::pair<uint64_t, uint64_t>> functions,
                                std::vector<uint64_t> traps) {
  if (!direct_ || ahead_) {
    prefetch(std::move(functions));
    return;
  }
  ahead_ = std::make_unique<Ahead>();
  try {
    reader_ = std::thread(readInOrder, std::cref(arch_), std::ref(*ahead_), std::cref(direct_),
                          std::move(functions), std::move(traps));
  } catch (const std::system_error &) {
    // No thread to be had: the entries are read when asked for, one by one.
    ahead_->finished = true;
  }
}

void FunctionEntries::readInOrder(const Architecture &arch, Ahead &ahead,
                                  const ReadPieces &direct,
                                  std::vector<std::pair<uint64_t, uint64_t>> functions,
                                  std::vector<uint64_t> traps) {
  // A waiter checks under the mutex: taking it between a change and the
  // notification means none misses one.
  auto tell = [&ahead] {
    { std::lock_guard<std::mutex> lock(ahead.mutex); }
    ahead.progressed.notify_all();
  };
  ahead.pieces = entriesOf(functions);
  const size_t count = ahead.pieces.size();
  ahead.found.assign(count, EntryRule{});
  ahead.throughLLDB.assign(count, 0);
  ahead.sorted = true;
  tell();
  for (size_t first = 0; first < count && !ahead.cancel; first += kAheadChunk) {
    const size_t last = std::min(count, first + kAheadChunk);
    const std::vector<AddressRange> chunk(ahead.pieces.begin() + first,
                                          ahead.pieces.begin() + last);
    const std::vector<std::string> bytes = direct(chunk);
    for (size_t i = first; i < last; ++i) {
      const size_t k = i - first;
      if (k >= bytes.size() || bytes[k].empty() || ahead.pieces[i].containsAny(traps))
        ahead.throughLLDB[i] = 1;
      else
        ahead.found[i] = classify(arch, bytes[k]);
    }
    ahead.done = last;
    tell();
  }
  ahead.finished = true;
  tell();
}

template <class Ready> void FunctionEntries::waitFor(Ready ready) {
  if (ready() || ahead_->finished)
    return;
  std::unique_lock<std::mutex> lock(ahead_->mutex);
  ahead_->progressed.wait(lock, [&] { return ready() || ahead_->finished; });
}

EntryRule FunctionEntries::at(uint64_t start, uint64_t size) {
  const AddressRange entry = entryOf(start, size);
  if (const auto *known = knownAt(entry))
    return known->second;
  if (ahead_) {
    Ahead &ahead = *ahead_;
    waitFor([&] { return ahead.sorted.load(); });
    if (ahead.sorted) {
      auto it = std::lower_bound(ahead.pieces.begin(), ahead.pieces.end(), entry, before);
      if (it != ahead.pieces.end() && *it == entry) {
        const size_t i = static_cast<size_t>(it - ahead.pieces.begin());
        waitFor([&] { return ahead.done.load() > i; });
        if (ahead.done.load() > i && !ahead.throughLLDB[i])
          return ahead.found[i];
      }
    }
  }
  const std::vector<std::string> bytes = read_({entry});
  return classify(arch_, bytes.empty() ? std::string() : bytes.front());
}

} // namespace jitsym::plugin
