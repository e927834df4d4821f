// jit-sync --export: what this target's sync knows, written as files another
// session loads (core RegionExport.h), planned as the live modules are.
#include "TargetSync.h"

#include "FunctionEntries.h"
#include "TargetCode.h"
#include "jitsym/objects/RegionExport.h"

namespace jitsym::plugin {

llvm::Expected<ExportReport> TargetSync::exportTo(lldb::SBDebugger &debugger,
                                                  const std::string &directory) {
  lldb::SBProcess process = target_.GetProcess();
  ExportRequest request;
  if (process.IsValid()) {
    request.mappings = sideOf(debugger, process).memoryMap(process);
    if (!request.mappings.empty())
      request.space = JitAddressSpace::fromMemoryMap(request.mappings);
  }
  request.tables = &tables_;
  llvm::Expected<TargetCode> code = targetCode(target_);
  if (!code)
    return code.takeError();
  request.triple = code->triple;
  request.origin = sources_.names();
  if (modules_)
    request.claimed = claimedByOtherModules(target_, *modules_);
  auto plausible = [this](std::string_view file, uint32_t line) {
    return lineCanExist(file, line);
  };
  request.plausible = plausible;
  FunctionEntries entries(*code->arch, [&](const std::vector<AddressRange> &pieces) {
    return sideOf(debugger, process).readPieces(process, pieces);
  });
  if (process.IsValid())
    request.entries = entries.probe();
  llvm::Expected<ExportResult> result = exportRegions(directory, request);
  if (!result)
    return result.takeError();
  return ExportReport{result->symbols, result->regions.size(), result->outside};
}

} // namespace jitsym::plugin
