#include "JvmtiMethods.h"

#include "JavaNames.h"

namespace jitsym::jvmti {

std::optional<MethodFacts> describeMethod(jvmtiEnv *jvmti, jmethodID method, bool withLines) {
  MethodFacts facts;
  {
    JvmtiBuffer<char> name(jvmti), descriptor(jvmti), generic(jvmti);
    if (jvmti->GetMethodName(method, name.out(), descriptor.out(), generic.out()) !=
            JVMTI_ERROR_NONE ||
        !name.get() || !descriptor.get())
      return std::nullopt;
    facts.name = name.get();
    facts.descriptor = descriptor.get();
  }
  jclass owner = nullptr;
  if (jvmti->GetMethodDeclaringClass(method, &owner) != JVMTI_ERROR_NONE || !owner)
    return std::nullopt;
  {
    JvmtiBuffer<char> signature(jvmti), generic(jvmti);
    if (jvmti->GetClassSignature(owner, signature.out(), generic.out()) != JVMTI_ERROR_NONE ||
        !signature.get())
      return std::nullopt;
    facts.classSignature = signature.get();
  }
  if (!withLines)
    return facts;
  // Both may be absent (classes compiled with -g:none, generated classes):
  // the method is still named, with no lines.
  {
    JvmtiBuffer<char> file(jvmti);
    if (jvmti->GetSourceFileName(owner, file.out()) == JVMTI_ERROR_NONE && file.get())
      facts.sourcePath = javaSourcePath(facts.classSignature, file.get());
  }
  if (!facts.sourcePath.empty()) {
    jint count = 0;
    JvmtiBuffer<jvmtiLineNumberEntry> table(jvmti);
    if (jvmti->GetLineNumberTable(method, &count, table.out()) == JVMTI_ERROR_NONE &&
        table.get()) {
      for (jint i = 0; i < count; ++i)
        if (table.get()[i].line_number > 0)
          facts.lines.push_back({static_cast<int64_t>(table.get()[i].start_location),
                                 static_cast<uint32_t>(table.get()[i].line_number)});
    }
  }
  return facts;
}

const MethodFacts *MethodFactsCache::get(jmethodID method) {
  auto found = facts_.find(method);
  if (found == facts_.end())
    found = facts_.emplace(method, describeMethod(jvmti_, method, withLines_)).first;
  return found->second ? &*found->second : nullptr;
}

} // namespace jitsym::jvmti
