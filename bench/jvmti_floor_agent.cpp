// HotSpot's own cost of the JVMTI events the agent needs, for
// bench/jvm_overhead.py: the same capabilities, the same events enabled at
// the same moments, and the same replay at VM init, with callbacks that do
// nothing. Whatever this costs, any agent built on CompiledMethodLoad and
// DynamicCodeGenerated pays; the rest of libjitsym-jvmti.so's cost is its own.
#include <jvmti.h>

#include <initializer_list>

namespace {

void JNICALL onCompiledMethodLoad(jvmtiEnv *, jmethodID, jint, const void *, jint,
                                  const jvmtiAddrLocationMap *, const void *) {}
void JNICALL onCompiledMethodUnload(jvmtiEnv *, jmethodID, const void *) {}
void JNICALL onDynamicCodeGenerated(jvmtiEnv *, const char *, const void *, jint) {}

void JNICALL onVMInit(jvmtiEnv *jvmti, JNIEnv *, jthread) {
  for (jvmtiEvent event : {JVMTI_EVENT_COMPILED_METHOD_LOAD, JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
                           JVMTI_EVENT_DYNAMIC_CODE_GENERATED})
    jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
  jvmti->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  jvmti->GenerateEvents(JVMTI_EVENT_COMPILED_METHOD_LOAD);
}

} // namespace

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *, void *) {
  jvmtiEnv *jvmti = nullptr;
  if (vm->GetEnv(reinterpret_cast<void **>(&jvmti), JVMTI_VERSION_1_2) != JNI_OK)
    return JNI_ERR;
  jvmtiCapabilities wanted{};
  wanted.can_generate_compiled_method_load_events = 1;
  wanted.can_get_line_numbers = 1;
  wanted.can_get_source_file_name = 1;
  jvmtiEventCallbacks callbacks{};
  callbacks.CompiledMethodLoad = onCompiledMethodLoad;
  callbacks.CompiledMethodUnload = onCompiledMethodUnload;
  callbacks.DynamicCodeGenerated = onDynamicCodeGenerated;
  callbacks.VMInit = onVMInit;
  if (jvmti->AddCapabilities(&wanted) != JVMTI_ERROR_NONE ||
      jvmti->SetEventCallbacks(&callbacks, sizeof callbacks) != JVMTI_ERROR_NONE ||
      jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr) !=
          JVMTI_ERROR_NONE)
    return JNI_ERR;
  return JNI_OK;
}
