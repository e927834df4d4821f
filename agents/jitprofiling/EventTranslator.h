// What each event of the Intel JIT profiling API does in jitsym: the checks an
// event must pass, and the code loads and unloads it turns into. No I/O: the
// collector hands the results to libjitsym-writer, tests to a recorder.
//
//   METHOD_LOAD_FINISHED(_V2/_V3)  load NAME ("NAME [MODULE]" with a module
//                                  name) at the method's code, with its lines
//   METHOD_INLINE_LOAD_FINISHED    the inlined code's lines (its own source
//                                  file) replace the parent's over its range;
//                                  the parent is loaded again with them
//   METHOD_UPDATE                  the method's code moved or changed: unload
//                                  the old code, load the new
//   METHOD_UNLOAD_START            unload the method's code
//   SHUTDOWN                       close the files
//
// The engine's pointers are read during the call only; what is kept is copied.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "jitsym/formats/JitdumpWriter.h"

namespace jitsym::jitprofiling {

// Where translated events go.
class CodeSink {
public:
  virtual ~CodeSink() = default;
  virtual void load(uint64_t address, uint64_t size, const std::string &name,
                    const std::vector<DebugLineFields> &lines) = 0;
  virtual void unload(uint64_t address) = 0;
  virtual void shutdown() = 0;
};

struct EventResult {
  unsigned int value = 0; // NotifyEvent's return: 1 done, 0 rejected or ignored
  std::string message;    // why it was rejected or what was dropped; empty if nothing
};

class EventTranslator {
public:
  explicit EventTranslator(CodeSink &sink) : sink_(sink) {}

  EventResult handle(unsigned int event, const void *data);

  // Ids up to this one are not valid (the API reserves them).
  static constexpr unsigned int kLastReservedId = 999;
  // The event's name as the API spells it ("METHOD_LOAD_FINISHED").
  static std::string eventName(unsigned int event);

  struct LoadFields; // what the load structs have in common (EventTranslator.cpp)

private:
  struct LineSpan { // [start, end) of the method's code is `line` of `file`
    uint64_t start, end;
    uint32_t line;
    std::string_view file; // interned in files_
  };
  struct Method {
    std::string name;
    uint64_t address = 0, size = 0;
    std::vector<LineSpan> lines;
  };
  struct Inline {
    unsigned int id;
    uint64_t address = 0, size = 0;
    std::vector<LineSpan> lines;
  };
  EventResult load(const char *event, const LoadFields &fields);
  EventResult loadInline(const void *data);
  EventResult update(const void *data);
  EventResult unload(const void *data);
  // The method's lines, the inlines that arrived for it laid over them.
  void emit(unsigned int id, const Method &method);
  // The method's code at `address` is gone: unloaded, unless other code has
  // been loaded there since (then that code's load stands).
  void release(unsigned int id, uint64_t address);
  std::vector<LineSpan> lineSpans(const LoadFields &fields, std::string &dropped);
  // Source file names are kept once each (an engine has few): spans refer to them.
  std::string_view intern(const char *file);

  CodeSink &sink_;
  std::unordered_map<unsigned int, Method> methods_;
  std::unordered_map<unsigned int, std::vector<Inline>> inlines_; // by parent id
  std::unordered_map<uint64_t, unsigned int> owners_; // the method whose code is at an address
  std::unordered_set<std::string> files_;
  bool shutDown_ = false;
};

} // namespace jitsym::jitprofiling
