// Text form of jitdump records. Strings are printed C-escaped in double quotes so
// that names with any bytes in them keep one record per line.
#include "JitdumpDump.h"

#include "jitsym/arch/Architecture.h"
#include "jitsym/formats/EhFrameParser.h"
#include "jitsym/files/JitdumpReader.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/DebugInfo/DIContext.h"
#if LLVM_VERSION_MAJOR >= 21 // the CFI program and its printer were split then
#include "llvm/DebugInfo/DWARF/DWARFCFIPrinter.h"
#include "llvm/DebugInfo/DWARF/LowLevel/DWARFCFIProgram.h"
#else
#include "llvm/DebugInfo/DWARF/DWARFDataExtractor.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugFrame.h"
#endif
#include "llvm/Support/Format.h"

namespace jitsym {
namespace {

llvm::raw_ostream &quoted(llvm::raw_ostream &os, std::string_view text) {
  os << '"';
  llvm::printEscapedString(llvm::StringRef(text.data(), text.size()), os);
  return os << '"';
}

// A CFA program as LLVM prints it, one instruction per line.
// Registers are named as `arch` names them.
void printProgram(llvm::raw_ostream &os, llvm::Triple::ArchType arch, const CallFrameInfo &frame,
                  const std::string &bytes) {
  llvm::dwarf::CFIProgram program(frame.codeAlignment, frame.dataAlignment, arch);
#if LLVM_VERSION_MAJOR >= 21
  llvm::DWARFDataExtractorSimple data(bytes, /*IsLittleEndian=*/true, 8);
#else
  llvm::DWARFDataExtractor data(bytes, /*IsLittleEndian=*/true, 8);
#endif
  uint64_t offset = 0;
  if (llvm::Error err = program.parse(data, &offset, bytes.size())) {
    llvm::consumeError(std::move(err)); // parseEhFrame decoded it already
    return;
  }
  std::string text;
  llvm::raw_string_ostream textOut(text);
#if LLVM_VERSION_MAJOR >= 21
  llvm::dwarf::printCFIProgram(program, textOut, llvm::DIDumpOptions(), /*IndentLevel=*/3,
                               std::nullopt);
#else
  program.dump(textOut, llvm::DIDumpOptions(), /*IndentLevel=*/3, std::nullopt);
#endif
  if (!text.empty() && text.back() == '\n')
    text.pop_back(); // the record's line ends where the caller says
  os << "\n" << text;
}

// The unwind table CODE_UNWINDING_INFO gave the code `load` announces.
void printUnwindTable(llvm::raw_ostream &os, llvm::Triple::ArchType arch, const std::string &ehFrame,
                      const JitCodeLoad &load) {
  llvm::Expected<std::vector<CallFrameInfo>> frames =
      parseEhFrame(ehFrame, ehFrameAddressAfterCode(load.codeAddress, load.codeSize));
  if (!frames) {
    os << "\n    unwind: " << llvm::toString(frames.takeError());
    return;
  }
  for (const CallFrameInfo &frame : *frames) {
    os << "\n    unwind " << llvm::format_hex(frame.start, 0) << "-"
       << llvm::format_hex(frame.end, 0) << ": code_align " << frame.codeAlignment
       << " data_align " << frame.dataAlignment << " return_address_register "
       << frame.returnAddressRegister;
    printProgram(os, arch, frame, frame.initialInstructions);
    printProgram(os, arch, frame, frame.instructions);
  }
}

class Printer : public JitdumpSink {
public:
  Printer(llvm::raw_ostream &out, llvm::raw_ostream &err) : out_(out), err_(err) {}

  void onRewrite() override {}
  void onHeader(const JitdumpHeader &h) override {
    std::string arch(tripleArchOfElfMachine(h.elfMachine));
    arch_ = llvm::Triple(arch).getArch();
    out_ << "header: version " << h.version << ", size " << h.headerSize << ", elf_mach "
         << h.elfMachine << " (" << (arch.empty() ? "unknown" : arch) << "), pid " << h.pid
         << ", timestamp " << h.timestamp << ", flags " << llvm::format_hex(h.flags, 0)
         << ", byte order " << (h.byteSwapped ? "swapped" : "native") << "\n";
  }
  void onRecord(const JitdumpRecord &record, uint64_t offset) override {
    out_ << "@" << offset << " " << jitdumpRecordName(record.id) << " size " << record.size
         << " timestamp " << record.timestamp;
    if (const auto *load = std::get_if<JitCodeLoad>(&record.body)) {
      out_ << ": pid " << load->pid << " tid " << load->tid << " vma "
           << llvm::format_hex(load->vma, 0) << " code_addr "
           << llvm::format_hex(load->codeAddress, 0) << " code_size "
           << llvm::format_hex(load->codeSize, 0) << " code_index " << load->codeIndex
           << " name ";
      quoted(out_, load->name);
      if (!pendingEhFrame_.empty())
        printUnwindTable(out_, arch_, pendingEhFrame_, *load);
      pendingEhFrame_.clear();
    } else if (const auto *move = std::get_if<JitCodeMove>(&record.body)) {
      out_ << ": pid " << move->pid << " tid " << move->tid << " vma "
           << llvm::format_hex(move->vma, 0) << " old_code_addr "
           << llvm::format_hex(move->oldAddress, 0) << " new_code_addr "
           << llvm::format_hex(move->newAddress, 0) << " code_size "
           << llvm::format_hex(move->codeSize, 0) << " code_index " << move->codeIndex;
    } else if (const auto *info = std::get_if<JitDebugInfo>(&record.body)) {
      out_ << ": code_addr " << llvm::format_hex(info->codeAddress, 0) << " entries "
           << info->entries.size();
      for (const JitLineEntry &e : info->entries) {
        out_ << "\n    addr " << llvm::format_hex(e.address, 0) << " line " << e.line
             << " discrim " << e.discriminator << " file ";
        quoted(out_, e.file);
      }
    } else if (const auto *unwind = std::get_if<JitUnwindingInfo>(&record.body)) {
      out_ << ": unwind_data_size " << unwind->unwindDataSize << " eh_frame_hdr_size "
           << unwind->ehFrameHeaderSize << " mapped_size " << unwind->mappedSize;
      pendingEhFrame_ = std::string(ehFrameOf(*unwind)); // for the next CODE_LOAD
    } else if (const auto *unload = std::get_if<JitCodeUnload>(&record.body)) {
      out_ << ": pid " << unload->pid << " tid " << unload->tid << " code_addr "
           << llvm::format_hex(unload->codeAddress, 0) << " code_size "
           << llvm::format_hex(unload->codeSize, 0) << " code_index " << unload->codeIndex;
    } else if (const auto *entry = std::get_if<JitCodeEntry>(&record.body)) {
      out_ << ": pid " << entry->pid << " tid " << entry->tid << " code_addr "
           << llvm::format_hex(entry->codeAddress, 0) << " entry_addr "
           << llvm::format_hex(entry->entryAddress, 0);
    } else if (std::holds_alternative<std::monostate>(record.body)) {
      out_ << ": unknown id, skipped";
    }
    out_ << "\n";
  }
  void onDiagnostic(const Diagnostic &diagnostic) override {
    err_ << "warning: " << diagnostic.str() << "\n";
  }

private:
  llvm::raw_ostream &out_;
  llvm::Triple::ArchType arch_ = llvm::Triple::UnknownArch; // the header's, naming registers
  llvm::raw_ostream &err_;
  std::string pendingEhFrame_;
};

} // namespace

int runJitdumpDump(const std::string &path, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  JitdumpReader reader(path);
  reader.setWriterDone(true); // a file as it is
  Printer printer(out, err);
  llvm::Expected<JitdumpReadStats> stats = reader.read(printer);
  if (!stats) {
    err << "error: " << llvm::toString(stats.takeError()) << "\n";
    return 1;
  }
  out << "records: " << stats->records << ", malformed: " << stats->malformed
      << ", pending bytes: " << stats->pendingBytes;
  if (stats->stepsLost)
    out << ", steps lost and found again: " << stats->stepsLost << " (" << stats->bytesSkipped
        << " bytes skipped)";
  if (stats->corrupt)
    out << ", corrupt: the rest of the file is unreadable";
  else if (reader.damage().lostAt)
    out << ", no record found after byte offset " << *reader.damage().lostAt;
  out << "\n";
  return 0;
}

} // namespace jitsym
