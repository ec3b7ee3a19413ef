//===- PchCache.cpp - Automatic PCH of the libtorch headers ---------------===//

#include "PchCache.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

namespace torchalias::driver {

// Note [When a PCH is used]
// Parsing <torch/torch.h> is nearly all of the cost of a translation unit.
// `torchalias check` precompiles it once per distinct set of compile flags
// (with -fpch-instantiate-templates, so that the templates libtorch's own
// inline code uses are instantiated once, in the PCH) and passes
// `-include-pch` to every unit that can use it. A PCH is transparent, that is
// the unit sees the declarations and macros it would have seen, only when
//   - the directives at the top of the unit reach `#include <torch/torch.h>`
//     through nothing but `#pragma once`, include guards, project headers
//     that do the same, and angled includes of headers that the PCH already
//     contains (so reading the PCH first only reorders include-guarded
//     headers that torch.h includes anyway): nothing the unit defines comes
//     before libtorch, and libtorch is not forced into a unit that does not
//     include it first (includesBeforeTorch);
//   - its command line has no forced includes (-include, -imacros,
//     -include-pch) and is C++;
// and the PCH was built from the same flags (the cache key is the xxHash of
// the flags, the working directory and clang's version) and from the headers
// as they are now: next to each PCH a manifest lists every file it read with
// its size and modification time, and a PCH whose manifest no longer matches
// is rebuilt. Any other unit is parsed as clang-tidy would. If the PCH
// cannot be built (the flags do not compile the header), the unit is parsed
// plainly, and so is a unit whose PCH run reports a compiler error (the
// runner re-runs it without the PCH, so that the error is the one the plain
// parse gives).

namespace {

/// The directives at the top of a file, as (name, rest of the line), up to
/// the first token that is not part of a directive.
std::vector<std::pair<std::string, std::string>> leadingDirectives(llvm::StringRef Source) {
  clang::LangOptions Lang;
  Lang.CPlusPlus = true;
  clang::Lexer Lex(clang::SourceLocation(), Lang, Source.begin(), Source.begin(),
                   Source.end());
  std::vector<std::pair<std::string, std::string>> Out;
  clang::Token Tok;
  while (true) {
    Lex.LexFromRawLexer(Tok);
    if (!Tok.is(clang::tok::hash) || !Tok.isAtStartOfLine())
      return Out;
    Lex.LexFromRawLexer(Tok);
    if (!Tok.is(clang::tok::raw_identifier))
      return Out;
    std::string Name = Tok.getRawIdentifier().str();
    size_t Offset = Lex.getBufferLocation() - Source.begin();
    size_t End = Source.find('\n', Offset);
    if (End == llvm::StringRef::npos)
      End = Source.size();
    llvm::StringRef Rest = Source.slice(Offset, End);
    Rest = Rest.split("//").first.split("/*").first.trim();
    Out.emplace_back(Name, Rest.str());
    Lex.seek(End, /*IsAtStartOfLine=*/true);
  }
}

} // namespace

std::optional<std::vector<std::string>> includesBeforeTorch(llvm::StringRef Path,
                                                             unsigned Depth) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return std::nullopt;
  std::vector<std::pair<std::string, std::string>> Directives =
      leadingDirectives((*Buffer)->getBuffer());
  std::vector<std::string> Before;
  for (size_t I = 0; I < Directives.size(); ++I) {
    const auto &[Name, Rest] = Directives[I];
    if (Name == "pragma" && Rest == "once")
      continue;
    // A header's include guard.
    if (Depth > 0 && I == 0 && Name == "ifndef" && Directives.size() > 1 &&
        Directives[1].first == "define" && Directives[1].second == Rest) {
      ++I;
      continue;
    }
    if (Name != "include")
      return std::nullopt;
    if (Rest == "<torch/torch.h>" || Rest == "\"torch/torch.h\"")
      return Before;
    llvm::StringRef Spelling(Rest);
    if (Spelling.size() < 3)
      return std::nullopt;
    if (Spelling.front() == '<' && Spelling.back() == '>') {
      Before.push_back(Spelling.drop_front().drop_back().str());
      continue;
    }
    if (Spelling.front() != '"' || Spelling.back() != '"' || Depth >= 4)
      return std::nullopt;
    // A project header next to this file that itself leads with libtorch.
    llvm::SmallString<256> Header(llvm::sys::path::parent_path(Path));
    llvm::sys::path::append(Header, Spelling.drop_front().drop_back());
    std::optional<std::vector<std::string>> Nested = includesBeforeTorch(Header, Depth + 1);
    if (!Nested)
      return std::nullopt;
    Before.insert(Before.end(), Nested->begin(), Nested->end());
    return Before;
  }
  return std::nullopt;
}


namespace {

/// The flags that decide the PCH's content: the syntax-only command line
/// without its input file.
std::vector<std::string> flagsOf(const std::vector<std::string> &Args,
                                 llvm::StringRef File, llvm::StringRef WorkingDir) {
  llvm::SmallString<256> Input(File);
  llvm::sys::fs::make_absolute(WorkingDir, Input);
  std::vector<std::string> Flags;
  for (const std::string &Arg : Args) {
    llvm::SmallString<256> Absolute(Arg);
    llvm::sys::fs::make_absolute(WorkingDir, Absolute);
    if (Arg != File && Absolute != Input)
      Flags.push_back(Arg);
  }
  return Flags;
}

/// No forced includes, and C++ (a `-x` other than c++ changes the language).
bool isTransparent(const std::vector<std::string> &Flags) {
  for (size_t I = 0; I < Flags.size(); ++I) {
    llvm::StringRef Flag = Flags[I];
    if (Flag.starts_with("-include") || Flag.starts_with("--include") ||
        Flag.starts_with("-imacros"))
      return false;
    if (Flag == "-x" && (I + 1 == Flags.size() || Flags[I + 1] != "c++"))
      return false;
    if (Flag.starts_with("-x") && Flag != "-x" && Flag != "-xc++")
      return false;
  }
  return true;
}

struct ManifestEntry {
  std::string Path;
  uint64_t Size = 0;
  int64_t Modified = 0;
};

std::optional<ManifestEntry> stat(llvm::StringRef Path) {
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status))
    return std::nullopt;
  return ManifestEntry{Path.str(), Status.getSize(),
                       llvm::sys::toTimeT(Status.getLastModificationTime())};
}

/// The files a PCH was built from, if they are all unchanged since.
std::optional<std::vector<std::string>> currentManifest(llvm::StringRef ManifestPath) {
  auto Buffer = llvm::MemoryBuffer::getFile(ManifestPath);
  if (!Buffer)
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  if (Lines.empty())
    return std::nullopt;
  std::vector<std::string> Files;
  for (llvm::StringRef Line : Lines) {
    auto [SizeText, Rest] = Line.split(' ');
    auto [TimeText, Path] = Rest.split(' ');
    uint64_t Size;
    int64_t Modified;
    if (SizeText.getAsInteger(10, Size) || TimeText.getAsInteger(10, Modified))
      return std::nullopt;
    std::optional<ManifestEntry> Now = stat(Path);
    if (!Now || Now->Size != Size || Now->Modified != Modified)
      return std::nullopt;
    Files.push_back(Path.str());
  }
  return Files;
}

/// GeneratePCHAction that also writes the manifest of the files it read.
class GeneratePchWithManifest : public clang::GeneratePCHAction {
public:
  explicit GeneratePchWithManifest(std::string ManifestPath)
      : ManifestPath(std::move(ManifestPath)) {}

  void EndSourceFileAction() override {
    clang::SourceManager &SM = getCompilerInstance().getSourceManager();
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
      llvm::StringRef Name = It->first.getFileEntry().tryGetRealPathName();
      if (Name.empty())
        Name = It->first.getName();
      if (std::optional<ManifestEntry> Now = stat(Name))
        OS << Now->Size << ' ' << Now->Modified << ' ' << Now->Path << '\n';
    }
    std::error_code EC;
    llvm::raw_fd_ostream Out(ManifestPath, EC);
    if (!EC)
      Out << Text;
    clang::GeneratePCHAction::EndSourceFileAction();
  }

private:
  std::string ManifestPath;
};

class OneCommand : public clang::tooling::CompilationDatabase {
public:
  explicit OneCommand(clang::tooling::CompileCommand Command) : Command(std::move(Command)) {}
  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef) const override {
    return {Command};
  }

private:
  clang::tooling::CompileCommand Command;
};

/// Swallows the diagnostics of a PCH build: a header that does not compile
/// with these flags only means that the unit is parsed plainly.
class QuietConsumer : public clang::DiagnosticConsumer {};

} // namespace

llvm::Error PchCache::prepare() {
  if (std::error_code EC = llvm::sys::fs::create_directories(Directory))
    return llvm::createStringError(EC, "cannot create the PCH cache '%s': %s",
                                   Directory.c_str(), EC.message().c_str());
  llvm::SmallString<256> Probe;
  int FD;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(
          Directory + "/write-test-%%%%%%", FD, Probe))
    return llvm::createStringError(EC, "cannot write the PCH cache '%s': %s",
                                   Directory.c_str(), EC.message().c_str());
  llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  llvm::sys::fs::remove(Probe);
  return llvm::Error::success();
}

std::optional<std::string> PchCache::pchFor(const std::vector<std::string> &Args,
                                            llvm::StringRef File,
                                            llvm::StringRef WorkingDir) {
  std::vector<std::string> Flags = flagsOf(Args, File, WorkingDir);
  if (!isTransparent(Flags))
    return std::nullopt;
  llvm::SmallString<256> Path(File);
  llvm::sys::fs::make_absolute(WorkingDir, Path);
  std::optional<std::vector<std::string>> Before = includesBeforeTorch(Path);
  if (!Before)
    return std::nullopt;

  std::string KeyText = clang::getClangFullVersion() + '\0' + WorkingDir.str();
  for (const std::string &Flag : Flags)
    KeyText += '\0' + Flag;
  std::string Key = llvm::utohexstr(llvm::xxh3_64bits(llvm::StringRef(KeyText)),
                                    /*LowerCase=*/true, /*Width=*/16);
  std::shared_future<std::optional<Built>> Result;
  std::promise<std::optional<Built>> Promise;
  bool Builds = false;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto [It, Inserted] = ByKey.try_emplace(Key);
    if (Inserted) {
      It->second = Promise.get_future().share();
      Builds = true;
    }
    Result = It->second;
  }
  if (Builds)
    Promise.set_value(buildOrReuse(Key, Flags, WorkingDir));
  const std::optional<Built> &Pch = Result.get();
  if (!Pch)
    return std::nullopt;
  // What the unit includes before libtorch must already be in the PCH, so
  // that reading the PCH first changes nothing.
  for (const std::string &Spelling : *Before)
    if (llvm::none_of(Pch->Files, [&](llvm::StringRef Included) {
          return Included.ends_with("/" + Spelling);
        }))
      return std::nullopt;
  return Pch->Path;
}

std::optional<PchCache::Built> PchCache::buildOrReuse(const std::string &Key,
                                                  const std::vector<std::string> &Flags,
                                                  llvm::StringRef WorkingDir) {
  std::string Pch = Directory + "/" + Key + ".pch";
  std::string Manifest = Directory + "/" + Key + ".deps";
  if (llvm::sys::fs::exists(Pch))
    if (std::optional<std::vector<std::string>> Files = currentManifest(Manifest)) {
      ++Reused;
      return Built{Pch, std::move(*Files)};
    }
  std::string Header = Directory + "/" + Key + ".h";
  {
    std::error_code EC;
    llvm::raw_fd_ostream Out(Header, EC);
    if (EC)
      return std::nullopt;
    Out << "#include <torch/torch.h>\n";
  }
  // Build into a unique name, then rename: other processes (shards) may be
  // building or reading the same key.
  llvm::SmallString<256> Temporary;
  llvm::sys::fs::createUniquePath(Pch + ".tmp-%%%%%%%%", Temporary, false);
  std::vector<std::string> CommandLine(Flags.begin(), Flags.end());
  CommandLine.erase(std::remove(CommandLine.begin(), CommandLine.end(), "-fsyntax-only"),
                    CommandLine.end());
  // Templates the header uses are instantiated once, in the PCH, rather than
  // at the end of every unit: most of what is left of a unit's parse time.
  CommandLine.insert(CommandLine.end(), {"-fpch-instantiate-templates", "-x", "c++-header",
                                         Header, "-o", std::string(Temporary)});
  OneCommand Database({WorkingDir.str(), Header, CommandLine, std::string(Temporary)});
  clang::tooling::ClangTool Tool(Database, {Header});
  Tool.clearArgumentsAdjusters();
  QuietConsumer Quiet;
  Tool.setDiagnosticConsumer(&Quiet);
  std::string TemporaryManifest = Manifest + ".tmp";
  struct Factory : clang::tooling::FrontendActionFactory {
    std::string ManifestPath;
    std::unique_ptr<clang::FrontendAction> create() override {
      return std::make_unique<GeneratePchWithManifest>(ManifestPath);
    }
  } MakeAction;
  MakeAction.ManifestPath = TemporaryManifest;
  if (Tool.run(&MakeAction) != 0 || !llvm::sys::fs::exists(Temporary)) {
    llvm::sys::fs::remove(Temporary);
    llvm::sys::fs::remove(TemporaryManifest);
    return std::nullopt;
  }
  if (llvm::sys::fs::rename(Temporary, Pch) ||
      llvm::sys::fs::rename(TemporaryManifest, Manifest))
    return std::nullopt;
  std::optional<std::vector<std::string>> Files = currentManifest(Manifest);
  if (!Files)
    return std::nullopt;
  ++BuiltCount;
  return Built{Pch, std::move(*Files)};
}

} // namespace torchalias::driver
