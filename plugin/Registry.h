// The plugin's state across LLDB's threads: one TargetSync per target (the
// registry, under one lock) and the thread that notices processes that exited.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "TargetSync.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

TargetSettings initialSettings();

class Registry {
public:
  TargetSync &forTarget(lldb::SBTarget target) {
    for (auto &state : states_)
      if (state->matches(target))
        return *state;
    states_.push_back(std::make_unique<TargetSync>(target));
    states_.back()->apply(defaults_);
    return *states_.back();
  }
  // What targets created from now on start with.
  TargetSettings &defaults() { return defaults_; }
  // Targets deleted by the user (LLDB marks them invalid): their state goes too.
  // Other debuggers' targets stay: one process may host several debuggers.
  void prune() {
    std::vector<std::unique_ptr<TargetSync>> kept;
    for (auto &state : states_)
      if (state->target().IsValid())
        kept.push_back(std::move(state));
    states_ = std::move(kept);
  }
  void resetAll() {
    for (auto &state : states_)
      state->reset();
  }
  // The targets that have JIT modules, with the process they were made for.
  std::vector<std::pair<lldb::SBTarget, ProcessIdentity>> withModules() {
    std::vector<std::pair<lldb::SBTarget, ProcessIdentity>> found;
    for (auto &state : states_)
      if (state->hasModules() && state->process())
        found.emplace_back(state->target(), *state->process());
    return found;
  }
  // The process stop ID of `target`'s last sync, if any. Calls nothing of LLDB.
  std::optional<uint32_t> stopSyncedOf(const lldb::SBTarget &target) const {
    for (const auto &state : states_)
      if (state->matches(target))
        return state->stops().lastSynced();
    return std::nullopt;
  }
  // Forgets what `target` had for `process` (gone: no stop hook runs at exit)
  // and hands back its modules, unless the target has moved on to another
  // process since. Calls nothing of LLDB.
  std::unique_ptr<RegionModules> forgetExited(const lldb::SBTarget &target,
                                              const ProcessIdentity &process) {
    for (auto &state : states_)
      if (state->matches(target) && state->hasModules() && state->process() == process)
        return state->resetKeepingModules();
    return nullptr;
  }

private:
  std::vector<std::unique_ptr<TargetSync>> states_;
  TargetSettings defaults_ = initialSettings();
};

// The settings at plugin load: the defaults, and JITSYM_PORTABLE=1 in the
// environment turns the portable side on (the lit suite's portable run).
TargetSettings initialSettings();

// Lives as long as liblldb; every use holds registryMutex().
Registry &registry();
std::mutex &registryMutex();

// Watches for processes that exited, a few times a second, while any target has
// JIT modules. LLDB's command line consumes process events itself, so there is no
// event to wait for; the check is a state read. No LLDB call is made under the
// registry lock here: LLDB holds a target's API lock while it runs the stop
// hook or the compile watch's callback, which then wait for the registry lock,
// and this thread would wait for the API lock in any call on that target.
class ExitWatcher {
public:
  void ensureRunning() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (thread_.joinable() || stopping_)
      return;
    thread_ = std::thread([this] { loop(); });
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable())
      thread_.join();
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopping_; })) {
      lock.unlock();
      dropExited();
      lock.lock();
    }
  }
  // Targets whose process is gone keep no JIT modules.
  static void dropExited() {
    std::vector<std::pair<lldb::SBTarget, ProcessIdentity>> watched;
    {
      std::lock_guard<std::mutex> registryLock(registryMutex());
      watched = registry().withModules();
    }
    for (auto &[target, process] : watched) {
      lldb::SBProcess live = target.GetProcess();
      lldb::StateType s = live.IsValid() ? live.GetState() : lldb::eStateInvalid;
      if (s != lldb::eStateExited && s != lldb::eStateDetached && s != lldb::eStateInvalid)
        continue;
      std::unique_ptr<RegionModules> modules;
      {
        std::lock_guard<std::mutex> registryLock(registryMutex());
        modules = registry().forgetExited(target, process);
      }
      if (modules)
        modules->removeAll(target);
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
  bool stopping_ = false;
};

ExitWatcher &exitWatcher(); // never destroyed: see stop()

} // namespace jitsym::plugin
