#include "JavaNames.h"

#include <algorithm>

namespace jitsym::jvmti {
namespace {

// Reads one field type (JVMS 4.3.2) at `at` and advances past it.
std::optional<std::string> readFieldType(std::string_view text, size_t &at) {
  size_t dimensions = 0;
  while (at < text.size() && text[at] == '[')
    ++dimensions, ++at;
  if (at >= text.size() || dimensions > 255)
    return std::nullopt;
  std::string type;
  switch (text[at]) {
  case 'B': type = "byte"; break;
  case 'C': type = "char"; break;
  case 'D': type = "double"; break;
  case 'F': type = "float"; break;
  case 'I': type = "int"; break;
  case 'J': type = "long"; break;
  case 'S': type = "short"; break;
  case 'Z': type = "boolean"; break;
  case 'V': type = "void"; break; // return types only; checked by the caller
  case 'L': {
    const size_t end = text.find(';', at);
    if (end == std::string_view::npos || end == at + 1)
      return std::nullopt;
    std::optional<std::string> name = javaClassName(text.substr(at, end - at + 1));
    if (!name)
      return std::nullopt;
    type = std::move(*name);
    at = end;
    break;
  }
  default:
    return std::nullopt;
  }
  ++at;
  if (dimensions && type == "void")
    return std::nullopt;
  for (size_t i = 0; i < dimensions; ++i)
    type += "[]";
  return type;
}

} // namespace

std::optional<std::string> javaClassName(std::string_view signature) {
  if (!signature.empty() && signature[0] == '[') {
    size_t at = 0;
    std::optional<std::string> type = readFieldType(signature, at);
    return type && at == signature.size() ? type : std::nullopt;
  }
  if (signature.size() < 3 || signature.front() != 'L' || signature.back() != ';')
    return std::nullopt;
  const std::string_view internal = signature.substr(1, signature.size() - 2);
  // Package segments between '/', no empty one; JVMTI marks a hidden class's
  // suffix with one '.', which no ordinary internal name contains (JVMS 4.2.1).
  if (internal.find_first_of(";[") != std::string_view::npos ||
      std::count(internal.begin(), internal.end(), '.') > 1)
    return std::nullopt;
  for (std::string_view empty : {"//", "/.", "./"})
    if (internal.find(empty) != std::string_view::npos)
      return std::nullopt;
  if (std::string_view("/.").find(internal.front()) != std::string_view::npos ||
      std::string_view("/.").find(internal.back()) != std::string_view::npos)
    return std::nullopt;
  // HotSpot prints the binary name, with the hidden class's suffix after '/'.
  std::string name(internal);
  for (char &c : name)
    c = c == '/' ? '.' : c == '.' ? '/' : c;
  return name;
}

std::optional<std::string> javaMethodName(std::string_view classSignature,
                                          std::string_view methodName,
                                          std::string_view descriptor, NameStyle style) {
  if (methodName.empty())
    return std::nullopt;
  std::optional<std::string> owner = javaClassName(classSignature);
  if (!owner)
    return std::nullopt;
  // Parse the whole descriptor in either style so that a bad one is caught.
  if (descriptor.size() < 3 || descriptor[0] != '(')
    return std::nullopt;
  size_t at = 1;
  std::string parameters;
  while (at < descriptor.size() && descriptor[at] != ')') {
    std::optional<std::string> type = readFieldType(descriptor, at);
    if (!type || *type == "void")
      return std::nullopt;
    parameters += (parameters.empty() ? "" : ", ") + *type;
  }
  if (at >= descriptor.size())
    return std::nullopt;
  ++at; // ')'
  std::optional<std::string> result = readFieldType(descriptor, at);
  if (!result || at != descriptor.size())
    return std::nullopt;

  if (style == NameStyle::Jvm) {
    std::string internal = classSignature[0] == 'L'
                               ? std::string(classSignature.substr(1, classSignature.size() - 2))
                               : std::string(classSignature);
    return internal + "." + std::string(methodName) + std::string(descriptor);
  }
  return *result + " " + *owner + "." + std::string(methodName) + "(" + parameters + ")";
}

std::string javaSourcePath(std::string_view classSignature, std::string_view sourceFile) {
  std::string path;
  if (classSignature.size() > 2 && classSignature.front() == 'L') {
    const std::string_view name = classSignature.substr(1, classSignature.size() - 2);
    const size_t slash = name.rfind('/');
    if (slash != std::string_view::npos)
      path = std::string(name.substr(0, slash + 1));
  }
  return path + std::string(sourceFile);
}

} // namespace jitsym::jvmti
