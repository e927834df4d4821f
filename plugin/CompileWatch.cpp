// The write(2) watch behind compile-time resolution of pending breakpoints.
#include "CompileWatch.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "jitsym/arch/Architecture.h"
#include "jitsym/formats/PrintfFormat.h"

namespace jitsym::plugin {
namespace {

// Hidden from `breakpoint list` and kept by `breakpoint delete` through the
// permissions of its breakpoint name (which may hold no '-', '.' or space):
// it is jitsym's, and `jit-sync --status` reports it.
constexpr const char *kWatchName = "jitsym_compile_watch";

void configureName(lldb::SBTarget &target) {
  lldb::SBBreakpointName name(target, kWatchName);
  name.SetAllowList(false);
  name.SetAllowDelete(false);
  name.SetAllowDisable(false);
}

// A call's argument `index` (0-based) at its first instruction: by LLDB's
// generic name (argN), else by the register the target's ABI puts it in.
std::optional<uint64_t> argument(lldb::SBFrame &frame, size_t index) {
  const std::string generic = "arg" + std::to_string(index + 1);
  std::vector<std::string> names = {generic};
  lldb::SBTarget target = frame.GetThread().GetProcess().GetTarget();
  const Architecture *arch = architectureOfTriple(target.GetTriple() ? target.GetTriple() : "");
  if (arch && index < arch->argumentRegisters.size())
    names.emplace_back(arch->argumentRegisters[index]);
  for (const std::string &name : names) {
    lldb::SBValue value = frame.FindRegister(name.c_str());
    if (value.IsValid()) {
      lldb::SBError error;
      uint64_t v = value.GetValueAsUnsigned(error, 0);
      if (error.Success())
        return v;
    }
  }
  return std::nullopt;
}

} // namespace

bool runsBeam(lldb::SBTarget &target) {
  const char *name = target.GetExecutable().GetFilename();
  if (!name)
    return false;
  const std::string_view file(name);
  return file == "beam" || file.substr(0, 5) == "beam.";
}

uint64_t CompileWatch::breakpointsDigest(lldb::SBTarget &target) {
  uint64_t digest = 14695981039346656037ull; // FNV-1a over the fields
  auto mix = [&digest](uint64_t value) {
    for (int i = 0; i < 8; ++i, value >>= 8)
      digest = (digest ^ (value & 0xff)) * 1099511628211ull;
  };
  for (uint32_t i = 0; i < target.GetNumBreakpoints(); ++i) {
    lldb::SBBreakpoint breakpoint = target.GetBreakpointAtIndex(i);
    if (breakpoint.MatchesName(kWatchName))
      continue;
    mix(static_cast<uint64_t>(breakpoint.GetID()));
    mix(breakpoint.IsEnabled());
  }
  return digest;
}

void CompileWatch::refreshPending(lldb::SBTarget &target) {
  seen_ = breakpointsDigest(target);
  pending_ = PendingBreakpoints::of(target, id_, plan_.isJitModule);
  if (plan_.jvm)
    pending_.keepJavaOnly();
  tellProducers(target);
}

void CompileWatch::update(lldb::SBTarget &target, WatchPlan plan,
                          lldb::SBBreakpointHitCallback onStop) {
  plan_ = std::move(plan);
  refreshPending(target);
  if (!plan_.allowed || pending_.empty()) {
    remove(target);
    return;
  }
  if (installed() && watchesWrites_ == plan_.watchWrites &&
      watchesStdio_ == (plan_.watchWrites && plan_.watchStdio) &&
      watchesPrintf_ == (plan_.watchWrites && plan_.watchPrintf) &&
      target.FindBreakpointByID(id_).IsValid())
    return;
  remove(target);
  // By name, so it resolves when the libraries load even if the process is not
  // running yet; at the entry, before any instruction touched the argument
  // registers.
  std::vector<const char *> names = {kAnnouncedHook};
  if (plan_.watchWrites)
    names.insert(names.end(), writeFunctions().begin(), writeFunctions().end());
  if (plan_.watchWrites && plan_.watchStdio)
    names.insert(names.end(), stdioFunctions().begin(), stdioFunctions().end());
  if (plan_.watchWrites && plan_.watchPrintf)
    names.insert(names.end(), printfFunctions().begin(), printfFunctions().end());
  lldb::SBBreakpoint watch = target.BreakpointCreateByNames(
      names.data(), static_cast<uint32_t>(names.size()), lldb::eFunctionNameTypeFull,
      lldb::eLanguageTypeUnknown, /*offset=*/0, lldb::SBFileSpecList(), lldb::SBFileSpecList());
  if (!watch.IsValid())
    return;
  configureName(target);
  watch.AddName(kWatchName); // checked by test/lldb/pending-breakpoint-at-compile
  watch.SetCallback(onStop, nullptr);
  id_ = watch.GetID();
  watchesWrites_ = plan_.watchWrites;
  watchesStdio_ = plan_.watchWrites && plan_.watchStdio;
  watchesPrintf_ = plan_.watchWrites && plan_.watchPrintf;
}

bool CompileWatch::onlyWatchStopped(lldb::SBProcess process) const {
  if (!installed() || !process.IsValid())
    return false;
  bool watch = false;
  for (uint32_t i = 0; i < process.GetNumThreads(); ++i) {
    lldb::SBThread thread = process.GetThreadAtIndex(i);
    const lldb::StopReason reason = thread.GetStopReason();
    if (reason == lldb::eStopReasonNone || reason == lldb::eStopReasonInvalid)
      continue;
    if (reason != lldb::eStopReasonBreakpoint || thread.GetStopReasonDataCount() < 1)
      return false;
    const auto id = static_cast<lldb::break_id_t>(thread.GetStopReasonDataAtIndex(0));
    if (id == id_)
      watch = true;
    else if (id >= 0) // a user's breakpoint (LLDB's internal ones are negative)
      return false;
  }
  return watch;
}

bool CompileWatch::atAnnouncement(lldb::SBThread &thread) {
  lldb::SBFrame frame = thread.GetFrameAtIndex(0);
  const char *name = frame.IsValid() ? frame.GetSymbol().GetName() : nullptr;
  return name && std::string_view(name) == kAnnouncedHook;
}

void CompileWatch::remove(lldb::SBTarget &target) {
  if (installed() && target.IsValid()) {
    earlierStops_ = stops(target);
    target.BreakpointDelete(id_);
  }
  id_ = LLDB_INVALID_BREAK_ID;
}

uint64_t CompileWatch::stops(lldb::SBTarget &target) const {
  lldb::SBBreakpoint watch = installed() ? target.FindBreakpointByID(id_) : lldb::SBBreakpoint();
  return earlierStops_ + (watch.IsValid() ? watch.GetHitCount() : 0);
}

std::optional<std::string> CompileWatch::costNote(lldb::SBTarget &target) {
  const uint64_t count = stops(target);
  if (costSaid_ || count < kCostlyStops)
    return std::nullopt;
  costSaid_ = true;
  const double each = callbackMilliseconds_ / static_cast<double>(count);
  char figures[96];
  std::snprintf(figures, sizeof figures, "%llu stops so far, %.1f ms each in jitsym",
                static_cast<unsigned long long>(count), each);
  return std::string("jit-sync: a breakpoint waits for JIT code: the program stops where the "
                     "runtime writes each announcement, so that the breakpoint resolves before "
                     "the code first runs (") +
         figures + ", LLDB's stop and resume on top); the runtime announces through " +
         (watchesWrites_ ? "write(2), every write stops (jitsym's filter, for a program "
                           "started by `process launch` or `run` with `jit-sync "
                           "--filter-writes on`, stops only where wanted code is announced). "
                         : "jitsym's hook. ") +
         "`jit-sync --watch-compiles off` resolves at the next stop instead; `jit-sync "
         "--status` counts the stops\n";
}

size_t CompileWatch::locations(lldb::SBTarget &target) const {
  if (!installed())
    return 0;
  lldb::SBBreakpoint watch = target.FindBreakpointByID(id_);
  return watch.IsValid() ? watch.GetNumLocations() : 0;
}

namespace {

enum class WriteKind { Write, Writev, Pwrite, Pwritev, Fwrite, Fprintf, FprintfChk };

// The function the thread stopped at, by its name less glibc's decorations
// ("__GI___libc_write", "__writev", "__libc_pwrite64", "_IO_fwrite").
std::optional<WriteKind> writeKindAt(lldb::SBFrame &frame) {
  const char *symbol = frame.GetSymbol().GetName();
  if (!symbol)
    return std::nullopt;
  std::string_view name(symbol);
  for (std::string_view prefix : {"__GI_", "__libc_"})
    if (name.substr(0, prefix.size()) == prefix)
      name.remove_prefix(prefix.size());
  while (!name.empty() && name.front() == '_')
    name.remove_prefix(1);
  if (name.substr(0, 3) == "IO_")
    name.remove_prefix(3);
  if (name == "fwrite")
    return WriteKind::Fwrite;
  if (name == "fprintf")
    return WriteKind::Fprintf;
  if (name == "fprintf_chk") // _FORTIFY_SOURCE's fprintf(FILE *, flag, format, ...)
    return WriteKind::FprintfChk;
  if (name == "write")
    return WriteKind::Write;
  if (name == "writev")
    return WriteKind::Writev;
  if (name == "pwrite" || name == "pwrite64")
    return WriteKind::Pwrite;
  if (name == "pwritev" || name == "pwritev64" || name == "pwritev2" || name == "pwritev64v2")
    return WriteKind::Pwritev;
  return std::nullopt;
}

constexpr uint64_t kMaxBytes = 1 << 20;

// Appends up to `count` bytes at `address` of the process (within kMaxBytes).
bool readInto(lldb::SBProcess &process, uint64_t address, uint64_t count, std::string &into) {
  const uint64_t take = std::min(count, kMaxBytes - std::min<uint64_t>(into.size(), kMaxBytes));
  if (take == 0)
    return true;
  const size_t at = into.size();
  into.resize(at + static_cast<size_t>(take));
  lldb::SBError error;
  const size_t got = process.ReadMemory(address, into.data() + at, take, error);
  into.resize(at + (error.Success() ? got : 0));
  return error.Success() && got == take;
}

} // namespace

// The names the watch breaks on besides the hook (glibc's, Linux).
const std::vector<const char *> &CompileWatch::writeFunctions() {
  static const std::vector<const char *> names = {"write", "writev", "pwrite64", "pwritev",
                                                  "pwritev2"};
  return names;
}

const std::vector<const char *> &CompileWatch::stdioFunctions() {
  static const std::vector<const char *> names = {"fwrite"};
  return names;
}

const std::vector<const char *> &CompileWatch::printfFunctions() {
  static const std::vector<const char *> names = {"fprintf", "__fprintf_chk"};
  return names;
}

namespace {

// A FILE's descriptor, by glibc's public layout of struct _IO_FILE (as
// StdioBuffer reads it).
std::optional<int> descriptorOfFile(lldb::SBProcess &process, uint64_t file) {
  if (process.GetAddressByteSize() != sizeof(void *))
    return std::nullopt;
  int descriptor = -1;
  lldb::SBError error;
  if (process.ReadMemory(file + offsetof(struct _IO_FILE, _fileno), &descriptor,
                         sizeof(descriptor), error) != sizeof(descriptor) ||
      error.Fail() || descriptor < 0)
    return std::nullopt;
  return descriptor;
}

// A NUL-terminated string of the process, up to `limit` bytes.
std::optional<std::string> readCString(lldb::SBProcess &process, uint64_t address, size_t limit) {
  std::string text(limit + 1, '\0');
  lldb::SBError error;
  const size_t got = process.ReadCStringFromMemory(address, text.data(), text.size(), error);
  if (error.Fail() || got >= limit)
    return std::nullopt; // unreadable, or longer than the limit
  text.resize(got);
  return text;
}

// fprintf(FILE *, format, ...) or __fprintf_chk(FILE *, flag, format, ...) at
// its first instruction: the text it adds to its FILE, made here from the
// format and the variadic arguments in the argument registers (integers and
// strings only; anything else is no call).
std::optional<WriteCall> printfCallAt(lldb::SBFrame &frame, WriteKind kind) {
  const size_t formatIndex = kind == WriteKind::FprintfChk ? 2 : 1;
  auto file = argument(frame, 0);
  auto format = argument(frame, formatIndex);
  if (!file || !format)
    return std::nullopt;
  lldb::SBProcess process = frame.GetThread().GetProcess();
  std::optional<int> descriptor = descriptorOfFile(process, *file);
  std::optional<std::string> formatText = readCString(process, *format, 4096);
  if (!descriptor || !formatText)
    return std::nullopt;
  // The variadic arguments LLDB names arg1..arg6 (x86-64's six registers;
  // the rest would be on the stack, which this does not read).
  std::optional<std::string> text = formatPrintf(
      *formatText,
      [&](size_t i) -> std::optional<uint64_t> {
        const size_t index = formatIndex + 1 + i;
        if (index >= 6)
          return std::nullopt;
        return argument(frame, index);
      },
      [&](uint64_t address) { return readCString(process, address, 4096); });
  if (!text)
    return std::nullopt;
  WriteCall call;
  call.fd = *descriptor;
  call.buffered = true;
  call.text = std::move(*text);
  return call;
}

} // namespace

std::optional<WriteCall> CompileWatch::writeCallAt(lldb::SBThread &thread) {
  lldb::SBFrame frame = thread.GetFrameAtIndex(0);
  if (!frame.IsValid())
    return std::nullopt;
  const std::optional<WriteKind> kind = writeKindAt(frame);
  if (kind == WriteKind::Fprintf || kind == WriteKind::FprintfChk)
    return printfCallAt(frame, *kind);
  auto first = argument(frame, 0);
  auto second = argument(frame, 1);
  auto third = argument(frame, 2);
  if (!kind || !first || !second || !third)
    return std::nullopt;
  lldb::SBProcess process = thread.GetProcess();
  WriteCall call;
  if (*kind == WriteKind::Fwrite) {
    // fwrite(ptr, size, count, FILE *): the FILE's descriptor, by glibc's
    // public layout of struct _IO_FILE (as StdioBuffer reads it).
    auto file = argument(frame, 3);
    if (!file || process.GetAddressByteSize() != sizeof(void *))
      return std::nullopt;
    int descriptor = -1;
    lldb::SBError error;
    if (process.ReadMemory(*file + offsetof(struct _IO_FILE, _fileno), &descriptor,
                           sizeof(descriptor), error) != sizeof(descriptor) ||
        error.Fail() || descriptor < 0)
      return std::nullopt;
    uint64_t size = 0;
    if (__builtin_mul_overflow(*second, *third, &size))
      return std::nullopt;
    call.fd = descriptor;
    call.buffered = true;
    call.pieces.push_back({*first, size});
    return call;
  }
  call.fd = static_cast<int>(*first);
  if (*kind == WriteKind::Pwrite || *kind == WriteKind::Pwritev) {
    auto offset = argument(frame, 3);
    if (!offset)
      return std::nullopt;
    if (static_cast<int64_t>(*offset) != -1) // pwritev2 with -1 writes at the position
      call.offset = *offset;
  }
  if (*kind == WriteKind::Write || *kind == WriteKind::Pwrite) {
    call.pieces.push_back({*second, *third});
    return call;
  }
  // An iovec array: {base, length} pairs of 8 bytes each (LP64).
  constexpr uint64_t kMaxVectors = 1024; // IOV_MAX
  const uint64_t vectors = std::min(*third, kMaxVectors);
  std::string table;
  if (!readInto(process, *second, vectors * 16, table))
    return std::nullopt;
  for (uint64_t i = 0; i < vectors; ++i) {
    uint64_t base = 0, length = 0;
    std::memcpy(&base, table.data() + i * 16, 8);
    std::memcpy(&length, table.data() + i * 16 + 8, 8);
    call.pieces.push_back({base, length});
  }
  return call;
}

std::string WriteCall::bytes(lldb::SBProcess &process) const {
  if (text)
    return *text;
  std::string bytes;
  for (const Piece &piece : pieces)
    if (!readInto(process, piece.address, piece.size, bytes))
      break; // a short read: what came before is still the call's start
  return bytes;
}

} // namespace jitsym::plugin
