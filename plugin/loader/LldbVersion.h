// What the loader and the plugin both need to tell LLDB versions apart,
// without linking liblldb: the Itanium names of the two SB functions looked
// up by name, and the major version in LLDB's version string. Header-only:
// the loader links nothing of jitsym's.
#pragma once

#include <cstdlib>
#include <cstring>

namespace jitsym::plugin {

// `static const char *lldb::SBDebugger::GetVersionString()`.
constexpr const char *kVersionFunction = "_ZN4lldb10SBDebugger16GetVersionStringEv";
// `bool lldb::PluginInitialize(lldb::SBDebugger)`, which LLDB looks up by name.
constexpr const char *kInitializeFunction = "_ZN4lldb16PluginInitializeENS_10SBDebuggerE";

// The LLDB major version in "lldb version 19.1.7 (...)"; 0 if none.
inline unsigned lldbMajorVersion(const char *versionString) {
  const char *at = versionString ? std::strstr(versionString, "version ") : nullptr;
  return at ? unsigned(std::strtoul(at + 8, nullptr, 10)) : 0;
}

} // namespace jitsym::plugin
