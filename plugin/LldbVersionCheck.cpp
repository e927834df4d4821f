// The host LLDB's version against the plugin's.
#include "LldbVersionCheck.h"

#include "loader/LldbVersion.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>

#include <memory>
#include <vector>

#include "lldb/API/SBDebugger.h"
#include "llvm/Config/llvm-config.h"

namespace jitsym::plugin {

unsigned builtForLldb() { return LLVM_VERSION_MAJOR; } // LLDB ships with its LLVM

std::optional<std::string> lldbMismatch(const std::string &host) {
  const unsigned major = lldbMajorVersion(host.c_str());
  const std::string ours = std::to_string(builtForLldb());
  if (major == builtForLldb())
    return std::nullopt;
  const std::string theirs = major ? std::to_string(major) : "of unknown version";
  return "jitsym: this plugin is built for LLDB " + ours + ", and this LLDB is " + theirs +
         " (\"" + host + "\"): loading it would crash LLDB. Load the "
         "libjitsym-lldb-" + (major ? theirs : std::string("N")) +
         ".so built against this LLDB (README: \"Other LLDB versions\").";
}

namespace {

std::string realPath(const char *path) {
  std::unique_ptr<char, decltype(&free)> resolved(realpath(path, nullptr), &free);
  return resolved ? std::string(resolved.get()) : std::string(path);
}

// The liblldb*.so libraries loaded in this process.
std::vector<std::string> loadedLiblldbs() {
  std::vector<std::string> found;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        const std::string_view name = info->dlpi_name ? info->dlpi_name : "";
        const size_t slash = name.rfind('/');
        const std::string_view file = slash == std::string_view::npos ? name : name.substr(slash + 1);
        if (file.substr(0, 7) == "liblldb")
          static_cast<std::vector<std::string> *>(data)->emplace_back(name);
        return 0;
      },
      &found);
  return found;
}

} // namespace

std::string hostLldbVersion() {
  Dl_info own{};
  const char *ours = lldb::SBDebugger::GetVersionString();
  if (!dladdr(reinterpret_cast<void *>(&lldb::SBDebugger::GetVersionString), &own) ||
      !own.dli_fname)
    return ours ? ours : "";
  const std::string ownPath = realPath(own.dli_fname);
  for (const std::string &path : loadedLiblldbs()) {
    if (realPath(path.c_str()) == ownPath)
      continue;
    void *handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
      continue;
    using VersionFunction = const char *(*)();
    auto version = reinterpret_cast<VersionFunction>(dlsym(handle, kVersionFunction));
    std::string text = version && version() ? version() : "lldb version unknown (" + path + ")";
    dlclose(handle); // only the reference RTLD_NOLOAD took
    return text;
  }
  return ours ? ours : "";
}

} // namespace jitsym::plugin
