// Modules a program loads with dlopen(RTLD_DEEPBIND) (PHP loads opcache.so,
// the code that writes its JIT's perf map and jitdump, that way) look up
// their imports among their own dependencies first: their write, fwrite,
// fprintf... are glibc's, never the filter's that LD_PRELOAD put first in the
// global scope. After such a dlopen, each import of a module it loaded whose
// global definition is the filter's has its GOT slot pointed there, as it
// would have been bound without RTLD_DEEPBIND; other imports stay deep-bound.
//
// glibc's dlopen takes its caller's return address to search the caller's
// RUNPATH (a name without '/'), to expand $ORIGIN and to choose a namespace.
// So `dlopen` here is a jump, not a call: the real dlopen sees the program's
// return address. Only a RTLD_DEEPBIND open of a path (no search, no $ORIGIN)
// goes through the rebinding call; a deep-bound name keeps glibc's binding.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#define JITSYM_HIDDEN extern "C" __attribute__((visibility("hidden")))

// glibc's dlopen, found when the library is loaded (before the program runs).
extern "C" {
__attribute__((visibility("hidden"))) void *jitsym_real_dlopen = nullptr;
}
JITSYM_HIDDEN void *jitsym_deep_dlopen(const char *file, int mode);

// dlopen: a jump to glibc's unless the open is RTLD_DEEPBIND (mode bit 3) or
// glibc's is not known yet.
// (Its first instruction marks an indirect branch target where the build asks
// for control-flow protection, as the compiler does for its own functions.)
#if defined(__x86_64__)
#if defined(__CET__)
#define JITSYM_BRANCH_TARGET "  endbr64\n"
#else
#define JITSYM_BRANCH_TARGET ""
#endif
__asm__(".text\n"
        ".globl dlopen\n"
        ".type dlopen, @function\n"
        "dlopen:\n" JITSYM_BRANCH_TARGET
        "  testl $8, %esi\n"
        "  jnz 1f\n"
        "  movq jitsym_real_dlopen(%rip), %rax\n"
        "  testq %rax, %rax\n"
        "  jz 1f\n"
        "  jmp *%rax\n"
        "1:\n"
        "  jmp jitsym_deep_dlopen\n"
        ".size dlopen, .-dlopen\n");
#elif defined(__aarch64__)
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define JITSYM_BRANCH_TARGET "  bti c\n"
#else
#define JITSYM_BRANCH_TARGET ""
#endif
__asm__(".text\n"
        ".globl dlopen\n"
        ".type dlopen, %function\n"
        "dlopen:\n" JITSYM_BRANCH_TARGET
        "  tbnz w1, #3, 1f\n"
        "  adrp x16, jitsym_real_dlopen\n"
        "  ldr x16, [x16, :lo12:jitsym_real_dlopen]\n"
        "  cbz x16, 1f\n"
        "  br x16\n"
        "1:\n"
        "  b jitsym_deep_dlopen\n"
        ".size dlopen, .-dlopen\n");
#else
#error "libjitsym-watch: dlopen's entry is written for x86-64 and aarch64"
#endif

namespace {

__attribute__((constructor)) void findRealDlopen() {
  jitsym_real_dlopen = dlsym(RTLD_NEXT, "dlopen");
}

using OpenFunction = void *(*)(const char *, int);

int collectBase(struct dl_phdr_info *info, size_t, void *data) {
  static_cast<std::vector<ElfW(Addr)> *>(data)->push_back(info->dlpi_addr);
  return 0;
}

std::vector<ElfW(Addr)> loadedBases() {
  std::vector<ElfW(Addr)> bases;
  dl_iterate_phdr(collectBase, &bases);
  return bases;
}

// The filter's own load address: an import defined here is one to rebind.
ElfW(Addr) filterBase() {
  Dl_info self;
  if (!dladdr(reinterpret_cast<void *>(&findRealDlopen), &self))
    return 0;
  return reinterpret_cast<ElfW(Addr)>(self.dli_fbase);
}

#if defined(__x86_64__)
constexpr uint32_t kJumpSlot = R_X86_64_JUMP_SLOT, kGlobalData = R_X86_64_GLOB_DAT;
#else
constexpr uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT, kGlobalData = R_AARCH64_GLOB_DAT;
#endif

// A dynamic entry's address: glibc relocates most in place, some stay offsets.
template <typename T> T *at(ElfW(Addr) base, ElfW(Addr) value) {
  return reinterpret_cast<T *>(value < base ? base + value : value);
}

// Points the module's slots of imports defined by the filter at the filter.
void rebind(const struct dl_phdr_info *info, ElfW(Addr) filter) {
  const ElfW(Addr) base = info->dlpi_addr;
  const ElfW(Dyn) *dynamic = nullptr;
  ElfW(Addr) relroStart = 0, relroEnd = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &header = info->dlpi_phdr[i];
    if (header.p_type == PT_DYNAMIC)
      dynamic = reinterpret_cast<const ElfW(Dyn) *>(base + header.p_vaddr);
    if (header.p_type == PT_GNU_RELRO)
      relroStart = base + header.p_vaddr, relroEnd = relroStart + header.p_memsz;
  }
  if (!dynamic)
    return;
  const ElfW(Sym) *symbols = nullptr;
  const char *names = nullptr;
  const ElfW(Rela) *tables[2] = {nullptr, nullptr};
  size_t sizes[2] = {0, 0};
  for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
    switch (entry->d_tag) {
    case DT_SYMTAB: symbols = at<const ElfW(Sym)>(base, entry->d_un.d_ptr); break;
    case DT_STRTAB: names = at<const char>(base, entry->d_un.d_ptr); break;
    case DT_JMPREL: tables[0] = at<const ElfW(Rela)>(base, entry->d_un.d_ptr); break;
    case DT_PLTRELSZ: sizes[0] = entry->d_un.d_val; break;
    case DT_RELA: tables[1] = at<const ElfW(Rela)>(base, entry->d_un.d_ptr); break;
    case DT_RELASZ: sizes[1] = entry->d_un.d_val; break;
    }
  }
  if (!symbols || !names)
    return;
  const long page = sysconf(_SC_PAGESIZE);
  for (int t = 0; t < 2; ++t) {
    for (size_t k = 0; tables[t] && k < sizes[t] / sizeof(ElfW(Rela)); ++k) {
      const ElfW(Rela) &relocation = tables[t][k];
      const uint32_t type = ELF64_R_TYPE(relocation.r_info);
      const ElfW(Sym) &symbol = symbols[ELF64_R_SYM(relocation.r_info)];
      if ((type != kJumpSlot && type != kGlobalData) || symbol.st_shndx != SHN_UNDEF ||
          ELF64_R_SYM(relocation.r_info) == 0)
        continue;
      void *global = dlsym(RTLD_DEFAULT, names + symbol.st_name);
      Dl_info owner;
      if (!global || !dladdr(global, &owner) ||
          reinterpret_cast<ElfW(Addr)>(owner.dli_fbase) != filter)
        continue;
      auto *slot = reinterpret_cast<void **>(base + relocation.r_offset);
      if (*slot == global)
        continue;
      const auto address = reinterpret_cast<ElfW(Addr)>(slot);
      const bool readOnly = address >= relroStart && address < relroEnd;
      void *pageStart = reinterpret_cast<void *>(address & ~static_cast<ElfW(Addr)>(page - 1));
      if (readOnly && mprotect(pageStart, page, PROT_READ | PROT_WRITE) != 0)
        continue;
      __atomic_store_n(slot, global, __ATOMIC_RELEASE);
      if (readOnly)
        mprotect(pageStart, page, PROT_READ);
    }
  }
}

struct NewModules {
  std::vector<ElfW(Addr)> before;
  ElfW(Addr) filter;
};

int rebindIfNew(struct dl_phdr_info *info, size_t, void *data) {
  const auto &modules = *static_cast<NewModules *>(data);
  for (ElfW(Addr) base : modules.before)
    if (base == info->dlpi_addr)
      return 0;
  rebind(info, modules.filter);
  return 0;
}

} // namespace

void *jitsym_deep_dlopen(const char *file, int mode) {
  if (!jitsym_real_dlopen)
    findRealDlopen();
  const auto open = reinterpret_cast<OpenFunction>(jitsym_real_dlopen);
  // A name is searched for along the caller's RUNPATH, and $ORIGIN in a path
  // is the caller's folder: glibc's dlopen must see the program as its caller.
  if (!(mode & RTLD_DEEPBIND) || !file || !std::strchr(file, '/') || std::strchr(file, '$'))
    return open(file, mode); // a tail call: the caller's return address stays
  NewModules modules{loadedBases(), filterBase()};
  void *handle = open(file, mode);
  if (handle && modules.filter)
    dl_iterate_phdr(rebindIfNew, &modules);
  return handle;
}
