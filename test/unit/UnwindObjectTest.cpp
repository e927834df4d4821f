// The unwind object: a valid ELF image (x86-64 or aarch64) with an empty .text
// covering the window, an .eh_frame whose FDE applies the frame-pointer rule,
// and the build-id.
#include "jitsym/objects/UnwindObject.h"
#include "jitsym/plan/RuntimeFrame.h"

#include <gtest/gtest.h>

#include "LlvmAcrossVersions.h"

#include <cstring>
#include <string>

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugFrame.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace jitsym;

namespace {

constexpr uint64_t kStart = 0x7f3a2c000000;
constexpr uint64_t kEnd = 0x7f3a2c100000;

UuidBytes testUuid() {
  UuidBytes u;
  for (size_t i = 0; i < u.size(); ++i)
    u[i] = static_cast<uint8_t>(0xa0 + i);
  return u;
}

std::unique_ptr<llvm::object::ObjectFile> parse(const std::string &image) {
  auto object = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(image.data(), image.size()), "unwind.o"));
  if (!object) {
    ADD_FAILURE() << llvm::toString(object.takeError());
    return nullptr;
  }
  return std::move(*object);
}

} // namespace

TEST(UnwindObject, ElfHeader) {
  std::string image = buildUnwindObject(kX86_64, {kStart, kEnd}, testUuid());
  ASSERT_GE(image.size(), 64u);
  EXPECT_EQ(image.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(uint8_t(image[llvm::ELF::EI_CLASS]), llvm::ELF::ELFCLASS64);
  EXPECT_EQ(uint8_t(image[llvm::ELF::EI_DATA]), llvm::ELF::ELFDATA2LSB);
  uint16_t machine;
  std::memcpy(&machine, image.data() + 18, 2); // e_machine; host is little-endian
  EXPECT_EQ(machine, llvm::ELF::EM_X86_64);
  auto object = parse(image);
  ASSERT_TRUE(object);
  EXPECT_TRUE(object->isELF());
  EXPECT_EQ(object->getArch(), llvm::Triple::x86_64);
  EXPECT_EQ(object->getBytesInAddress(), 8u);
}

TEST(UnwindObject, Sections) {
  UuidBytes uuid = testUuid();
  std::string image = buildUnwindObject(kX86_64, {kStart, kEnd}, uuid);
  auto object = parse(image);
  ASSERT_TRUE(object);
  bool text = false, ehFrame = false, note = false;
  for (const llvm::object::SectionRef &section : object->sections()) {
    auto name = section.getName();
    ASSERT_TRUE(bool(name)) << llvm::toString(name.takeError());
    llvm::object::ELFSectionRef elf(section);
    if (*name == ".text") {
      text = true;
      EXPECT_EQ(elf.getType(), llvm::ELF::SHT_NOBITS);
      EXPECT_EQ(section.getAddress(), kStart);
      EXPECT_EQ(section.getSize(), kEnd - kStart);
      EXPECT_TRUE(section.isText());
      EXPECT_TRUE(elf.getFlags() & llvm::ELF::SHF_ALLOC);
    } else if (*name == ".eh_frame") {
      ehFrame = true;
      EXPECT_EQ(elf.getType(), llvm::ELF::SHT_PROGBITS);
      EXPECT_GT(section.getSize(), 0u);
      EXPECT_EQ(section.getAddress(), 0u); // not allocated
    } else if (*name == ".note.gnu.build-id") {
      note = true;
      EXPECT_EQ(elf.getType(), llvm::ELF::SHT_NOTE);
      auto contents = section.getContents();
      ASSERT_TRUE(bool(contents));
      ASSERT_EQ(contents->size(), 32u);
      uint32_t header[3];
      std::memcpy(header, contents->data(), sizeof(header));
      EXPECT_EQ(header[0], 4u);  // "GNU\0"
      EXPECT_EQ(header[1], 16u); // descriptor size
      EXPECT_EQ(header[2], uint32_t(llvm::ELF::NT_GNU_BUILD_ID));
      EXPECT_EQ(std::string(contents->data() + 12, 4), std::string("GNU\0", 4));
      EXPECT_EQ(std::memcmp(contents->data() + 16, uuid.data(), 16), 0);
    }
  }
  EXPECT_TRUE(text);
  EXPECT_TRUE(ehFrame);
  EXPECT_TRUE(note);
}

TEST(UnwindObject, ProgramHeaderCoversWindowWithoutFileBytes) {
  std::string image = buildUnwindObject(kX86_64, {kStart, kEnd}, testUuid());
  auto object = parse(image);
  ASSERT_TRUE(object);
  auto *elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(object.get());
  ASSERT_NE(elf, nullptr);
  auto phdrs = elf->getELFFile().program_headers();
  ASSERT_TRUE(bool(phdrs)) << llvm::toString(phdrs.takeError());
  ASSERT_EQ(phdrs->size(), 1u);
  const auto &load = (*phdrs)[0];
  EXPECT_EQ(uint32_t(load.p_type), llvm::ELF::PT_LOAD);
  EXPECT_EQ(uint64_t(load.p_vaddr), kStart);
  EXPECT_EQ(uint64_t(load.p_memsz), kEnd - kStart);
  EXPECT_EQ(uint64_t(load.p_filesz), 0u);
}

TEST(UnwindObject, EhFrameHasFramePointerRule) {
  std::string image = buildUnwindObject(kX86_64, {kStart, kEnd}, testUuid());
  auto object = parse(image);
  ASSERT_TRUE(object);
  auto context = llvm::DWARFContext::create(*object);
  auto frame = context->getEHFrame();
  ASSERT_TRUE(bool(frame)) << llvm::toString(frame.takeError());
  int fdes = 0, cies = 0;
  for (const llvm::dwarf::FrameEntry &entry : (*frame)->entries()) {
    if (const auto *cie = llvm::dyn_cast<llvm::dwarf::CIE>(&entry)) {
      if (cie->getLength() == 0)
        continue; // the zero terminator
      ++cies;
      EXPECT_EQ(cie->getReturnAddressRegister(), 16u);
      EXPECT_EQ(cie->getDataAlignmentFactor(), -8);
      continue;
    }
    const auto *fde = llvm::cast<llvm::dwarf::FDE>(&entry);
    ++fdes;
    // Starts a little below the section, ends with it.
    EXPECT_LE(fde->getInitialLocation(), kStart);
    EXPECT_GE(fde->getInitialLocation(), kStart - 64);
    EXPECT_EQ(fde->getInitialLocation() + fde->getAddressRange(), kEnd);
    auto table = jitsym::test_support::unwindTableOf(fde);
    ASSERT_TRUE(bool(table)) << llvm::toString(table.takeError());
    ASSERT_GE(table->size(), 1u);
    const llvm::dwarf::UnwindRow &row = *table->begin();
    const auto &cfa = row.getCFAValue();
    EXPECT_EQ(cfa.getLocation(), llvm::dwarf::UnwindLocation::RegPlusOffset);
    EXPECT_EQ(cfa.getRegister(), 6u); // rbp
    EXPECT_EQ(cfa.getOffset(), 16);
    auto rip = row.getRegisterLocations().getRegisterLocation(16);
    ASSERT_TRUE(rip.has_value()); // at CFA-8: read from there
    EXPECT_EQ(*rip, llvm::dwarf::UnwindLocation::createAtCFAPlusOffset(-8));
    auto rbp = row.getRegisterLocations().getRegisterLocation(6);
    ASSERT_TRUE(rbp.has_value());
    EXPECT_EQ(*rbp, llvm::dwarf::UnwindLocation::createAtCFAPlusOffset(-16));
  }
  EXPECT_EQ(cies, 1);
  EXPECT_EQ(fdes, 1);
}

TEST(UnwindObject, AArch64ObjectHasItsMachineAndFrameRecordRule) {
  // aarch64: CFA = x29 + 16, x30 (the return address) at CFA-8, x29 at CFA-16.
  std::string image = buildUnwindObject(kAArch64, {kStart, kEnd}, testUuid());
  auto object = parse(image);
  ASSERT_TRUE(object);
  EXPECT_EQ(object->getArch(), llvm::Triple::aarch64);
  auto context = llvm::DWARFContext::create(*object);
  auto frame = context->getEHFrame();
  ASSERT_TRUE(bool(frame)) << llvm::toString(frame.takeError());
  int fdes = 0;
  for (const llvm::dwarf::FrameEntry &entry : (*frame)->entries()) {
    if (const auto *cie = llvm::dyn_cast<llvm::dwarf::CIE>(&entry)) {
      if (cie->getLength() != 0) {
        EXPECT_EQ(cie->getReturnAddressRegister(), 30u);
        EXPECT_EQ(cie->getCodeAlignmentFactor(), 4u);
      }
      continue;
    }
    ++fdes;
    auto table = jitsym::test_support::unwindTableOf(llvm::cast<llvm::dwarf::FDE>(&entry));
    ASSERT_TRUE(bool(table)) << llvm::toString(table.takeError());
    ASSERT_GE(table->size(), 1u);
    const llvm::dwarf::UnwindRow &row = *table->begin();
    EXPECT_EQ(row.getCFAValue().getRegister(), 29u);
    EXPECT_EQ(row.getCFAValue().getOffset(), 16);
    EXPECT_EQ(row.getRegisterLocations().getRegisterLocation(30),
              llvm::dwarf::UnwindLocation::createAtCFAPlusOffset(-8));
    EXPECT_EQ(row.getRegisterLocations().getRegisterLocation(29),
              llvm::dwarf::UnwindLocation::createAtCFAPlusOffset(-16));
  }
  EXPECT_EQ(fdes, 1);
}

TEST(UnwindObject, AArch64PrologueRowsBeforeTheFrameRecordRule) {
  // LLDB takes an aarch64 FDE even at a function's first instruction, where
  // x29 is still the caller's: the FDE of a function with a prologue says
  // what each of its instructions leaves. One function at the section's
  // start (its FDE starts 16 bytes below) and one inside.
  const Prologue prologue{4, 48, 8};
  FramePointerCode code;
  code.ranges = {{kStart, kStart + 0x100}, {kStart + 0x100, kEnd}};
  code.prologues = {{kStart, prologue}, {kStart + 0x100, prologue}};
  std::string image = buildUnwindObject(kAArch64, {kStart, kEnd}, testUuid(), {}, {}, code);
  auto object = parse(image);
  ASSERT_TRUE(object);
  auto context = llvm::DWARFContext::create(*object);
  auto frame = context->getEHFrame();
  ASSERT_TRUE(bool(frame)) << llvm::toString(frame.takeError());
  std::vector<uint64_t> starts;
  for (const llvm::dwarf::FrameEntry &entry : (*frame)->entries()) {
    const auto *fde = llvm::dyn_cast<llvm::dwarf::FDE>(&entry);
    if (!fde)
      continue;
    auto table = jitsym::test_support::unwindTableOf(fde);
    ASSERT_TRUE(bool(table)) << llvm::toString(table.takeError());
    const uint64_t function = fde->getInitialLocation() < kStart ? kStart : kStart + 0x100;
    starts.push_back(function);
    // The row in force at `address`: the last one that starts at or before it.
    auto rowAt = [&](uint64_t address) {
      const llvm::dwarf::UnwindRow *found = nullptr;
      for (const llvm::dwarf::UnwindRow &row : *table)
        if (row.getAddress() <= address)
          found = &row;
      return found;
    };
    const llvm::dwarf::UnwindRow *entryRow = rowAt(function);
    ASSERT_TRUE(entryRow);
    EXPECT_EQ(entryRow->getCFAValue().getRegister(), 31u); // sp
    EXPECT_EQ(entryRow->getCFAValue().getOffset(), 0);
    EXPECT_EQ(entryRow->getRegisterLocations().getRegisterLocation(30),
              llvm::dwarf::UnwindLocation::createSame()); // the return address in x30
    const llvm::dwarf::UnwindRow *stored = rowAt(function + 4);
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->getCFAValue().getRegister(), 31u);
    EXPECT_EQ(stored->getCFAValue().getOffset(), 48);
    EXPECT_EQ(stored->getRegisterLocations().getRegisterLocation(29),
              llvm::dwarf::UnwindLocation::createAtCFAPlusOffset(-48));
    EXPECT_EQ(stored->getRegisterLocations().getRegisterLocation(30),
              llvm::dwarf::UnwindLocation::createAtCFAPlusOffset(-40));
    const llvm::dwarf::UnwindRow *made = rowAt(function + 8);
    ASSERT_TRUE(made);
    EXPECT_EQ(made->getCFAValue().getRegister(), 29u);
    EXPECT_EQ(made->getCFAValue().getOffset(), 48);
    EXPECT_EQ(rowAt(function + 0x40), made); // and so to the FDE's end
  }
  EXPECT_EQ(starts, (std::vector<uint64_t>{kStart, kStart + 0x100}));
}

TEST(UnwindObject, LowWindowDoesNotWrapFdeStart) {
  std::string image = buildUnwindObject(kX86_64, {0x8, 0x100000}, testUuid());
  auto object = parse(image);
  ASSERT_TRUE(object);
  auto context = llvm::DWARFContext::create(*object);
  auto frame = context->getEHFrame();
  ASSERT_TRUE(bool(frame)) << llvm::toString(frame.takeError());
  for (const llvm::dwarf::FrameEntry &entry : (*frame)->entries())
    if (const auto *fde = llvm::dyn_cast<llvm::dwarf::FDE>(&entry)) {
      EXPECT_EQ(fde->getInitialLocation(), 0u);
      EXPECT_EQ(fde->getAddressRange(), 0x100000u);
    }
}

TEST(UnwindObject, DifferentUuidOnlyChangesTheNote) {
  UuidBytes a = testUuid(), b = testUuid();
  b[0] ^= 0xff;
  std::string ia = buildUnwindObject(kX86_64, {kStart, kEnd}, a);
  std::string ib = buildUnwindObject(kX86_64, {kStart, kEnd}, b);
  ASSERT_EQ(ia.size(), ib.size());
  size_t differing = 0;
  for (size_t i = 0; i < ia.size(); ++i)
    differing += ia[i] != ib[i];
  EXPECT_EQ(differing, 1u);
  EXPECT_EQ(buildUnwindObject(kX86_64, {kStart, kEnd}, a), ia); // deterministic
}

// The symbols a live module's object carries: each in .text, code as
// functions and data as objects, in the order given (an alias after its
// symbol), and a name cut at its first NUL as ELF strings are.
TEST(UnwindObject, SymbolTable) {
  std::vector<LldbSymbol> symbols = {
      {"JS:*crunch /app.js:3:22", kStart + 0x40, 0x80, false},
      {"crunch", kStart + 0x40, 0x80, false},
      {"JS:~idle /app.js:9:1", kStart + 0x100, 0x20, true},
      {std::string("cut\0here", 8), kStart + 0x200, 0x10, false}};
  const std::string image = buildUnwindObject(kX86_64, {kStart, kEnd}, testUuid(), symbols);
  auto object = parse(image); // refers to `image`
  ASSERT_TRUE(object);
  std::vector<std::string> seen;
  for (const llvm::object::SymbolRef &symbol : object->symbols()) {
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    llvm::Expected<uint64_t> address = symbol.getAddress();
    llvm::Expected<llvm::object::SymbolRef::Type> type = symbol.getType();
    llvm::Expected<llvm::object::section_iterator> section = symbol.getSection();
    ASSERT_TRUE(name && address && type && section);
    ASSERT_NE(*section, object->section_end());
    llvm::Expected<llvm::StringRef> sectionName = (*section)->getName();
    ASSERT_TRUE(bool(sectionName));
    EXPECT_EQ(*sectionName, ".text");
    const uint64_t size = llvm::object::ELFSymbolRef(symbol).getSize();
    seen.push_back(name->str() + "@" + std::to_string(*address - kStart) + "+" +
                   std::to_string(size) +
                   (*type == llvm::object::SymbolRef::ST_Function ? " code" : " data"));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"JS:*crunch /app.js:3:22@64+128 code",
                                            "crunch@64+128 code",
                                            "JS:~idle /app.js:9:1@256+32 data",
                                            "cut@512+16 code"}));
}

TEST(UnwindObject, NoSymbolTableWithoutSymbols) {
  const std::string image = buildUnwindObject(kX86_64, {kStart, kEnd}, testUuid());
  auto object = parse(image);
  ASSERT_TRUE(object);
  for (const llvm::object::SectionRef &section : object->sections()) {
    llvm::Expected<llvm::StringRef> name = section.getName();
    ASSERT_TRUE(bool(name));
    EXPECT_NE(*name, ".symtab");
  }
}

namespace {

// .eh_frame bytes at `address`: one CIE (x86-64: code 1, data -8, return
// address 16, CFA = rsp+8 with rip at CFA-8) and one FDE with `program` over
// [start, start + size).
std::string ehFrame(uint64_t address, uint64_t start, uint64_t size, const std::string &program) {
  std::string out;
  auto put32 = [&](uint32_t v) { out.append(reinterpret_cast<const char *>(&v), 4); };
  auto put64 = [&](uint64_t v) { out.append(reinterpret_cast<const char *>(&v), 8); };
  auto pad = [&](size_t from) {
    while ((out.size() - from) % 8)
      out.push_back(0);
  };
  const std::string cieBody = std::string("\0\0\0\0\x01zR\0\x01\x78\x10\x01\x00", 13) +
                              "\x0c\x07\x08\x90\x01"; // def_cfa rsp+8; rip at CFA-8
  put32(0);
  out += cieBody;
  pad(4);
  uint32_t length = static_cast<uint32_t>(out.size() - 4);
  std::memcpy(out.data(), &length, 4);
  const size_t fde = out.size();
  put32(0);
  put32(static_cast<uint32_t>(out.size())); // back to the CIE at 0
  put64(start);                             // absptr
  put64(size);
  out.push_back(0); // augmentation data length
  out += program;
  pad(fde + 4);
  length = static_cast<uint32_t>(out.size() - fde - 4);
  std::memcpy(out.data() + fde, &length, 4);
  put32(0);
  (void)address;
  return out;
}

} // namespace

// PHP's execute_ex as Debian's php8.2 compiles it: four pushes, a sub of
// 0x78, a return path that restores its state. Its body row is the frame
// PHP's JIT code runs on: CFA = rsp+160, rbx, rbp, r12, r13 where it pushed
// them, the return address at CFA-8.
TEST(RuntimeFrame, DeepestRowOfAFunctionsTable) {
  const uint64_t start = 0x36cbe0;
  const std::string program =
      std::string("\x41\x0e\x10\x8d\x02"   // +1: CFA rsp+16, r13 at CFA-16
                  "\x41\x0e\x18\x8c\x03"   // +2: rsp+24, r12 at CFA-24
                  "\x41\x0e\x20\x86\x04"   // +3: rsp+32, rbp at CFA-32
                  "\x41\x0e\x28\x83\x05"   // +4: rsp+40, rbx at CFA-40
                  "\x44\x0e\xa0\x01"       // +8: rsp+160 (sub $0x78)
                  "\x0a"                   // remember_state
                  "\x7f\x0e\x28"           // ... the return path: rsp+40
                  "\x0b",                  // restore_state: the body again
                  28);
  const std::string bytes = ehFrame(0x479658, start, 0x931e, program);
  llvm::Expected<std::vector<CallFrameInfo>> frames = parseEhFrame(bytes, 0x479658);
  ASSERT_TRUE(bool(frames)) << llvm::toString(frames.takeError());
  const std::optional<RuntimeFrame> frame = deepestFrameOf(*frames, start, 7);
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->cfaRegister, 7u);
  EXPECT_EQ(frame->cfaOffset, 160);
  const std::vector<std::pair<uint32_t, int64_t>> saved = {
      {3, -40}, {6, -32}, {12, -24}, {13, -16}, {16, -8}};
  EXPECT_EQ(frame->savedRegisters, saved);
  EXPECT_FALSE(deepestFrameOf(*frames, start + 0x931e, 7).has_value()) << "past its FDE";
}

// Code on a runtime's frame gets an FDE of its rule: LLDB reads CFA = rsp+160
// and the saved registers, the rest of the region keeps the frame-pointer rule.
TEST(UnwindObject, CodeOnARuntimesFrameHasItsRule) {
  RuntimeFrame php;
  php.cfaRegister = 7;
  php.cfaOffset = 160;
  php.savedRegisters = {{3, -40}, {6, -32}, {12, -24}, {13, -16}, {16, -8}};
  std::vector<FunctionEntry> functions = {
      {kStart + 0x100, {FramePointer::Kept, std::nullopt}},
      {kStart + 0x200, {FramePointer::RuntimeFrame, std::nullopt}},
      {kStart + 0x300, {FramePointer::RuntimeFrame, std::nullopt}},
      {kStart + 0x400, {FramePointer::NotKept, std::nullopt}},
  };
  const FramePointerCode code = framePointerRanges({kStart, kEnd}, functions, php);
  ASSERT_EQ(code.runtimeRanges.size(), 1u);
  EXPECT_EQ(code.runtimeRanges[0], (AddressRange{kStart + 0x200, kStart + 0x400}));
  ASSERT_EQ(code.ranges.size(), 1u);
  EXPECT_EQ(code.ranges[0].end, kStart + 0x200);
  EXPECT_EQ(code.ruleAt(kStart + 0x300).framePointer, FramePointer::RuntimeFrame);
  EXPECT_EQ(code.ruleAt(kStart + 0x400).framePointer, FramePointer::NotKept);

  std::string image = buildUnwindObject(kX86_64, {kStart, kEnd}, testUuid(), {}, {}, code);
  auto object = parse(image);
  ASSERT_TRUE(object);
  for (const llvm::object::SectionRef &section : object->sections()) {
    llvm::Expected<llvm::StringRef> name = section.getName();
    if (!name || *name != ".eh_frame")
      continue;
    llvm::Expected<llvm::StringRef> contents = section.getContents();
    ASSERT_TRUE(bool(contents));
    // Read back as a binary's table is read: the same frame.
    llvm::Expected<std::vector<CallFrameInfo>> frames = parseEhFrame(contents->str(), 0);
    ASSERT_TRUE(bool(frames)) << llvm::toString(frames.takeError());
    const std::optional<RuntimeFrame> back = deepestFrameOf(*frames, kStart + 0x250, 7);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, php);
    return;
  }
  FAIL() << "no .eh_frame";
}
