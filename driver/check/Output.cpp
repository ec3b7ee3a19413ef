//===- Output.cpp - Text, JSON and SARIF output of findings ---------------===//

#include "Output.h"
#include "Compat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include "llvm/Support/Path.h"

namespace torchalias::driver {

namespace json = llvm::json;

namespace {

struct CheckDoc {
  const char *Name, *Summary, *Page;
};
// The check pages of docs/checks, embedded at build time
// (cmake/EmbedCheckDocs.cmake).
const CheckDoc CheckDocs[] = {
#include "CheckDocs.inc"
};

const CheckDoc *docFor(llvm::StringRef Check) {
  for (const CheckDoc &Doc : CheckDocs)
    if (Check == Doc.Name)
      return &Doc;
  return nullptr;
}

std::string fileUri(llvm::StringRef Path) {
  std::string Uri = "file://";
  for (char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-._~").contains(C))
      Uri += C;
    else
      Uri += llvm::formatv("%{0:X-2}", static_cast<unsigned char>(C)).str();
  }
  return Uri;
}

std::string relativeUri(llvm::StringRef Path) {
  std::string Uri = fileUri(Path);
  return Uri.substr(std::strlen("file://"));
}

json::Object artifactLocation(llvm::StringRef File, const OutputContext &Context) {
  std::string Relative = relativePath(File, Context.Root);
  if (Relative == File)
    return json::Object{{"uri", fileUri(File)}};
  return json::Object{{"uri", relativeUri(Relative)}, {"uriBaseId", "SRCROOT"}};
}

json::Object physicalLocation(const SourcePoint &Where, const OutputContext &Context) {
  return json::Object{
      {"artifactLocation", artifactLocation(Where.File, Context)},
      {"region", json::Object{{"startLine", Where.Line}, {"startColumn", Where.Column}}}};
}

std::string firstSentence(llvm::StringRef Text) {
  size_t End = Text.find(". ");
  return (End == llvm::StringRef::npos ? Text : Text.take_front(End + 1)).str();
}

json::Object rule(llvm::StringRef Check, const OutputContext &Context) {
  json::Object Rule{{"id", Check}};
  if (const CheckDoc *Doc = docFor(Check)) {
    Rule["shortDescription"] = json::Object{{"text", firstSentence(Doc->Summary)}};
    Rule["fullDescription"] = json::Object{{"text", Doc->Summary}};
    Rule["help"] = json::Object{{"text", Doc->Summary}, {"markdown", Doc->Page}};
    Rule["helpUri"] = Context.HelpUriBase + "/" + Check.str() + ".md";
  } else if (compat::startsWith(Check, "clang-diagnostic-")) {
    Rule["shortDescription"] = json::Object{{"text", "Clang compiler diagnostic"}};
    Rule["fullDescription"] = json::Object{
        {"text", "A diagnostic of the compiler; an error means the translation unit "
                 "did not compile and its analysis is incomplete."}};
    Rule["helpUri"] = "https://clang.llvm.org/docs/DiagnosticsReference.html";
  } else {
    auto [Module, Name] = Check.split('-');
    Rule["shortDescription"] = json::Object{{"text", ("clang-tidy check " + Check).str()}};
    Rule["fullDescription"] = json::Object{{"text", ("clang-tidy check " + Check).str()}};
    Rule["helpUri"] = ("https://clang.llvm.org/extra/clang-tidy/checks/" + Module + "/" +
                       Name + ".html")
                          .str();
  }
  Rule["defaultConfiguration"] = json::Object{{"level", "warning"}};
  return Rule;
}

json::Object sarifResult(const Finding &F, unsigned RuleIndex, const OutputContext &Context) {
  json::Object Location{{"physicalLocation", physicalLocation(F.Where, Context)}};
  if (!F.Function.empty())
    Location["logicalLocations"] =
        json::Array{json::Object{{"fullyQualifiedName", F.Function}, {"kind", "function"}}};
  json::Object Result{{"ruleId", F.Check},
                      {"ruleIndex", RuleIndex},
                      {"level", F.IsError ? "error" : "warning"},
                      {"message", json::Object{{"text", F.Message}}},
                      {"locations", json::Array{std::move(Location)}},
                      {"partialFingerprints", json::Object{{"torchalias/v1", F.Id}}}};
  if (Context.AgainstBaseline)
    Result["baselineState"] = "new";
  if (!F.Notes.empty()) {
    json::Array Related;
    unsigned Id = 1;
    for (const Note &N : F.Notes)
      Related.push_back(json::Object{{"id", Id++},
                                     {"physicalLocation", physicalLocation(N.Where, Context)},
                                     {"message", json::Object{{"text", N.Message}}}});
    Result["relatedLocations"] = std::move(Related);
  }
  if (!F.Fixes.empty()) {
    // One fix with one change per file, each a list of replacements.
    std::vector<std::string> Files;
    for (const Edit &E : F.Fixes)
      if (llvm::find(Files, E.Begin.File) == Files.end())
        Files.push_back(E.Begin.File);
    json::Array Changes;
    for (const std::string &File : Files) {
      json::Array Replacements;
      for (const Edit &E : F.Fixes) {
        if (E.Begin.File != File)
          continue;
        Replacements.push_back(json::Object{
            {"deletedRegion", json::Object{{"startLine", E.Begin.Line},
                                           {"startColumn", E.Begin.Column},
                                           {"endLine", E.End.Line},
                                           {"endColumn", E.End.Column}}},
            {"insertedContent", json::Object{{"text", E.Text}}}});
      }
      Changes.push_back(json::Object{{"artifactLocation", artifactLocation(File, Context)},
                                     {"replacements", std::move(Replacements)}});
    }
    Result["fixes"] = json::Array{json::Object{
        {"description", json::Object{{"text", "Apply the fix-it of " + F.Check}}},
        {"artifactChanges", std::move(Changes)}}};
  }
  return Result;
}

json::Array notifications(const OutputContext &Context) {
  json::Array Out;
  for (const std::string &E : Context.Errors)
    Out.push_back(json::Object{{"level", "error"}, {"message", json::Object{{"text", E}}}});
  for (const std::string &W : Context.Warnings)
    Out.push_back(json::Object{{"level", "warning"}, {"message", json::Object{{"text", W}}}});
  return Out;
}

} // namespace

void writeText(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
               const OutputContext &Context) {
  for (const Finding &F : Findings) {
    OS << relativePath(F.Where.File, Context.Root) << ':' << F.Where.Line << ':'
       << F.Where.Column << ": " << (F.IsError ? "error" : "warning") << ": " << F.Message
       << " [" << F.Check << "]\n";
    for (const Note &N : F.Notes)
      OS << relativePath(N.Where.File, Context.Root) << ':' << N.Where.Line << ':'
         << N.Where.Column << ": note: " << N.Message << "\n";
  }
}

json::Value toJson(const std::vector<Finding> &Findings, const OutputContext &Context) {
  auto Point = [&](const SourcePoint &P) {
    return json::Object{{"file", relativePath(P.File, Context.Root)},
                        {"line", P.Line},
                        {"column", P.Column}};
  };
  json::Array Out;
  for (const Finding &F : Findings) {
    json::Object Entry = Point(F.Where);
    Entry["id"] = F.Id;
    Entry["check"] = F.Check;
    Entry["level"] = F.IsError ? "error" : "warning";
    Entry["message"] = F.Message;
    Entry["function"] = F.Function;
    json::Array Notes, Fixes;
    for (const Note &N : F.Notes) {
      json::Object O = Point(N.Where);
      O["message"] = N.Message;
      Notes.push_back(std::move(O));
    }
    for (const Edit &E : F.Fixes)
      Fixes.push_back(json::Object{{"file", relativePath(E.Begin.File, Context.Root)},
                                   {"offset", E.Offset},
                                   {"length", E.Length},
                                   {"text", E.Text}});
    Entry["notes"] = std::move(Notes);
    Entry["fixes"] = std::move(Fixes);
    Out.push_back(std::move(Entry));
  }
  json::Array Units;
  for (const OutputContext::UnitPch &U : Context.Units) {
    json::Object Unit{{"file", relativePath(U.File, Context.Root)},
                      {"pch", U.NoPchReason.empty()}};
    if (!U.NoPchReason.empty())
      Unit["no_pch_reason"] = U.NoPchReason;
    Units.push_back(std::move(Unit));
  }
  return json::Object{{"version", 1},
                      {"tool", json::Object{{"name", "torchalias"},
                                            {"version", TORCHALIAS_VERSION}}},
                      {"errors", json::Array(Context.Errors)},
                      {"units", std::move(Units)},
                      {"findings", std::move(Out)}};
}

json::Value toSarif(const std::vector<Finding> &Findings, const OutputContext &Context) {
  json::Array Rules, Results;
  llvm::StringMap<unsigned> RuleIndex;
  for (const Finding &F : Findings) {
    auto [It, New] = RuleIndex.try_emplace(F.Check, Rules.size());
    if (New)
      Rules.push_back(rule(F.Check, Context));
    Results.push_back(sarifResult(F, It->second, Context));
  }
  llvm::SmallString<256> Root(Context.Root);
  if (!compat::endsWith(Root, "/"))
    Root += "/";
  json::Object Run{
      {"tool",
       json::Object{{"driver", json::Object{{"name", "torchalias"},
                                            {"version", TORCHALIAS_VERSION},
                                            {"semanticVersion", TORCHALIAS_VERSION},
                                            {"informationUri", Context.HelpUriBase},
                                            {"rules", std::move(Rules)}}}}},
      {"originalUriBaseIds",
       json::Object{{"SRCROOT", json::Object{{"uri", fileUri(Root)}}}}},
      {"invocations", json::Array{json::Object{
                          {"executionSuccessful", Context.Errors.empty()},
                          {"toolExecutionNotifications", notifications(Context)}}}},
      {"results", std::move(Results)}};
  return json::Object{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                      {"version", "2.1.0"},
                      {"runs", json::Array{std::move(Run)}}};
}

llvm::Expected<json::Value> mergeSarif(const std::vector<json::Value> &Logs) {
  auto Invalid = [](unsigned I, const char *What) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "input %u is not a torchalias SARIF log: %s", I + 1, What);
  };
  json::Object Merged;
  json::Array Rules, Results, Invocations;
  llvm::StringMap<unsigned> RuleIndex;
  for (unsigned I = 0; I < Logs.size(); ++I) {
    const json::Object *Log = Logs[I].getAsObject();
    auto Version = Log ? Log->getString("version") : decltype(Log->getString("version"))();
    if (!Version || *Version != "2.1.0")
      return Invalid(I, "no \"version\": \"2.1.0\"");
    const json::Array *Runs = Log->getArray("runs");
    if (!Runs)
      return Invalid(I, "no \"runs\"");
    for (const json::Value &RunValue : *Runs) {
      const json::Object *Run = RunValue.getAsObject();
      const json::Object *Tool = Run ? Run->getObject("tool") : nullptr;
      const json::Object *Driver = Tool ? Tool->getObject("driver") : nullptr;
      if (!Driver)
        return Invalid(I, "a run has no tool.driver");
      if (Merged.empty())
        Merged = *Run; // tool, originalUriBaseIds, ... of the first run
      std::vector<unsigned> Remap;
      if (const json::Array *RunRules = Driver->getArray("rules"))
        for (const json::Value &Rule : *RunRules) {
          std::string Id = Rule.getAsObject() && Rule.getAsObject()->getString("id")
                               ? Rule.getAsObject()->getString("id")->str()
                               : "";
          auto [It, New] = RuleIndex.try_emplace(Id, Rules.size());
          if (New)
            Rules.push_back(Rule);
          Remap.push_back(It->second);
        }
      if (const json::Array *RunResults = Run->getArray("results"))
        for (json::Value Result : *RunResults) {
          if (json::Object *R = Result.getAsObject())
            if (auto Index = R->getInteger("ruleIndex");
                Index && *Index >= 0 && static_cast<size_t>(*Index) < Remap.size())
              (*R)["ruleIndex"] = Remap[*Index];
          Results.push_back(std::move(Result));
        }
      if (const json::Array *RunInvocations = Run->getArray("invocations"))
        for (const json::Value &Invocation : *RunInvocations)
          Invocations.push_back(Invocation);
    }
  }
  if (Merged.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "no runs to merge");
  (*Merged.getObject("tool")->getObject("driver"))["rules"] = std::move(Rules);
  Merged["results"] = std::move(Results);
  Merged["invocations"] = std::move(Invocations);
  return json::Object{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                      {"version", "2.1.0"},
                      {"runs", json::Array{std::move(Merged)}}};
}

} // namespace torchalias::driver
