//===- Findings.cpp - Finding identity, baselines and diffs ---------------===//

#include "Findings.h"
#include "Compat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <xxhash.h>

#include <map>
#include <optional>
#include <tuple>

namespace torchalias::driver {

namespace json = llvm::json;

// Note [Finding identity]
// A baseline must keep matching a finding after lines are inserted above it
// and after unrelated edits elsewhere in the file, and must not match a new
// finding. So the identity is not a line number. It is the xxHash (XXH3, 64
// bits, from libxxhash, so that it is the same whichever LLVM the tool is
// built with) of
//   - the check,
//   - the file, relative to the root (the working directory by default),
//   - the qualified name of the enclosing function (empty at namespace scope),
//   - the finding's source line with its whitespace normalised, and
//   - how many earlier findings in the same file share the four above,
// written as 16 hex digits. Editing the flagged line itself, or renaming the
// function, makes it a new finding, as it should: the code was changed. The
// identity is the SARIF result's partialFingerprint, so code scanning and
// `torchalias report` match findings across runs the same way.

std::string relativePath(llvm::StringRef Path, llvm::StringRef Root) {
  if (Root.empty())
    return Path.str();
  llvm::SmallString<256> Prefix(Root);
  if (!compat::endsWith(Prefix, "/"))
    Prefix += "/";
  if (compat::startsWith(Path, Prefix))
    return Path.drop_front(Prefix.size()).str();
  return Path.str();
}

std::string normaliseSnippet(llvm::StringRef Line) {
  std::string Out;
  bool Space = false;
  for (char C : Line.trim()) {
    if (llvm::isSpace(C)) {
      Space = true;
      continue;
    }
    if (Space)
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

std::string hash64(llvm::StringRef Text) {
  return llvm::utohexstr(XXH3_64bits(Text.data(), Text.size()), /*LowerCase=*/true,
                         /*Width=*/16);
}

void assignIds(std::vector<Finding> &Findings, llvm::StringRef Root) {
  std::map<std::string, unsigned> Seen;
  for (Finding &F : Findings) {
    std::string Key;
    llvm::raw_string_ostream OS(Key);
    OS << F.Check << '\0' << relativePath(F.Where.File, Root) << '\0'
       << F.Function << '\0' << F.Snippet << '\0';
    OS << Seen[Key]++;
    F.Id = hash64(OS.str());
  }
}

llvm::Expected<std::set<std::string>> readBaseline(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "cannot read baseline '%s': %s",
                                   Path.str().c_str(),
                                   Buffer.getError().message().c_str());
  auto Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "baseline '%s' is not JSON: %s", Path.str().c_str(),
                                   llvm::toString(Parsed.takeError()).c_str());
  const json::Object *Top = Parsed->getAsObject();
  const json::Array *Entries = Top ? Top->getArray("findings") : nullptr;
  if (!Entries)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "baseline '%s' has no \"findings\" array",
                                   Path.str().c_str());
  std::set<std::string> Ids;
  for (const json::Value &Entry : *Entries) {
    const json::Object *E = Entry.getAsObject();
    auto Id = E ? E->getString("id") : decltype(E->getString("id"))();
    if (!Id)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "baseline '%s': an entry has no \"id\"",
                                     Path.str().c_str());
    Ids.insert(Id->str());
  }
  return Ids;
}

llvm::Error writeBaseline(llvm::StringRef Path, const std::vector<Finding> &Findings,
                          llvm::StringRef Root) {
  json::Array Entries;
  for (const Finding &F : Findings)
    Entries.push_back(json::Object{{"id", F.Id},
                                   {"check", F.Check},
                                   {"file", relativePath(F.Where.File, Root)},
                                   {"function", F.Function},
                                   {"snippet", F.Snippet}});
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC)
    return llvm::createStringError(EC, "cannot write baseline '%s': %s",
                                   Path.str().c_str(), EC.message().c_str());
  OS << llvm::formatv("{0:2}", json::Value(json::Object{
                                   {"version", 1}, {"findings", std::move(Entries)}}))
     << "\n";
  return llvm::Error::success();
}

ChangedLines parseUnifiedDiff(llvm::StringRef Diff, llvm::StringRef Root) {
  ChangedLines Changed;
  std::set<unsigned> *Current = nullptr;
  unsigned NewLine = 0, OldLeft = 0, NewLeft = 0; // within a hunk
  llvm::SmallVector<llvm::StringRef> Lines;
  Diff.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    if (OldLeft || NewLeft) {
      // A hunk's body: added lines are the changed ones.
      if (compat::startsWith(Line, "+")) {
        if (Current)
          Current->insert(NewLine);
        ++NewLine, --NewLeft;
      } else if (compat::startsWith(Line, "-")) {
        OldLeft -= OldLeft > 0;
      } else if (!compat::startsWith(Line, "\\")) { // not "\ No newline at end of file"
        ++NewLine;
        OldLeft -= OldLeft > 0;
        NewLeft -= NewLeft > 0;
      }
      continue;
    }
    if (Line.consume_front("+++ ")) {
      Line = Line.split('\t').first.rtrim();
      Current = nullptr;
      if (Line == "/dev/null")
        continue;
      // git writes b/path; plain diff -u writes the path itself.
      if (compat::startsWith(Line, "b/"))
        Line = Line.drop_front(2);
      llvm::SmallString<256> Path(Line);
      if (!llvm::sys::path::is_absolute(Path))
        Path = (Root + "/" + Line).str();
      llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
      Current = &Changed[std::string(Path)];
      continue;
    }
    // @@ -a[,b] +c[,d] @@
    if (!Line.consume_front("@@ -"))
      continue;
    auto [Old, Rest] = Line.split(" +");
    llvm::StringRef New = Rest.split(' ').first;
    unsigned OldStart = 0, NewStart = 0;
    OldLeft = NewLeft = 1;
    auto [OldStartText, OldCountText] = Old.split(',');
    auto [NewStartText, NewCountText] = New.split(',');
    if (OldStartText.getAsInteger(10, OldStart) || NewStartText.getAsInteger(10, NewStart) ||
        (!OldCountText.empty() && OldCountText.getAsInteger(10, OldLeft)) ||
        (!NewCountText.empty() && NewCountText.getAsInteger(10, NewLeft))) {
      OldLeft = NewLeft = 0;
      continue;
    }
    NewLine = NewStart;
  }
  return Changed;
}

} // namespace torchalias::driver
