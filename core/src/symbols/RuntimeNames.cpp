// The runtimes' name forms.
#include "jitsym/symbols/RuntimeNames.h"

namespace jitsym {

bool nameSaysNotMachineCode(std::string_view name) {
  for (std::string_view interpreted : {"JS:~", "LazyCompile:~", "InterpretedFunction:"})
    if (name.substr(0, interpreted.size()) == interpreted)
      return true;
  return false;
}

} // namespace jitsym
