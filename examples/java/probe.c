/* The native method JitDemo.probe. Phase 3 calls jitdemo_stop, where the
 * debugger stops below the JIT-compiled Java frames; the other phases return
 * at once, so a breakpoint on jitdemo_stop costs the warm-up nothing. */
#include <jni.h>

__attribute__((noinline)) int jitdemo_stop(int phase) {
  return phase; /* break here */
}

JNIEXPORT jint JNICALL Java_JitDemo_probe(JNIEnv *env, jclass cls, jint phase) {
  (void)env;
  (void)cls;
  if (phase == 3)
    return jitdemo_stop(phase);
  return phase;
}
