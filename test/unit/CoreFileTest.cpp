// The memory map of an ELF core file: synthetic cores built in memory, and one
// real core written by gdb's gcore when it is available.
#include "jitsym/formats/CoreFile.h"
#include "jitsym/plan/Regions.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "TempDir.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"

using namespace jitsym;
namespace ELF = llvm::ELF;

namespace {

template <typename T> void put(std::string &out, T value) {
  char bytes[sizeof(T)];
  llvm::support::endian::write<T, llvm::endianness::little>(bytes, value);
  out.append(bytes, sizeof(T));
}

void padTo(std::string &out, size_t alignment) {
  while (out.size() % alignment)
    out.push_back('\0');
}

struct FileEntry {
  uint64_t start, end, pages;
  std::string path;
};

// NT_FILE's descriptor.
std::string fileNote(const std::vector<FileEntry> &entries, uint64_t pageSize = 4096) {
  std::string desc;
  put<uint64_t>(desc, entries.size());
  put<uint64_t>(desc, pageSize);
  for (const FileEntry &e : entries) {
    put<uint64_t>(desc, e.start);
    put<uint64_t>(desc, e.end);
    put<uint64_t>(desc, e.pages);
  }
  for (const FileEntry &e : entries)
    desc.append(e.path.c_str(), e.path.size() + 1);
  return desc;
}

// NT_PRPSINFO's descriptor: struct elf_prpsinfo of 64-bit Linux.
std::string prpsinfo(int32_t pid, uint32_t uid, const std::string &fname,
                     const std::string &psargs) {
  std::string desc(136, '\0');
  desc[1] = 'R';
  llvm::support::endian::write32le(&desc[16], uid);
  llvm::support::endian::write32le(&desc[20], uid + 1); // gid
  llvm::support::endian::write32le(&desc[24], static_cast<uint32_t>(pid));
  llvm::support::endian::write32le(&desc[28], 1); // ppid
  desc.replace(40, std::min<size_t>(fname.size(), 16), fname, 0, 16);
  desc.replace(56, std::min<size_t>(psargs.size(), 80), psargs, 0, 80);
  return desc;
}

// A small ELF64 core: header, program headers (the PT_NOTE first, as the
// kernel writes it), the notes, then each PT_LOAD's file bytes.
struct CoreBuilder {
  struct Note {
    std::string owner;
    uint32_t type;
    std::string desc;
  };
  struct Load {
    uint64_t vaddr, memsz;
    uint32_t flags;
    std::string bytes; // p_filesz of them
  };
  uint16_t type = ELF::ET_CORE;
  uint16_t machine = ELF::EM_X86_64;
  std::vector<Note> notes;
  std::vector<Load> loads;
  bool noteSegment = true;

  // Filled by build():
  uint64_t notesOffset = 0, notesEnd = 0;
  std::vector<uint64_t> loadOffsets;

  CoreBuilder &note(std::string owner, uint32_t noteType, std::string desc) {
    notes.push_back({std::move(owner), noteType, std::move(desc)});
    return *this;
  }
  CoreBuilder &load(uint64_t vaddr, uint64_t memsz, uint32_t flags, std::string bytes = {}) {
    loads.push_back({vaddr, memsz, flags, std::move(bytes)});
    return *this;
  }

  std::string build() {
    const uint16_t phnum = static_cast<uint16_t>(loads.size() + (noteSegment ? 1 : 0));
    std::string out;
    out.append(ELF::ElfMagic);
    out.push_back(ELF::ELFCLASS64);
    out.push_back(ELF::ELFDATA2LSB);
    out.push_back(ELF::EV_CURRENT);
    padTo(out, 16);
    put<uint16_t>(out, type);
    put<uint16_t>(out, machine);
    put<uint32_t>(out, ELF::EV_CURRENT);
    put<uint64_t>(out, 0);  // e_entry
    put<uint64_t>(out, 64); // e_phoff
    put<uint64_t>(out, 0);  // e_shoff
    put<uint32_t>(out, 0);  // e_flags
    put<uint16_t>(out, 64); // e_ehsize
    put<uint16_t>(out, 56); // e_phentsize
    put<uint16_t>(out, phnum);
    put<uint16_t>(out, 64); // e_shentsize
    put<uint16_t>(out, 0);  // e_shnum
    put<uint16_t>(out, 0);  // e_shstrndx

    std::string noteBytes;
    for (const Note &n : notes) {
      put<uint32_t>(noteBytes, n.owner.size() + 1);
      put<uint32_t>(noteBytes, n.desc.size());
      put<uint32_t>(noteBytes, n.type);
      noteBytes.append(n.owner.c_str(), n.owner.size() + 1);
      padTo(noteBytes, 4);
      noteBytes += n.desc;
      padTo(noteBytes, 4);
    }
    notesOffset = 64 + 56 * phnum;
    notesEnd = notesOffset + noteBytes.size();
    uint64_t at = (notesEnd + 15) & ~uint64_t(15);
    loadOffsets.clear();
    for (const Load &l : loads) {
      loadOffsets.push_back(at);
      at = (at + l.bytes.size() + 15) & ~uint64_t(15);
    }

    auto phdr = [&](uint32_t p_type, uint32_t flags, uint64_t offset, uint64_t vaddr,
                    uint64_t filesz, uint64_t memsz, uint64_t align) {
      put<uint32_t>(out, p_type);
      put<uint32_t>(out, flags);
      put<uint64_t>(out, offset);
      put<uint64_t>(out, vaddr);
      put<uint64_t>(out, 0); // p_paddr
      put<uint64_t>(out, filesz);
      put<uint64_t>(out, memsz);
      put<uint64_t>(out, align);
    };
    if (noteSegment)
      phdr(ELF::PT_NOTE, 0, notesOffset, 0, noteBytes.size(), 0, 0);
    for (size_t i = 0; i < loads.size(); ++i)
      phdr(ELF::PT_LOAD, loads[i].flags, loadOffsets[i], loads[i].vaddr, loads[i].bytes.size(),
           loads[i].memsz, 0x1000);
    out += noteBytes;
    for (size_t i = 0; i < loads.size(); ++i) {
      out.resize(loadOffsets[i], '\0');
      out += loads[i].bytes;
    }
    return out;
  }
};

constexpr uint32_t R = ELF::PF_R, W = ELF::PF_W, X = ELF::PF_X;
constexpr uint64_t kJit = 0x7f0000000000;

// A crashed JIT process: its executable, libc (text omitted from the core, as
// the kernel does for unmodified file pages), the heap and a 1 MiB JIT region.
CoreBuilder typicalCore() {
  CoreBuilder b;
  b.note("CORE", ELF::NT_PRSTATUS, std::string(336, '\0'))
      .note("CORE", ELF::NT_PRPSINFO, prpsinfo(4242, 1000, "tinyjit", "tinyjit --crash-at 3 "))
      .note("CORE", ELF::NT_FILE,
            fileNote({{0x400000, 0x401000, 0, "/opt/bin/tinyjit"},
                      {0x401000, 0x403000, 1, "/opt/bin/tinyjit"},
                      {0x7f1000026000, 0x7f100017c000, 0x26, "/usr/lib/libc.so.6"}}))
      .note("LINUX", 0x202, std::string(64, 'x')); // NT_X86_XSTATE: skipped
  // Out of address order on purpose: mappings come back sorted.
  b.load(kJit, 0x100000, R | X, std::string(64, '\xc3'))
      .load(0x400000, 0x1000, R, "\177ELF")
      .load(0x401000, 0x2000, R | X)
      .load(0x7f1000026000, 0x156000, R | X)
      .load(0x600000, 0x21000, R | W, std::string(256, 'h'));
  return b;
}

const Mapping *find(const CoreFileInfo &info, uint64_t start) {
  for (const Mapping &m : info.mappings)
    if (m.start == start)
      return &m;
  return nullptr;
}

std::string errorOf(llvm::StringRef bytes) {
  llvm::Expected<CoreFileInfo> info = parseCoreFile(bytes, "core.1");
  if (info)
    return "(parsed)";
  return llvm::toString(info.takeError());
}

} // namespace

TEST(CoreFile, MappingsWithPathsAndAnonymousOnes) {
  CoreBuilder b = typicalCore();
  const std::string bytes = b.build();
  llvm::Expected<CoreFileInfo> info = parseCoreFile(bytes, "core.1");
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  EXPECT_EQ(info->architecture, "x86_64");
  EXPECT_TRUE(info->hasFileNote);
  ASSERT_EQ(info->mappings.size(), 5u);
  for (size_t i = 1; i < info->mappings.size(); ++i)
    EXPECT_LT(info->mappings[i - 1].start, info->mappings[i].start);

  const Mapping *header = find(*info, 0x400000);
  ASSERT_TRUE(header);
  EXPECT_EQ(header->end, 0x401000u);
  EXPECT_EQ(header->path, "/opt/bin/tinyjit");
  EXPECT_EQ(header->offset, 0u);
  EXPECT_EQ(header->inode, 1u);
  EXPECT_TRUE(header->read && !header->write && !header->execute);
  EXPECT_TRUE(header->isFileBacked());

  const Mapping *text = find(*info, 0x401000);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->path, "/opt/bin/tinyjit");
  EXPECT_EQ(text->offset, 0x1000u); // 1 page of 4096 bytes
  EXPECT_TRUE(text->read && !text->write && text->execute);

  const Mapping *libc = find(*info, 0x7f1000026000);
  ASSERT_TRUE(libc);
  EXPECT_EQ(libc->end, 0x7f100017c000u);
  EXPECT_EQ(libc->path, "/usr/lib/libc.so.6");
  EXPECT_EQ(libc->offset, 0x26000u);

  const Mapping *heap = find(*info, 0x600000);
  ASSERT_TRUE(heap);
  EXPECT_EQ(heap->path, "");
  EXPECT_EQ(heap->inode, 0u);
  EXPECT_TRUE(heap->read && heap->write && !heap->execute);

  const Mapping *jit = find(*info, kJit);
  ASSERT_TRUE(jit);
  EXPECT_EQ(jit->end, kJit + 0x100000);
  EXPECT_EQ(jit->path, "");
  EXPECT_EQ(jit->inode, 0u);
  EXPECT_TRUE(jit->read && !jit->write && jit->execute);
  EXPECT_FALSE(jit->isFileBacked());
  EXPECT_FALSE(jit->isSpecial());

  // The JIT region is the only JIT memory the map allows.
  JitAddressSpace space = JitAddressSpace::fromMemoryMap(info->mappings);
  EXPECT_TRUE(space.runContaining(kJit + 0x1234).has_value());
  EXPECT_FALSE(space.runContaining(0x401800).has_value());

  EXPECT_EQ(info->fileSize, bytes.size());
  EXPECT_EQ(info->bytesNeeded, bytes.size());
  EXPECT_FALSE(info->truncated());
  EXPECT_TRUE(info->missing.empty());
}

TEST(CoreFile, ProcessFromPrpsinfo) {
  CoreBuilder b = typicalCore();
  llvm::Expected<CoreFileInfo> info = parseCoreFile(b.build(), "core.1");
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  ASSERT_TRUE(info->process.has_value());
  EXPECT_EQ(info->process->pid, 4242u);
  EXPECT_EQ(info->process->uid, std::optional<uint32_t>(1000));
  EXPECT_EQ(info->process->command, "tinyjit");
  // The kernel's blank for the last argument's NUL is dropped.
  EXPECT_EQ(info->process->arguments, "tinyjit --crash-at 3");
}

TEST(CoreFile, FullLengthNamesWithoutNul) {
  CoreBuilder b;
  b.note("CORE", ELF::NT_PRPSINFO, prpsinfo(7, 0, "sixteen-letters!", std::string(80, 'a')));
  llvm::Expected<CoreFileInfo> info = parseCoreFile(b.build(), "core.7");
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  ASSERT_TRUE(info->process.has_value());
  EXPECT_EQ(info->process->command, "sixteen-letters!");
  EXPECT_EQ(info->process->arguments, std::string(80, 'a'));
  EXPECT_EQ(info->process->uid, std::optional<uint32_t>(0));
  EXPECT_FALSE(info->hasFileNote);
  EXPECT_TRUE(info->mappings.empty());
}

TEST(CoreFile, LoadInsideALargerFileEntry) {
  CoreBuilder b;
  b.note("CORE", ELF::NT_FILE,
         fileNote({{0x10000, 0x20000, 2, "/lib/big.so"}, {0x30000, 0x31000, 0, "/lib/small.so"}}));
  b.load(0x14000, 0x1000, R)         // inside the first entry
      .load(0x1f000, 0x2000, R | W)  // runs past its end: anonymous
      .load(0x30000, 0x1000, R | X)  // exactly the second entry
      .load(0x31000, 0x1000, R | W); // right after it: anonymous
  llvm::Expected<CoreFileInfo> info = parseCoreFile(b.build(), "core.2");
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  ASSERT_EQ(info->mappings.size(), 4u);
  EXPECT_EQ(info->mappings[0].path, "/lib/big.so");
  EXPECT_EQ(info->mappings[0].offset, 2 * 4096u + 0x4000);
  EXPECT_EQ(info->mappings[0].inode, 1u);
  EXPECT_EQ(info->mappings[1].path, "");
  EXPECT_EQ(info->mappings[1].inode, 0u);
  EXPECT_EQ(info->mappings[2].path, "/lib/small.so");
  EXPECT_EQ(info->mappings[2].offset, 0u);
  EXPECT_EQ(info->mappings[3].path, "");
}

TEST(CoreFile, GcoreByteOffsets) {
  // gcore writes a page size of 1: file offsets in bytes.
  CoreBuilder b;
  b.note("CORE", ELF::NT_FILE, fileNote({{0x5000, 0x7000, 0x3000, "/bin/x"}}, 1));
  b.load(0x5000, 0x2000, R | X);
  llvm::Expected<CoreFileInfo> info = parseCoreFile(b.build(), "core.3");
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  ASSERT_EQ(info->mappings.size(), 1u);
  EXPECT_EQ(info->mappings[0].offset, 0x3000u);
}

TEST(CoreFile, EmptyLoadsAreNotMappings) {
  CoreBuilder b;
  b.load(0x1000, 0, R).load(0x2000, 0x1000, R);
  llvm::Expected<CoreFileInfo> info = parseCoreFile(b.build(), "core.4");
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  ASSERT_EQ(info->mappings.size(), 1u);
  EXPECT_EQ(info->mappings[0].start, 0x2000u);
}

TEST(CoreFile, Aarch64) {
  CoreBuilder b = typicalCore();
  b.machine = ELF::EM_AARCH64;
  llvm::Expected<CoreFileInfo> info = parseCoreFile(b.build(), "core.1");
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  EXPECT_EQ(info->architecture, "aarch64");
  EXPECT_EQ(info->process->pid, 4242u);
}

TEST(CoreFile, TruncatedInsideLoadData) {
  CoreBuilder b = typicalCore();
  const std::string whole = b.build();
  // loads[4] (the heap, 256 file bytes) is the last in the file: cut it after
  // 100 bytes. loads[0] (the JIT code) lies before it and is whole.
  const uint64_t cut = b.loadOffsets[4] + 100;
  ASSERT_EQ(whole.size(), b.loadOffsets[4] + 256);
  llvm::Expected<CoreFileInfo> info =
      parseCoreFile(llvm::StringRef(whole).take_front(cut), "core.1");
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  EXPECT_TRUE(info->truncated());
  EXPECT_EQ(info->fileSize, cut);
  EXPECT_EQ(info->bytesNeeded, whole.size());
  ASSERT_EQ(info->missing.size(), 1u);
  EXPECT_EQ(info->missing[0], (AddressRange{0x600000 + 100, 0x600000 + 256}));
  EXPECT_EQ(info->mappings.size(), 5u);
  EXPECT_EQ(find(*info, 0x400000)->path, "/opt/bin/tinyjit");

  // Cut right after the notes: every PT_LOAD with file bytes is missing them all.
  info = parseCoreFile(llvm::StringRef(whole).take_front(b.notesEnd), "core.1");
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  EXPECT_TRUE(info->truncated());
  ASSERT_EQ(info->missing.size(), 3u);
  EXPECT_EQ(info->missing[0], (AddressRange{0x400000, 0x400004}));
  EXPECT_EQ(info->missing[1], (AddressRange{0x600000, 0x600100}));
  EXPECT_EQ(info->missing[2], (AddressRange{kJit, kJit + 64}));
}

TEST(CoreFile, EveryPrefixParsesOrFailsCleanly) {
  CoreBuilder b = typicalCore();
  const std::string whole = b.build();
  for (size_t size = 0; size <= whole.size(); ++size) {
    llvm::Expected<CoreFileInfo> info =
        parseCoreFile(llvm::StringRef(whole).take_front(size), "core.1");
    // The prefix parses exactly when it holds all the notes.
    EXPECT_EQ(!!info, size >= b.notesEnd) << size;
    if (info) {
      EXPECT_EQ(info->truncated(), size < whole.size()) << size;
      EXPECT_EQ(info->mappings.size(), 5u);
    } else {
      EXPECT_EQ(llvm::toString(info.takeError()).rfind("core.1: ", 0), 0u) << size;
    }
  }
}

TEST(CoreFile, NotAnElfFile) {
  EXPECT_EQ(errorOf(""), "core.1: not an ELF file");
  EXPECT_EQ(errorOf("#!/bin/sh\necho hello\n"), "core.1: not an ELF file");
  EXPECT_EQ(errorOf("\177EL"), "core.1: not an ELF file");
  EXPECT_EQ(errorOf("\177ELF\x02\x01"),
            "core.1: truncated inside its ELF header (the file has 6 bytes)");
}

TEST(CoreFile, NotACore) {
  CoreBuilder b = typicalCore();
  b.type = ELF::ET_EXEC;
  EXPECT_EQ(errorOf(b.build()), "core.1: an ELF executable, not a core file (e_type 2)");
  b.type = ELF::ET_DYN;
  EXPECT_EQ(errorOf(b.build()),
            "core.1: an ELF shared object or position-independent executable, not a core file "
            "(e_type 3)");
}

TEST(CoreFile, OnlyLittleEndian64BitCores) {
  std::string bytes = typicalCore().build();
  bytes[ELF::EI_CLASS] = ELF::ELFCLASS32;
  EXPECT_EQ(errorOf(bytes), "core.1: a 32-bit core; jitsym reads 64-bit little-endian cores");
  bytes = typicalCore().build();
  bytes[ELF::EI_DATA] = ELF::ELFDATA2MSB;
  std::swap(bytes[16], bytes[17]); // e_type, big-endian
  EXPECT_EQ(errorOf(bytes), "core.1: a big-endian core; jitsym reads 64-bit little-endian cores");

  CoreBuilder b = typicalCore();
  b.machine = ELF::EM_RISCV;
  EXPECT_EQ(errorOf(b.build()),
            "core.1: a core for riscv (e_machine 243); jitsym reads x86_64 and aarch64 cores");
}

TEST(CoreFile, TruncatedHeaders) {
  CoreBuilder b = typicalCore();
  const std::string whole = b.build();
  EXPECT_EQ(errorOf(llvm::StringRef(whole).take_front(40)),
            "core.1: truncated inside its ELF header (the file has 40 bytes, the header 64)");
  // 6 program headers end at 64 + 6 * 56 = 400.
  EXPECT_EQ(errorOf(llvm::StringRef(whole).take_front(300)),
            "core.1: truncated before the end of its program headers (they end at byte 400, the "
            "file has 300 bytes)");
}

TEST(CoreFile, NotesCut) {
  CoreBuilder b = typicalCore();
  const std::string whole = b.build();
  const uint64_t cut = b.notesEnd - 10;
  EXPECT_EQ(errorOf(llvm::StringRef(whole).take_front(cut)),
            "core.1: truncated before its notes (the note segment ends at byte " +
                std::to_string(b.notesEnd) + ", the file has " + std::to_string(cut) + " bytes)");
}

TEST(CoreFile, NoteOverflowingItsSegment) {
  CoreBuilder b;
  b.note("CORE", ELF::NT_PRSTATUS, std::string(32, '\0'));
  std::string bytes = b.build();
  // The note claims a descriptor longer than its segment.
  llvm::support::endian::write32le(&bytes[b.notesOffset + 4], 1000);
  EXPECT_EQ(errorOf(bytes), "core.1: program header 0: note at byte " +
                                std::to_string(b.notesOffset) + ": ELF note overflows container");
}

TEST(CoreFile, BadFileNoteCount) {
  // 16 + 4 * 24 + 8 bytes of names: 120 bytes, with a count of 5.
  std::string desc = fileNote({{1, 2, 0, "/a"}, {3, 4, 0, "/b"}, {5, 6, 0, "/c"}, {7, 8, 0, "/d"}});
  desc.resize(120, '\0');
  llvm::support::endian::write64le(&desc[0], 5);
  CoreBuilder b;
  b.note("CORE", ELF::NT_PRSTATUS, std::string(8, '\0')).note("CORE", ELF::NT_FILE, desc);
  const std::string bytes = b.build();
  const uint64_t noteAt = b.notesOffset + 12 + 8 + 8; // after the NT_PRSTATUS note
  EXPECT_EQ(errorOf(bytes), "core.1: NT_FILE note at byte " + std::to_string(noteAt) +
                                ": count 5 does not fit its 120-byte descriptor");

  // A huge count is refused before anything is allocated for it.
  llvm::support::endian::write64le(&desc[0], UINT64_MAX);
  CoreBuilder huge;
  huge.note("CORE", ELF::NT_FILE, desc);
  EXPECT_NE(errorOf(huge.build()).find("count 18446744073709551615 does not fit"),
            std::string::npos);

  CoreBuilder tiny;
  tiny.note("CORE", ELF::NT_FILE, std::string(8, '\0'));
  EXPECT_NE(
      errorOf(tiny.build()).find("descriptor of 8 bytes is too small for its count and page size"),
      std::string::npos);
}

TEST(CoreFile, BadFileNoteEntries) {
  CoreBuilder b;
  b.note("CORE", ELF::NT_FILE, fileNote({{0x2000, 0x1000, 0, "/a"}}));
  const std::string bytes = b.build();
  EXPECT_EQ(errorOf(bytes), "core.1: NT_FILE note at byte " + std::to_string(b.notesOffset) +
                                ": entry 0 ends at 0x1000, before its start 0x2000");

  CoreBuilder overflow;
  overflow.note("CORE", ELF::NT_FILE, fileNote({{0x1000, 0x2000, uint64_t(1) << 60, "/a"}}));
  EXPECT_NE(errorOf(overflow.build())
                .find("entry 0: file offset of 1152921504606846976 pages "
                      "of 4096 bytes overflows"),
            std::string::npos);

  CoreBuilder zero;
  zero.note("CORE", ELF::NT_FILE, fileNote({{0x1000, 0x2000, 0, "/a"}}, 0));
  EXPECT_NE(errorOf(zero.build()).find("page size 0"), std::string::npos);
}

TEST(CoreFile, FileNoteNamesMissingOrUnterminated) {
  // Two entries (16 + 48 bytes), a terminated name, then one without its NUL.
  std::string desc = fileNote({{0x1000, 0x2000, 0, "/a"}, {0x2000, 0x3000, 0, "/bb"}});
  desc.pop_back(); // the last NUL
  desc.push_back('c');
  CoreBuilder b;
  b.note("CORE", ELF::NT_FILE, desc);
  const std::string bytes = b.build();
  EXPECT_EQ(errorOf(bytes), "core.1: NT_FILE note at byte " + std::to_string(b.notesOffset) +
                                ": the path of entry 1 (descriptor byte 67) is not NUL-terminated");

  // Names cut off: the descriptor ends after the first one.
  desc =
      fileNote({{0x1000, 0x2000, 0, "/a"}, {0x2000, 0x3000, 0, "/b"}, {0x3000, 0x4000, 0, "/c"}});
  desc.resize(16 + 3 * 24 + 3);
  CoreBuilder cut;
  cut.note("CORE", ELF::NT_FILE, desc);
  const std::string cutBytes = cut.build();
  EXPECT_EQ(errorOf(cutBytes), "core.1: NT_FILE note at byte " + std::to_string(cut.notesOffset) +
                                   ": entry 1 has no path (the descriptor ends at byte 91)");
}

TEST(CoreFile, BadPrpsinfo) {
  CoreBuilder b;
  b.note("CORE", ELF::NT_PRPSINFO, std::string(100, '\0'));
  const std::string bytes = b.build();
  EXPECT_EQ(errorOf(bytes), "core.1: NT_PRPSINFO note at byte " + std::to_string(b.notesOffset) +
                                ": descriptor of 100 bytes, not the 136 of a 64-bit prpsinfo");
  // The same type under another owner is not a prpsinfo.
  CoreBuilder other;
  other.note("GNU", ELF::NT_PRPSINFO, std::string(100, '\0'));
  llvm::Expected<CoreFileInfo> info = parseCoreFile(other.build(), "core.1");
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  EXPECT_FALSE(info->process.has_value());
}

TEST(CoreFile, LoadWrappingPastTheEndOfMemory) {
  CoreBuilder b;
  b.load(0xfffffffffffff000, 0x2000, R);
  EXPECT_EQ(errorOf(b.build()), "core.1: program header 1: PT_LOAD at 0xfffffffffffff000 of "
                                "0x2000 bytes wraps past the end of memory");
}

TEST(CoreFile, ReadsAFile) {
  test::TempDir dir;
  const std::string path = dir.file("core.1");
  {
    std::ofstream out(path, std::ios::binary);
    out << typicalCore().build();
  }
  llvm::Expected<CoreFileInfo> info = readCoreFile(path);
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
  EXPECT_EQ(info->mappings.size(), 5u);
  EXPECT_EQ(info->process->command, "tinyjit");

  llvm::Expected<CoreFileInfo> none = readCoreFile(dir.file("absent"));
  ASSERT_FALSE(!!none);
  EXPECT_EQ(llvm::toString(none.takeError()), dir.file("absent") + ": No such file or directory");
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// A real core: gcore of a child that maps 1 MiB of anonymous r-x memory, compared
// with the child's /proc/PID/maps. Skipped when gcore is missing or cannot attach.
TEST(CoreFile, RealGcoreCore) {
  if (std::system("command -v gcore >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no gcore";
  // The forked child would carry AddressSanitizer's shadow and allocator
  // mappings, terabytes that gcore writes out (past its 120 s limit here).
  if (kAddressSanitizer)
    GTEST_SKIP() << "built with AddressSanitizer: gcore would write its shadow memory";
  constexpr size_t kRegion = 1 << 20;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlives the test
    ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY);
    void *region =
        ::mmap(nullptr, kRegion, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t address = region == MAP_FAILED ? 0 : reinterpret_cast<uint64_t>(region);
    (void)!::write(ready[1], &address, sizeof(address));
    for (;;)
      ::pause();
  }
  struct Reaper {
    pid_t pid;
    ~Reaper() {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  } reaper{child};
  ::close(ready[1]);
  uint64_t region = 0;
  ASSERT_EQ(::read(ready[0], &region, sizeof(region)), ssize_t(sizeof(region)));
  ::close(ready[0]);
  ASSERT_NE(region, 0u);

  test::TempDir dir;
  std::string maps;
  {
    std::ifstream in("/proc/" + std::to_string(child) + "/maps");
    std::stringstream text;
    text << in.rdbuf();
    maps = text.str();
  }
  const std::string command =
      "timeout 120 gcore -o " + dir.file("core") + " " + std::to_string(child) + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  const std::string corePath = dir.file("core." + std::to_string(child));
  if (status != 0 || ::access(corePath.c_str(), R_OK) != 0)
    GTEST_SKIP() << "gcore could not write a core (ptrace not permitted?)";

  llvm::Expected<CoreFileInfo> info = readCoreFile(corePath);
  ASSERT_TRUE(!!info) << llvm::toString(info.takeError());
#if defined(__x86_64__)
  EXPECT_EQ(info->architecture, "x86_64");
#elif defined(__aarch64__)
  EXPECT_EQ(info->architecture, "aarch64");
#endif
  EXPECT_TRUE(info->hasFileNote);
  EXPECT_FALSE(info->truncated());
  ASSERT_TRUE(info->process.has_value());
  EXPECT_EQ(info->process->pid, static_cast<uint64_t>(child));
  EXPECT_EQ(info->process->uid, std::optional<uint32_t>(::getuid()));
  EXPECT_FALSE(info->process->command.empty());

  // The JIT-like region: anonymous, r-x, 1 MiB.
  const Mapping *jit = nullptr;
  for (const Mapping &m : info->mappings)
    if (m.start <= region && region < m.end)
      jit = &m;
  ASSERT_TRUE(jit) << "no mapping holds " << region;
  EXPECT_EQ(jit->path, "");
  EXPECT_TRUE(jit->read && !jit->write && jit->execute);
  EXPECT_LE(jit->start, region);
  EXPECT_GE(jit->end, region + kRegion);

  // Every file-backed mapping of the core is a line of /proc/PID/maps.
  std::vector<Mapping> live = parseMemoryMap(maps, "maps");
  size_t withPath = 0;
  for (const Mapping &m : info->mappings) {
    if (m.path.empty())
      continue;
    ++withPath;
    bool matched = false;
    for (const Mapping &l : live)
      matched |= l.start == m.start && l.end == m.end && l.path == m.path && l.offset == m.offset &&
                 l.read == m.read && l.write == m.write && l.execute == m.execute;
    EXPECT_TRUE(matched) << m.path << " at " << m.start;
  }
  EXPECT_GT(withPath, 0u);
}
