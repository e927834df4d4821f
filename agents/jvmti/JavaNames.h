// Java names from the JVM's internal forms (JVMS 4.2, 4.3): class signatures
// ("Ljava/lang/String;"), method descriptors ("(I[B)J"). Pure functions; a
// malformed input gives nullopt, never a guess.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "AgentOptions.h"

namespace jitsym::jvmti {

// "Ljava/lang/String;" -> "java.lang.String"; "[I" -> "int[]". A hidden class
// ("LHot$$Lambda$14.0x0000000800c03000;" in JVMTI's form) keeps HotSpot's
// "Hot$$Lambda$14/0x0000000800c03000".
std::optional<std::string> javaClassName(std::string_view classSignature);

// The method as HotSpot's perf map names it ("long Hot.work(int)", parameters
// separated by ", "), or in JVM form ("Hot.work(I)J").
std::optional<std::string> javaMethodName(std::string_view classSignature,
                                          std::string_view methodName,
                                          std::string_view descriptor, NameStyle style);

// Where javac's layout puts the source of a class: "com/foo/Hot.java" for
// "Lcom/foo/Hot$Inner;" declared in "Hot.java".
std::string javaSourcePath(std::string_view classSignature, std::string_view sourceFile);

} // namespace jitsym::jvmti
