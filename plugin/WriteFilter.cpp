// Preloading the compile watch's filter and switching it (WriteFilter.h).
#include "WriteFilter.h"

#include "jitsym/formats/ElfNeeded.h"
#include "llvm/Support/MemoryBuffer.h"

#include <dlfcn.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace jitsym::plugin {
namespace {

constexpr const char *kLibrary = "libjitsym-watch.so";
constexpr const char *kGeneration = "jitsym_filter_generation";
constexpr const char *kStart = "JITSYM_FILTER_START"; // agents/watch/WriteFilter.cpp reads it

// The filter next to this plugin (build/lib, or the package's lib).
std::string libraryPath() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&libraryPath), &info) || !info.dli_fname)
    return {};
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + kLibrary;
}

// Built for this machine: the target must run here, on its architecture.
bool architectureMatches(lldb::SBTarget &target) {
  const char *triple = target.GetTriple();
#if defined(__x86_64__)
  constexpr std::string_view kArchitecture = "x86_64";
#elif defined(__aarch64__)
  constexpr std::string_view kArchitecture = "aarch64";
#else
  constexpr std::string_view kArchitecture = "none";
#endif
  const char *platform = target.GetPlatform().GetName();
  return triple && std::string_view(triple).substr(0, kArchitecture.size()) == kArchitecture &&
         platform && std::string_view(platform) == "host";
}

// LD_PRELOAD's entries (':' or ' ' apart), without `dropped`.
std::vector<std::string> entriesOf(std::string_view preload,
                                   const std::vector<std::string> &dropped) {
  std::vector<std::string> kept;
  while (!preload.empty()) {
    const size_t end = preload.find_first_of(": ");
    const std::string entry(preload.substr(0, end));
    if (!entry.empty() && std::find(dropped.begin(), dropped.end(), entry) == dropped.end())
      kept.push_back(entry);
    preload.remove_prefix(end == std::string_view::npos ? preload.size() : end + 1);
  }
  return kept;
}

std::string joined(const std::vector<std::string> &entries) {
  std::string text;
  for (const std::string &entry : entries)
    text += (text.empty() ? "" : ":") + entry;
  return text;
}

// A sanitizer's runtime, which must come first in the program's libraries
// (ASan refuses to run otherwise): GCC's libasan.so.8, clang's
// libclang_rt.asan-x86_64.so...
bool isSanitizerRuntime(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (std::string_view runtime : {"libasan.so", "libtsan.so", "libmsan.so", "liblsan.so",
                                   "libhwasan.so", "libclang_rt.asan", "libclang_rt.tsan",
                                   "libclang_rt.msan", "libclang_rt.hwasan"})
    if (name.substr(0, runtime.size()) == runtime)
      return true;
  return false;
}

// The sanitizer runtime the program links (its DT_NEEDED name), if any: LLDB
// on Linux knows a program's libraries only once it runs.
std::string sanitizerRuntimeOf(lldb::SBTarget &target) {
  char path[4096];
  if (!target.GetExecutable().GetPath(path, sizeof path))
    return {};
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!file)
    return {};
  llvm::Expected<std::vector<std::string>> needed =
      parseNeededLibraries((*file)->getBuffer(), path);
  if (!needed) {
    llvm::consumeError(needed.takeError()); // not an ELF program: nothing to put first
    return {};
  }
  for (const std::string &name : *needed)
    if (isSanitizerRuntime(name))
      return name;
  return {};
}

bool alive(lldb::SBProcess &process) {
  const lldb::StateType state = process.IsValid() ? process.GetState() : lldb::eStateInvalid;
  return state == lldb::eStateStopped || state == lldb::eStateRunning ||
         state == lldb::eStateStepping || state == lldb::eStateSuspended;
}

} // namespace

void WriteFilter::beforeLaunch(lldb::SBTarget &target, bool on) {
  const std::string library = libraryPath();
  preloading_ = on && !library.empty() && architectureMatches(target);
  launchToCome_ = preloading_;
  preloadedProcess_ = 0;
  lldb::SBLaunchInfo launch = target.GetLaunchInfo();
  lldb::SBEnvironment environment = launch.GetEnvironment();
  const char *existing = environment.Get("LD_PRELOAD");
  // The user's own entries: without the filter, and without a sanitizer
  // runtime put in front of it at an earlier launch.
  std::vector<std::string> entries = entriesOf(existing ? existing : "", {library, addedRuntime_});
  addedRuntime_.clear();
  if (preloading_) {
    // After the sanitizer runtimes that must come first, the program's own
    // included (preloaded here, as ASan's message says to), before the rest.
    const std::string runtime = sanitizerRuntimeOf(target);
    if (!runtime.empty() && std::find(entries.begin(), entries.end(), runtime) == entries.end()) {
      entries.insert(entries.begin(), runtime);
      addedRuntime_ = runtime;
    }
    auto after = std::find_if_not(entries.begin(), entries.end(),
                                  [](const std::string &entry) { return isSanitizerRuntime(entry); });
    entries.insert(after, library);
  }
  const std::string wanted = joined(entries);
  if (wanted == (existing ? existing : ""))
    return;
  if (wanted.empty())
    environment.Unset("LD_PRELOAD");
  else
    environment.Set("LD_PRELOAD", wanted.c_str(), true);
  launch.SetEnvironment(environment, /*append=*/false);
  target.SetLaunchInfo(launch);
}

void WriteFilter::startsOn(lldb::SBTarget &target, bool watching) {
  lldb::SBLaunchInfo launch = target.GetLaunchInfo();
  lldb::SBEnvironment environment = launch.GetEnvironment();
  if (preloading_)
    environment.Set(kStart, watching ? "on" : "off", true);
  else if (!environment.Unset(kStart))
    return;
  startsOn_ = watching;
  launch.SetEnvironment(environment, /*append=*/false);
  target.SetLaunchInfo(launch);
}

lldb::SBModule WriteFilter::module(lldb::SBTarget &target) {
  for (uint32_t i = 0; i < target.GetNumModules(); ++i) {
    lldb::SBModule module = target.GetModuleAtIndex(i);
    const char *name = module.GetFileSpec().GetFilename();
    if (name && std::string_view(name) == kLibrary)
      return module;
  }
  return {};
}

bool WriteFilter::covers(lldb::SBTarget &target) {
  lldb::SBProcess process = target.GetProcess();
  if (!alive(process))
    return preloading_; // the launch to come
  // The first process after a launch that preloaded the filter has it, also
  // before LLDB lists its modules (an update comes as it starts).
  if (launchToCome_) {
    launchToCome_ = false;
    preloadedProcess_ = process.GetUniqueID();
  }
  return process.GetUniqueID() == preloadedProcess_ || module(target).IsValid();
}

void WriteFilter::follow(lldb::SBTarget &target, bool watching) {
  lldb::SBProcess process = target.GetProcess();
  const lldb::StateType state = process.IsValid() ? process.GetState() : lldb::eStateInvalid;
  if (state != lldb::eStateStopped && state != lldb::eStateRunning)
    return;
  if (process.GetUniqueID() != process_) { // a new process: its filter starts as launched
    process_ = process.GetUniqueID();
    generation_ = process_ == preloadedProcess_ && !startsOn_ ? 0 : 1;
  }
  const uint32_t wanted = watching ? (generation_ ? generation_ : ++generations_) : 0;
  if (wanted == generation_)
    return;
  lldb::SBModule filter = module(target);
  lldb::SBSymbol symbol = filter.IsValid()
                              ? filter.FindSymbol(kGeneration, lldb::eSymbolTypeAny)
                              : lldb::SBSymbol();
  const lldb::addr_t address =
      symbol.IsValid() ? symbol.GetStartAddress().GetLoadAddress(target) : LLDB_INVALID_ADDRESS;
  if (address == LLDB_INVALID_ADDRESS)
    return;
  lldb::SBError error;
  // A running process reads it at its next write: at worst that write is read
  // as the filter was.
  if (process.WriteMemory(address, &wanted, sizeof wanted, error) == sizeof wanted)
    generation_ = wanted;
}

std::string WriteFilter::status(lldb::SBTarget &target) {
  lldb::SBProcess process = target.GetProcess();
  if (!alive(process))
    return {};
  if (!module(target).IsValid())
    return preloading_ ? "compile watch: the filter is not in the process (attached to, or "
                         "launched through the SB API): every write stops\n"
                       : std::string();
  const bool on = process.GetUniqueID() != process_ ? startsOn_ : generation_ != 0;
  return std::string("compile watch: filter in the process (") + kLibrary + "), " +
         (on ? "on: the program stops only where code a breakpoint may want is announced\n"
             : "off: no breakpoint waits for JIT code\n");
}

} // namespace jitsym::plugin
