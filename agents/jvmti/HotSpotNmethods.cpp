#include "HotSpotNmethods.h"

#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <vector>

#include "CodeHeapLookup.h"
#include "CompiledMethodNames.h"
#include "HotSpotMemory.h"
#include "NmethodLayouts.h"
#include "VmTables.h"

namespace jitsym::jvmti {
namespace {

bool endsWith(const char *text, const char *suffix) {
  const size_t length = std::strlen(text), suffixLength = std::strlen(suffix);
  return length >= suffixLength && std::strcmp(text + length - suffixLength, suffix) == 0;
}

// The libjvm.so already in the process, for when its symbols are not global
// (a launcher that opened it RTLD_LOCAL). RTLD_NOLOAD: never loads another.
// The handle is kept: the tables must outlive the lookup anyway.
void *loadedLibjvm() {
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        if (info->dlpi_name && endsWith(info->dlpi_name, "/libjvm.so")) {
          *static_cast<std::string *>(data) = info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &path);
  return path.empty() ? nullptr : dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
}

void *jvmSymbol(const char *name) {
  if (void *found = dlsym(RTLD_DEFAULT, name))
    return found;
  static void *const libjvm = loadedLibjvm();
  return libjvm ? dlsym(libjvm, name) : nullptr;
}

// Each query finds the nmethod in the code heap, then reads what its layout says.
class VmStructsNmethods final : public HotSpotNmethods {
public:
  explicit VmStructsNmethods(const Layout &layout) : layout_(layout) {}

  std::optional<int> levelOf(const void *codeBegin) const override {
    if (!layout_.level)
      return std::nullopt;
    const std::optional<uintptr_t> nmethod =
        nmethodAt(layout_.find, reinterpret_cast<uintptr_t>(codeBegin));
    if (!nmethod)
      return std::nullopt;
    const LevelLayout &l = *layout_.level;
    const int64_t level = loadInteger(*nmethod, l.compLevel);
    if (level < l.minLevel || level > l.maxLevel)
      return std::nullopt;
    return static_cast<int>(level);
  }

  std::optional<uint64_t> verifiedEntryOf(const void *codeBegin) const override {
    if (!layout_.entry)
      return std::nullopt;
    const auto begin = reinterpret_cast<uintptr_t>(codeBegin);
    const std::optional<uintptr_t> nmethod = nmethodAt(layout_.find, begin);
    if (!nmethod)
      return std::nullopt;
    uintptr_t entry = 0;
    if (layout_.entry->pointer) {
      entry = load<uintptr_t>(*nmethod + *layout_.entry->pointer);
    } else {
      const int64_t offset = loadInteger(*nmethod, layout_.entry->offset);
      if (offset <= 0)
        return std::nullopt;
      entry = begin + static_cast<uint64_t>(offset);
    }
    // Inside the blob (nmethodAt checked its size against its heap block).
    const int64_t size = loadInteger(*nmethod, layout_.find.blobSize);
    if (entry <= begin || entry >= *nmethod + static_cast<uint64_t>(size))
      return std::nullopt;
    return entry;
  }

  std::optional<CompiledMethodName> methodOf(const void *codeBegin) const override {
    if (!layout_.descriptor)
      return std::nullopt;
    const std::optional<uintptr_t> nmethod =
        nmethodAt(layout_.find, reinterpret_cast<uintptr_t>(codeBegin));
    if (!nmethod)
      return std::nullopt;
    return compiledMethodName(*layout_.descriptor, *nmethod);
  }

private:
  const Layout layout_;
};

std::string listed(const char *what, const std::vector<std::string> &items) {
  std::string text = what;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? ", " : " ") + items[i];
  return text;
}

} // namespace

std::unique_ptr<HotSpotNmethods> HotSpotNmethods::fromThisJvm(std::string &error) {
  return fromSymbols(jvmSymbol, error);
}

std::unique_ptr<HotSpotNmethods> HotSpotNmethods::fromSymbols(const SymbolLookup &lookup,
                                                              std::string &error) {
  error.clear();
  std::vector<std::string> missing;
  const VmTables tables(lookup, missing);
  if (!tables.complete()) {
    error = listed("libjvm.so does not export", missing);
    return nullptr;
  }
  Layout layout;
  if (auto found = nmethodLayout(tables, missing))
    layout.find = *found;
  else {
    error = listed("this JVM's VMStructs lacks", missing);
    return nullptr;
  }
  // The optional parts: what they lack is said, and only their queries fail.
  std::vector<std::string> noLevel, noDescriptor, noEntry;
  layout.entry = entryLayout(tables, layout.find, noEntry);
  layout.level = levelLayout(tables, layout.find, noLevel);
  layout.descriptor = descriptorLayout(tables, layout.find, noDescriptor);
  if (!noLevel.empty())
    error = listed("no tiers: this JVM's VMStructs lacks", noLevel);
  if (!noDescriptor.empty())
    error += (error.empty() ? "" : "; ") +
             listed("no descriptors: this JVM's VMStructs lacks", noDescriptor);
  if (!noEntry.empty())
    error += (error.empty() ? "" : "; ") +
             listed("no entry points: this JVM's VMStructs lacks", noEntry);
  return std::make_unique<VmStructsNmethods>(layout);
}

} // namespace jitsym::jvmti
