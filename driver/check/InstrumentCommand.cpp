//===- InstrumentCommand.cpp - torchalias instrument ----------------------===//
//
// Copies the project root (or rewrites it in place), then instruments each
// file with findings (Instrument.h) and writes the manifest of instrumented
// and skipped sites that `report` reads.
//
//===----------------------------------------------------------------------===//

#include "CommandSupport.h"
#include "Commands.h"
#include "Compat.h"
#include "Findings.h"
#include "Instrument.h"
#include "SarifInput.h"

#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <map>

namespace torchalias::driver {

namespace compat = torchalias::compat;

namespace {

/// Copies the files under \p From to \p To, leaving out version control,
/// build trees (a directory with a CMakeCache.txt) and \p Exclude. Each
/// file's folder is made before the file, whatever order the directory is
/// read in: a root's files may come before any of its folders.
llvm::Error copyTree(llvm::StringRef From, llvm::StringRef To,
                     const std::vector<std::string> &Exclude) {
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator
           It(From, EC, /*follow_symlinks=*/false),
       End;
       It != End && !EC; It.increment(EC)) {
    std::string Path = It->path();
    llvm::sys::fs::file_status Status;
    if (llvm::sys::fs::status(Path, Status, /*follow=*/false))
      continue;
    bool IsDir = llvm::sys::fs::is_directory(Status);
    if (IsDir && (llvm::sys::path::filename(Path) == ".git" ||
                  llvm::sys::fs::exists(Path + "/CMakeCache.txt") ||
                  llvm::is_contained(Exclude, absolute(Path)))) {
      It.no_push();
      continue;
    }
    llvm::SmallString<256> Target(To);
    llvm::sys::path::append(Target, relativePath(Path, From));
    if (IsDir) {
      if (std::error_code E = llvm::sys::fs::create_directories(Target))
        return llvm::createStringError(E, "cannot create '%s': %s",
                                       Target.c_str(), E.message().c_str());
    } else if (llvm::sys::fs::is_regular_file(Status)) {
      if (llvm::Error E = createParentOf(Target))
        return E;
      if (std::error_code E = llvm::sys::fs::copy_file(Path, Target))
        return llvm::createStringError(E, "cannot write '%s': %s",
                                       Target.c_str(), E.message().c_str());
    }
  }
  if (EC)
    return llvm::createStringError(EC, "cannot read '%s': %s",
                                   From.str().c_str(), EC.message().c_str());
  return llvm::Error::success();
}

using FindingsOfFile =
    std::pair<std::string, std::vector<const StaticFinding *>>;

/// The log's libtorch findings under \p RootDir, by file; \p Outside counts
/// the others.
std::vector<FindingsOfFile> findingsByFile(const SarifLog &Log,
                                           llvm::StringRef RootDir,
                                           unsigned &Outside) {
  std::map<std::string, std::vector<const StaticFinding *>> ByFile;
  for (const StaticFinding &F : Log.Findings) {
    if (!compat::startsWith(F.Check, "libtorch-"))
      continue;
    if (relativePath(F.Where.File, RootDir) == F.Where.File) {
      ++Outside;
      continue;
    }
    ByFile[F.Where.File].push_back(&F);
  }
  return {ByFile.begin(), ByFile.end()};
}

/// Says which sites were skipped and why, and writes each instrumented file
/// into \p OutDir.
llvm::Error writeInstrumented(const std::vector<FileInstrumentation> &Done,
                              llvm::StringRef RootDir, llvm::StringRef OutDir,
                              unsigned &Instrumented, unsigned &Skipped) {
  for (const FileInstrumentation &File : Done) {
    for (const SiteOutcome &Site : File.Sites) {
      if (Site.Skipped.empty()) {
        ++Instrumented;
        continue;
      }
      ++Skipped;
      llvm::errs() << llvm::formatv(
          "torchalias: {0}:{1}:{2}: [{3}] not instrumented: {4}\n",
          relativePath(File.File, RootDir), Site.Finding->Where.Line,
          Site.Finding->Where.Column, Site.Finding->Check, Site.Skipped);
    }
    if (File.Insertions.empty())
      continue;
    auto Original = llvm::MemoryBuffer::getFile(File.File);
    if (!Original)
      return llvm::createStringError(Original.getError(),
                                     "cannot read '%s': %s", File.File.c_str(),
                                     Original.getError().message().c_str());
    llvm::SmallString<256> Target(OutDir);
    llvm::sys::path::append(Target, relativePath(File.File, RootDir));
    if (llvm::Error E = createParentOf(Target))
      return E;
    if (llvm::Error E = writeTo(Target, [&](llvm::raw_ostream &OS) {
          OS << applyInsertions((*Original)->getBuffer(), File.Insertions);
        }))
      return E;
  }
  return llvm::Error::success();
}

} // namespace

int runInstrument(const InstrumentOptions &Options) {
  if (Options.InPlace == !Options.OutputDir.empty())
    return fail("give either --output-dir DIR or --in-place");
  auto Log = readSarif(Options.Findings,
                       Options.Root.empty() ? "" : absolute(Options.Root));
  if (!Log)
    return fail(llvm::toString(Log.takeError()));
  std::string RootDir = Log->Root.empty() ? absolute(".") : absolute(Log->Root);
  if (!llvm::sys::fs::is_directory(RootDir))
    return fail("the project root '" + RootDir +
                "' is not a directory (give --root)");
  std::string DatabasePath = Options.BuildPath + "/compile_commands.json";
  std::string DatabaseError;
  auto Loaded = clang::tooling::JSONCompilationDatabase::loadFromFile(
      DatabasePath, DatabaseError,
      clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!Loaded)
    return fail("cannot load '" + DatabasePath + "': " + DatabaseError);
  // Headers get the command of a unit like them.
  auto Database =
      clang::tooling::inferMissingCompileCommands(std::move(Loaded));

  unsigned Outside = 0;
  std::vector<FindingsOfFile> Files = findingsByFile(*Log, RootDir, Outside);

  std::string OutDir = Options.InPlace ? RootDir : absolute(Options.OutputDir);
  if (!Options.InPlace) {
    if (OutDir == RootDir || compat::startsWith(RootDir, OutDir + "/"))
      return fail(
          "--output-dir must not be the root or above it; use --in-place");
    if (llvm::Error E =
            copyTree(RootDir, OutDir, {OutDir, absolute(Options.BuildPath)}))
      return fail(llvm::toString(std::move(E)));
  }

  std::vector<FileInstrumentation> Done(Files.size());
  {
    compat::ThreadPool Pool(llvm::hardware_concurrency(Options.Jobs));
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] {
        Done[I] = instrumentFile(*Database, Files[I].first, Files[I].second);
      });
    Pool.wait();
  }

  unsigned Instrumented = 0, Skipped = 0;
  if (llvm::Error E =
          writeInstrumented(Done, RootDir, OutDir, Instrumented, Skipped))
    return fail(llvm::toString(std::move(E)));
  int Status = Clean;
  std::string ManifestPath = Options.Manifest;
  if (ManifestPath.empty())
    ManifestPath = OutDir + "/torchalias-instrument.json";
  llvm::Error E = createParentOf(ManifestPath);
  if (!E)
    E = writeTo(ManifestPath, [&](llvm::raw_ostream &OS) {
      OS << llvm::formatv("{0:2}", manifest(Done, RootDir)) << "\n";
    });
  if (E) {
    reportError(std::move(E));
    Status = ToolError;
  }
  llvm::errs() << llvm::formatv(
      "torchalias: {0} site(s) instrumented, {1} skipped", Instrumented,
      Skipped);
  if (Outside)
    llvm::errs() << llvm::formatv(", {0} outside the root", Outside);
  llvm::errs() << llvm::formatv("; {0}; manifest: {1}\n",
                                Options.InPlace ? "files rewritten in place"
                                                : "copy written to " + OutDir,
                                ManifestPath);
  return Status;
}

} // namespace torchalias::driver
