//===- PchCache.cpp - Automatic PCH of the libtorch headers ---------------===//

#include "PchCache.h"
#include "Findings.h"
#include "Compat.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace torchalias::driver {

// Note [When a PCH is used]
// Parsing <torch/torch.h> is nearly all of the cost of a translation unit.
// `torchalias check` precompiles it and passes `-include-pch` to every unit
// that can use it. The PCH is built with -fpch-instantiate-templates, so that
// the templates libtorch's own inline code uses are instantiated once, in the
// PCH. A PCH is used only where it is transparent, that is where the unit
// sees the declarations and macros it would have seen:
//   - The directives at the top of the unit reach `#include <torch/torch.h>`
//     through nothing but `#pragma once`, include guards, headers that do the
//     same (found as the compiler would, through the unit's search paths),
//     and includes of headers that the PCH already contains. Reading the PCH
//     first then only reorders include-guarded headers that torch.h includes
//     anyway. Nothing the unit defines comes before libtorch, and libtorch is
//     not forced into a unit that does not include it first.
//     (includesBeforeTorch)
//   - Its command line has no forced includes (-include, -imacros,
//     -include-pch) and is C++.
//   - The PCH was built from the same flags, apart from include directories:
//     the cache key is the xxHash of clang's version and the flags without
//     -I, -iquote, -isystem and -idirafter. The include directories are
//     checked instead: every header the PCH read must be found at the same
//     place through the unit's search paths (no directory of the unit shadows
//     it). So the units of a project's different targets, which differ in
//     their own include directories, share one PCH.
//   - The headers are as they were: beside each PCH a manifest lists its
//     search directories and every file it read, with size and modification
//     time, and a PCH whose files changed is rebuilt.
// Any other unit is parsed as clang-tidy would. If the PCH cannot be built
// (the flags do not compile the header), the unit is parsed plainly, and so
// is a unit whose PCH run reports a compiler error (the runner re-runs it
// without the PCH, so that the error is the one the plain parse gives).

namespace {

/// The directives at the top of a file, as (name, rest of the line), up to
/// the first token that is not part of a directive.
std::vector<std::pair<std::string, std::string>> leadingDirectives(llvm::StringRef Source) {
  clang::LangOptions Lang;
  Lang.CPlusPlus = true;
  std::vector<std::pair<std::string, std::string>> Out;
  size_t Line = 0; // where the next directive may start
  while (true) {
    // A raw lexer from the start of each line: comments and blank lines are
    // skipped, and nothing needs repositioning.
    clang::Lexer Lex(clang::SourceLocation(), Lang, Source.begin(), Source.begin() + Line,
                     Source.end());
    clang::Token Tok;
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
    if (End == Source.size())
      return Out;
    Line = End + 1;
  }
}

std::string absoluteIn(llvm::StringRef WorkingDir, llvm::StringRef Path) {
  llvm::SmallString<256> Out(Path);
  compat::makeAbsolute(WorkingDir, Out);
  llvm::sys::path::remove_dots(Out, /*remove_dot_dot=*/true);
  return std::string(Out);
}

std::string realPath(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Path, Real))
    return Path.str();
  return std::string(Real);
}

/// The first file Spelling names in Dirs, if any.
std::optional<std::string> findIn(const std::vector<std::string> &Dirs,
                                  llvm::StringRef Spelling) {
  for (const std::string &Dir : Dirs) {
    llvm::SmallString<256> Candidate(Dir);
    llvm::sys::path::append(Candidate, Spelling);
    if (llvm::sys::fs::is_regular_file(Candidate))
      return realPath(Candidate);
  }
  return std::nullopt;
}

const char *const IncludeDirFlags[] = {"-I", "-iquote", "-isystem", "-idirafter"};

/// The flags without their include directories, and those directories.
struct SplitFlags {
  std::vector<std::string> Rest;
  SearchPaths Paths;
};

SplitFlags splitFlags(const std::vector<std::string> &Flags, llvm::StringRef WorkingDir) {
  SplitFlags Out;
  std::vector<std::string> System, After;
  for (size_t I = 0; I < Flags.size(); ++I) {
    llvm::StringRef Flag = Flags[I];
    const char *Matched = nullptr;
    for (const char *Prefix : IncludeDirFlags)
      if (compat::startsWith(Flag, Prefix) && (!Matched || strlen(Prefix) > strlen(Matched)))
        Matched = Prefix;
    if (!Matched) {
      Out.Rest.push_back(Flags[I]);
      continue;
    }
    std::string Dir = Flag.size() > strlen(Matched) ? Flag.drop_front(strlen(Matched)).str()
                      : I + 1 < Flags.size()          ? Flags[++I]
                                                      : "";
    Dir = absoluteIn(WorkingDir, Dir);
    llvm::StringRef Kind = Matched;
    if (Kind == "-iquote")
      Out.Paths.Quoted.push_back(Dir);
    else if (Kind == "-I")
      Out.Paths.Angled.push_back(Dir);
    else if (Kind == "-isystem")
      System.push_back(Dir);
    else
      After.push_back(Dir);
  }
  // The compiler's order: -I, then -isystem, then -idirafter.
  Out.Paths.Angled.insert(Out.Paths.Angled.end(), System.begin(), System.end());
  Out.Paths.Angled.insert(Out.Paths.Angled.end(), After.begin(), After.end());
  return Out;
}

/// The include directories of the flags, as real paths, in search order.
std::vector<std::string> flagDirs(const SearchPaths &Paths) {
  std::vector<std::string> Dirs;
  for (const auto *List : {&Paths.Quoted, &Paths.Angled})
    for (const std::string &Dir : *List)
      if (std::string Real = realPath(Dir); llvm::find(Dirs, Real) == Dirs.end())
        Dirs.push_back(Real);
  return Dirs;
}

/// The flags that decide the PCH's content: the syntax-only command line
/// without its input file.
std::vector<std::string> flagsOf(const std::vector<std::string> &Args, llvm::StringRef File,
                                 llvm::StringRef WorkingDir) {
  std::string Input = absoluteIn(WorkingDir, File);
  std::vector<std::string> Flags;
  for (const std::string &Arg : Args)
    if (Arg != File && absoluteIn(WorkingDir, Arg) != Input)
      Flags.push_back(Arg);
  return Flags;
}

/// No forced includes, and C++ (a `-x` other than c++ changes the language).
bool isTransparent(const std::vector<std::string> &Flags) {
  for (size_t I = 0; I < Flags.size(); ++I) {
    llvm::StringRef Flag = Flags[I];
    if (compat::startsWith(Flag, "-include") || compat::startsWith(Flag, "--include") ||
        compat::startsWith(Flag, "-imacros"))
      return false;
    if (Flag == "-x" && (I + 1 == Flags.size() || Flags[I + 1] != "c++"))
      return false;
    if (compat::startsWith(Flag, "-x") && Flag != "-x" && Flag != "-xc++")
      return false;
  }
  return true;
}

struct FileStamp {
  uint64_t Size = 0;
  int64_t Modified = 0;
};

std::optional<FileStamp> stamp(llvm::StringRef Path) {
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status))
    return std::nullopt;
  return FileStamp{Status.getSize(), llvm::sys::toTimeT(Status.getLastModificationTime())};
}

/// Lets Sema skip the bodies of non-template functions.
class SkipNonTemplateBodies : public clang::ASTConsumer {
public:
  bool shouldSkipFunctionBody(clang::Decl *D) override {
    const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D);
    return FD && !FD->isTemplated();
  }
};

/// GeneratePCHAction that also writes the manifest: the search directories,
/// in order, and the files it read.
class GeneratePchWithManifest : public clang::GeneratePCHAction {
public:
  GeneratePchWithManifest(std::string ManifestPath, std::string Header,
                          std::vector<std::string> FlagDirs)
      : ManifestPath(std::move(ManifestPath)), Header(std::move(Header)),
        FlagDirs(std::move(FlagDirs)) {}

  // The bodies of non-template functions are skipped, as in a unit's own
  // parse of these headers (Note [Skipped bodies] in Runner.cpp).
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &CI,
                                                        llvm::StringRef File) override {
    CI.getFrontendOpts().SkipFunctionBodies = true;
    std::vector<std::unique_ptr<clang::ASTConsumer>> Consumers;
    Consumers.push_back(clang::GeneratePCHAction::CreateASTConsumer(CI, File));
    Consumers.push_back(std::make_unique<SkipNonTemplateBodies>());
    return std::make_unique<clang::MultiplexConsumer>(std::move(Consumers));
  }

  void EndSourceFileAction() override {
    clang::CompilerInstance &CI = getCompilerInstance();
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    for (const std::string &Dir : FlagDirs)
      OS << "flagdir " << Dir << '\n';
    compat::forEachSearchDir(CI.getPreprocessor().getHeaderSearchInfo(),
                             [&](llvm::StringRef Dir) { OS << "dir " << realPath(Dir) << '\n'; });
    compat::forEachFileRead(CI.getSourceManager(), [&](llvm::StringRef File) {
      std::string Name = realPath(File);
      if (Name == Header)
        return;
      if (std::optional<FileStamp> Now = stamp(Name))
        OS << "file " << Now->Size << ' ' << Now->Modified << ' ' << Name << '\n';
    });
    std::error_code EC;
    llvm::raw_fd_ostream Out(ManifestPath, EC);
    if (!EC)
      Out << Text;
    clang::GeneratePCHAction::EndSourceFileAction();
  }

private:
  std::string ManifestPath, Header;
  std::vector<std::string> FlagDirs;
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

std::optional<std::vector<std::string>>
includesBeforeTorch(llvm::StringRef Path, const SearchPaths &Paths, unsigned Depth) {
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
    bool Quoted = Spelling.front() == '"' && Spelling.back() == '"';
    if (!Quoted && !(Spelling.front() == '<' && Spelling.back() == '>'))
      return std::nullopt;
    Spelling = Spelling.drop_front().drop_back();
    // Where the compiler finds it: next to this file (quoted only), then the
    // quoted and angled search paths; else a system directory.
    std::vector<std::string> Dirs;
    if (Quoted) {
      Dirs.push_back(llvm::sys::path::parent_path(Path).str());
      Dirs.insert(Dirs.end(), Paths.Quoted.begin(), Paths.Quoted.end());
    }
    Dirs.insert(Dirs.end(), Paths.Angled.begin(), Paths.Angled.end());
    std::optional<std::string> Found = findIn(Dirs, Spelling);
    if (Found && Depth < 8)
      if (std::optional<std::vector<std::string>> Nested =
              includesBeforeTorch(*Found, Paths, Depth + 1)) {
        // A header that leads with libtorch: what it includes first must
        // be in the PCH, and the rest of this file does not matter.
        Before.insert(Before.end(), Nested->begin(), Nested->end());
        return Before;
      }
    // Otherwise it must be one of the PCH's own headers.
    Before.push_back(Found ? *Found : "/" + Spelling.str());
  }
  return std::nullopt;
}

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
  SplitFlags Split = splitFlags(Flags, WorkingDir);
  std::optional<std::vector<std::string>> Before =
      includesBeforeTorch(absoluteIn(WorkingDir, File), Split.Paths);
  if (!Before)
    return std::nullopt;

  // The cache key: clang's version and the flags other than include
  // directories; one variant per set of include directories that needed its
  // own PCH.
  std::string KeyText = clang::getClangFullVersion();
  for (const std::string &Flag : Split.Rest)
    KeyText += '\0' + Flag;
  std::string Prefix = hash64(KeyText);
  std::string DirsText;
  for (const std::string &Dir : flagDirs(Split.Paths))
    DirsText += Dir + '\0';
  std::string Own = Prefix + "-" + hash64(DirsText);

  // A variant that fits: this unit's own, then any other already built.
  std::vector<std::string> Keys{Own};
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Directory, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (compat::startsWith(Name, Prefix + "-") && compat::endsWith(Name, ".deps") &&
        !Name.contains(".tmp-") && Name.drop_back(5) != Own)
      Keys.push_back(Name.drop_back(5).str());
  }
  auto Use = [&](const std::string &Key) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Used.insert(Key);
  };
  for (size_t I = 1; I < Keys.size(); ++I)
    if (std::optional<Built> Pch = variant(Keys[I], nullptr, WorkingDir);
        Pch && fits(*Pch, *Before, Split.Paths)) {
      Use(Keys[I]);
      return Pch->Path;
    }
  if (std::optional<Built> Pch = variant(Own, &Flags, WorkingDir);
      Pch && fits(*Pch, *Before, Split.Paths)) {
    Use(Own);
    return Pch->Path;
  }
  return std::nullopt;
}

unsigned PchCache::built() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return BuiltKeys.size();
}

unsigned PchCache::reused() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return llvm::count_if(Used, [&](const std::string &Key) { return !BuiltKeys.count(Key); });
}

std::optional<PchCache::Built> PchCache::variant(const std::string &Key,
                                                 const std::vector<std::string> *Flags,
                                                 llvm::StringRef WorkingDir) {
  std::shared_future<std::optional<Built>> Result;
  std::promise<std::optional<Built>> Promise;
  bool Mine = false;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = ByKey.find(Key);
    if (It == ByKey.end()) {
      It = ByKey.emplace(Key, Promise.get_future().share()).first;
      Mine = true;
    }
    Result = It->second;
  }
  if (Mine) {
    std::optional<Built> Cached =
        readManifest(Directory + "/" + Key + ".pch", Directory + "/" + Key + ".deps");
    if (!Cached && Flags) {
      Cached = build(Key, *Flags, WorkingDir);
      if (Cached) {
        std::lock_guard<std::mutex> Lock(Mutex);
        BuiltKeys.insert(Key);
      }
    }
    Promise.set_value(std::move(Cached));
  }
  return Result.get();
}

bool PchCache::fits(const Built &Pch, const std::vector<std::string> &Before,
                    const SearchPaths &Paths) {

  // What the unit includes before libtorch must already be in the PCH.
  for (const std::string &Needed : Before)
    if (llvm::none_of(Pch.Files, [&](llvm::StringRef Included) {
          return Included == Needed || compat::endsWith(Included, Needed);
        }))
      return false;
  // Every header of the PCH is found at the same place through the unit's
  // search paths. Each file's home is the first of the PCH's search
  // directories that contains it. The unit must have the PCH's own include
  // directories that are homes, in the same order, and none of its other
  // directories may hold a file of the same name (it would shadow it).
  auto HomeOf = [&](llvm::StringRef Included) {
    return llvm::find_if(Pch.Dirs, [&](llvm::StringRef Dir) {
      return compat::startsWith(Included, Dir.str() + "/");
    });
  };
  std::vector<std::string> UnitDirs = flagDirs(Paths);
  std::vector<std::string> Homes, Own, Others;
  for (const std::string &Included : Pch.Files)
    if (auto Home = HomeOf(Included); Home != Pch.Dirs.end() &&
                                      llvm::is_contained(Pch.FlagDirs, *Home) &&
                                      !llvm::is_contained(Homes, *Home))
      Homes.push_back(*Home);
  for (const std::string &Dir : Pch.FlagDirs)
    if (llvm::is_contained(Homes, Dir))
      Own.push_back(Dir);
  std::vector<std::string> UnitOwn;
  for (const std::string &Dir : UnitDirs) {
    if (llvm::is_contained(Own, Dir))
      UnitOwn.push_back(Dir);
    else if (!llvm::is_contained(Pch.Dirs, Dir))
      Others.push_back(Dir);
  }
  if (UnitOwn != Own)
    return false;
  if (!Others.empty())
    for (const std::string &Included : Pch.Files) {
      auto Home = HomeOf(Included);
      if (Home == Pch.Dirs.end())
        continue; // found next to its includer, whatever the search paths
      llvm::StringRef Spelling = llvm::StringRef(Included).drop_front(Home->size() + 1);
      if (findIn(Others, Spelling))
        return false;
    }
  return true;
}

std::optional<PchCache::Built> PchCache::readManifest(const std::string &Pch,
                                                      const std::string &Manifest) {
  auto Buffer = llvm::MemoryBuffer::getFile(Manifest);
  if (!Buffer || !llvm::sys::fs::exists(Pch))
    return std::nullopt;
  Built Out{Pch, {}, {}, {}};
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines) {
    if (Line.consume_front("dir ")) {
      Out.Dirs.push_back(Line.str());
      continue;
    }
    if (Line.consume_front("flagdir ")) {
      Out.FlagDirs.push_back(Line.str());
      continue;
    }
    if (!Line.consume_front("file "))
      return std::nullopt;
    auto [SizeText, Rest] = Line.split(' ');
    auto [TimeText, Path] = Rest.split(' ');
    FileStamp Recorded;
    if (SizeText.getAsInteger(10, Recorded.Size) ||
        TimeText.getAsInteger(10, Recorded.Modified))
      return std::nullopt;
    std::optional<FileStamp> Now = stamp(Path);
    if (!Now || Now->Size != Recorded.Size || Now->Modified != Recorded.Modified)
      return std::nullopt; // a header changed: rebuild
    Out.Files.push_back(Path.str());
  }
  if (Out.Files.empty())
    return std::nullopt;
  return Out;
}

std::optional<PchCache::Built> PchCache::build(const std::string &Key,
                                               const std::vector<std::string> &Flags,
                                               llvm::StringRef WorkingDir) {
  std::string Pch = Directory + "/" + Key + ".pch";
  std::string Manifest = Directory + "/" + Key + ".deps";
  std::string Header = realPath(Directory) + "/" + Key + ".h";
  {
    std::error_code EC;
    llvm::raw_fd_ostream Out(Header, EC);
    if (EC)
      return std::nullopt;
    Out << "#include <torch/torch.h>\n";
  }
  // Build under unique names, then rename: other processes (shards) may be
  // building or reading the same key.
  llvm::SmallString<256> Temporary, TemporaryManifest;
  llvm::sys::fs::createUniquePath(Pch + ".tmp-%%%%%%%%", Temporary, false);
  TemporaryManifest = Temporary;
  TemporaryManifest += ".deps";
  std::vector<std::string> CommandLine(Flags.begin(), Flags.end());
  CommandLine.erase(std::remove(CommandLine.begin(), CommandLine.end(), "-fsyntax-only"),
                    CommandLine.end());
  // Templates the header uses are instantiated once, in the PCH, rather than
  // at the end of every unit: most of what is left of a unit's parse time.
  CommandLine.insert(CommandLine.end(), {"-fpch-instantiate-templates", "-x", "c++-header",
                                         Header, "-o", std::string(Temporary)});
  OneCommand Database({WorkingDir.str(), Header, CommandLine, std::string(Temporary)});
  // A file system of its own: Note [One working directory per unit] in
  // Runner.cpp.
  clang::tooling::ClangTool Tool(
      Database, {Header}, std::make_shared<clang::PCHContainerOperations>(),
      llvm::vfs::createPhysicalFileSystem());
  Tool.clearArgumentsAdjusters();
  Tool.setPrintErrorMessage(false);
  QuietConsumer Quiet;
  Tool.setDiagnosticConsumer(&Quiet);
  struct Factory : clang::tooling::FrontendActionFactory {
    std::string ManifestPath, Header;
    std::vector<std::string> FlagDirs;
    std::unique_ptr<clang::FrontendAction> create() override {
      return std::make_unique<GeneratePchWithManifest>(ManifestPath, Header, FlagDirs);
    }
  } MakeAction;
  MakeAction.ManifestPath = std::string(TemporaryManifest);
  MakeAction.Header = Header;
  MakeAction.FlagDirs = flagDirs(splitFlags(Flags, WorkingDir).Paths);
  bool Ok = Tool.run(&MakeAction) == 0 && llvm::sys::fs::exists(Temporary) &&
            !llvm::sys::fs::rename(TemporaryManifest, Manifest) &&
            !llvm::sys::fs::rename(Temporary, Pch);
  llvm::sys::fs::remove(Temporary);
  llvm::sys::fs::remove(TemporaryManifest);
  if (!Ok)
    return std::nullopt;
  return readManifest(Pch, Manifest);
}

} // namespace torchalias::driver
