//===- ReportCommand.cpp - torchalias report and merge-sarif --------------===//
//
// `report` reads the static log, the instrumented runs' records and the
// instrumenter's manifest, and gives each finding its verdict (Report.h).
// `merge-sarif` joins the logs of sharded `check` runs (Output.h).
//
//===----------------------------------------------------------------------===//

#include "CommandSupport.h"
#include "Commands.h"
#include "Output.h"
#include "Report.h"
#include "SarifInput.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

namespace torchalias::driver {

int runMergeSarif(const std::vector<std::string> &Inputs,
                  const std::string &Output) {
  std::vector<llvm::json::Value> Logs;
  for (const std::string &Input : Inputs) {
    auto Buffer = llvm::MemoryBuffer::getFile(Input);
    if (!Buffer)
      return fail("cannot read '" + Input +
                  "': " + Buffer.getError().message());
    auto Parsed = llvm::json::parse((*Buffer)->getBuffer());
    if (!Parsed)
      return fail("'" + Input +
                  "' is not JSON: " + llvm::toString(Parsed.takeError()));
    Logs.push_back(std::move(*Parsed));
  }
  auto Merged = mergeSarif(Logs);
  if (!Merged)
    return fail(llvm::toString(Merged.takeError()));
  if (llvm::Error E = writeTo(Output, [&](llvm::raw_ostream &OS) {
        OS << llvm::formatv("{0:2}", *Merged) << "\n";
      }))
    return fail(llvm::toString(std::move(E)));
  return Clean;
}

int runReport(const ReportOptions &Options) {
  auto Log = readSarif(Options.Static, "");
  if (!Log)
    return fail(llvm::toString(Log.takeError()));
  auto Records = readRecords(Options.Dynamic);
  if (!Records)
    return fail(llvm::toString(Records.takeError()));
  SkippedSites Skipped;
  if (!Options.Manifest.empty()) {
    auto Read = readManifest(Options.Manifest);
    if (!Read)
      return fail(llvm::toString(Read.takeError()));
    Skipped = std::move(*Read);
  }
  for (const std::string &W : Records->Warnings)
    llvm::errs() << "torchalias: warning: " << W << "\n";
  std::vector<FindingVerdict> Verdicts =
      decide(Log->Findings, *Records, Skipped);
  std::string RootDir =
      Options.Root.empty() ? Log->Root : absolute(Options.Root);
  writeSummary(llvm::outs(), Log->Findings, Verdicts, *Records, RootDir);
  if (!Options.Output.empty())
    if (llvm::Error E = writeTo(Options.Output, [&](llvm::raw_ostream &OS) {
          OS << llvm::formatv("{0:2}", annotate(std::move(Log->Log),
                                                Log->Findings, Verdicts))
             << "\n";
        }))
      return fail(llvm::toString(std::move(E)));
  bool AnyConfirmed = llvm::any_of(Verdicts, [](const FindingVerdict &V) {
    return V.Kind == VerdictKind::Confirmed;
  });
  return AnyConfirmed ? Found : Clean;
}

} // namespace torchalias::driver
