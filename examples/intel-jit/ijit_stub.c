/*
 * ijit_stub.c - the engine's side of the Intel JIT profiling API, as the stub
 * Intel distributes with it behaves (an engine normally links that stub; this
 * example carries its own so that it needs nothing but libc):
 *
 *   - on the first call, read INTEL_JIT_PROFILER64 (INTEL_JIT_PROFILER32 in a
 *     32-bit process), dlopen() the collector it names, look up its
 *     NotifyEvent and Initialize, and call Initialize once;
 *   - iJIT_NotifyEvent forwards each event and returns NotifyEvent's result,
 *     or 0 when no collector is loaded;
 *   - iJIT_IsProfilingActive returns what Initialize returned.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "jitsym/jitprofiling.h"

typedef unsigned int (*NotifyEventFn)(unsigned int event, void *data);
typedef unsigned int (*InitializeFn)(void);

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static NotifyEventFn notify_event;
static iJIT_IsProfilingActiveFlags active = iJIT_NOTHING_RUNNING;

static void load_collector(void)
{
    const char *path = getenv(sizeof(void *) == 8 ? "INTEL_JIT_PROFILER64" : "INTEL_JIT_PROFILER32");
    if (!path || !*path)
        return;
    void *library = dlopen(path, RTLD_LAZY);
    if (!library) {
        fprintf(stderr, "ijit_stub: cannot load the collector: %s\n", dlerror());
        return;
    }
    NotifyEventFn notify = (NotifyEventFn)dlsym(library, "NotifyEvent");
    InitializeFn initialize = (InitializeFn)dlsym(library, "Initialize");
    if (!notify || !initialize) {
        fprintf(stderr, "ijit_stub: %s exports no NotifyEvent or no Initialize\n", path);
        return;
    }
    active = (iJIT_IsProfilingActiveFlags)initialize();
    notify_event = notify;
}

iJIT_IsProfilingActiveFlags iJIT_IsProfilingActive(void)
{
    pthread_once(&loaded, load_collector);
    return active;
}

int iJIT_NotifyEvent(iJIT_JVM_EVENT event_type, void *EventSpecificData)
{
    pthread_once(&loaded, load_collector);
    return notify_event ? (int)notify_event((unsigned int)event_type, EventSpecificData) : 0;
}

unsigned int iJIT_GetNewMethodID(void)
{
    static unsigned int next = 0x100000; /* well past the reserved ids 0..999 */
    return __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
}
