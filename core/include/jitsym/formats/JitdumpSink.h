// What a jitdump's reader (files/JitdumpReader.h) gives the records it reads
// to: the symbols' side (symbols/JitdumpSymbols.h) and the tools implement it.
#pragma once

#include <cstdint>

#include "jitsym/base/Diagnostic.h"
#include "jitsym/formats/JitdumpParser.h"

namespace jitsym {

class JitdumpSink {
public:
  virtual ~JitdumpSink() = default;
  virtual void onRewrite() = 0; // forget what was read
  virtual void onHeader(const JitdumpHeader &header) {}
  // A record of the file, seen for the first time. `offset`: its byte offset in
  // the file. The record's strings are valid during the call only.
  virtual void onRecord(const JitdumpRecord &record, uint64_t offset) = 0;
  virtual void onDiagnostic(const Diagnostic &diagnostic) = 0;

  // Provisional records, from the runtime's stdio buffer, come between
  // beginProvisional and endProvisional, in order, after the file's records;
  // `offset` is where they will be in the file. `seenBefore`: the same bytes at
  // the same offset were given provisionally at an earlier read, so whatever
  // they named is named already. A sink that keeps state across records (lines
  // waiting for their CODE_LOAD) should leave it at endProvisional as the file
  // alone left it: the next read goes on from the file's records.
  //
  // Every provisional record later ends in exactly one of two ways: the file
  // holds the same bytes at its offset (onConfirmedRecord, in file order, in
  // place of onRecord), or it is withdrawn (onWithdrawnRecord): the file holds
  // something else there, or neither the file nor the buffer holds it any more.
  // A sink that ignores provisional records gets every file record once, in
  // order, through onRecord.
  virtual void beginProvisional() {}
  virtual void onProvisionalRecord(const JitdumpRecord &record, uint64_t offset,
                                   bool seenBefore) {}
  virtual void endProvisional() {}
  virtual void onConfirmedRecord(const JitdumpRecord &record, uint64_t offset) {
    onRecord(record, offset);
  }
  virtual void onWithdrawnRecord(uint64_t offset) {}
};

} // namespace jitsym
