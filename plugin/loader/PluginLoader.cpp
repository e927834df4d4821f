// libjitsym-lldb.so: what `plugin load` takes. It links neither liblldb nor
// LLVM, so it loads into any LLDB; it asks the host LLDB its version and hands
// the load to libjitsym-lldb-N.so beside it, the plugin built for LLDB N, or
// refuses with an error naming both versions. A plugin built for one LLDB
// loaded into another crashes it: its own liblldb and libLLVM come into the
// process with it (their static state clashes with the host's, even when the
// plugin then refuses at once), and its SB calls reach its own liblldb with
// the host's objects.
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <string>

#include "LldbVersion.h"

namespace {

using namespace jitsym::plugin;

// This file's folder, where the versioned plugins are.
std::string ownFolder() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void *>(&ownFolder), &info) || !info.dli_fname)
    return ".";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

using VersionFunction = const char *(*)();

// The host's SBDebugger::GetVersionString. This library links no liblldb, so
// any loaded object that finds one (itself or through its dependencies) finds
// the host's: lldb's executable links it; Python's `import lldb` loads it
// privately (RTLD_LOCAL), out of the global scope, as _lldb.*.so.
VersionFunction hostVersionFunction() {
  if (void *global = dlsym(RTLD_DEFAULT, kVersionFunction))
    return reinterpret_cast<VersionFunction>(global);
  VersionFunction found = nullptr;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *result = static_cast<VersionFunction *>(data);
        if (*result || !info->dlpi_name || !*info->dlpi_name)
          return 0;
        if (void *handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD)) {
          *result = reinterpret_cast<VersionFunction>(dlsym(handle, kVersionFunction));
          dlclose(handle); // only the reference RTLD_NOLOAD took
        }
        return *result ? 1 : 0;
      },
      &found);
  return found;
}

} // namespace

extern "C" __attribute__((visibility("default"))) bool
jitsymLoadPlugin(void *debugger) __asm__("_ZN4lldb16PluginInitializeENS_10SBDebuggerE");

// The call below goes through a pointer whose type differs from the callee's
// on purpose (the same machine-level signature): UBSan's function check
// would flag it.
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
bool jitsymLoadPlugin(void *debugger) {
  const VersionFunction version = hostVersionFunction();
  const char *host = version ? version() : nullptr;
  const unsigned major = lldbMajorVersion(host);
  const std::string folder = ownFolder();
  const std::string plugin = folder + "/libjitsym-lldb-" + std::to_string(major) + ".so";
  void *handle = major ? dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!handle) {
    const char *why = major ? dlerror() : "its version is unknown";
    std::fprintf(stderr,
                 "error: jitsym: no plugin for this LLDB (%s): %s; the plugins in %s are built "
                 "for other LLDB versions (libjitsym-lldb-N.so). Build jitsym against this "
                 "LLDB: cmake -DLLVM_DIR=.../llvm-%u/lib/cmake/llvm (README, \"Other LLDB "
                 "versions\").\n",
                 host ? host : "version unknown", why ? why : "not found", folder.c_str(),
                 major);
    return false;
  }
  // An SBDebugger passed by value is passed as the address of the caller's
  // copy (its copy constructor is not trivial): forwarding that address
  // hands the plugin the same argument.
  using Initialize = bool (*)(void *);
  auto initialize = reinterpret_cast<Initialize>(dlsym(handle, kInitializeFunction));
  return initialize && initialize(debugger);
}
