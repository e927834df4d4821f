// PHP's own word on a function its JIT compiled: the engine's op_array, read
// from the process's memory (PHP 8.2, Zend API 20220829, 64-bit builds).
//
// A perf map or jitdump from opcache says where `JIT$leaf` starts and ends,
// not where it is entered. The VM enters a function's code at its first
// opline, the RECV checks of its arguments; but JIT code calling a function
// whose argument types it knows, and the VM calling one without type hints,
// skip them and enter at the handler of opcodes[num_args] (some 34 bytes in):
// a trap at the start is never hit by those calls. The op_array has that
// handler, the script and the function's first line.
//
// Two ways to the op_array: through the engine's tables (executor_globals'
// function_table, class_table), which hold every function the script
// declared; and, while the compiler is writing the function's symbol (the
// script is not declared yet), among the words on the compiling thread's
// stack, beside the script being compiled, whose own tables hold the rest. Either is accepted only when its opcodes[0] is entered at exactly
// the code's start and its name is the symbol's.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jitsym/base/AddressRange.h"

namespace jitsym {

// Reads pieces of the process's memory (sorted by start): each whole, or an
// empty string where it could not be read.
using ReadPieces = std::function<std::vector<std::string>(const std::vector<AddressRange> &)>;

// Where the engine keeps what is read here, for one Zend API.
struct PhpLayout {
  uint32_t zendExtensionApi; // opcache's extension_version_info.zend_extension_api_no
  const char *version;
  uint32_t functionTable, classTable;              // in executor_globals (pointers)
  uint32_t classFunctionTable;                     // in zend_class_entry (a HashTable)
  uint32_t type, functionName, numArgs, opcodes;   // in zend_op_array
  uint32_t filename, lineStart;
  uint32_t opSize;                                 // sizeof(zend_op); handler at 0
  uint32_t scriptFunctionTable, scriptClassTable;  // in zend_script (HashTables)
};
// The layout of the PHP whose opcache says `zendExtensionApi`, or null.
const PhpLayout *phpLayoutFor(uint32_t zendExtensionApi);

// "JIT$leaf" -> {"", "leaf"}; "JIT$Ns\\Shop::add" -> {"Ns\\Shop", "add"}.
// Not a function's: stubs (JIT$$...), traces, closures, a script's main code.
struct PhpFunctionName {
  std::string scope;
  std::string function;
};
std::optional<PhpFunctionName> parsePhpJitName(std::string_view symbol);

struct PhpFunction {
  uint64_t opArray = 0;
  std::optional<uint64_t> entry; // opcodes[num_args]'s handler, when inside the code past its start
  std::string file;
  uint64_t fileString = 0; // the zend_string of `file`, shared by the script's functions
  uint32_t line = 0; // the function's first line
};

// The op_array at `opArray`, if it is `name`'s and compiled to `code`.
std::optional<PhpFunction> phpFunctionAt(const PhpLayout &layout, const ReadPieces &read,
                                         uint64_t opArray, const PhpFunctionName &name,
                                         const AddressRange &code);

// Looked up as the engine does (zend_hash_find of the lower-cased name) in
// executor_globals' function table, or its class table and then the class's.
std::optional<PhpFunction> phpFunctionByName(const PhpLayout &layout, const ReadPieces &read,
                                             uint64_t executorGlobals,
                                             const PhpFunctionName &name,
                                             const AddressRange &code);

// Among the aligned words of `stack` (read at a stop in the compiler, from its
// stack pointer up), the first that is `name`'s op_array compiled to `code`.
std::optional<PhpFunction> phpFunctionOnStack(const PhpLayout &layout, const ReadPieces &read,
                                              std::string_view stack, const PhpFunctionName &name,
                                              const AddressRange &code);

// The zend_script being compiled, found on the same stack as the op_array of
// one of its functions (`compiled`): the word whose first field is the same
// file name string. Its tables hold the script's other functions, which the
// engine declares only once the whole script is compiled.
std::optional<uint64_t> phpScriptOnStack(const PhpLayout &layout, const ReadPieces &read,
                                         std::string_view stack, const PhpFunction &compiled);
std::optional<PhpFunction> phpFunctionInScript(const PhpLayout &layout, const ReadPieces &read,
                                               uint64_t script, const PhpFunctionName &name,
                                               const AddressRange &code);

// zend_inline_hash_func: DJBX33A with the top bit set.
uint64_t phpStringHash(std::string_view text);

} // namespace jitsym
