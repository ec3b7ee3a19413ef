//===- TorchaliasMain.cpp - The torchalias command ------------------------===//
//
// `torchalias check` runs the checks over a project for a pull-request gate:
// SARIF, baselines, diff mode, sharding, and an automatic PCH of the libtorch
// headers. `torchalias merge-sarif` joins the logs of sharded runs. See
// docs/ci.md. `torchalias instrument` writes a copy of the project with a
// run-time validator at each finding's site, and `torchalias report` gives
// each finding the verdict of the instrumented program's runs. See
// docs/runtime.md.
//
// Exit codes: 0 nothing (new) found; 1 findings reported; 2 a usage or tool
// error (bad option, missing or broken compilation database, unreadable
// baseline, unwritable PCH cache or output). Findings of the units that ran
// are written even when the exit code is 2.
//
//===----------------------------------------------------------------------===//

#include "check/Findings.h"
#include "Compat.h"
#include "check/Instrument.h"
#include "check/Output.h"
#include "check/PchCache.h"
#include "check/Report.h"
#include "check/Runner.h"
#include "check/SarifInput.h"

#include "clang-tidy/ClangTidy.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <mutex>

using namespace torchalias::driver;
namespace compat = torchalias::compat;
namespace cl = llvm::cl;

namespace {

enum ExitCode { Clean = 0, Found = 1, ToolError = 2 };

cl::SubCommand CheckCommand("check", "Run the libtorch checks over a project");
cl::SubCommand MergeCommand("merge-sarif", "Join the SARIF logs of sharded runs into one");
cl::SubCommand InstrumentCommand("instrument",
                                 "Write a copy of the project with a run-time validator at "
                                 "each finding");
cl::SubCommand ReportCommand("report",
                             "Give each finding the verdict of the instrumented runs");
cl::OptionCategory Category("torchalias check options");

cl::opt<std::string> BuildPath("p", cl::desc("Build directory with compile_commands.json"),
                               cl::value_desc("BUILD_DIR"), cl::Required,
                               cl::sub(CheckCommand), cl::cat(Category));
cl::list<std::string> Paths(cl::Positional,
                            cl::desc("[PATHS...] files or directories to check (default: "
                                     "every file in the compilation database)"),
                            cl::sub(CheckCommand), cl::cat(Category));
cl::opt<std::string> Checks("checks",
                            cl::desc("Check globs, as clang-tidy's --checks; they override "
                                     "the .clang-tidy files (default: '-*,libtorch-*')"),
                            cl::sub(CheckCommand), cl::cat(Category));
cl::opt<unsigned> Jobs("j", cl::desc("Translation units run in parallel (default: all cores)"),
                       cl::init(0), cl::sub(CheckCommand), cl::cat(Category));
enum class Format { Text, Json, Sarif };
cl::opt<Format> OutputFormat("format", cl::desc("Output format"),
                             cl::values(clEnumValN(Format::Text, "text", "clang-tidy style"),
                                        clEnumValN(Format::Json, "json", "one JSON document"),
                                        clEnumValN(Format::Sarif, "sarif", "SARIF 2.1.0")),
                             cl::init(Format::Text), cl::sub(CheckCommand), cl::cat(Category));
cl::opt<std::string> OutputFile("output", cl::desc("Write the findings here (default: stdout)"),
                                cl::value_desc("FILE"), cl::sub(CheckCommand),
                                cl::cat(Category));
cl::opt<std::string> ExportFixes("export-fixes",
                                 cl::desc("Write the fix-its as clang-apply-replacements YAML"),
                                 cl::value_desc("FILE"), cl::sub(CheckCommand),
                                 cl::cat(Category));
cl::opt<std::string> WriteBaseline("write-baseline",
                                   cl::desc("Write every finding's identity to FILE"),
                                   cl::value_desc("FILE"), cl::sub(CheckCommand),
                                   cl::cat(Category));
cl::opt<std::string> Baseline("baseline",
                              cl::desc("Report only findings that are not in FILE"),
                              cl::value_desc("FILE"), cl::sub(CheckCommand), cl::cat(Category));
cl::opt<std::string> Diff("diff",
                          cl::desc("Report only findings on lines changed since REF (git diff "
                                   "REF), or in the unified diff on stdin with --diff=-"),
                          cl::value_desc("REF"), cl::sub(CheckCommand), cl::cat(Category));
cl::opt<std::string> Shard("shard", cl::desc("Run part K of N of the translation units"),
                           cl::value_desc("K/N"), cl::sub(CheckCommand), cl::cat(Category));
cl::opt<bool> NoPch("no-pch", cl::desc("Parse every unit without the automatic PCH"),
                    cl::sub(CheckCommand), cl::cat(Category));
cl::opt<std::string> PchCacheDir("pch-cache",
                                 cl::desc("Where PCHs are kept (default: "
                                          "$XDG_CACHE_HOME/torchalias/pch)"),
                                 cl::value_desc("DIR"), cl::sub(CheckCommand),
                                 cl::cat(Category));
cl::opt<bool> FullTraversal("full-traversal",
                            cl::desc("Let the matchers walk the whole AST, headers included, "
                                     "as clang-tidy does (slower; same findings)"),
                            cl::sub(CheckCommand), cl::cat(Category));
cl::opt<std::string> Root("root",
                          cl::desc("Paths in the output and baselines are relative to this "
                                   "(default: the working directory)"),
                          cl::value_desc("DIR"), cl::sub(CheckCommand), cl::cat(Category));
cl::opt<std::string> HelpUriBase("help-uri-base",
                                 cl::desc("URL of the check pages in SARIF rules"),
                                 cl::init(TORCHALIAS_DOCS_URL), cl::sub(CheckCommand),
                                 cl::cat(Category));
cl::opt<bool> Quiet("quiet", cl::desc("No progress lines"), cl::sub(CheckCommand),
                    cl::cat(Category));

cl::list<std::string> MergeInputs(cl::Positional, cl::desc("<SARIF logs>"), cl::OneOrMore,
                                  cl::sub(MergeCommand));
cl::opt<std::string> MergeOutput("output", cl::desc("Write the merged log here (default: stdout)"),
                                 cl::value_desc("FILE"), cl::sub(MergeCommand));

cl::opt<std::string> InstrumentFindings("findings",
                                        cl::desc("The SARIF log of torchalias check"),
                                        cl::value_desc("FILE"), cl::Required,
                                        cl::sub(InstrumentCommand));
cl::opt<std::string> InstrumentBuild("p", cl::desc("Build directory with compile_commands.json"),
                                     cl::value_desc("BUILD_DIR"), cl::Required,
                                     cl::sub(InstrumentCommand));
cl::opt<std::string> InstrumentRoot("root",
                                    cl::desc("The project's root (default: the log's SRCROOT)"),
                                    cl::value_desc("DIR"), cl::sub(InstrumentCommand));
cl::opt<std::string> InstrumentOutput("output-dir",
                                      cl::desc("Where the instrumented copy of the root goes"),
                                      cl::value_desc("DIR"), cl::sub(InstrumentCommand));
cl::opt<bool> InstrumentInPlace("in-place",
                                cl::desc("Rewrite the files of the root itself (a throwaway "
                                         "checkout)"),
                                cl::sub(InstrumentCommand));
cl::opt<std::string> InstrumentManifest("manifest",
                                        cl::desc("Where the list of instrumented and skipped "
                                                 "sites goes (default: "
                                                 "DIR/torchalias-instrument.json)"),
                                        cl::value_desc("FILE"), cl::sub(InstrumentCommand));
cl::opt<unsigned> InstrumentJobs("j", cl::desc("Files parsed in parallel (default: all cores)"),
                                 cl::init(0), cl::sub(InstrumentCommand));

cl::opt<std::string> ReportStatic("static", cl::desc("The SARIF log of torchalias check"),
                                  cl::value_desc("FILE"), cl::Required, cl::sub(ReportCommand));
cl::list<std::string> ReportDynamic("dynamic",
                                    cl::desc("Runtime reports (JSON Lines) of instrumented runs; "
                                             "repeat or separate with commas"),
                                    cl::value_desc("FILE"), cl::OneOrMore, cl::CommaSeparated,
                                    cl::sub(ReportCommand));
cl::opt<std::string> ReportManifest("manifest",
                                    cl::desc("The instrumenter's manifest, to tell skipped sites "
                                             "from sites not reached"),
                                    cl::value_desc("FILE"), cl::sub(ReportCommand));
cl::opt<std::string> ReportOutput("output",
                                  cl::desc("Write the SARIF log with the verdicts here"),
                                  cl::value_desc("FILE"), cl::sub(ReportCommand));
cl::opt<std::string> ReportRoot("root",
                                cl::desc("Paths in the summary are relative to this (default: "
                                         "the log's SRCROOT)"),
                                cl::value_desc("DIR"), cl::sub(ReportCommand));

int fail(const llvm::Twine &Message) {
  llvm::errs() << "torchalias: error: " << Message << "\n";
  return ToolError;
}

std::string absolute(llvm::StringRef Path) {
  llvm::SmallString<256> Out(Path);
  llvm::sys::fs::make_absolute(Out);
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Out, Real))
    return std::string(Real);
  llvm::sys::path::remove_dots(Out, true);
  return std::string(Out);
}

// Note [Paths a user gives]
// A path option means a path from the working directory the command was run
// in. ClangTool sets the working directory of the file system it parses with
// to each command's directory; on the real file system that is the process's,
// and units run side by side left whichever directory the last one restored,
// often the database's, so a relative --output written after the run landed
// there. The units now have file systems of their own (Note [One working
// directory per unit] in check/Runner.cpp), and every path option is made
// absolute as soon as the command line is parsed, so that nothing the
// libraries do to the process's directory can move a user's file.
std::string fromWorkingDir(const std::string &Path) {
  if (Path.empty())
    return Path;
  llvm::SmallString<256> Out(Path);
  llvm::sys::fs::make_absolute(Out);
  llvm::sys::path::remove_dots(Out, /*remove_dot_dot=*/false);
  return std::string(Out);
}

void resolvePathOptions() {
  for (cl::opt<std::string> *Option :
       {&OutputFile, &ExportFixes, &WriteBaseline, &Baseline, &PchCacheDir,
        &MergeOutput, &InstrumentManifest, &ReportOutput})
    *Option = fromWorkingDir(*Option);
}

/// Runs a command and returns its standard output, or an error naming it.
llvm::Expected<std::string> capture(llvm::ArrayRef<llvm::StringRef> Argv) {
  auto Program = llvm::sys::findProgramByName(Argv[0]);
  if (!Program)
    return llvm::createStringError(Program.getError(), "cannot find '%s'", Argv[0].data());
  llvm::SmallString<128> Out, Err;
  llvm::sys::fs::createTemporaryFile("torchalias", "out", Out);
  llvm::sys::fs::createTemporaryFile("torchalias", "err", Err);
  compat::Optional<llvm::StringRef> Redirects[] = {{}, Out.str(), Err.str()};
  int Status = llvm::sys::ExecuteAndWait(*Program, Argv, /*Env=*/{}, Redirects);
  auto Output = llvm::MemoryBuffer::getFile(Out);
  auto Errors = llvm::MemoryBuffer::getFile(Err);
  llvm::sys::fs::remove(Out);
  llvm::sys::fs::remove(Err);
  if (Status != 0 || !Output)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(), "'%s' failed: %s",
        llvm::join(Argv.begin(), Argv.end(), " ").c_str(),
        Errors ? (*Errors)->getBuffer().trim().str().c_str() : "no output");
  return (*Output)->getBuffer().str();
}

/// Progress: a bar redrawn in place on a terminal, plain lines otherwise.
class Progress {
public:
  Progress(size_t Total, bool Enabled)
      : Total(Total), Enabled(Enabled), Terminal(llvm::errs().is_displayed()) {}

  void done(llvm::StringRef File, double Seconds) {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++Done;
    if (!Enabled)
      return;
    if (Terminal) {
      unsigned Width = 30, Filled = Width * Done / Total;
      llvm::errs() << "\r[" << std::string(Filled, '#') << std::string(Width - Filled, ' ')
                   << "] " << Done << "/" << Total << " "
                   << llvm::sys::path::filename(File) << "\x1b[K";
      if (Done == Total)
        llvm::errs() << "\n";
    } else {
      llvm::errs() << llvm::formatv("[{0}/{1}] {2} ({3:f1} s)\n", Done, Total, File, Seconds);
    }
  }

private:
  std::mutex Mutex;
  size_t Total, Done = 0;
  bool Enabled, Terminal;
};

bool sameFinding(const Finding &A, const Finding &B) {
  return A.Check == B.Check && A.Where.File == B.Where.File && A.Where.Line == B.Where.Line &&
         A.Where.Column == B.Where.Column && A.Message == B.Message;
}

bool before(const Finding &A, const Finding &B) {
  return std::tie(A.Where.File, A.Where.Line, A.Where.Column, A.Check, A.Message) <
         std::tie(B.Where.File, B.Where.Line, B.Where.Column, B.Check, B.Message);
}

llvm::Error writeTo(llvm::StringRef Path, llvm::function_ref<void(llvm::raw_ostream &)> Write) {
  if (Path.empty()) {
    Write(llvm::outs());
    return llvm::Error::success();
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC)
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.str().c_str(),
                                   EC.message().c_str());
  Write(OS);
  return llvm::Error::success();
}

int runCheck() {
  // The compilation database.
  std::string DatabasePath = BuildPath + "/compile_commands.json";
  if (!llvm::sys::fs::exists(DatabasePath))
    return fail("no compile_commands.json in '" + BuildPath +
                "' (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)");
  std::string DatabaseError;
  auto Database = clang::tooling::JSONCompilationDatabase::loadFromFile(
      DatabasePath, DatabaseError, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!Database)
    return fail("cannot load '" + DatabasePath + "': " + DatabaseError);

  std::string RootDir = absolute(Root.empty() ? "." : Root.getValue());

  // Options: defaults, then .clang-tidy files, then --checks.
  RunSettings Settings;
  Settings.Defaults = clang::tidy::ClangTidyOptions::getDefaults();
  Settings.Defaults.Checks = "-*,libtorch-*";
  if (Checks.getNumOccurrences()) {
    Settings.Overrides.Checks = Checks;
    clang::tidy::ClangTidyOptions Effective = Settings.Defaults;
    Effective.mergeWith(Settings.Overrides, 0);
    if (compat::enabledChecks(Effective).empty())
      return fail("--checks='" + Checks + "' enables no check");
  }
  Settings.ScopeToProject = !FullTraversal;

  // The baseline, before any work, so that a bad one costs nothing.
  std::set<std::string> Accepted;
  if (!Baseline.empty()) {
    auto Read = readBaseline(Baseline);
    if (!Read)
      return fail(llvm::toString(Read.takeError()));
    Accepted = std::move(*Read);
  }

  // Diff mode.
  std::optional<ChangedLines> Changed;
  if (Diff.getNumOccurrences()) {
    std::string Text, DiffRoot = RootDir;
    if (Diff == "-") {
      auto Stdin = llvm::MemoryBuffer::getSTDIN();
      if (!Stdin)
        return fail("cannot read the diff on standard input");
      Text = (*Stdin)->getBuffer().str();
    } else {
      auto Top = capture({"git", "rev-parse", "--show-toplevel"});
      if (!Top)
        return fail("--diff " + Diff + ": " + llvm::toString(Top.takeError()));
      DiffRoot = absolute(llvm::StringRef(*Top).trim());
      auto Output = capture({"git", "diff", "-U0", "--no-color", "--no-ext-diff", Diff, "--"});
      if (!Output)
        return fail("--diff " + Diff + ": " + llvm::toString(Output.takeError()));
      Text = std::move(*Output);
    }
    Changed = parseUnifiedDiff(Text, DiffRoot);
  }

  // Sharding.
  unsigned ShardIndex = 1, ShardCount = 1;
  if (!Shard.empty()) {
    auto [K, N] = llvm::StringRef(Shard).split('/');
    if (K.getAsInteger(10, ShardIndex) || N.getAsInteger(10, ShardCount) || ShardCount == 0 ||
        ShardIndex == 0 || ShardIndex > ShardCount)
      return fail("--shard must be K/N with 1 <= K <= N, not '" + Shard + "'");
  }

  // The units: every file of the database under PATHS, changed in diff mode,
  // in this shard. Sorted, so that the shards are the same on every machine.
  std::vector<std::string> Wanted;
  for (const std::string &P : Paths) {
    if (!llvm::sys::fs::exists(P))
      return fail("no such file or directory: '" + P + "'");
    Wanted.push_back(absolute(P));
  }
  std::vector<std::pair<std::string, std::string>> Units; // (real path, database name)
  for (const std::string &File : Database->getAllFiles()) {
    std::string Real = absolute(File);
    if (!Wanted.empty() && llvm::none_of(Wanted, [&](const std::string &W) {
          return Real == W || compat::startsWith(Real, W + "/");
        }))
      continue;
    if (Changed && !Changed->count(Real))
      continue;
    Units.emplace_back(Real, File);
  }
  llvm::sort(Units);
  Units.erase(std::unique(Units.begin(), Units.end()), Units.end());
  std::vector<std::pair<std::string, std::string>> Mine;
  for (size_t I = 0; I < Units.size(); ++I)
    if (I % ShardCount == ShardIndex - 1)
      Mine.push_back(Units[I]);

  // The PCH cache.
  std::optional<PchCache> Pch;
  if (!NoPch) {
    std::string Dir = PchCacheDir;
    if (Dir.empty()) {
      llvm::SmallString<256> Cache;
      if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg)
        Cache = Xdg;
      else if (!llvm::sys::path::home_directory(Cache))
        Cache = "/tmp";
      else
        llvm::sys::path::append(Cache, ".cache");
      llvm::sys::path::append(Cache, "torchalias", "pch");
      Dir = std::string(Cache);
    }
    Pch.emplace(Dir);
    if (llvm::Error E = Pch->prepare())
      return fail(llvm::toString(std::move(E)));
    Settings.Pch = &*Pch;
  }

  // Run.
  std::vector<UnitResult> Results(Mine.size());
  Progress Bar(Mine.size(), !Quiet);
  {
    compat::ThreadPool Pool(llvm::hardware_concurrency(Jobs));
    for (size_t I = 0; I < Mine.size(); ++I)
      Pool.async([&, I] {
        auto Start = std::chrono::steady_clock::now();
        // A crash in one unit (a clang bug) costs that unit, not the run.
        llvm::CrashRecoveryContext Recovery;
        if (!Recovery.RunSafely([&] { Results[I] = runUnit(*Database, Mine[I].second, Settings); })) {
          Results[I] = UnitResult();
          Results[I].File = Mine[I].second;
          Results[I].ToolErrors.push_back("the analysis of '" + Mine[I].second +
                                                   "' crashed; its findings are missing");
        }
        Bar.done(relativePath(Mine[I].first, RootDir),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
                     .count());
      });
    Pool.wait();
  }

  // Combine: one finding per place even if several units include the header.
  OutputContext Context;
  Context.Root = RootDir;
  Context.HelpUriBase = HelpUriBase;
  std::vector<Finding> All;
  std::vector<clang::tidy::ClangTidyError> AllErrors;
  std::set<std::string> ConfigErrors, ConfigWarnings;
  unsigned WithPch = 0;
  for (UnitResult &R : Results) {
    WithPch += R.UsedPch;
    for (Finding &F : R.Findings)
      All.push_back(std::move(F));
    ConfigErrors.insert(R.ToolErrors.begin(), R.ToolErrors.end());
    ConfigWarnings.insert(R.ToolWarnings.begin(), R.ToolWarnings.end());
  }
  llvm::stable_sort(All, before);
  All.erase(std::unique(All.begin(), All.end(), sameFinding), All.end());
  assignIds(All, RootDir);
  for (const std::string &E : ConfigErrors)
    Context.Errors.push_back(E);
  for (const std::string &W : ConfigWarnings)
    Context.Warnings.push_back(W);

  int Status = Clean;
  if (!WriteBaseline.empty())
    if (llvm::Error E = writeBaseline(WriteBaseline, All, RootDir)) {
      llvm::errs() << "torchalias: error: " << llvm::toString(std::move(E)) << "\n";
      Status = ToolError;
    }

  // What is reported: not in the baseline, and on a changed line.
  std::vector<Finding> Reported;
  unsigned InBaseline = 0, Unchanged = 0;
  for (Finding &F : All) {
    if (Accepted.count(F.Id)) {
      ++InBaseline;
      continue;
    }
    if (Changed) {
      auto It = Changed->find(F.Where.File);
      if (It == Changed->end() || !It->second.count(F.Where.Line)) {
        ++Unchanged;
        continue;
      }
    }
    Reported.push_back(std::move(F));
  }
  Context.AgainstBaseline = !Baseline.empty();

  for (const std::string &E : Context.Errors)
    llvm::errs() << "torchalias: error: " << E << "\n";
  for (const std::string &W : Context.Warnings)
    llvm::errs() << "torchalias: warning: " << W << "\n";

  llvm::Error Written = writeTo(OutputFile, [&](llvm::raw_ostream &OS) {
    switch (OutputFormat) {
    case Format::Text:
      writeText(OS, Reported, Context);
      break;
    case Format::Json:
      OS << llvm::formatv("{0:2}", toJson(Reported, Context)) << "\n";
      break;
    case Format::Sarif:
      OS << llvm::formatv("{0:2}", toSarif(Reported, Context)) << "\n";
      break;
    }
  });
  if (Written) {
    llvm::errs() << "torchalias: error: " << llvm::toString(std::move(Written)) << "\n";
    Status = ToolError;
  }

  if (!ExportFixes.empty()) {
    for (UnitResult &R : Results)
      for (clang::tidy::ClangTidyError &E : R.Errors)
        if (!E.Message.FilePath.empty() && !E.Message.Fix.empty())
          AllErrors.push_back(E);
    // Only the fixes of reported findings.
    llvm::erase_if(AllErrors, [&](const clang::tidy::ClangTidyError &E) {
      for (const Finding &F : Reported)
        if (F.Check == E.DiagnosticName && F.Message == E.Message.Message)
          return false;
      return true;
    });
    if (llvm::Error E = writeTo(ExportFixes, [&](llvm::raw_ostream &OS) {
          clang::tidy::exportReplacements("", AllErrors, OS);
        })) {
      llvm::errs() << "torchalias: error: " << llvm::toString(std::move(E)) << "\n";
      Status = ToolError;
    }
  }

  if (!Quiet) {
    llvm::errs() << llvm::formatv("torchalias: {0} finding(s) in {1} translation unit(s)",
                                  Reported.size(), Mine.size());
    if (!Baseline.empty())
      llvm::errs() << llvm::formatv(", {0} in the baseline", InBaseline);
    if (Changed)
      llvm::errs() << llvm::formatv(", {0} on unchanged lines", Unchanged);
    if (Pch)
      llvm::errs() << llvm::formatv("; PCH used by {0} unit(s) ({1} built, {2} reused)",
                                    WithPch, Pch->built(), Pch->reused());
    llvm::errs() << "\n";
  }
  if (!Context.Errors.empty())
    Status = ToolError;
  if (Status == Clean && !Reported.empty())
    Status = Found;
  return Status;
}

int runMerge() {
  std::vector<llvm::json::Value> Logs;
  for (const std::string &Input : MergeInputs) {
    auto Buffer = llvm::MemoryBuffer::getFile(Input);
    if (!Buffer)
      return fail("cannot read '" + Input + "': " + Buffer.getError().message());
    auto Parsed = llvm::json::parse((*Buffer)->getBuffer());
    if (!Parsed)
      return fail("'" + Input + "' is not JSON: " + llvm::toString(Parsed.takeError()));
    Logs.push_back(std::move(*Parsed));
  }
  auto Merged = mergeSarif(Logs);
  if (!Merged)
    return fail(llvm::toString(Merged.takeError()));
  if (llvm::Error E = writeTo(MergeOutput, [&](llvm::raw_ostream &OS) {
        OS << llvm::formatv("{0:2}", *Merged) << "\n";
      }))
    return fail(llvm::toString(std::move(E)));
  return Clean;
}

/// Creates the directory a file is written into, and those above it.
llvm::Error createParentOf(llvm::StringRef File) {
  llvm::StringRef Parent = llvm::sys::path::parent_path(File);
  if (Parent.empty())
    return llvm::Error::success();
  if (std::error_code E = llvm::sys::fs::create_directories(Parent))
    return llvm::createStringError(E, "cannot create '%s': %s",
                                   Parent.str().c_str(), E.message().c_str());
  return llvm::Error::success();
}

/// Copies the files under \p From to \p To, leaving out version control,
/// build trees (a directory with a CMakeCache.txt) and \p Exclude. Each
/// file's folder is made before the file, whatever order the directory is
/// read in: a root's files may come before any of its folders.
llvm::Error copyTree(llvm::StringRef From, llvm::StringRef To,
                     const std::vector<std::string> &Exclude) {
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(From, EC, /*follow_symlinks=*/false), End;
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
        return llvm::createStringError(E, "cannot create '%s': %s", Target.c_str(),
                                       E.message().c_str());
    } else if (llvm::sys::fs::is_regular_file(Status)) {
      if (llvm::Error E = createParentOf(Target))
        return E;
      if (std::error_code E = llvm::sys::fs::copy_file(Path, Target))
        return llvm::createStringError(E, "cannot write '%s': %s", Target.c_str(),
                                       E.message().c_str());
    }
  }
  if (EC)
    return llvm::createStringError(EC, "cannot read '%s': %s", From.str().c_str(),
                                   EC.message().c_str());
  return llvm::Error::success();
}

int runInstrument() {
  if (InstrumentInPlace == !InstrumentOutput.empty())
    return fail("give either --output-dir DIR or --in-place");
  auto Log = readSarif(InstrumentFindings, InstrumentRoot.empty() ? "" : absolute(InstrumentRoot));
  if (!Log)
    return fail(llvm::toString(Log.takeError()));
  std::string RootDir = Log->Root.empty() ? absolute(".") : absolute(Log->Root);
  if (!llvm::sys::fs::is_directory(RootDir))
    return fail("the project root '" + RootDir + "' is not a directory (give --root)");
  std::string DatabasePath = InstrumentBuild + "/compile_commands.json";
  std::string DatabaseError;
  auto Loaded = clang::tooling::JSONCompilationDatabase::loadFromFile(
      DatabasePath, DatabaseError, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!Loaded)
    return fail("cannot load '" + DatabasePath + "': " + DatabaseError);
  // Headers get the command of a unit like them.
  auto Database = clang::tooling::inferMissingCompileCommands(std::move(Loaded));

  std::map<std::string, std::vector<const StaticFinding *>> ByFile;
  unsigned Outside = 0;
  for (const StaticFinding &F : Log->Findings) {
    if (!compat::startsWith(F.Check, "libtorch-"))
      continue;
    if (relativePath(F.Where.File, RootDir) == F.Where.File) {
      ++Outside;
      continue;
    }
    ByFile[F.Where.File].push_back(&F);
  }

  std::string OutDir = InstrumentInPlace ? RootDir : absolute(InstrumentOutput);
  if (!InstrumentInPlace) {
    if (OutDir == RootDir || compat::startsWith(RootDir, OutDir + "/"))
      return fail("--output-dir must not be the root or above it; use --in-place");
    if (llvm::Error E = copyTree(RootDir, OutDir, {OutDir, absolute(InstrumentBuild)}))
      return fail(llvm::toString(std::move(E)));
  }

  std::vector<std::pair<std::string, std::vector<const StaticFinding *>>> Files(ByFile.begin(),
                                                                               ByFile.end());
  std::vector<FileInstrumentation> Done(Files.size());
  {
    compat::ThreadPool Pool(llvm::hardware_concurrency(InstrumentJobs));
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] { Done[I] = instrumentFile(*Database, Files[I].first, Files[I].second); });
    Pool.wait();
  }

  int Status = Clean;
  unsigned Instrumented = 0, Skipped = 0;
  for (const FileInstrumentation &File : Done) {
    for (const SiteOutcome &Site : File.Sites) {
      if (Site.Skipped.empty()) {
        ++Instrumented;
        continue;
      }
      ++Skipped;
      llvm::errs() << llvm::formatv("torchalias: {0}:{1}:{2}: [{3}] not instrumented: {4}\n",
                                    relativePath(File.File, RootDir), Site.Finding->Where.Line,
                                    Site.Finding->Where.Column, Site.Finding->Check,
                                    Site.Skipped);
    }
    if (File.Insertions.empty())
      continue;
    auto Original = llvm::MemoryBuffer::getFile(File.File);
    if (!Original)
      return fail("cannot read '" + File.File + "': " + Original.getError().message());
    llvm::SmallString<256> Target(OutDir);
    llvm::sys::path::append(Target, relativePath(File.File, RootDir));
    if (llvm::Error E = createParentOf(Target))
      return fail(llvm::toString(std::move(E)));
    if (llvm::Error E = writeTo(Target, [&](llvm::raw_ostream &OS) {
          OS << applyInsertions((*Original)->getBuffer(), File.Insertions);
        }))
      return fail(llvm::toString(std::move(E)));
  }
  std::string ManifestPath = InstrumentManifest;
  if (ManifestPath.empty())
    ManifestPath = OutDir + "/torchalias-instrument.json";
  llvm::Error E = createParentOf(ManifestPath);
  if (!E)
    E = writeTo(ManifestPath, [&](llvm::raw_ostream &OS) {
      OS << llvm::formatv("{0:2}", manifest(Done, RootDir)) << "\n";
    });
  if (E) {
    llvm::errs() << "torchalias: error: " << llvm::toString(std::move(E)) << "\n";
    Status = ToolError;
  }
  llvm::errs() << llvm::formatv("torchalias: {0} site(s) instrumented, {1} skipped", Instrumented,
                                Skipped);
  if (Outside)
    llvm::errs() << llvm::formatv(", {0} outside the root", Outside);
  llvm::errs() << llvm::formatv("; {0}; manifest: {1}\n",
                                InstrumentInPlace ? "files rewritten in place"
                                                  : "copy written to " + OutDir,
                                ManifestPath);
  return Status;
}

int runReport() {
  auto Log = readSarif(ReportStatic, "");
  if (!Log)
    return fail(llvm::toString(Log.takeError()));
  auto Records = readRecords(ReportDynamic);
  if (!Records)
    return fail(llvm::toString(Records.takeError()));
  SkippedSites Skipped;
  if (!ReportManifest.empty()) {
    auto Read = readManifest(ReportManifest);
    if (!Read)
      return fail(llvm::toString(Read.takeError()));
    Skipped = std::move(*Read);
  }
  for (const std::string &W : Records->Warnings)
    llvm::errs() << "torchalias: warning: " << W << "\n";
  std::vector<FindingVerdict> Verdicts = decide(Log->Findings, *Records, Skipped);
  std::string RootDir = ReportRoot.empty() ? Log->Root : absolute(ReportRoot);
  writeSummary(llvm::outs(), Log->Findings, Verdicts, *Records, RootDir);
  if (!ReportOutput.empty())
    if (llvm::Error E = writeTo(ReportOutput, [&](llvm::raw_ostream &OS) {
          OS << llvm::formatv("{0:2}", annotate(std::move(Log->Log), Log->Findings, Verdicts))
             << "\n";
        }))
      return fail(llvm::toString(std::move(E)));
  bool AnyConfirmed = llvm::any_of(
      Verdicts, [](const FindingVerdict &V) { return V.Kind == VerdictKind::Confirmed; });
  return AnyConfirmed ? Found : Clean;
}

} // namespace

int main(int Argc, const char **Argv) {
  llvm::InitLLVM Init(Argc, Argv);
  llvm::CrashRecoveryContext::Enable();
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "torchalias " << TORCHALIAS_VERSION << "\n";
  });
  if (!cl::ParseCommandLineOptions(Argc, Argv, "torchalias: tensor-aliasing checks for libtorch\n",
                                   &llvm::errs()))
    return ToolError;
  resolvePathOptions();
  if (CheckCommand)
    return runCheck();
  if (MergeCommand)
    return runMerge();
  if (InstrumentCommand)
    return runInstrument();
  if (ReportCommand)
    return runReport();
  llvm::errs() << "torchalias: error: give a subcommand: check, merge-sarif, instrument or "
                  "report (see --help)\n";
  return ToolError;
}
