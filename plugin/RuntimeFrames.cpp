// Where PHP's execute_ex keeps its frame, from its binary's unwind table.
#include "RuntimeFrames.h"

#include <string>

#include "jitsym/formats/EhFrameParser.h"

namespace jitsym::plugin {

std::optional<std::string> sectionBytes(lldb::SBModule &module, const char *name) {
  lldb::SBSection section = module.FindSection(name);
  if (!section.IsValid())
    return std::nullopt;
  lldb::SBData data = section.GetSectionData();
  std::string bytes(data.GetByteSize(), '\0');
  lldb::SBError error;
  if (bytes.empty() || data.ReadRawData(error, 0, bytes.data(), bytes.size()) != bytes.size())
    return std::nullopt;
  return bytes;
}

std::optional<RuntimeFrame> phpVmFrame(lldb::SBTarget &target, const Architecture &arch) {
  for (uint32_t i = 0; i < target.GetNumModules(); ++i) {
    lldb::SBModule module = target.GetModuleAtIndex(i);
    lldb::SBSymbolContextList found = module.FindFunctions("execute_ex");
    for (uint32_t f = 0; f < found.GetSize(); ++f) {
      lldb::SBSymbol symbol = found.GetContextAtIndex(f).GetSymbol();
      if (!symbol.IsValid())
        continue;
      const std::optional<std::string> bytes = sectionBytes(module, ".eh_frame");
      if (!bytes)
        continue;
      // File addresses throughout: the frame's offsets do not depend on where
      // the module is loaded.
      llvm::Expected<std::vector<CallFrameInfo>> frames =
          parseEhFrame(*bytes, module.FindSection(".eh_frame").GetFileAddress());
      if (!frames) {
        llvm::consumeError(frames.takeError());
        continue;
      }
      if (std::optional<RuntimeFrame> frame = deepestFrameOf(
              *frames, symbol.GetStartAddress().GetFileAddress(), arch.stackPointerRegister))
        return frame;
    }
  }
  return std::nullopt;
}

} // namespace jitsym::plugin
