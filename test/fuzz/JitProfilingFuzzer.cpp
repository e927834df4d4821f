// The collector's event translation and option parsing on arbitrary input:
// the bytes become a run of Intel JIT API events (loads of each version,
// inline loads, updates, unloads, shutdowns, unknown events) whose pointers
// lead into buffers the fuzzer owns, as an engine's would. Invariants: every
// line table handed on lies inside its code and in address order; an unload
// is of code loaded and not unloaded since; nothing is handed on after
// SHUTDOWN; a rejected event leaves a message.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "CollectorOptions.h"
#include "EventTranslator.h"
#include "FuzzCheck.h"
#include "jitsym/jitprofiling.h"

using namespace jitsym;
using namespace jitsym::jitprofiling;

namespace {

class Bytes {
public:
  Bytes(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return at_ >= size_; }
  template <typename T> T take() {
    T value{};
    const size_t n = std::min(sizeof value, size_ - std::min(at_, size_));
    std::memcpy(&value, data_ + at_, n);
    at_ += sizeof value;
    return value;
  }
  std::string text(size_t limit) {
    const size_t n = std::min<size_t>(take<uint8_t>() % (limit + 1), size_ - std::min(at_, size_));
    std::string out(reinterpret_cast<const char *>(data_ + at_), n);
    at_ += n;
    return out.c_str(); // up to the first NUL, as C strings are
  }

private:
  const uint8_t *data_;
  size_t size_, at_ = 0;
};

class CheckingSink final : public CodeSink {
public:
  void load(uint64_t address, uint64_t size, const std::string &name,
            const std::vector<DebugLineFields> &lines) override {
    CHECK(!shutDown);
    CHECK(size > 0 && address != 0);
    for (size_t i = 0; i < lines.size(); ++i) {
      CHECK(lines[i].address >= address && lines[i].address < address + size);
      CHECK(i == 0 || lines[i].address > lines[i - 1].address);
      CHECK(!lines[i].file.empty());
    }
    live[address] = size;
  }
  void unload(uint64_t address) override {
    CHECK(!shutDown);
    CHECK(live.erase(address) == 1);
  }
  void shutdown() override {
    CHECK(!shutDown);
    shutDown = true;
  }
  std::map<uint64_t, uint64_t> live;
  bool shutDown = false;
};

char code[4096]; // the engine's code region: addresses handed over point here

void *addressFrom(Bytes &in) {
  const uint16_t offset = in.take<uint16_t>();
  return offset == 0xffff ? nullptr : code + offset % sizeof code;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  if (in.take<uint8_t>() % 4 == 0) { // the options, from the environment variable
    std::string error;
    const std::string text(reinterpret_cast<const char *>(data), size);
    const auto options = parseCollectorOptions(text, error);
    CHECK(options.has_value() == error.empty());
    return 0;
  }
  CheckingSink sink;
  EventTranslator translator(sink);
  for (int events = 0; !in.empty() && events < 64; ++events) {
    static const unsigned int kEvents[] = {2, 13, 14, 15, 16, 17, 21, 22, 19, 0};
    const unsigned int event = kEvents[in.take<uint8_t>() % 10];
    const unsigned int id = in.take<uint8_t>() % 8 + (in.take<uint8_t>() % 4 == 0 ? 990 : 1000);
    const unsigned int parent = in.take<uint8_t>() % 8 + 1000;
    std::string name = in.text(32), source = in.text(16), module = in.text(8);
    const bool nullName = in.take<uint8_t>() % 8 == 0, nullSource = in.take<uint8_t>() % 4 == 0;
    void *address = addressFrom(in);
    const unsigned int codeSize = in.take<uint16_t>() % 512;
    std::vector<LineNumberInfo> table(in.take<uint8_t>() % 8);
    for (LineNumberInfo &entry : table)
      entry = {in.take<uint16_t>() % 600u, in.take<uint8_t>()};
    const bool nullData = in.take<uint8_t>() % 16 == 0;

    char *namePtr = nullName ? nullptr : name.data();
    char *sourcePtr = nullSource ? nullptr : source.data();
    LineNumberInfo *tablePtr = table.empty() ? nullptr : table.data();
    const auto lineCount = static_cast<unsigned int>(table.size());
    iJIT_Method_Load v1{id, namePtr, address, codeSize, lineCount, tablePtr, 0, nullptr, sourcePtr};
    iJIT_Method_Load_V2 v2{id, namePtr, address, codeSize, lineCount, tablePtr, nullptr, sourcePtr,
                           module.data()};
    iJIT_Method_Load_V3 v3{id, namePtr, address, codeSize, lineCount, tablePtr, nullptr, sourcePtr,
                           module.data(), iJIT_CA_64};
    iJIT_Method_Inline_Load inlined{id, parent, namePtr, address, codeSize, lineCount, tablePtr,
                                    nullptr, sourcePtr};
    iJIT_Method_Update segment{address, codeSize, iJIT_CT_CODE, "x86"};
    void *payload = nullptr;
    switch (event) {
    case 13: case 14: case 15: payload = &v1; break;
    case 16: payload = &inlined; break;
    case 17: payload = &segment; break;
    case 21: payload = &v2; break;
    case 22: payload = &v3; break;
    default: payload = &v1; break;
    }
    const bool wasShutDown = sink.shutDown;
    const EventResult result = translator.handle(event, nullData ? nullptr : payload);
    CHECK(result.value == 0 || result.value == 1);
    CHECK(result.value == 1 || !result.message.empty());
    CHECK(!wasShutDown || result.value == 0);
  }
  return 0;
}
