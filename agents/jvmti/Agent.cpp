// Entry points of libjitsym-jvmti.so: -agentpath at JVM start (Agent_OnLoad)
// or `jcmd PID JVMTI.agent_load` later (Agent_OnAttach). Turns JVMTI's code
// events into jitdump records: CompiledMethodLoad (with line tables from the
// address-location map or, where the JVM gives it, the inlining record),
// CompiledMethodUnload, DynamicCodeGenerated (interpreter, stubs), and
// GenerateEvents so that code from before the agent started is not missed.
#include <jvmti.h>
#include <jvmticmlr.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "AgentOptions.h"
#include "HotSpotNmethods.h"
#include "JavaNames.h"
#include "JitOutput.h"
#include "JvmtiMethods.h"
#include "StubEvents.h"
#include "jitsym/writer/DebuggerHook.h"

namespace jitsym::jvmti {
namespace {

struct Agent {
  AgentOptions options;
  std::unique_ptr<JitOutput> output;
  // HotSpot's own view of its nmethods (VMStructs): tiers, and the true names
  // of method-handle intrinsics. Null on a JVM that does not describe them.
  std::unique_ptr<HotSpotNmethods> nmethods;
};

// Created once and never destroyed: JVM threads may post events while the
// process exits, after static destructors would have run.
Agent *agent = nullptr;
std::mutex startMutex;
// Set on the thread running GenerateEvents(DYNAMIC_CODE_GENERATED): its
// events are the replay, other threads' are live.
thread_local bool replayingStubs = false;

const char *errorName(jvmtiEnv *jvmti, jvmtiError error) {
  char *name = nullptr;
  static thread_local char text[64];
  if (jvmti->GetErrorName(error, &name) == JVMTI_ERROR_NONE && name) {
    std::snprintf(text, sizeof text, "%s", name);
    jvmti->Deallocate(reinterpret_cast<unsigned char *>(name));
  } else {
    std::snprintf(text, sizeof text, "JVMTI error %d", static_cast<int>(error));
  }
  return text;
}

bool check(jvmtiEnv *jvmti, jvmtiError error, const char *what) {
  if (error == JVMTI_ERROR_NONE)
    return true;
  std::fprintf(stderr, "jitsym-jvmti: %s failed: %s\n", what, errorName(jvmti, error));
  return false;
}

constexpr std::string_view kMethodHandle = "Ljava/lang/invoke/MethodHandle;";

std::string fallbackName(const MethodFacts *facts) {
  return facts ? facts->classSignature + "." + facts->name + facts->descriptor
               : std::string("<method unknown to JVMTI>");
}

// The innermost frame of each pc the inlining record describes; empty when the
// JVM gave no such record (then the address-location map is used).
std::vector<PcLine> pcLinesFromInlining(const void *compileInfo, MethodFactsCache &facts) {
  std::vector<PcLine> pcs;
  int records = 0; // a chain longer than this is not the JVM's
  for (auto *header = static_cast<const jvmtiCompiledMethodLoadRecordHeader *>(compileInfo);
       header && records < 64; header = header->next, ++records) {
    if (header->kind != JVMTI_CMLR_INLINE_INFO)
      continue;
    const auto *inlining = reinterpret_cast<const jvmtiCompiledMethodLoadInlineRecord *>(header);
    for (jint i = 0; i < inlining->numpcs; ++i) {
      const PCStackInfo &info = inlining->pcinfo[i];
      if (info.numstackframes < 1 || !info.methods || !info.bcis)
        continue;
      const MethodFacts *method = facts.get(info.methods[0]);
      if (!method || method->sourcePath.empty())
        continue;
      if (std::optional<uint32_t> line = lineOfBci(method->lines, info.bcis[0]))
        pcs.push_back({reinterpret_cast<uint64_t>(info.pc), *line, 0, method->sourcePath});
    }
  }
  return pcs;
}

std::vector<PcLine> pcLinesFromMap(const MethodFacts *method, jint length,
                                   const jvmtiAddrLocationMap *map) {
  std::vector<PcLine> pcs;
  if (!method || method->sourcePath.empty() || !map)
    return pcs;
  for (jint i = 0; i < length; ++i)
    if (std::optional<uint32_t> line = lineOfBci(method->lines, map[i].location))
      pcs.push_back({reinterpret_cast<uint64_t>(map[i].start_address), *line, 0, method->sourcePath});
  return pcs;
}

void JNICALL onCompiledMethodLoad(jvmtiEnv *jvmti, jmethodID method, jint codeSize,
                                  const void *codeAddress, jint mapLength,
                                  const jvmtiAddrLocationMap *map, const void *compileInfo) {
  if (!agent || !agent->output || codeSize <= 0 || !codeAddress)
    return;
  const AgentOptions &options = agent->options;
  MethodFactsCache facts(jvmti, options.lines);
  const MethodFacts *compiled = facts.get(method);
  std::optional<std::string> name;
  if (compiled) {
    std::string_view methodName = compiled->name, descriptor = compiled->descriptor;
    // JVMTI names every method-handle intrinsic of MethodHandle after the one
    // jmethodID they share; HotSpot's nmethod knows which it is.
    std::optional<CompiledMethodName> intrinsic;
    if (agent->nmethods && compiled->classSignature == kMethodHandle)
      intrinsic = agent->nmethods->methodOf(codeAddress);
    if (intrinsic) {
      methodName = intrinsic->name;
      descriptor = intrinsic->descriptor;
    }
    name = javaMethodName(compiled->classSignature, methodName, descriptor, options.names);
  }
  std::string symbol = name ? *name : fallbackName(compiled);
  if (options.tier && agent->nmethods)
    if (std::optional<int> level = agent->nmethods->levelOf(codeAddress))
      symbol += " [tier " + std::to_string(*level) + "]";

  std::vector<PcLine> lines;
  if (options.lines) {
    std::vector<PcLine> pcs = pcLinesFromInlining(compileInfo, facts);
    if (pcs.empty())
      pcs = pcLinesFromMap(compiled, mapLength, map);
    const auto start = reinterpret_cast<uint64_t>(codeAddress);
    lines = linesBeforePcs(start, start + static_cast<uint64_t>(codeSize), std::move(pcs));
  }
  // Where calls enter a virtual method's code: past its inline-cache check,
  // which calls through a vtable skip (a breakpoint on its name goes there).
  uint64_t entry = 0;
  if (agent->nmethods)
    entry = agent->nmethods->verifiedEntryOf(codeAddress).value_or(0);
  agent->output->load(method, reinterpret_cast<uint64_t>(codeAddress),
                      static_cast<uint64_t>(codeSize), symbol, lines, entry);
}

void JNICALL onCompiledMethodUnload(jvmtiEnv *, jmethodID method, const void *codeAddress) {
  if (agent && agent->output)
    agent->output->unload(method, reinterpret_cast<uint64_t>(codeAddress));
}

void JNICALL onDynamicCodeGenerated(jvmtiEnv *, const char *name, const void *address,
                                    jint length) {
  if (agent && agent->output && address && length > 0) {
    // A stub being generated as the replay lists it has no end: its length
    // would run ~0.5 GiB past the code heap's committed end (StubEvents.h).
    // It comes live once generated.
    if (replayingStubs &&
        replayedStubIsUnfinished(reinterpret_cast<uint64_t>(address), length))
      return;
    writer::QuietAnnouncements quiet; // stubs: no compile stop for them
    agent->output->load(nullptr, reinterpret_cast<uint64_t>(address),
                        static_cast<uint64_t>(length), name ? name : "<stub>", {});
  }
}

bool enable(jvmtiEnv *jvmti, jvmtiEvent event, const char *name) {
  return check(jvmti, jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr), name);
}

// At VM start the code events are enabled only at VM init: HotSpot sends no
// compiled-method events before, and the replay that follows VM init reports
// every stub generated until then. Taking each stub as it was generated as
// well handled ~470 stubs twice on the JVM's startup path.
bool enableCodeEvents(jvmtiEnv *jvmti) {
  return enable(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD, "enabling CompiledMethodLoad") &&
         enable(jvmti, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, "enabling CompiledMethodUnload") &&
         enable(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, "enabling DynamicCodeGenerated");
}

// Replays the code that exists already: generated during VM start, or before
// an attach. A stub that came live as well is not written twice (JitOutput);
// HotSpot reports some only when asked. The replay's records, and live ones
// that come meanwhile, are written when it ends.
void generateEvents(jvmtiEnv *jvmti) {
  agent->output->holdWrites();
  replayingStubs = true;
  check(jvmti, jvmti->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED),
        "GenerateEvents(DYNAMIC_CODE_GENERATED)");
  replayingStubs = false;
  check(jvmti, jvmti->GenerateEvents(JVMTI_EVENT_COMPILED_METHOD_LOAD),
        "GenerateEvents(COMPILED_METHOD_LOAD)");
  agent->output->releaseWrites();
}

void JNICALL onVMInit(jvmtiEnv *jvmti, JNIEnv *, jthread) {
  if (enableCodeEvents(jvmti))
    generateEvents(jvmti);
}

void JNICALL onVMDeath(jvmtiEnv *, JNIEnv *) {
  if (agent && agent->output)
    agent->output->close();
}

jint start(JavaVM *vm, const char *optionText, bool attached) {
  std::lock_guard<std::mutex> lock(startMutex);
  if (agent) {
    std::fprintf(stderr, "jitsym-jvmti: already running in this JVM (writing %s); "
                         "options '%s' ignored\n",
                 agent->output ? agent->output->dumpPath().c_str() : "nothing",
                 optionText ? optionText : "");
    return JNI_OK;
  }
  std::string error;
  std::optional<AgentOptions> options = parseAgentOptions(optionText ? optionText : "", error);
  if (!options || options->help) {
    if (!options)
      std::fprintf(stderr, "jitsym-jvmti: %s\n", error.c_str());
    std::fprintf(stderr, "jitsym-jvmti %s", kAgentOptionsHelp);
    return JNI_ERR;
  }

  jvmtiEnv *jvmti = nullptr;
  if (vm->GetEnv(reinterpret_cast<void **>(&jvmti), JVMTI_VERSION_1_2) != JNI_OK || !jvmti) {
    std::fprintf(stderr, "jitsym-jvmti: this JVM offers no JVMTI 1.2 environment\n");
    return JNI_ERR;
  }
  jvmtiCapabilities potential{}, wanted{};
  if (!check(jvmti, jvmti->GetPotentialCapabilities(&potential), "GetPotentialCapabilities"))
    return JNI_ERR;
  if (!potential.can_generate_compiled_method_load_events) {
    std::fprintf(stderr, "jitsym-jvmti: this JVM cannot report compiled methods\n");
    return JNI_ERR;
  }
  wanted.can_generate_compiled_method_load_events = 1;
  if (options->lines && potential.can_get_line_numbers && potential.can_get_source_file_name) {
    wanted.can_get_line_numbers = 1;
    wanted.can_get_source_file_name = 1;
  } else if (options->lines) {
    std::fprintf(stderr, "jitsym-jvmti: this JVM gives no line numbers; writing no lines\n");
    options->lines = false;
  }
  if (!check(jvmti, jvmti->AddCapabilities(&wanted), "AddCapabilities"))
    return JNI_ERR;

  auto created = std::make_unique<Agent>();
  created->options = *options;
  created->nmethods = HotSpotNmethods::fromThisJvm(error);
  if (options->tier && !error.empty())
    std::fprintf(stderr, "jitsym-jvmti: option tier: %s; names get no tier\n", error.c_str());
  created->output = JitOutput::open(*options, error);
  if (!created->output) {
    std::fprintf(stderr, "jitsym-jvmti: %s\n", error.c_str());
    return JNI_ERR;
  }
  agent = created.release(); // before any event can reach the callbacks

  jvmtiEventCallbacks callbacks{};
  callbacks.CompiledMethodLoad = onCompiledMethodLoad;
  callbacks.CompiledMethodUnload = onCompiledMethodUnload;
  callbacks.DynamicCodeGenerated = onDynamicCodeGenerated;
  callbacks.VMInit = onVMInit;
  callbacks.VMDeath = onVMDeath;
  if (!check(jvmti, jvmti->SetEventCallbacks(&callbacks, sizeof callbacks), "SetEventCallbacks"))
    return JNI_ERR;
  if (!enable(jvmti, JVMTI_EVENT_VM_DEATH, "enabling VMDeath") ||
      !(attached ? enableCodeEvents(jvmti) : enable(jvmti, JVMTI_EVENT_VM_INIT, "enabling VMInit")))
    return JNI_ERR;
  if (!options->quiet)
    std::fprintf(stderr, "jitsym-jvmti: writing %s%s%s\n", agent->output->dumpPath().c_str(),
                 options->perfMap ? " and " : "", agent->output->mapPath().c_str());
  if (attached)
    generateEvents(jvmti); // live phase already: no VMInit will come
  return JNI_OK;
}

} // namespace
} // namespace jitsym::jvmti

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *) {
  return jitsym::jvmti::start(vm, options, false);
}

extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *) {
  return jitsym::jvmti::start(vm, options, true);
}
