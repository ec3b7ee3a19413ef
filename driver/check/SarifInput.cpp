//===- SarifInput.cpp - Findings read back from a SARIF log ---------------===//

#include "SarifInput.h"
#include "Compat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace torchalias::driver {

namespace json = llvm::json;
namespace compat = torchalias::compat;

namespace {

llvm::Error malformed(llvm::StringRef Path, const llvm::Twine &What) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + Path + "' is not a SARIF log of torchalias check: " + What);
}

/// "file:///a%20b/c" -> "/a b/c"; "src/x.cpp" stays relative.
std::string decodeUri(llvm::StringRef Uri) {
  if (Uri.consume_front("file://"))
    Uri.consume_front("localhost");
  std::string Out;
  for (size_t I = 0; I < Uri.size(); ++I) {
    unsigned Byte;
    if (Uri[I] == '%' && I + 2 < Uri.size() && !Uri.substr(I + 1, 2).getAsInteger(16, Byte)) {
      Out += static_cast<char>(Byte);
      I += 2;
    } else {
      Out += Uri[I];
    }
  }
  return Out;
}

std::string resolve(const json::Object *Artifact, const json::Object *BaseIds,
                    llvm::StringRef RootOverride) {
  if (!Artifact)
    return "";
  std::string Path = decodeUri(compat::valueOr(Artifact->getString("uri"), ""));
  if (Path.empty() || llvm::sys::path::is_absolute(Path))
    return Path;
  std::string Base = RootOverride.str();
  if (Base.empty())
    if (auto Id = Artifact->getString("uriBaseId"); Id && BaseIds)
      if (const json::Object *Entry = BaseIds->getObject(*Id))
        Base = decodeUri(compat::valueOr(Entry->getString("uri"), ""));
  llvm::SmallString<256> Full(Base);
  llvm::sys::path::append(Full, Path);
  llvm::sys::path::remove_dots(Full, /*remove_dot_dot=*/true);
  return std::string(Full);
}

SourcePoint point(const json::Object *Physical, const json::Object *BaseIds,
                  llvm::StringRef RootOverride) {
  SourcePoint Where;
  if (!Physical)
    return Where;
  Where.File = resolve(Physical->getObject("artifactLocation"), BaseIds, RootOverride);
  if (const json::Object *Region = Physical->getObject("region")) {
    Where.Line = compat::valueOr(Region->getInteger("startLine"), 0);
    Where.Column = compat::valueOr(Region->getInteger("startColumn"), 1);
  }
  return Where;
}

} // namespace

llvm::Expected<SarifLog> readSarif(llvm::StringRef Path, llvm::StringRef RootOverride) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "cannot read '%s': %s", Path.str().c_str(),
                                   Buffer.getError().message().c_str());
  auto Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed)
    return malformed(Path, "not JSON: " + llvm::toString(Parsed.takeError()));
  SarifLog Log;
  Log.Log = std::move(*Parsed);
  const json::Object *Top = Log.Log.getAsObject();
  const json::Array *Runs = Top ? Top->getArray("runs") : nullptr;
  if (!Runs)
    return malformed(Path, "no 'runs'");
  for (unsigned RunIndex = 0; RunIndex < Runs->size(); ++RunIndex) {
    const json::Object *Run = (*Runs)[RunIndex].getAsObject();
    if (!Run)
      return malformed(Path, "a run is not an object");
    const json::Object *BaseIds = Run->getObject("originalUriBaseIds");
    if (BaseIds && Log.Root.empty())
      if (const json::Object *Src = BaseIds->getObject("SRCROOT"))
        Log.Root = llvm::StringRef(decodeUri(compat::valueOr(Src->getString("uri"), ""))).rtrim('/').str();
    const json::Array *Results = Run->getArray("results");
    for (unsigned I = 0; Results && I < Results->size(); ++I) {
      const json::Object *Result = (*Results)[I].getAsObject();
      if (!Result)
        return malformed(Path, "a result is not an object");
      StaticFinding F;
      F.Run = RunIndex;
      F.Result = I;
      F.Check = compat::valueOr(Result->getString("ruleId"), "").str();
      if (const json::Object *Prints = Result->getObject("partialFingerprints"))
        F.Id = compat::valueOr(Prints->getString("torchalias/v1"), "").str();
      if (F.Id.empty())
        return malformed(Path, llvm::formatv("result {0} of run {1} has no 'torchalias/v1' "
                                             "fingerprint",
                                             I, RunIndex)
                                   .str());
      if (const json::Object *Message = Result->getObject("message"))
        F.Message = compat::valueOr(Message->getString("text"), "").str();
      if (const json::Array *Locations = Result->getArray("locations"); Locations &&
                                                                         !Locations->empty())
        if (const json::Object *First = Locations->front().getAsObject())
          F.Where = point(First->getObject("physicalLocation"), BaseIds, RootOverride);
      if (const json::Array *Related = Result->getArray("relatedLocations"))
        for (const json::Value &R : *Related)
          if (const json::Object *Object = R.getAsObject()) {
            Note N;
            if (const json::Object *Message = Object->getObject("message"))
              N.Message = compat::valueOr(Message->getString("text"), "").str();
            N.Where = point(Object->getObject("physicalLocation"), BaseIds, RootOverride);
            F.Related.push_back(std::move(N));
          }
      Log.Findings.push_back(std::move(F));
    }
  }
  if (!RootOverride.empty())
    Log.Root = RootOverride.str();
  return Log;
}

} // namespace torchalias::driver
