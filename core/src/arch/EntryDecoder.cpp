// The frame-pointer prologues of x86-64 and aarch64, recognised by decoding
// the first instructions with LLVM's disassemblers.
#include "EntryDecoder.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>

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

// LLVM's MC layer for one architecture, made once per thread (the
// disassembler keeps no state between instructions, but nothing promises it
// is thread-safe).
class McDecoder {
public:
  explicit McDecoder(const Architecture &arch) {
    if (arch.id == ArchId::X86_64) {
      LLVMInitializeX86TargetInfo();
      LLVMInitializeX86TargetMC();
      LLVMInitializeX86Disassembler();
    } else {
      LLVMInitializeAArch64TargetInfo();
      LLVMInitializeAArch64TargetMC();
      LLVMInitializeAArch64Disassembler();
    }
    const llvm::Triple triple{llvm::StringRef(arch.linuxTriple.data(), arch.linuxTriple.size())};
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
      const std::string_view name = registers_->getName(reg);
      if (name == arch.mcStackPointer)
        sp_ = reg;
      else if (name == arch.mcFramePointer)
        fp_ = reg;
      else if (!arch.mcLinkRegister.empty() && name == arch.mcLinkRegister)
        lr_ = reg;
    }
  }

  bool ready() const { return disassembler_ && sp_ && fp_; }
  // The instruction at `at`; false when the bytes do not decode.
  bool decode(llvm::ArrayRef<uint8_t> code, uint64_t at, llvm::MCInst &inst,
              uint64_t &size) const {
    return disassembler_->getInstruction(inst, size, code.drop_front(at), at, llvm::nulls()) ==
               llvm::MCDisassembler::Success &&
           size > 0;
  }
  llvm::StringRef name(const llvm::MCInst &inst) const {
    return instructions_->getName(inst.getOpcode());
  }
  const llvm::MCInstrDesc &desc(const llvm::MCInst &inst) const {
    return instructions_->get(inst.getOpcode());
  }
  bool writes(const llvm::MCInst &inst, unsigned reg) const {
    return desc(inst).hasDefOfPhysReg(inst, reg, *registers_);
  }
  bool isReg(const llvm::MCInst &inst, unsigned operand, unsigned reg) const {
    return inst.getNumOperands() > operand && inst.getOperand(operand).isReg() &&
           inst.getOperand(operand).getReg() == reg;
  }
  // What an instruction before the prologue says: control leaves the entry
  // (a call may build the frame, a jump goes to code of its own: Unknown), a
  // frame made otherwise or the frame pointer used for something else
  // (NotKept); nothing when it moves neither (a check, a hint).
  std::optional<FramePointer> outsideThePrologue(const llvm::MCInst &inst) const {
    const llvm::MCInstrDesc &d = desc(inst);
    if (d.isCall() || d.isReturn() || d.isUnconditionalBranch() || d.isIndirectBranch())
      return FramePointer::Unknown;
    if (writes(inst, sp_) || writes(inst, fp_))
      return FramePointer::NotKept;
    return std::nullopt;
  }
  unsigned sp() const { return sp_; }
  unsigned fp() const { return fp_; }
  unsigned lr() const { return lr_; }

private:
  llvm::MCTargetOptions options_;
  std::unique_ptr<llvm::MCRegisterInfo> registers_;
  std::unique_ptr<llvm::MCAsmInfo> asmInfo_;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget_;
  std::unique_ptr<llvm::MCInstrInfo> instructions_;
  std::unique_ptr<llvm::MCContext> context_;
  std::unique_ptr<llvm::MCDisassembler> disassembler_;
  unsigned sp_ = 0, fp_ = 0, lr_ = 0;
};

template <size_t N>
bool startsWith(llvm::ArrayRef<uint8_t> code, const std::array<uint8_t, N> &bytes) {
  return code.size() >= N && std::equal(bytes.begin(), bytes.end(), code.begin());
}

// The common x86-64 prologues, told without decoding (most functions of a
// big runtime): push rbp; mov rbp, rsp (either encoding) keeps it, sub rsp,
// N (Mono) does not.
constexpr std::array<uint8_t, 4> kPushMovRbpRsp = {0x55, 0x48, 0x89, 0xe5};
constexpr std::array<uint8_t, 4> kPushMovRbpRspAlt = {0x55, 0x48, 0x8b, 0xec};
constexpr std::array<uint8_t, 3> kSubRspImm8 = {0x48, 0x83, 0xec};
constexpr std::array<uint8_t, 3> kSubRspImm32 = {0x48, 0x81, 0xec};

} // namespace

EntryRule x86_64EntryRule(llvm::ArrayRef<uint8_t> code) {
  // No prologue: LLDB analyses an x86-64 function's first instructions itself
  // (Architecture::fdeHoldsAtEntry).
  const EntryRule kept{FramePointer::Kept, {}};
  if (startsWith(code, kPushMovRbpRsp) || startsWith(code, kPushMovRbpRspAlt))
    return kept;
  if (startsWith(code, kSubRspImm8) || startsWith(code, kSubRspImm32))
    return {FramePointer::NotKept, {}};
  static thread_local const McDecoder decoder(kX86_64);
  if (!decoder.ready())
    return {};
  bool pushedRbp = false;
  bool pushedOther = false; // then rbp+16 is not where the return address is
  for (uint64_t at = 0, size = 0; at < code.size(); at += size) {
    llvm::MCInst inst;
    if (!decoder.decode(code, at, inst, size))
      return {}; // cut off inside an instruction, or not code
    const llvm::StringRef name = decoder.name(inst);
    if (pushedRbp) { // the instruction right after push rbp: mov rbp, rsp?
      const bool movRbpRsp = (name == "MOV64rr" || name == "MOV64rr_REV") &&
                             inst.getNumOperands() == 2 && decoder.isReg(inst, 0, decoder.fp()) &&
                             decoder.isReg(inst, 1, decoder.sp());
      return movRbpRsp && !pushedOther ? kept : EntryRule{FramePointer::NotKept, {}};
    }
    const bool push = name.starts_with("PUSH");
    if (push && decoder.isReg(inst, 0, decoder.fp())) {
      pushedRbp = true;
      continue;
    }
    if (push) {
      pushedOther = true;
      continue;
    }
    // sub rsp, N (Mono), or rbp used for something else.
    if (std::optional<FramePointer> says = decoder.outsideThePrologue(inst))
      return {*says, {}};
  }
  return {};
}

EntryRule aarch64EntryRule(llvm::ArrayRef<uint8_t> code) {
  static thread_local const McDecoder decoder(kAArch64);
  if (!decoder.ready())
    return {};
  std::optional<Prologue> record; // stp x29, x30, [sp, #-N]! seen: where, how much
  for (uint64_t at = 0, size = 0; at + 4 <= code.size(); at += size) {
    llvm::MCInst inst;
    if (!decoder.decode(code, at, inst, size))
      return {};
    const llvm::StringRef name = decoder.name(inst);
    // Hints (bti c, paciasp) move nothing.
    if (name == "HINT" || name.starts_with("BTI") || name.starts_with("PACI"))
      continue;
    if (record) { // the instruction right after: mov x29, sp (add x29, sp, #0)?
      const bool movFpSp = name == "ADDXri" && decoder.isReg(inst, 0, decoder.fp()) &&
                           decoder.isReg(inst, 1, decoder.sp()) && inst.getNumOperands() >= 3 &&
                           inst.getOperand(2).isImm() && inst.getOperand(2).getImm() == 0;
      if (!movFpSp)
        return {FramePointer::NotKept, {}};
      record->framePointerSet = uint16_t(at + size);
      return {FramePointer::Kept, record};
    }
    // The frame record pushed at the new stack top: STPXpre writes sp back
    // (operand 0), then stores x29 and x30 (operands 1 and 2) at [sp, #imm],
    // imm in units of 8 bytes.
    if (name == "STPXpre" && inst.getNumOperands() >= 5 && decoder.isReg(inst, 1, decoder.fp()) &&
        decoder.isReg(inst, 2, decoder.lr()) && decoder.isReg(inst, 3, decoder.sp()) &&
        inst.getOperand(4).isImm() && inst.getOperand(4).getImm() < 0) {
      record = Prologue{uint16_t(at + size), uint16_t(-inst.getOperand(4).getImm() * 8), 0};
      continue;
    }
    // sub sp, sp, #N, other registers stored first, or x29 used otherwise.
    if (std::optional<FramePointer> says = decoder.outsideThePrologue(inst))
      return {*says, {}};
  }
  return {};
}

EntryRule entryRuleAt(const Architecture &arch, llvm::ArrayRef<uint8_t> code) {
  if (code.empty())
    return {};
  code = code.take_front(kFramePointerProbeBytes);
  switch (arch.id) {
  case ArchId::X86_64:
    return x86_64EntryRule(code);
  case ArchId::AArch64:
    return aarch64EntryRule(code);
  }
  return {};
}

} // namespace jitsym
