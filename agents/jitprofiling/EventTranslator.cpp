#include "EventTranslator.h"

#include <algorithm>
#include <cstdio>

#include "jitsym/jitprofiling.h"

namespace jitsym::jitprofiling {

struct EventTranslator::LoadFields {
  unsigned int id = 0;
  const char *name = nullptr;
  const void *address = nullptr;
  unsigned int size = 0;
  unsigned int lineCount = 0;
  const LineNumberInfo *table = nullptr;
  const char *sourceFile = nullptr;
  const char *module = nullptr;
};

namespace {

// More line entries than this is not a method's table but a bad count.
constexpr unsigned int kMaxLineEntries = 1u << 20;

template <typename Load> EventTranslator::LoadFields fieldsOf(const Load &load) {
  return {load.method_id,        load.method_name,       load.method_load_address,
          load.method_size,      load.line_number_size,  load.line_number_table,
          load.source_file_name, nullptr};
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

} // namespace

std::string EventTranslator::eventName(unsigned int event) {
  switch (event) {
  case iJVM_EVENT_TYPE_SHUTDOWN: return "SHUTDOWN";
  case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED: return "METHOD_LOAD_FINISHED";
  case iJVM_EVENT_TYPE_METHOD_UNLOAD_START: return "METHOD_UNLOAD_START";
  case iJVM_EVENT_TYPE_METHOD_UPDATE: return "METHOD_UPDATE";
  case iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED: return "METHOD_INLINE_LOAD_FINISHED";
  case iJVM_EVENT_TYPE_METHOD_UPDATE_V2: return "METHOD_UPDATE_V2";
  case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2: return "METHOD_LOAD_FINISHED_V2";
  case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3: return "METHOD_LOAD_FINISHED_V3";
  default: return "event " + std::to_string(event);
  }
}

EventResult EventTranslator::handle(unsigned int event, const void *data) {
  // The event's name is spelled out only for a message: none on the way of a good event.
  if (shutDown_)
    return {0, eventName(event) + " ignored: it came after SHUTDOWN"};
  if (event == iJVM_EVENT_TYPE_SHUTDOWN) {
    shutDown_ = true;
    sink_.shutdown();
    return {1, ""};
  }
  if (!data)
    return {0, eventName(event) + " rejected: its data pointer is null"};
  switch (event) {
  case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED:
    return load("METHOD_LOAD_FINISHED", fieldsOf(*static_cast<const iJIT_Method_Load *>(data)));
  case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2: {
    const auto &v2 = *static_cast<const iJIT_Method_Load_V2 *>(data);
    LoadFields fields = fieldsOf(v2);
    fields.module = v2.module_name;
    return load("METHOD_LOAD_FINISHED_V2", fields);
  }
  case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3: {
    const auto &v3 = *static_cast<const iJIT_Method_Load_V3 *>(data);
    LoadFields fields = fieldsOf(v3);
    fields.module = v3.module_name;
    return load("METHOD_LOAD_FINISHED_V3", fields);
  }
  case iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED:
    return loadInline(data);
  case iJVM_EVENT_TYPE_METHOD_UPDATE:
    return update(data);
  case iJVM_EVENT_TYPE_METHOD_UNLOAD_START:
    return unload(data);
  case iJVM_EVENT_TYPE_METHOD_UPDATE_V2:
    return {0, eventName(event) + " ignored: segment updates are not supported"};
  default:
    return {0, eventName(event) + " ignored: not an event of the JIT profiling API jitsym knows"};
  }
}

namespace {

// Why a method's fields cannot describe code; empty if they can.
std::string badCode(unsigned int id, const char *name, const void *address, unsigned int size) {
  if (id <= EventTranslator::kLastReservedId)
    return "method_id " + std::to_string(id) + " is not valid (ids up to " +
           std::to_string(EventTranslator::kLastReservedId) + " are reserved)";
  if (!name)
    return "method_name is null";
  if (!address)
    return "method_load_address is null";
  if (size == 0)
    return "method_size is 0";
  return "";
}

std::string about(const char *event, unsigned int id) {
  return std::string(event) + " of method " + std::to_string(id);
}

} // namespace

std::string_view EventTranslator::intern(const char *file) {
  return *files_.emplace(file).first;
}

std::vector<EventTranslator::LineSpan> EventTranslator::lineSpans(const LoadFields &fields,
                                                                  std::string &dropped) {
  std::vector<LineSpan> spans;
  if (fields.lineCount == 0)
    return spans;
  if (!fields.table)
    dropped = "line_number_table is null, line_number_size " + std::to_string(fields.lineCount);
  else if (fields.lineCount > kMaxLineEntries)
    dropped = "line_number_size " + std::to_string(fields.lineCount) + " is over the limit of " +
              std::to_string(kMaxLineEntries);
  else if (!fields.sourceFile || !*fields.sourceFile)
    dropped = "no source_file_name for its " + std::to_string(fields.lineCount) + " line entries";
  if (!dropped.empty())
    return spans;
  const std::string_view file = intern(fields.sourceFile);
  uint64_t start = 0; // each entry's Offset ends its range; the range starts at the previous
  for (unsigned int i = 0; i < fields.lineCount; ++i) {
    const LineNumberInfo &entry = fields.table[i];
    if (entry.Offset < start) {
      dropped = "line entry " + std::to_string(i) + " has Offset " + std::to_string(entry.Offset) +
                ", before the previous entry's " + std::to_string(start);
      return {};
    }
    const uint64_t end = std::min<uint64_t>(entry.Offset, fields.size);
    if (start < end)
      spans.push_back({start, end, entry.LineNumber, file});
    start = entry.Offset;
  }
  return spans;
}

EventResult EventTranslator::load(const char *event, const LoadFields &fields) {
  if (std::string bad = badCode(fields.id, fields.name, fields.address, fields.size); !bad.empty())
    return {0, about(event, fields.id) + " rejected: " + bad};
  std::string dropped;
  Method method;
  method.name = fields.name;
  if (fields.module && *fields.module)
    method.name += std::string(" [") + fields.module + "]";
  method.address = reinterpret_cast<uint64_t>(fields.address);
  method.size = fields.size;
  method.lines = lineSpans(fields, dropped);
  auto known = methods_.find(fields.id);
  if (known != methods_.end() && known->second.address != method.address)
    release(fields.id, known->second.address); // the id names new code: the old is gone
  emit(fields.id, methods_[fields.id] = std::move(method));
  return {1, dropped.empty() ? "" : about(event, fields.id) + " (" + fields.name +
                                        "): line table dropped: " + dropped};
}

EventResult EventTranslator::loadInline(const void *data) {
  const auto &load = *static_cast<const iJIT_Method_Inline_Load *>(data);
  const char *event = "METHOD_INLINE_LOAD_FINISHED";
  std::string bad = badCode(load.method_id, load.method_name, load.method_load_address,
                            load.method_size);
  if (bad.empty() && load.parent_method_id <= kLastReservedId)
    bad = "parent_method_id " + std::to_string(load.parent_method_id) + " is not valid";
  if (!bad.empty())
    return {0, about(event, load.method_id) + " rejected: " + bad};
  Inline inlined{load.method_id, reinterpret_cast<uint64_t>(load.method_load_address),
                 load.method_size, {}};
  auto parent = methods_.find(load.parent_method_id);
  if (parent != methods_.end()) {
    const Method &into = parent->second;
    if (inlined.address < into.address || inlined.address + inlined.size > into.address + into.size)
      return {0, about(event, load.method_id) + " rejected: its code [" + hex(inlined.address) +
                     ", " + hex(inlined.address + inlined.size) + ") is not inside parent " +
                     std::to_string(load.parent_method_id) + "'s [" + hex(into.address) + ", " +
                     hex(into.address + into.size) + ")"};
  }
  std::string dropped;
  LoadFields fields;
  fields.size = load.method_size;
  fields.lineCount = load.line_number_size;
  fields.table = load.line_number_table;
  fields.sourceFile = load.source_file_name;
  inlined.lines = lineSpans(fields, dropped);
  inlines_[load.parent_method_id].push_back(std::move(inlined));
  if (parent != methods_.end()) // else it waits for its parent's load
    emit(load.parent_method_id, parent->second);
  return {1, dropped.empty() ? "" : about(event, load.method_id) + " (" + load.method_name +
                                        "): line table dropped: " + dropped};
}

EventResult EventTranslator::update(const void *data) {
  const auto &load = *static_cast<const iJIT_Method_Load *>(data);
  const char *event = "METHOD_UPDATE";
  const char *name = load.method_name ? load.method_name : ""; // the name may stay as it was
  if (std::string bad = badCode(load.method_id, name, load.method_load_address, load.method_size);
      !bad.empty())
    return {0, about(event, load.method_id) + " rejected: " + bad};
  auto known = methods_.find(load.method_id);
  if (known == methods_.end())
    return {0, about(event, load.method_id) + " rejected: no such method was loaded"};
  Method &method = known->second;
  const auto address = reinterpret_cast<uint64_t>(load.method_load_address);
  if (address != method.address)
    release(load.method_id, method.address);
  std::string dropped;
  LoadFields fields = fieldsOf(load);
  method.address = address;
  method.size = load.method_size;
  method.lines = lineSpans(fields, dropped); // the old lines were of the old code
  if (load.method_name)
    method.name = load.method_name;
  inlines_.erase(load.method_id); // so were its inlines
  emit(load.method_id, method);
  return {1, dropped.empty() ? "" : about(event, load.method_id) + ": line table dropped: " + dropped};
}

EventResult EventTranslator::unload(const void *data) {
  // Intel's headers disagree on the struct (iJIT_Method_Id or iJIT_Method_Load)
  // but both start with the method id.
  const unsigned int id = *static_cast<const unsigned int *>(data);
  auto known = methods_.find(id);
  if (known == methods_.end())
    return {0, about("METHOD_UNLOAD_START", id) + " rejected: no such method was loaded"};
  release(id, known->second.address);
  methods_.erase(known);
  inlines_.erase(id);
  return {1, ""};
}

void EventTranslator::release(unsigned int id, uint64_t address) {
  auto owner = owners_.find(address);
  if (owner == owners_.end() || owner->second != id)
    return;
  owners_.erase(owner);
  sink_.unload(address);
}

void EventTranslator::emit(unsigned int id, const Method &method) {
  // Paint the method's spans, then each inline's over them, in code offsets.
  auto found = inlines_.find(id);
  std::vector<LineSpan> painted;
  if (found != inlines_.end()) // else the method's own spans are used as they are
    painted = method.lines;
  auto paint = [&painted](const LineSpan &span) {
    std::vector<LineSpan> next;
    for (const LineSpan &old : painted) {
      if (old.start < span.start)
        next.push_back({old.start, std::min(old.end, span.start), old.line, old.file});
      if (old.end > span.end)
        next.push_back({std::max(old.start, span.end), old.end, old.line, old.file});
    }
    next.push_back(span);
    std::sort(next.begin(), next.end(),
              [](const LineSpan &a, const LineSpan &b) { return a.start < b.start; });
    painted = std::move(next);
  };
  if (found != inlines_.end())
    for (const Inline &inlined : found->second) {
      if (inlined.address < method.address ||
          inlined.address + inlined.size > method.address + method.size)
        continue; // arrived before its parent, and is not inside it
      for (const LineSpan &span : inlined.lines) {
        const uint64_t base = inlined.address - method.address;
        paint({base + span.start, base + span.end, span.line, span.file});
      }
    }
  std::vector<DebugLineFields> lines;
  uint64_t covered = 0; // code before this has an entry
  for (const LineSpan &span : found != inlines_.end() ? painted : method.lines) {
    if (span.start > covered && !lines.empty()) // a gap: no line there
      lines.push_back({method.address + covered, 0, 0, lines.back().file});
    lines.push_back({method.address + span.start, span.line, 0, span.file});
    covered = span.end;
  }
  if (!lines.empty() && covered < method.size)
    lines.push_back({method.address + covered, 0, 0, lines.back().file});
  owners_[method.address] = id;
  sink_.load(method.address, method.size, method.name, lines);
}

} // namespace jitsym::jitprofiling
