//===- Report.h - Verdicts of static findings from run-time records -*- C++ -*-===//
//
// `torchalias report` joins the findings of `torchalias check` (SARIF) with
// the records that an instrumented program wrote (JSON Lines, one file per
// run or several runs appended to one). Findings and records meet by the
// finding identity (Note [Finding identity]), which the instrumenter put in
// each site, so edits that move lines do not break the match. See
// Note [Verdicts of findings].
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_DRIVER_REPORT_H
#define TORCHALIAS_DRIVER_REPORT_H

#include "SarifInput.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace torchalias::driver {

/// One line of a runtime report.
struct RuntimeRecord {
  std::string Finding; // "" for the hand-written TORCHALIAS_VALIDATE_* macros
  std::string Check, Verdict, File;
  unsigned Line = 0;
  long long Pid = 0;
  llvm::json::Value Facts = nullptr;
  std::string Report;  // the file it came from
  std::string Source;  // REPORT.jsonl:LINE
};

struct RecordSet {
  std::vector<RuntimeRecord> Records;
  std::vector<std::string> Warnings; // lines that were skipped, and why
  unsigned Runs = 0;                 // distinct (file, pid)
};

/// Reads the records of every file in \p Paths. A line that is not a record
/// (a run killed mid-line, a stray print) is skipped with a warning naming
/// it; the other records are kept. An unreadable file is an error.
llvm::Expected<RecordSet> readRecords(const std::vector<std::string> &Paths);

enum class VerdictKind { Confirmed, Dismissed, NotReached, NotInstrumented };
const char *to_string(VerdictKind Kind);

struct FindingVerdict {
  VerdictKind Kind = VerdictKind::NotReached;
  unsigned Records = 0, ConfirmedRecords = 0, Runs = 0;
  const RuntimeRecord *Evidence = nullptr; // the first confirming record, or the first
  std::string Reason;                      // why not instrumented
};

/// Skip reasons by finding identity, from the instrumenter's manifest.
using SkippedSites = std::map<std::string, std::string>;
llvm::Expected<SkippedSites> readManifest(llvm::StringRef Path);

std::vector<FindingVerdict> decide(const std::vector<StaticFinding> &Findings,
                                   const RecordSet &Records, const SkippedSites &Skipped);

/// The log with each result's verdict in its properties, and dismissed
/// results suppressed.
llvm::json::Value annotate(llvm::json::Value Log, const std::vector<StaticFinding> &Findings,
                           const std::vector<FindingVerdict> &Verdicts);

void writeSummary(llvm::raw_ostream &OS, const std::vector<StaticFinding> &Findings,
                  const std::vector<FindingVerdict> &Verdicts, const RecordSet &Records,
                  llvm::StringRef Root);

} // namespace torchalias::driver

#endif
