/*
 * jitsym/jitprofiling.h: the Intel JIT profiling API (iJIT_NotifyEvent), as
 * JIT engines call it and as a collector library receives it. Written for
 * jitsym from the API's public documentation and the ABI of the header Intel
 * distributes with its stub (jitprofiling.h in ittapi); the numbers and
 * layouts below are that ABI, on 64-bit and 32-bit targets alike.
 *
 * How a collector is found: the engine links a small stub. On its first call
 * the stub reads INTEL_JIT_PROFILER64 (INTEL_JIT_PROFILER32 in a 32-bit
 * process), dlopen()s the library it names, and looks up two functions:
 *
 *     unsigned int Initialize(void);            -> iJIT_IsProfilingActiveFlags
 *     unsigned int NotifyEvent(unsigned int event, void *data);
 *
 * iJIT_NotifyEvent(event, data) then returns NotifyEvent's result. jitsym's
 * collector is build/lib/libjitsym-jitprofiling.so.
 */
#ifndef JITSYM_JITPROFILING_H
#define JITSYM_JITPROFILING_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum iJIT_jvm_event {
  iJVM_EVENT_TYPE_SHUTDOWN = 2,                     /* data: NULL */
  iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED = 13,        /* data: iJIT_Method_Load */
  iJVM_EVENT_TYPE_METHOD_UNLOAD_START = 14,         /* data: starts with the method id */
  iJVM_EVENT_TYPE_METHOD_UPDATE = 15,               /* data: iJIT_Method_Load */
  iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED = 16, /* data: iJIT_Method_Inline_Load */
  iJVM_EVENT_TYPE_METHOD_UPDATE_V2 = 17,            /* data: iJIT_Method_Update */
  iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2 = 21,     /* data: iJIT_Method_Load_V2 */
  iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3 = 22      /* data: iJIT_Method_Load_V3 */
} iJIT_JVM_EVENT;

typedef enum _iJIT_IsProfilingActiveFlags {
  iJIT_NOTHING_RUNNING = 0,
  iJIT_SAMPLING_ON = 1
} iJIT_IsProfilingActiveFlags;

/* One entry of a line table. Offset is where the entry's code range ENDS
   (bytes from the method's start); the range starts at the previous entry's
   Offset, or at 0 for the first. So {1,2},{12,4} means [0,1) is line 2 and
   [1,12) is line 4. */
typedef struct _LineNumberInfo {
  unsigned int Offset;
  unsigned int LineNumber;
} LineNumberInfo, *pLineNumberInfo;

#pragma pack(push, 8)

/* Method ids are the engine's (iJIT_GetNewMethodID, or its own); ids up to 999
   are not valid. Names must not be NULL. Pointers are valid during the call. */
typedef struct _iJIT_Method_Load {
  unsigned int method_id;
  char *method_name;
  void *method_load_address;
  unsigned int method_size;
  unsigned int line_number_size;
  pLineNumberInfo line_number_table;
  unsigned int class_id; /* unused */
  char *class_file_name;
  char *source_file_name;
  /* Older headers add void *user_data, unsigned user_data_size and an
     environment type here, all unused: collectors read none of them. */
} iJIT_Method_Load, *piJIT_Method_Load;

typedef struct _iJIT_Method_Load_V2 { /* no class_id */
  unsigned int method_id;
  char *method_name;
  void *method_load_address;
  unsigned int method_size;
  unsigned int line_number_size;
  pLineNumberInfo line_number_table;
  char *class_file_name;
  char *source_file_name;
  char *module_name; /* the JIT engine or module the code belongs to */
} iJIT_Method_Load_V2, *piJIT_Method_Load_V2;

typedef enum _iJIT_CodeArchitecture {
  iJIT_CA_NATIVE = 0,
  iJIT_CA_32 = 1,
  iJIT_CA_64 = 2
} iJIT_CodeArchitecture;

typedef struct _iJIT_Method_Load_V3 {
  unsigned int method_id;
  char *method_name;
  void *method_load_address;
  unsigned int method_size;
  unsigned int line_number_size;
  pLineNumberInfo line_number_table;
  char *class_file_name;
  char *source_file_name;
  char *module_name;
  iJIT_CodeArchitecture module_arch;
} iJIT_Method_Load_V3, *piJIT_Method_Load_V3;

/* Code of `method_id` inlined into `parent_method_id`'s code. */
typedef struct _iJIT_Method_Inline_Load {
  unsigned int method_id;
  unsigned int parent_method_id;
  char *method_name;
  void *method_load_address;
  unsigned int method_size;
  unsigned int line_number_size;
  pLineNumberInfo line_number_table;
  char *class_file_name;
  char *source_file_name;
} iJIT_Method_Inline_Load, *piJIT_Method_Inline_Load;

typedef enum _iJIT_SegmentType {
  iJIT_CT_UNKNOWN = 0,
  iJIT_CT_CODE,
  iJIT_CT_DATA,
  iJIT_CT_KEEP,
  iJIT_CT_EOF
} iJIT_SegmentType;

typedef struct _iJIT_Method_Update {
  void *load_address;
  unsigned int size;
  iJIT_SegmentType type;
  const char *data_format;
} iJIT_Method_Update, *piJIT_Method_Update;

#pragma pack(pop)

/* The engine's side (the stub). */
unsigned int iJIT_GetNewMethodID(void);
iJIT_IsProfilingActiveFlags iJIT_IsProfilingActive(void);
int iJIT_NotifyEvent(iJIT_JVM_EVENT event_type, void *EventSpecificData);

#ifdef __cplusplus
}
#endif

#endif /* JITSYM_JITPROFILING_H */
