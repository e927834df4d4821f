// Turns jitdump records into symbols, line tables and unwind tables: CODE_LOAD
// announces a symbol (with the lines of the CODE_DEBUG_INFO and the .eh_frame of
// the CODE_UNWINDING_INFO that preceded it), CODE_MOVE moves one, jitsym's
// JITSYM_CODE_UNLOAD removes one, and a later announcement over reused memory
// wins as with perf maps. The lines and unwind tables of code leave with its
// symbol, whatever drops it (the table reports it: SymbolTable::onOwnedGone).
//
// Provisional records (from the runtime's stdio buffer, JitdumpReader.h) name
// their code at once but are counted only when the file confirms them, so the
// counters say what the file holds; a confirmed record is not applied again
// (a CODE_LOAD followed by its CODE_MOVE would otherwise come back at its old
// place). A withdrawn CODE_LOAD takes its symbol, lines and unwind table with it
// if they are still the ones it announced; a withdrawn move or unload is not
// undone (the file's own records, applied next, win where they overlap).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "jitsym/formats/JitdumpSink.h"
#include "jitsym/symbols/LineTables.h"
#include "jitsym/symbols/SymbolTable.h"
#include "jitsym/symbols/UnwindTables.h"

namespace jitsym {

struct JitdumpSymbolsOptions {
  // Keep what announced() needs (a set of code addresses; costs a hash insert
  // per CODE_LOAD, so only when a perf map is read too).
  bool trackCodeStarts = false;
  // Where the unwind tables of CODE_UNWINDING_INFO go; none: they are skipped.
  UnwindTables *unwind = nullptr;
  std::string path; // of the jitdump, for diagnostics
};

class JitdumpSymbols : public JitdumpSink {
public:
  // Becomes the table's onOwnedGone handler (replacing any earlier one).
  JitdumpSymbols(SymbolTable &table, LineTables &lines, JitdumpSymbolsOptions options = {});

  void onRewrite() override;
  void onHeader(const JitdumpHeader &header) override { header_ = header; }
  void onRecord(const JitdumpRecord &record, uint64_t offset) override;
  void onDiagnostic(const Diagnostic &diagnostic) override {
    diagnostics.push_back(diagnostic);
  }
  void beginProvisional() override;
  void onProvisionalRecord(const JitdumpRecord &record, uint64_t offset,
                           bool seenBefore) override;
  void endProvisional() override;
  void onConfirmedRecord(const JitdumpRecord &record, uint64_t offset) override;
  void onWithdrawnRecord(uint64_t offset) override;

  const std::optional<JitdumpHeader> &header() const { return header_; }
  // Whether live code announced by this dump starts at `address` (a perf map
  // line for the same code is then redundant). Needs trackCodeStarts.
  bool announced(uint64_t address) const { return owned_->codeStarts.count(address) != 0; }
  std::vector<Diagnostic> diagnostics;
  // Records of the file (provisional ones once confirmed).
  uint64_t loads = 0, moves = 0, movesOfUnknownCode = 0;
  uint64_t unloads = 0, unloadsOfUnknownCode = 0;
  // Code loads named from the stdio buffer that the file does not hold yet.
  uint64_t provisionalLoads() const { return provisionalLoads_; }

private:
  // What applying one record did, to count it (now, or once confirmed) and
  // to withdraw it.
  struct Effect {
    enum Kind { Other, Load, Move, Unload } kind = Other;
    uint64_t address = 0, size = 0;
    std::string name;           // of a load, as the table keeps it
    bool ofUnknownCode = false; // a move or an unload that found nothing
    std::vector<Diagnostic> diagnostics; // of a provisional record: told when confirmed
  };

  // `named`: false when what the record names is named already (a provisional
  // record seen again or confirmed); then only the records' pending state
  // (lines and unwind info waiting for their CODE_LOAD) follows it.
  Effect apply(const JitdumpRecord &record, uint64_t offset, bool named);
  void count(const Effect &effect);
  Effect load(const JitCodeLoad &load, bool named);
  void loadLines(const JitCodeLoad &load, bool named);
  void loadEntryPoint(const JitCodeLoad &load, bool named);
  void loadUnwindTables(const JitCodeLoad &load);
  Effect move(const JitCodeMove &move);
  Effect unload(const JitCodeUnload &unload);

  SymbolTable &table_;
  LineTables &lines_;
  std::optional<JitdumpHeader> header_;
  // CODE_DEBUG_INFO comes before its CODE_LOAD: kept (copied) until then.
  std::map<uint64_t, std::vector<JitLineEntry>> pendingLines_;
  std::deque<std::string> pendingFiles_; // backs pendingLines_' file names (stable)
  // JITSYM_CODE_ENTRY comes before its CODE_LOAD too: code address -> entry.
  std::map<uint64_t, uint64_t> pendingEntries_;
  // CODE_UNWINDING_INFO is for the CODE_LOAD that comes next: its .eh_frame
  // (copied) and the record's offset, until then.
  std::optional<std::pair<std::string, uint64_t>> pendingEhFrame_;
  JitdumpSymbolsOptions options_;
  // What is kept by the start of this dump's code. Shared with the table's
  // handler, which may outlive this object: a perf map read into the same
  // table afterwards (SymbolSource) may still replace the dump's code.
  struct Owned {
    LineTables &lines;
    UnwindTables *unwind;
    std::unordered_set<uint64_t> codeStarts;
    void gone(uint64_t start) {
      lines.erase(start);
      if (unwind)
        unwind->erase(start);
      codeStarts.erase(start);
    }
  };
  std::shared_ptr<Owned> owned_;
  bool provisionalPass_ = false; // applying a record from the stdio buffer
  // Provisional records not settled yet, by offset.
  std::map<uint64_t, Effect> provisional_;
  uint64_t provisionalLoads_ = 0;
  // The pending state as the file left it, kept during provisional records.
  struct Saved {
    std::map<uint64_t, std::vector<JitLineEntry>> lines; // names in pendingFiles_
    size_t files = 0; // pendingFiles_ only grows meanwhile, so the names stay
    std::optional<std::pair<std::string, uint64_t>> ehFrame;
    std::map<uint64_t, uint64_t> entries;
  };
  std::optional<Saved> saved_;
};

} // namespace jitsym
