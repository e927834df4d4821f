// The runtimes' name forms.
#include "jitsym/symbols/RuntimeNames.h"

#include <array>
#include <cctype>
#include <optional>

namespace jitsym {
namespace {

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool isNumber(std::string_view text) {
  if (text.empty())
    return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

// "/app.js:3:22" (older V8: "/app.js:3"): where V8 says a function's source
// is. It follows the name after a space; names may hold spaces ("get size"),
// paths too, but a path's first word has a '/', '.' or ':'.
bool isSourcePosition(std::string_view rest) {
  const size_t firstWordEnd = rest.find(' ');
  const std::string_view firstWord = rest.substr(0, firstWordEnd);
  if (firstWord.find_first_of("/.:") == std::string_view::npos)
    return false;
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || !isNumber(rest.substr(colon + 1)))
    return false;
  return true;
}

// The name in "NAME POSITION" (or all of it, without a position).
std::string_view beforeSourcePosition(std::string_view rest) {
  for (size_t space = rest.find(' '); space != std::string_view::npos;
       space = rest.find(' ', space + 1))
    if (isSourcePosition(rest.substr(space + 1)))
      return rest.substr(0, space);
  return rest;
}

// V8's tier mark (CodeKindToMarker, ComputeMarker): ~ interpreted, ^
// baseline (Sparkplug), + Maglev, * TurboFan; V8 13 adds ' after + or * for
// code specialized to one closure's context ("JS:*'f"), V8 14 an o before
// them for on-stack-replacement code ("JS:o*f"). Its length, 0 when none.
size_t v8TierMarkLength(std::string_view rest) {
  auto optimized = [](char c) { return c == '+' || c == '*'; };
  if (rest.size() >= 2 && rest[0] == 'o' && optimized(rest[1]))
    return 2;
  if (!rest.empty() && optimized(rest[0]))
    return rest.size() >= 2 && rest[1] == '\'' ? 2 : 1;
  if (!rest.empty() && (rest[0] == '~' || rest[0] == '^'))
    return 1;
  return 0;
}

// V8: a kind, a tier mark, the function's name (empty for anonymous ones and
// a script's own code: "Eval:~ /app.js:1:1", Deno's "Script:~ file:///a.js"),
// then its source position.
std::optional<std::string> v8Name(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kKinds = {
      "JS:", "LazyCompile:", "Function:", "InterpretedFunction:", "Eval:", "Script:"};
  for (std::string_view kind : kKinds) {
    if (!startsWith(name, kind))
      continue;
    std::string_view rest = name.substr(kind.size());
    rest.remove_prefix(v8TierMarkLength(rest));
    if (kind == "Eval:" || kind == "Script:")
      return std::string(); // a script's top level: no function to name
    return std::string(beforeSourcePosition(rest));
  }
  return std::nullopt;
}

// JavaScriptCore (Bun, with BUN_JSC_useJITDump=1): "JSC-TIER: NAME#HASH" for a
// function's code at a tier (Baseline, DFG, FTL; the hash is its CodeBlock's),
// and "JSC-Thunk: ...", "JSC-InlineCache: ...", "JSC-YarrJIT: /re/" and the
// like for code that is no user's function.
std::optional<std::string> jscName(std::string_view name) {
  if (!startsWith(name, "JSC-"))
    return std::nullopt;
  const size_t colon = name.find(": ");
  if (colon == std::string_view::npos)
    return std::nullopt;
  const std::string_view tier = name.substr(4, colon - 4);
  if (tier != "Baseline" && tier != "DFG" && tier != "FTL")
    return std::string();
  std::string_view function = name.substr(colon + 2);
  const size_t hash = function.rfind('#');
  if (hash != std::string_view::npos)
    function = function.substr(0, hash);
  return std::string(function);
}

bool isJavaIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
         c == '<' || c == '>';
}

// HotSpot's external form: "RETURN pkg.Class.method(ARGS)", and jitsym's
// agent's with its `tier` option: "RETURN pkg.Class.method(ARGS) [tier 4]".
std::optional<std::string> javaName(std::string_view name) {
  if (const size_t tier = name.rfind(" [tier "); tier != std::string_view::npos &&
                                                 name.back() == ']')
    name = name.substr(0, tier);
  const size_t space = name.find(' ');
  const size_t paren = name.find('(');
  if (space == std::string_view::npos || paren == std::string_view::npos || paren < space ||
      name.back() != ')')
    return std::nullopt;
  std::string_view qualified = name.substr(space + 1, paren - space - 1);
  const size_t dot = qualified.rfind('.');
  if (qualified.empty() || dot == std::string_view::npos || dot == 0 ||
      dot + 1 == qualified.size())
    return std::nullopt;
  for (char c : qualified)
    if (!isJavaIdentifierChar(c))
      return std::nullopt;
  return std::string(qualified);
}

// Mono's full method name: "Namespace.Class:Method (ARGS)".
std::optional<std::string> monoName(std::string_view name) {
  const size_t open = name.find(" (");
  if (open == std::string_view::npos || name.back() != ')')
    return std::nullopt;
  std::string_view method = name.substr(0, open);
  const size_t colon = method.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == method.size() ||
      method.find(':', colon + 1) != std::string_view::npos ||
      method.find(' ') != std::string_view::npos)
    return std::nullopt;
  std::string typed(method);
  typed[colon] = '.';
  return typed;
}

// CPython's perf trampolines: "py::QUALNAME:FILE".
std::optional<std::string> pythonName(std::string_view name) {
  if (!startsWith(name, "py::"))
    return std::nullopt;
  std::string_view rest = name.substr(4);
  return std::string(rest.substr(0, rest.find(':')));
}

std::optional<std::string> beamName(std::string_view name) {
  if (name.size() < 2 || name[0] != '$')
    return std::nullopt;
  return std::string(name.substr(1));
}

// PHP's opcache function JIT: "JIT$crunch", "JIT$Calc::run"; its own stubs
// ("JIT$$leave_function") and a script's main code ("JIT$/srv/app.php") are no
// function a user names. (Its tracing JIT's "TRACE-1$crunch$2" is a hot path
// inside a function, not the function.)
std::optional<std::string> phpName(std::string_view name) {
  if (!startsWith(name, "JIT$"))
    return std::nullopt;
  const std::string_view function = name.substr(4);
  if (function.empty() || function[0] == '$' || function.find('/') != std::string_view::npos)
    return std::string();
  return std::string(function);
}

// The forms, in the order they are tried: the first that recognizes a name
// says what a user types for it.
using NameForm = std::optional<std::string> (*)(std::string_view);
constexpr std::array<NameForm, 7> kNameForms = {v8Name,     jscName,  beamName, phpName,
                                                pythonName, javaName, monoName};

} // namespace

bool nameSaysNotMachineCode(std::string_view name) {
  for (std::string_view interpreted :
       {"JS:~", "LazyCompile:~", "InterpretedFunction:", "Eval:~", "Script:~"})
    if (startsWith(name, interpreted))
      return true;
  return false;
}

std::string nameAsTyped(std::string_view name) {
  if (name.empty())
    return {};
  for (NameForm form : kNameForms)
    if (std::optional<std::string> typed = form(name))
      return *typed == name ? std::string() : *typed;
  return {};
}

PhpJitCode phpJitCodeOf(std::string_view name) {
  if (startsWith(name, "jit$$trace_exit_"))
    return PhpJitCode::Own; // exit groups: a push before each jump
  if (startsWith(name, "TRACE-") || startsWith(name, "ESCAPE-"))
    return PhpJitCode::OnVmFrame;
  if (!startsWith(name, "JIT$"))
    return PhpJitCode::NotPhp;
  if (!startsWith(name, "JIT$$"))
    return PhpJitCode::OnVmFrame; // a function's or a script's code
  // PHP's own stubs: most are jumped to; these are called (assign_*,
  // undefined_*, cannot_add_element*), or move the stack pointer (trace_exit
  // pushes the registers), or are a constant (double_one).
  const std::string_view stub = name.substr(5);
  for (std::string_view own : {"assign_", "undefined_", "cannot_add_element", "trace_exit",
                               "double_one"})
    if (startsWith(stub, own))
      return PhpJitCode::Own;
  return PhpJitCode::OnVmFrame;
}

} // namespace jitsym
