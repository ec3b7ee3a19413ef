//===- Report.cpp - Verdicts of static findings from run-time records -----===//

#include "Report.h"
#include "Compat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>

namespace torchalias::driver {

namespace json = llvm::json;
namespace compat = torchalias::compat;

// Note [Verdicts of findings]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A finding's sites write records whose verdict is confirmed (the aliasing
// happened), clean (the premise held but nothing could observe it) or
// not-applicable (the premise failed on this data, e.g. reshape() copied).
// Over all records of all runs a finding is
//  - confirmed when any record is confirmed: one run that aliases is the
//    bug, whatever the other runs saw;
//  - dismissed when it was reached and no record is confirmed;
//  - not reached when no record names it;
//  - not instrumented when the instrumenter's manifest says it skipped the
//    site (and no record names it).
// A dismissal is only as good as the runs: it says that the data of these
// runs never aliased, not that no data can.

const char *to_string(VerdictKind Kind) {
  switch (Kind) {
  case VerdictKind::Confirmed:
    return "confirmed";
  case VerdictKind::Dismissed:
    return "dismissed";
  case VerdictKind::NotReached:
    return "not-reached";
  case VerdictKind::NotInstrumented:
    return "not-instrumented";
  }
  return "?";
}

namespace {

llvm::Expected<RuntimeRecord> parseRecord(llvm::StringRef Line) {
  auto Parsed = json::parse(Line);
  if (!Parsed)
    return Parsed.takeError();
  const json::Object *Object = Parsed->getAsObject();
  if (!Object)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "not a JSON object");
  RuntimeRecord R;
  auto Check = Object->getString("check");
  auto Verdict = Object->getString("verdict");
  if (!Check || !Verdict)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no 'check' or 'verdict': not a torchalias record");
  R.Check = Check->str();
  R.Verdict = Verdict->str();
  if (R.Verdict != "confirmed" && R.Verdict != "clean" && R.Verdict != "not-applicable")
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "unknown verdict '%s'",
                                   R.Verdict.c_str());
  R.Finding = compat::valueOr(Object->getString("finding"), "").str();
  R.File = compat::valueOr(Object->getString("file"), "").str();
  R.Line = compat::valueOr(Object->getInteger("line"), 0);
  R.Pid = compat::valueOr(Object->getInteger("pid"), 0);
  if (const json::Value *Facts = Object->get("facts"))
    R.Facts = *Facts;
  return R;
}

} // namespace

llvm::Expected<RecordSet> readRecords(const std::vector<std::string> &Paths) {
  RecordSet Set;
  std::set<std::pair<std::string, long long>> Runs;
  for (const std::string &Path : Paths) {
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    if (!Buffer)
      return llvm::createStringError(Buffer.getError(), "cannot read '%s': %s", Path.c_str(),
                                     Buffer.getError().message().c_str());
    llvm::SmallVector<llvm::StringRef, 0> Lines;
    (*Buffer)->getBuffer().split(Lines, '\n');
    for (size_t I = 0; I < Lines.size(); ++I) {
      llvm::StringRef Line = Lines[I].trim();
      if (Line.empty())
        continue;
      auto Record = parseRecord(Line);
      if (!Record) {
        Set.Warnings.push_back(llvm::formatv("{0}:{1}: skipped, not a record: {2}", Path, I + 1,
                                             llvm::toString(Record.takeError()))
                                   .str());
        continue;
      }
      Record->Report = Path;
      Record->Source = llvm::formatv("{0}:{1}", Path, I + 1).str();
      Runs.insert({Path, Record->Pid});
      Set.Records.push_back(std::move(*Record));
    }
  }
  Set.Runs = Runs.size();
  return Set;
}

llvm::Expected<SkippedSites> readManifest(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "cannot read '%s': %s", Path.str().c_str(),
                                   Buffer.getError().message().c_str());
  auto Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "'%s' is not JSON: %s",
                                   Path.str().c_str(),
                                   llvm::toString(Parsed.takeError()).c_str());
  const json::Object *Top = Parsed->getAsObject();
  const json::Array *Sites = Top ? Top->getArray("sites") : nullptr;
  if (!Sites)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'%s' is not a torchalias instrument manifest (no 'sites')",
                                   Path.str().c_str());
  SkippedSites Skipped;
  for (const json::Value &Site : *Sites)
    if (const json::Object *Object = Site.getAsObject())
      if (auto Why = Object->getString("skipped"))
        Skipped[compat::valueOr(Object->getString("finding"), "").str()] = Why->str();
  return Skipped;
}

std::vector<FindingVerdict> decide(const std::vector<StaticFinding> &Findings,
                                   const RecordSet &Records, const SkippedSites &Skipped) {
  std::map<std::string, std::vector<const RuntimeRecord *>> ById;
  for (const RuntimeRecord &R : Records.Records)
    if (!R.Finding.empty())
      ById[R.Finding].push_back(&R);
  std::vector<FindingVerdict> Verdicts;
  for (const StaticFinding &F : Findings) {
    FindingVerdict V;
    auto It = ById.find(F.Id);
    if (It == ById.end()) {
      auto Skip = Skipped.find(F.Id);
      if (Skip != Skipped.end()) {
        V.Kind = VerdictKind::NotInstrumented;
        V.Reason = Skip->second;
      }
      Verdicts.push_back(std::move(V));
      continue;
    }
    std::set<std::pair<std::string, long long>> Runs;
    for (const RuntimeRecord *R : It->second) {
      ++V.Records;
      Runs.insert({R->Report, R->Pid});
      if (R->Verdict == "confirmed") {
        if (V.ConfirmedRecords++ == 0)
          V.Evidence = R;
      }
    }
    if (!V.Evidence)
      V.Evidence = It->second.front();
    V.Runs = Runs.size();
    V.Kind = V.ConfirmedRecords ? VerdictKind::Confirmed : VerdictKind::Dismissed;
    Verdicts.push_back(std::move(V));
  }
  return Verdicts;
}

namespace {

std::string justification(const FindingVerdict &V) {
  return llvm::formatv("torchalias runtime: reached in {0} run(s) ({1} record(s)) and never "
                       "aliased: every record was clean or not-applicable",
                       V.Runs, V.Records)
      .str();
}

json::Object runtimeProperties(const FindingVerdict &V) {
  json::Object Runtime{{"records", V.Records},
                       {"confirmedRecords", V.ConfirmedRecords},
                       {"runs", V.Runs}};
  if (V.Evidence) {
    Runtime["evidence"] = json::Object{{"verdict", V.Evidence->Verdict},
                                       {"site", llvm::formatv("{0}:{1}", V.Evidence->File,
                                                              V.Evidence->Line)
                                                    .str()},
                                       {"record", V.Evidence->Source},
                                       {"facts", V.Evidence->Facts}};
  }
  if (!V.Reason.empty())
    Runtime["notInstrumented"] = V.Reason;
  return Runtime;
}

} // namespace

json::Value annotate(json::Value Log, const std::vector<StaticFinding> &Findings,
                     const std::vector<FindingVerdict> &Verdicts) {
  json::Array *Runs = Log.getAsObject()->getArray("runs");
  std::map<unsigned, std::map<std::string, unsigned>> Counts;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const StaticFinding &F = Findings[I];
    const FindingVerdict &V = Verdicts[I];
    json::Object &Result = *(*(*Runs)[F.Run].getAsObject()->getArray("results"))[F.Result]
                                .getAsObject();
    json::Object *Properties = Result.getObject("properties");
    if (!Properties) {
      Result["properties"] = json::Object();
      Properties = Result.getObject("properties");
    }
    (*Properties)["torchalias/verdict"] = to_string(V.Kind);
    (*Properties)["torchalias/runtime"] = runtimeProperties(V);
    if (V.Kind == VerdictKind::Dismissed)
      Result["suppressions"] = json::Array{json::Object{
          {"kind", "external"}, {"status", "accepted"}, {"justification", justification(V)}}};
    ++Counts[F.Run][to_string(V.Kind)];
  }
  for (auto &[Run, ByKind] : Counts) {
    json::Object &RunObject = *(*Runs)[Run].getAsObject();
    json::Object Summary;
    for (auto &[Kind, Count] : ByKind)
      Summary[Kind] = Count;
    if (!RunObject.getObject("properties"))
      RunObject["properties"] = json::Object();
    (*RunObject.getObject("properties"))["torchalias/verdicts"] = std::move(Summary);
  }
  return Log;
}

void writeSummary(llvm::raw_ostream &OS, const std::vector<StaticFinding> &Findings,
                  const std::vector<FindingVerdict> &Verdicts, const RecordSet &Records,
                  llvm::StringRef Root) {
  unsigned Count[4] = {0, 0, 0, 0};
  for (const FindingVerdict &V : Verdicts)
    ++Count[static_cast<int>(V.Kind)];
  unsigned Unmatched = 0;
  for (const RuntimeRecord &R : Records.Records)
    Unmatched += R.Finding.empty();
  OS << llvm::formatv("torchalias report: {0} finding(s): {1} confirmed, {2} dismissed, "
                      "{3} not reached, {4} not instrumented ({5} record(s) from {6} run(s))\n",
                      Findings.size(), Count[0], Count[1], Count[2], Count[3],
                      Records.Records.size(), Records.Runs);
  if (Unmatched)
    OS << llvm::formatv("torchalias report: {0} record(s) carry no finding identity (hand-written "
                        "validators) and match no finding\n",
                        Unmatched);
  for (size_t I = 0; I < Findings.size(); ++I) {
    const StaticFinding &F = Findings[I];
    const FindingVerdict &V = Verdicts[I];
    OS << llvm::formatv("{0}:{1}:{2}: {3} [{4}] {5}\n", relativePath(F.Where.File, Root),
                        F.Where.Line, F.Where.Column, to_string(V.Kind), F.Check, F.Message);
    if (V.Evidence)
      OS << llvm::formatv("    {0} of {1} record(s) confirmed, {2} run(s); {3} facts: {4}\n",
                          V.ConfirmedRecords, V.Records, V.Runs, V.Evidence->Verdict,
                          V.Evidence->Facts);
    if (!V.Reason.empty())
      OS << "    not instrumented: " << V.Reason << "\n";
  }
}

} // namespace torchalias::driver
