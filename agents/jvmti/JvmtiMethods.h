// What JVMTI says about a method: its names, its source file and its line
// number table. Every JVMTI buffer is released (JvmtiBuffer), every error is
// checked: a method JVMTI cannot describe (its class unloaded meanwhile) gives
// nullopt.
#pragma once

#include <jvmti.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "LineMapping.h"

namespace jitsym::jvmti {

// A JVMTI-allocated buffer, deallocated when this goes out of scope.
template <class T> class JvmtiBuffer {
public:
  explicit JvmtiBuffer(jvmtiEnv *jvmti) : jvmti_(jvmti) {}
  ~JvmtiBuffer() {
    if (pointer_)
      jvmti_->Deallocate(reinterpret_cast<unsigned char *>(pointer_));
  }
  JvmtiBuffer(const JvmtiBuffer &) = delete;
  JvmtiBuffer &operator=(const JvmtiBuffer &) = delete;
  T **out() { return &pointer_; }
  T *get() const { return pointer_; }

private:
  jvmtiEnv *jvmti_;
  T *pointer_ = nullptr;
};

struct MethodFacts {
  std::string classSignature; // "Lcom/foo/Hot;"
  std::string name;           // "work"
  std::string descriptor;     // "(I)J"
  std::string sourcePath;     // "com/foo/Hot.java"; empty when the class has none
  std::vector<BytecodeLine> lines;
};

std::optional<MethodFacts> describeMethod(jvmtiEnv *jvmti, jmethodID method, bool withLines);

// describeMethod, once per method for the span of one event (an event's
// inlining records name the same few methods at many pcs). Not kept across
// events, so nothing grows with the number of classes ever loaded.
class MethodFactsCache {
public:
  MethodFactsCache(jvmtiEnv *jvmti, bool withLines) : jvmti_(jvmti), withLines_(withLines) {}
  const MethodFacts *get(jmethodID method);

private:
  jvmtiEnv *jvmti_;
  bool withLines_;
  std::unordered_map<jmethodID, std::optional<MethodFacts>> facts_;
};

} // namespace jitsym::jvmti
