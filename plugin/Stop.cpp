// Stops as the plugin meets them, and what it did and said at them. No LLDB
// call here (unit-tested without LLDB; Stop.h asks the process).
#include "Stop.h"

namespace jitsym::plugin {

const PendingBreakpoints &Stop::pending() const {
  static const PendingBreakpoints none;
  return pending_ ? *pending_ : none;
}

const char *Stop::describe(Kind kind) {
  switch (kind) {
  case Kind::User:
    return "user's";
  case Kind::Core:
    return "core file";
  case Kind::Interrupt:
    return "interrupt";
  case Kind::Command:
    return "jit-sync";
  case Kind::Compile:
    return "compile watch";
  }
  return "?";
}

void StopHistory::syncing(const Stop &stop) {
  synced_ = stop.id();
  syncedKind_ = stop.kind();
}

bool StopHistory::explainWatchStopAt(uint32_t stopId) {
  if (explainedAt_ == stopId)
    return false;
  explainedAt_ = stopId;
  return true;
}

bool StopHistory::errorIsNew(const std::string &message) {
  if (message == lastError_)
    return false;
  lastError_ = message;
  return true;
}

std::string StopHistory::status(uint32_t currentStopId) const {
  std::string text = "stop: " + std::to_string(currentStopId);
  if (!synced_)
    return text + ", no sync yet\n";
  if (*synced_ != currentStopId)
    return text + ", last synced at stop " + std::to_string(*synced_) + " (" +
           Stop::describe(syncedKind_) + ")\n";
  return text + ", synced (" + Stop::describe(syncedKind_) + ")\n";
}

} // namespace jitsym::plugin
