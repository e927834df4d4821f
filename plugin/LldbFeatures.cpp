// The one-line notes of what this build's LLDB lacks.
#include "LldbFeatures.h"

namespace jitsym::plugin {

std::string lldbFeatureNotes() {
  std::string notes;
  if (!JITSYM_LLDB_HAS_PROGRESS)
    notes += "progress events: none (SBProgress came in LLDB 20)\n";
  if (!JITSYM_LLDB_HAS_API_MUTEX)
    notes += "interrupt stops: synced at `bt`, not at once (SBMutex came in LLDB 21)\n";
  return notes;
}

} // namespace jitsym::plugin
