// The x86-64 frame-pointer prologue, recognised by decoding the first
// instructions with LLVM's X86 disassembler (the one LLDB uses).
#include "jitsym/plan/FramePointer.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>

#include "llvm/Config/llvm-config.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

namespace jitsym {
namespace {

// The common prologues, told without decoding (most functions of a big
// runtime): push rbp; mov rbp, rsp (either encoding) keeps it, sub rsp, N
// (Mono) does not.
template <size_t N>
bool startsWith(llvm::ArrayRef<uint8_t> code, const std::array<uint8_t, N> &bytes) {
  return code.size() >= N && std::equal(bytes.begin(), bytes.end(), code.begin());
}
constexpr std::array<uint8_t, 4> kPushMovRbpRsp = {0x55, 0x48, 0x89, 0xe5};
constexpr std::array<uint8_t, 4> kPushMovRbpRspAlt = {0x55, 0x48, 0x8b, 0xec};
constexpr std::array<uint8_t, 3> kSubRspImm8 = {0x48, 0x83, 0xec};
constexpr std::array<uint8_t, 3> kSubRspImm32 = {0x48, 0x81, 0xec};

// LLVM's MC layer for x86-64, made once per thread (the disassembler keeps
// no state between instructions, but nothing promises it is thread-safe).
class X86Decoder {
public:
  X86Decoder() {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86Disassembler();
    const llvm::Triple triple("x86_64-pc-linux-gnu");
    std::string error;
#if LLVM_VERSION_MAJOR >= 22
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
#else
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple.str(), error);
#endif
    if (!target)
      return;
#if LLVM_VERSION_MAJOR >= 22
    registers_.reset(target->createMCRegInfo(triple));
    if (registers_)
      asmInfo_.reset(target->createMCAsmInfo(*registers_, triple, options_));
    subtarget_.reset(target->createMCSubtargetInfo(triple, "", ""));
#else
    registers_.reset(target->createMCRegInfo(triple.str()));
    if (registers_)
      asmInfo_.reset(target->createMCAsmInfo(*registers_, triple.str(), options_));
    subtarget_.reset(target->createMCSubtargetInfo(triple.str(), "", ""));
#endif
    instructions_.reset(target->createMCInstrInfo());
    if (!registers_ || !asmInfo_ || !subtarget_ || !instructions_)
      return;
    context_ = std::make_unique<llvm::MCContext>(triple, asmInfo_.get(), registers_.get(),
                                                 subtarget_.get());
    disassembler_.reset(target->createMCDisassembler(*subtarget_, *context_));
    for (unsigned reg = 1; reg < registers_->getNumRegs(); ++reg) {
      const llvm::StringRef name = registers_->getName(reg);
      if (name == "RSP")
        rsp_ = reg;
      else if (name == "RBP")
        rbp_ = reg;
    }
  }

  FramePointer classify(llvm::ArrayRef<uint8_t> code) const {
    if (!disassembler_ || !rsp_ || !rbp_)
      return FramePointer::Unknown;
    bool pushedRbp = false;
    bool pushedOther = false; // then rbp+16 is not where the return address is
    for (uint64_t at = 0; at < code.size();) {
      llvm::MCInst inst;
      uint64_t size = 0;
      if (disassembler_->getInstruction(inst, size, code.drop_front(at), at, llvm::nulls()) !=
              llvm::MCDisassembler::Success ||
          size == 0)
        return FramePointer::Unknown; // cut off inside an instruction, or not code
      at += size;
      const llvm::StringRef name = instructions_->getName(inst.getOpcode());
      if (pushedRbp) // the instruction right after push rbp
        return isMovRbpRsp(inst, name) && !pushedOther ? FramePointer::Kept
                                                        : FramePointer::NotKept;
      const bool push = name.starts_with("PUSH");
      if (push && inst.getNumOperands() >= 1 && inst.getOperand(0).isReg() &&
          inst.getOperand(0).getReg() == rbp_) {
        pushedRbp = true;
        continue;
      }
      if (push) {
        pushedOther = true;
        continue;
      }
      const llvm::MCInstrDesc &desc = instructions_->get(inst.getOpcode());
      // Control leaves the entry (a call may build the frame, a jump goes
      // to code of its own): what follows says nothing.
      if (desc.isCall() || desc.isReturn() || desc.isUnconditionalBranch() ||
          desc.isIndirectBranch())
        return FramePointer::Unknown;
      // A frame made by moving rsp, or rbp used for something else.
      if (desc.hasDefOfPhysReg(inst, rsp_, *registers_) ||
          desc.hasDefOfPhysReg(inst, rbp_, *registers_))
        return FramePointer::NotKept;
    }
    return FramePointer::Unknown;
  }

private:
  bool isMovRbpRsp(const llvm::MCInst &inst, llvm::StringRef name) const {
    return (name == "MOV64rr" || name == "MOV64rr_REV") && inst.getNumOperands() == 2 &&
           inst.getOperand(0).isReg() && inst.getOperand(0).getReg() == rbp_ &&
           inst.getOperand(1).isReg() && inst.getOperand(1).getReg() == rsp_;
  }

  llvm::MCTargetOptions options_;
  std::unique_ptr<llvm::MCRegisterInfo> registers_;
  std::unique_ptr<llvm::MCAsmInfo> asmInfo_;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget_;
  std::unique_ptr<llvm::MCInstrInfo> instructions_;
  std::unique_ptr<llvm::MCContext> context_;
  std::unique_ptr<llvm::MCDisassembler> disassembler_;
  unsigned rsp_ = 0, rbp_ = 0;
};

} // namespace

FramePointer framePointerAtEntry(llvm::ArrayRef<uint8_t> code) {
  if (startsWith(code, kPushMovRbpRsp) || startsWith(code, kPushMovRbpRspAlt))
    return FramePointer::Kept;
  if (startsWith(code, kSubRspImm8) || startsWith(code, kSubRspImm32))
    return FramePointer::NotKept;
  if (code.empty())
    return FramePointer::Unknown;
  static thread_local const X86Decoder decoder;
  return decoder.classify(code.take_front(kFramePointerProbeBytes));
}

std::vector<AddressRange> framePointerRanges(const AddressRange &section,
                                             std::vector<FunctionEntry> functions) {
  std::sort(functions.begin(), functions.end(),
            [](const FunctionEntry &a, const FunctionEntry &b) { return a.start < b.start; });
  std::vector<AddressRange> ranges;
  std::optional<uint64_t> open;      // where the current range began
  std::optional<uint64_t> lastStart; // of the last function looked at
  for (const FunctionEntry &function : functions) {
    if (function.start < section.start || function.start >= section.end)
      continue;
    // Functions sharing a start share their bytes: the first one speaks.
    if (lastStart && *lastStart == function.start)
      continue;
    const bool first = !lastStart;
    lastStart = function.start;
    const bool rule = function.framePointer != FramePointer::NotKept;
    if (rule && !open) {
      open = first ? section.start : function.start;
    } else if (!rule && open) {
      ranges.push_back({*open, function.start});
      open.reset();
    }
  }
  if (open)
    ranges.push_back({*open, section.end});
  return ranges;
}

bool coveredBy(const std::vector<AddressRange> &ranges, uint64_t address) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), address,
                             [](uint64_t a, const AddressRange &r) { return a < r.start; });
  return it != ranges.begin() && address < std::prev(it)->end;
}

std::vector<AddressRange> framePointerCodeOf(const AddressRange &section,
                                             const std::vector<const Symbol *> &symbols,
                                             SymbolPredicate isData, const EntryProbe &probe) {
  std::vector<FunctionEntry> functions;
  functions.reserve(symbols.size());
  std::optional<uint64_t> lastStart;
  for (const Symbol *symbol : symbols) {
    if (isData(*symbol) || (lastStart && *lastStart == symbol->address))
      continue;
    lastStart = symbol->address;
    functions.push_back({symbol->address, probe(symbol->address, symbol->size)});
  }
  return framePointerRanges(section, std::move(functions));
}

bool frameRuleHolds(const std::vector<AddressRange> &ranges, const Symbol &symbol,
                    const EntryProbe &probe) {
  switch (probe(symbol.address, symbol.size)) {
  case FramePointer::Kept:
    return coveredBy(ranges, symbol.address);
  case FramePointer::NotKept:
    return !coveredBy(ranges, symbol.address);
  case FramePointer::Unknown:
    return true; // either rule: nothing better is known
  }
  return true;
}

} // namespace jitsym
