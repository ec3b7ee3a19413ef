//===- TorchaliasMain.cpp - The torchalias command ------------------------===//
//
// The main of `torchalias`: it parses the command line (llvm::cl) and hands
// each subcommand's options to what runs it (check/Commands.h), as
// clang-tidy's main hands its options to runClangTidy.
//
// `torchalias check` runs the checks over a project for a pull-request gate:
// SARIF, baselines, diff mode, sharding, and an automatic PCH of the libtorch
// headers. `torchalias merge-sarif` joins the logs of sharded runs. See
// docs/ci.md. `torchalias instrument` writes a copy of the project with a
// run-time validator at each finding's site, and `torchalias report` gives
// each finding the verdict of the instrumented program's runs. See
// docs/runtime.md. The exit codes are in check/Commands.h.
//
//===----------------------------------------------------------------------===//

#include "check/Commands.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace torchalias::driver;
namespace cl = llvm::cl;

namespace {

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
cl::opt<OutputFormat> Format(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(OutputFormat::Text, "text", "clang-tidy style"),
               clEnumValN(OutputFormat::Json, "json", "one JSON document"),
               clEnumValN(OutputFormat::Sarif, "sarif", "SARIF 2.1.0")),
    cl::init(OutputFormat::Text), cl::sub(CheckCommand), cl::cat(Category));
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

CheckOptions checkOptions() {
  CheckOptions Options;
  Options.BuildPath = BuildPath;
  Options.Paths = Paths;
  if (Checks.getNumOccurrences())
    Options.Checks = Checks;
  Options.Jobs = Jobs;
  Options.Format = Format;
  Options.OutputFile = OutputFile;
  Options.ExportFixes = ExportFixes;
  Options.WriteBaseline = WriteBaseline;
  Options.Baseline = Baseline;
  if (Diff.getNumOccurrences())
    Options.Diff = Diff;
  Options.Shard = Shard;
  Options.NoPch = NoPch;
  Options.PchCacheDir = PchCacheDir;
  Options.FullTraversal = FullTraversal;
  Options.Root = Root;
  Options.HelpUriBase = HelpUriBase;
  Options.Quiet = Quiet;
  return Options;
}

InstrumentOptions instrumentOptions() {
  InstrumentOptions Options;
  Options.Findings = InstrumentFindings;
  Options.BuildPath = InstrumentBuild;
  Options.Root = InstrumentRoot;
  Options.OutputDir = InstrumentOutput;
  Options.InPlace = InstrumentInPlace;
  Options.Manifest = InstrumentManifest;
  Options.Jobs = InstrumentJobs;
  return Options;
}

ReportOptions reportOptions() {
  ReportOptions Options;
  Options.Static = ReportStatic;
  Options.Dynamic = ReportDynamic;
  Options.Manifest = ReportManifest;
  Options.Output = ReportOutput;
  Options.Root = ReportRoot;
  return Options;
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
    return runCheck(checkOptions());
  if (MergeCommand)
    return runMergeSarif(MergeInputs, MergeOutput);
  if (InstrumentCommand)
    return runInstrument(instrumentOptions());
  if (ReportCommand)
    return runReport(reportOptions());
  llvm::errs() << "torchalias: error: give a subcommand: check, merge-sarif, instrument or "
                  "report (see --help)\n";
  return ToolError;
}
