// The write(2) watch behind compile-time resolution of pending breakpoints.
#include "CompileWatch.h"

#include <string>

namespace jitsym::plugin {
namespace {

// Hidden from `breakpoint list` and kept by `breakpoint delete`: it is jitsym's,
// and `jit-sync --status` reports it.
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

void CompileWatch::update(lldb::SBTarget &target, bool allowed,
                          lldb::SBBreakpointHitCallback onWrite) {
  refreshPending(target);
  if (!allowed || pending_.empty()) {
    remove(target);
    return;
  }
  if (installed() && target.FindBreakpointByID(id_).IsValid())
    return;
  // By name, so it resolves when libc loads even if the process is not running
  // yet; at the entry, before any instruction touched the argument registers.
  const char *names[] = {"write"};
  lldb::SBBreakpoint watch = target.BreakpointCreateByNames(
      names, 1, lldb::eFunctionNameTypeFull, lldb::eLanguageTypeUnknown, /*offset=*/0,
      lldb::SBFileSpecList(), lldb::SBFileSpecList());
  if (!watch.IsValid())
    return;
  configureName(target);
  watch.AddName(kWatchName);
  watch.SetCallback(onWrite, nullptr);
  id_ = watch.GetID();
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
