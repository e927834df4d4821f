// What HotSpot knows about its compiled methods (nmethods) and JVMTI does not
// report: the compilation tier (comp_level: 0 native wrapper, 1-3 C1, 4 C2)
// and the true name and descriptor of the Method compiled, and where calls
// enter its code (the verified entry point). JVMTI gives the
// method-handle intrinsics (MethodHandle.linkToStatic, linkToSpecial,
// invokeBasic... wrappers, one Method per erased signature) one shared
// jmethodID, so it names them all alike, even with the wrong method name.
//
// Read through the tables HotSpot exports about its own data structures
// (gHotSpotVMStructs, gHotSpotVMTypes, gHotSpotVMIntConstants: what the
// serviceability agent reads): the nmethod that owns an address is found
// through the code heap's segment map and must point back at the code asked
// about; then its _comp_level, or its Method -> ConstMethod -> ConstantPool
// -> name and signature Symbols. Every offset, size and signedness comes from
// the tables, none from a JDK version: JDK 25 lays the code blob out
// otherwise than 17 and 21 (a _code_offset from the blob instead of a
// _code_begin address, a 2-byte _header_size, a _kind; and a 4-byte heap
// block length, a 1-byte _comp_level), read through the same code. A JVM whose tables say
// something not understood yields nullopt, never a wrong answer.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace jitsym::jvmti {

struct CompiledMethodName {
  std::string name;       // "linkToStatic"
  std::string descriptor; // "(ILjava/lang/invoke/MemberName;)I"
};

class HotSpotNmethods {
public:
  // nullptr and `error` set when this JVM does not describe how to find an
  // nmethod. Otherwise `error` is left naming what it lacks for tiers or
  // descriptors (empty when nothing): those queries then return nullopt.
  static std::unique_ptr<HotSpotNmethods> fromThisJvm(std::string &error);

  // The same from the variables `lookup` finds by name (the address of
  // gHotSpotVMStructs and the others, or nullptr): libjvm.so's for
  // fromThisJvm, a test's stand-ins otherwise.
  using SymbolLookup = std::function<const void *(const char *name)>;
  static std::unique_ptr<HotSpotNmethods> fromSymbols(const SymbolLookup &lookup,
                                                      std::string &error);
  virtual ~HotSpotNmethods() = default;

  // The tier of the nmethod whose code starts at `codeBegin`; nullopt when it
  // cannot be established. Reads only the code heap: safe for any address.
  virtual std::optional<int> levelOf(const void *codeBegin) const = 0;

  // The name and descriptor of the Method compiled into the nmethod whose
  // code starts at `codeBegin`; nullopt when they cannot be established.
  // Reads metadata outside the code heap: the nmethod must be known alive,
  // e.g. `codeBegin` is the code address of a CompiledMethodLoad event,
  // during that event.
  virtual std::optional<CompiledMethodName> methodOf(const void *codeBegin) const = 0;

  // The verified entry point of the nmethod whose code starts at
  // `codeBegin`, when it is after codeBegin: the code before it checks the
  // receiver's class against an inline cache (a virtual method's), and
  // every call passes the verified entry (calls through a vtable and direct
  // calls enter there; inline-cached calls fall through into it after the
  // check). nullopt when it cannot be established. Reads only the code heap.
  virtual std::optional<uint64_t> verifiedEntryOf(const void *codeBegin) const = 0;
};

} // namespace jitsym::jvmti
