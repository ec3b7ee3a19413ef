//===- CheckCommand.cpp - torchalias check
//---------------------------------===//
//
// The steps of a `check` run, in order: the compilation database and the
// options; the baseline, the diff and the shard, read before any work so that
// a bad one costs nothing; the units; the PCH cache; the units run on a
// thread pool (Runner.h); their findings combined, filtered by the baseline
// and the diff, and written.
//
//===----------------------------------------------------------------------===//

#include "CommandSupport.h"
#include "Commands.h"
#include "Compat.h"
#include "Findings.h"
#include "Output.h"
#include "PchCache.h"
#include "Runner.h"

#include "clang-tidy/ClangTidy.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

namespace torchalias::driver {

namespace compat = torchalias::compat;

namespace {

llvm::Error failure(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
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
      llvm::errs() << "\r[" << std::string(Filled, '#')
                   << std::string(Width - Filled, ' ') << "] " << Done << "/"
                   << Total << " " << llvm::sys::path::filename(File)
                   << "\x1b[K";
      if (Done == Total)
        llvm::errs() << "\n";
    } else {
      llvm::errs() << llvm::formatv("[{0}/{1}] {2} ({3:f1} s)\n", Done, Total,
                                    File, Seconds);
    }
  }

private:
  std::mutex Mutex;
  size_t Total, Done = 0;
  bool Enabled, Terminal;
};

bool sameFinding(const Finding &A, const Finding &B) {
  return A.Check == B.Check && A.Where.File == B.Where.File &&
         A.Where.Line == B.Where.Line && A.Where.Column == B.Where.Column &&
         A.Message == B.Message;
}

bool before(const Finding &A, const Finding &B) {
  return std::tie(A.Where.File, A.Where.Line, A.Where.Column, A.Check,
                  A.Message) < std::tie(B.Where.File, B.Where.Line,
                                        B.Where.Column, B.Check, B.Message);
}

llvm::Expected<std::unique_ptr<clang::tooling::JSONCompilationDatabase>>
loadDatabase(const std::string &BuildPath) {
  std::string DatabasePath = BuildPath + "/compile_commands.json";
  if (!llvm::sys::fs::exists(DatabasePath))
    return failure("no compile_commands.json in '" + BuildPath +
                   "' (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)");
  std::string DatabaseError;
  auto Database = clang::tooling::JSONCompilationDatabase::loadFromFile(
      DatabasePath, DatabaseError,
      clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!Database)
    return failure("cannot load '" + DatabasePath + "': " + DatabaseError);
  return std::move(Database);
}

/// Options: defaults, then .clang-tidy files, then --checks.
llvm::Expected<RunSettings> settingsFor(const CheckOptions &Options) {
  RunSettings Settings;
  Settings.Defaults = clang::tidy::ClangTidyOptions::getDefaults();
  Settings.Defaults.Checks = "-*,libtorch-*";
  if (Options.Checks) {
    Settings.Overrides.Checks = *Options.Checks;
    clang::tidy::ClangTidyOptions Effective = Settings.Defaults;
    Effective.mergeWith(Settings.Overrides, 0);
    if (compat::enabledChecks(Effective).empty())
      return failure("--checks='" + *Options.Checks + "' enables no check");
  }
  Settings.ScopeToProject = !Options.FullTraversal;
  return Settings;
}

/// The lines changed in diff mode: `git diff REF`, or a diff on stdin.
llvm::Expected<ChangedLines> changedLines(const std::string &Diff,
                                          const std::string &RootDir) {
  std::string Text, DiffRoot = RootDir;
  if (Diff == "-") {
    auto Stdin = llvm::MemoryBuffer::getSTDIN();
    if (!Stdin)
      return failure("cannot read the diff on standard input");
    Text = (*Stdin)->getBuffer().str();
  } else {
    auto Top = capture({"git", "rev-parse", "--show-toplevel"});
    if (!Top)
      return failure("--diff " + Diff + ": " + llvm::toString(Top.takeError()));
    DiffRoot = absolute(llvm::StringRef(*Top).trim());
    auto Output = capture(
        {"git", "diff", "-U0", "--no-color", "--no-ext-diff", Diff, "--"});
    if (!Output)
      return failure("--diff " + Diff + ": " +
                     llvm::toString(Output.takeError()));
    Text = std::move(*Output);
  }
  return parseUnifiedDiff(Text, DiffRoot);
}

struct ShardPart {
  unsigned Index = 1, Count = 1;
};

llvm::Expected<ShardPart> parseShard(const std::string &Shard) {
  ShardPart Part;
  if (Shard.empty())
    return Part;
  auto [K, N] = llvm::StringRef(Shard).split('/');
  if (K.getAsInteger(10, Part.Index) || N.getAsInteger(10, Part.Count) ||
      Part.Count == 0 || Part.Index == 0 || Part.Index > Part.Count)
    return failure("--shard must be K/N with 1 <= K <= N, not '" + Shard + "'");
  return Part;
}

using Unit = std::pair<std::string, std::string>; // (real path, database name)

/// The units: every file of the database under PATHS, changed in diff mode,
/// in this shard. Sorted, so that the shards are the same on every machine.
llvm::Expected<std::vector<Unit>>
selectUnits(const clang::tooling::CompilationDatabase &Database,
            const std::vector<std::string> &Paths,
            const std::optional<ChangedLines> &Changed, ShardPart Shard) {
  std::vector<std::string> Wanted;
  for (const std::string &P : Paths) {
    if (!llvm::sys::fs::exists(P))
      return failure("no such file or directory: '" + P + "'");
    Wanted.push_back(absolute(P));
  }
  std::vector<Unit> Units;
  for (const std::string &File : Database.getAllFiles()) {
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
  std::vector<Unit> Mine;
  for (size_t I = 0; I < Units.size(); ++I)
    if (I % Shard.Count == Shard.Index - 1)
      Mine.push_back(Units[I]);
  return Mine;
}

std::string defaultPchCacheDir() {
  llvm::SmallString<256> Cache;
  if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg)
    Cache = Xdg;
  else if (!llvm::sys::path::home_directory(Cache))
    Cache = "/tmp";
  else
    llvm::sys::path::append(Cache, ".cache");
  llvm::sys::path::append(Cache, "torchalias", "pch");
  return std::string(Cache);
}

std::vector<UnitResult>
runUnits(const clang::tooling::CompilationDatabase &Database,
         const std::vector<Unit> &Units, const RunSettings &Settings,
         const CheckOptions &Options, const std::string &RootDir) {
  std::vector<UnitResult> Results(Units.size());
  Progress Bar(Units.size(), !Options.Quiet);
  compat::ThreadPool Pool(llvm::hardware_concurrency(Options.Jobs));
  for (size_t I = 0; I < Units.size(); ++I)
    Pool.async([&, I] {
      auto Start = std::chrono::steady_clock::now();
      // A crash in one unit (a clang bug) costs that unit, not the run.
      llvm::CrashRecoveryContext Recovery;
      if (!Recovery.RunSafely([&] {
            Results[I] = runUnit(Database, Units[I].second, Settings);
          })) {
        Results[I] = UnitResult();
        Results[I].File = Units[I].second;
        Results[I].ToolErrors.push_back("the analysis of '" + Units[I].second +
                                        "' crashed; its findings are missing");
      }
      Bar.done(relativePath(Units[I].first, RootDir),
               std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             Start)
                   .count());
    });
  Pool.wait();
  return Results;
}

/// Every finding once, even if several units include its header, with its
/// identity; the run's own problems go into \p Context.
std::vector<Finding> combine(std::vector<UnitResult> &Results,
                             const std::vector<Unit> &Units,
                             const std::string &RootDir, OutputContext &Context) {
  std::vector<Finding> All;
  std::set<std::string> ConfigErrors, ConfigWarnings;
  for (size_t I = 0; I < Results.size(); ++I) {
    UnitResult &R = Results[I];
    Context.Units.push_back({Units[I].first, pchMissName(R.Pch).str()});
    for (Finding &F : R.Findings)
      All.push_back(std::move(F));
    ConfigErrors.insert(R.ToolErrors.begin(), R.ToolErrors.end());
    ConfigWarnings.insert(R.ToolWarnings.begin(), R.ToolWarnings.end());
  }
  llvm::stable_sort(All, before);
  All.erase(std::unique(All.begin(), All.end(), sameFinding), All.end());
  assignIds(All, RootDir);
  Context.Errors.assign(ConfigErrors.begin(), ConfigErrors.end());
  Context.Warnings.assign(ConfigWarnings.begin(), ConfigWarnings.end());
  return All;
}

/// What is reported: not in the baseline, and on a changed line.
struct Selection {
  std::vector<Finding> Reported;
  unsigned InBaseline = 0, Unchanged = 0;
};

Selection selectReported(std::vector<Finding> &All,
                         const std::set<std::string> &Accepted,
                         const std::optional<ChangedLines> &Changed) {
  Selection Out;
  for (Finding &F : All) {
    if (Accepted.count(F.Id)) {
      ++Out.InBaseline;
      continue;
    }
    if (Changed) {
      auto It = Changed->find(F.Where.File);
      if (It == Changed->end() || !It->second.count(F.Where.Line)) {
        ++Out.Unchanged;
        continue;
      }
    }
    Out.Reported.push_back(std::move(F));
  }
  return Out;
}

llvm::Error writeFindings(const CheckOptions &Options,
                          const std::vector<Finding> &Reported,
                          const OutputContext &Context) {
  return writeTo(Options.OutputFile, [&](llvm::raw_ostream &OS) {
    switch (Options.Format) {
    case OutputFormat::Text:
      writeText(OS, Reported, Context);
      break;
    case OutputFormat::Json:
      OS << llvm::formatv("{0:2}", toJson(Reported, Context)) << "\n";
      break;
    case OutputFormat::Sarif:
      OS << llvm::formatv("{0:2}", toSarif(Reported, Context)) << "\n";
      break;
    }
  });
}

/// The fix-its of the reported findings, as clang-apply-replacements YAML.
llvm::Error writeFixes(const std::string &Path,
                       const std::vector<UnitResult> &Results,
                       const std::vector<Finding> &Reported) {
  std::vector<clang::tidy::ClangTidyError> Fixes;
  for (const UnitResult &R : Results)
    for (const clang::tidy::ClangTidyError &E : R.Errors)
      if (!E.Message.FilePath.empty() && !E.Message.Fix.empty())
        Fixes.push_back(E);
  llvm::erase_if(Fixes, [&](const clang::tidy::ClangTidyError &E) {
    for (const Finding &F : Reported)
      if (F.Check == E.DiagnosticName && F.Message == E.Message.Message)
        return false;
    return true;
  });
  return writeTo(Path, [&](llvm::raw_ostream &OS) {
    clang::tidy::exportReplacements("", Fixes, OS);
  });
}

/// "; PCH used by 5 unit(s) (1 built, 0 reused), not by 2 (1 no-preamble,
/// 1 forced-include)": the reasons counted, in the order of PchMiss.
std::string pchSummary(const PchCache &Pch, const std::vector<UnitResult> &Results) {
  std::map<PchMiss, unsigned> Misses;
  unsigned With = 0;
  for (const UnitResult &R : Results)
    R.Pch == PchMiss::None ? ++With : ++Misses[R.Pch];
  std::string Out = llvm::formatv("; PCH used by {0} unit(s) ({1} built, {2} reused)", With,
                                  Pch.built(), Pch.reused());
  if (Misses.empty())
    return Out;
  Out += llvm::formatv(", not by {0} (", Results.size() - With).str();
  bool First = true;
  for (const auto &[Miss, Count] : Misses) {
    Out += llvm::formatv("{0}{1} {2}", First ? "" : ", ", Count, pchMissName(Miss)).str();
    First = false;
  }
  return Out + ")";
}

void writeSummaryLine(const CheckOptions &Options, const Selection &Selected,
                      size_t Units, bool DiffMode, const PchCache *Pch,
                      const std::vector<UnitResult> &Results) {
  llvm::errs() << llvm::formatv(
      "torchalias: {0} finding(s) in {1} translation unit(s)",
      Selected.Reported.size(), Units);
  if (!Options.Baseline.empty())
    llvm::errs() << llvm::formatv(", {0} in the baseline", Selected.InBaseline);
  if (DiffMode)
    llvm::errs() << llvm::formatv(", {0} on unchanged lines",
                                  Selected.Unchanged);
  if (Pch)
    llvm::errs() << pchSummary(*Pch, Results);
  llvm::errs() << "\n";
}

} // namespace

int runCheck(const CheckOptions &Options) {
  auto Database = loadDatabase(Options.BuildPath);
  if (!Database)
    return fail(llvm::toString(Database.takeError()));
  std::string RootDir = absolute(Options.Root.empty() ? "." : Options.Root);
  auto Settings = settingsFor(Options);
  if (!Settings)
    return fail(llvm::toString(Settings.takeError()));

  // The baseline, the diff and the shard, before any work, so that a bad one
  // costs nothing.
  std::set<std::string> Accepted;
  if (!Options.Baseline.empty()) {
    auto Read = readBaseline(Options.Baseline);
    if (!Read)
      return fail(llvm::toString(Read.takeError()));
    Accepted = std::move(*Read);
  }
  std::optional<ChangedLines> Changed;
  if (Options.Diff) {
    auto Read = changedLines(*Options.Diff, RootDir);
    if (!Read)
      return fail(llvm::toString(Read.takeError()));
    Changed = std::move(*Read);
  }
  auto Shard = parseShard(Options.Shard);
  if (!Shard)
    return fail(llvm::toString(Shard.takeError()));
  auto Units = selectUnits(**Database, Options.Paths, Changed, *Shard);
  if (!Units)
    return fail(llvm::toString(Units.takeError()));

  std::optional<PchCache> Pch;
  if (!Options.NoPch) {
    Pch.emplace(Options.PchCacheDir.empty() ? defaultPchCacheDir()
                                            : Options.PchCacheDir);
    if (llvm::Error E = Pch->prepare())
      return fail(llvm::toString(std::move(E)));
    Settings->Pch = &*Pch;
  }

  std::vector<UnitResult> Results =
      runUnits(**Database, *Units, *Settings, Options, RootDir);
  OutputContext Context;
  Context.Root = RootDir;
  Context.HelpUriBase = Options.HelpUriBase;
  std::vector<Finding> All = combine(Results, *Units, RootDir, Context);

  int Status = Clean;
  if (!Options.WriteBaseline.empty())
    if (llvm::Error E = writeBaseline(Options.WriteBaseline, All, RootDir)) {
      reportError(std::move(E));
      Status = ToolError;
    }
  Selection Selected = selectReported(All, Accepted, Changed);
  Context.AgainstBaseline = !Options.Baseline.empty();
  for (const std::string &E : Context.Errors)
    llvm::errs() << "torchalias: error: " << E << "\n";
  for (const std::string &W : Context.Warnings)
    llvm::errs() << "torchalias: warning: " << W << "\n";
  if (llvm::Error E = writeFindings(Options, Selected.Reported, Context)) {
    reportError(std::move(E));
    Status = ToolError;
  }
  if (!Options.ExportFixes.empty())
    if (llvm::Error E =
            writeFixes(Options.ExportFixes, Results, Selected.Reported)) {
      reportError(std::move(E));
      Status = ToolError;
    }
  if (!Options.Quiet)
    writeSummaryLine(Options, Selected, Units->size(), Changed.has_value(),
                     Pch ? &*Pch : nullptr, Results);
  if (!Context.Errors.empty())
    Status = ToolError;
  if (Status == Clean && !Selected.Reported.empty())
    Status = Found;
  return Status;
}

} // namespace torchalias::driver
