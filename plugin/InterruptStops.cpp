// The thread that syncs at stops LLDB ran no stop hook at.
#include "InterruptStops.h"

#include <utility>
#include <vector>

#include "Hooks.h"
#include "JitSyncCommand.h"
#include "LldbFeatures.h"
#include "Registry.h"

namespace jitsym::plugin {
namespace {

constexpr std::chrono::milliseconds kLookEvery{20};
// Longer than a stop hook takes to begin: at a stop LLDB runs hooks at, the
// hook syncs, not this thread (both at once made LLDB show compile stops).
// A stop whose event says interrupted has no hook coming, and does not wait.
constexpr std::chrono::milliseconds kHookTime{100};

} // namespace

InterruptStops &interruptStops() {
  static InterruptStops *instance = new InterruptStops(); // never destroyed: see stop()
  return *instance;
}

void InterruptStops::watch(lldb::SBDebugger debugger) {
  // Without the target's API lock the thread could sync a process that the
  // user resumes meanwhile: before LLDB 21 interrupt stops are synced at
  // `bt` (syncUnsyncedStop, from the command's override) and no sooner.
  if (!JITSYM_LLDB_HAS_API_MUTEX)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_)
    return;
  debuggers_.push_back(debugger);
  if (!thread_.joinable())
    thread_ = std::thread([this] { loop(); });
}

void InterruptStops::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable())
    thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  debuggers_.clear();
}

// Python may unload the plugin at exit without destroying its debugger.
__attribute__((destructor)) void stopInterruptStopsAtUnload() { interruptStops().stop(); }

void InterruptStops::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, kLookEvery, [this] { return stopping_; })) {
    lock.unlock();
    look();
    lock.lock();
  }
}

void InterruptStops::look() {
  std::vector<lldb::SBDebugger> debuggers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    debuggers = debuggers_;
  }
  std::vector<std::pair<lldb::SBTarget, std::optional<uint32_t>>> targets;
  for (lldb::SBDebugger &debugger : debuggers)
    for (uint32_t i = 0; i < debugger.GetNumTargets(); ++i)
      targets.emplace_back(debugger.GetTargetAtIndex(i), std::nullopt);
  {
    std::lock_guard<std::mutex> registryLock(registryMutex());
    for (auto &[target, synced] : targets) // nothing of LLDB is called under this lock
      synced = registry().stopSyncedOf(target);
  }
  // A stop is left to its stop hook for a moment; one no sync was at after
  // that is synced from here.
  const auto now = std::chrono::steady_clock::now();
  std::map<uint32_t, Unsynced> stillUnsynced;
  for (auto &[target, synced] : targets) {
    updateCompileWatchIfChanged(target);
    lldb::SBProcess process = target.GetProcess();
    if (!process.IsValid() || process.GetState() != lldb::eStateStopped)
      continue;
    const uint32_t stopId = process.GetStopID();
    if (synced == stopId)
      continue;
    // An interrupt's stop runs no stop hook: synced at once (an IDE asks
    // for the stack as soon as it hears of the pause).
    lldb::SBEvent stopEvent = process.GetStopEventForStopID(stopId);
    if (stopEvent.IsValid() && lldb::SBProcess::GetInterruptedFromEvent(stopEvent)) {
      syncUnsyncedStop(target);
      continue;
    }
    const uint32_t key = process.GetUniqueID();
    auto known = unsynced_.find(key);
    if (known == unsynced_.end() || known->second.stopId != stopId) {
      stillUnsynced[key] = {stopId, now};
      continue;
    }
    if (now - known->second.since < kHookTime) {
      stillUnsynced[key] = known->second;
      continue;
    }
    syncUnsyncedStop(target); // checks again under the locks
  }
  unsynced_ = std::move(stillUnsynced);
}

void syncUnsyncedStop(lldb::SBTarget target) {
  lldb::SBProcess process = target.GetProcess();
  if (!process.IsValid())
    return;
  // The target's API lock first, so that the process cannot run on under the
  // sync; then the registry lock, only if it is free: a `jit-sync` command
  // takes the two in the other order, and this thread must never wait with
  // the first held. A busy registry is a sync going on: looked at again later.
#if JITSYM_LLDB_HAS_API_MUTEX
  lldb::SBMutex api = target.GetAPIMutex();
  std::lock_guard<lldb::SBMutex> held(api);
#endif
  std::unique_lock<std::mutex> registryLock(registryMutex(), std::try_to_lock);
  if (registryLock.owns_lock() && process.GetState() == lldb::eStateStopped)
    syncAtStopHoldingRegistry(target.GetDebugger(), target, process.GetStopID());
}

} // namespace jitsym::plugin
