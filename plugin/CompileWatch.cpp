// The write(2) watch behind compile-time resolution of pending breakpoints.
#include "CompileWatch.h"

#include <string>
#include <string_view>

namespace jitsym::plugin {
namespace {

// Named, so that `breakpoint list -v` says whose it is; `jit-sync --status`
// reports it. The name asks LLDB to keep it out of `breakpoint list` and from
// `breakpoint delete`, which LLDB 22 does not honour: it is listed.
constexpr const char *kWatchName = "jitsym-compile-watch";

void configureName(lldb::SBTarget &target) {
  lldb::SBBreakpointName name(target, kWatchName);
  name.SetAllowList(false);
  name.SetAllowDelete(false);
  name.SetAllowDisable(false);
}

std::optional<uint64_t> argument(lldb::SBFrame &frame, const char *generic,
                                 const char *x86_64, const char *aarch64) {
  for (const char *name : {generic, x86_64, aarch64}) {
    lldb::SBValue value = frame.FindRegister(name);
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

void CompileWatch::update(lldb::SBTarget &target, WatchPlan plan,
                          lldb::SBBreakpointHitCallback onStop) {
  plan_ = std::move(plan);
  refreshPending(target);
  if (!plan_.allowed || pending_.empty()) {
    remove(target);
    return;
  }
  if (installed() && watchesWrites_ == plan_.watchWrites &&
      target.FindBreakpointByID(id_).IsValid())
    return;
  remove(target);
  // By name, so it resolves when the libraries load even if the process is not
  // running yet; at the entry, before any instruction touched the argument
  // registers.
  const char *names[] = {kAnnouncedHook, "write"};
  lldb::SBBreakpoint watch = target.BreakpointCreateByNames(
      names, plan_.watchWrites ? 2 : 1, lldb::eFunctionNameTypeFull, lldb::eLanguageTypeUnknown,
      /*offset=*/0, lldb::SBFileSpecList(), lldb::SBFileSpecList());
  if (!watch.IsValid())
    return;
  configureName(target);
  watch.AddName(kWatchName);
  watch.SetCallback(onStop, nullptr);
  id_ = watch.GetID();
  watchesWrites_ = plan_.watchWrites;
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
  if (installed() && target.IsValid())
    target.BreakpointDelete(id_);
  id_ = LLDB_INVALID_BREAK_ID;
}

size_t CompileWatch::locations(lldb::SBTarget &target) const {
  if (!installed())
    return 0;
  lldb::SBBreakpoint watch = target.FindBreakpointByID(id_);
  return watch.IsValid() ? watch.GetNumLocations() : 0;
}

std::optional<WriteCall> CompileWatch::writeCallAt(lldb::SBThread &thread) {
  lldb::SBFrame frame = thread.GetFrameAtIndex(0);
  if (!frame.IsValid())
    return std::nullopt;
  auto fd = argument(frame, "arg1", "rdi", "x0");
  auto buffer = argument(frame, "arg2", "rsi", "x1");
  auto count = argument(frame, "arg3", "rdx", "x2");
  if (!fd || !buffer || !count)
    return std::nullopt;
  return WriteCall{static_cast<int>(*fd), *buffer, *count};
}

} // namespace jitsym::plugin
