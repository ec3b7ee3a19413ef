//===- Commands.h - The subcommands of torchalias ---------------*- C++ -*-===//
//
// What each subcommand of `torchalias` does, given its options: the main
// (TorchaliasMain.cpp) only parses the command line and calls one of these,
// as clang-tidy's main calls clang::tidy::runClangTidy. Every path in the
// options is absolute or relative to the working directory the command was
// run in (Note [Paths a user gives] in TorchaliasMain.cpp).
//
// Exit codes: 0 nothing (new) found; 1 findings reported (report: a finding
// confirmed); 2 a usage or tool error (bad option, missing or broken
// compilation database, unreadable baseline, unwritable PCH cache or output).
// Findings of the units that ran are written even when the exit code is 2.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_DRIVER_COMMANDS_H
#define TORCHALIAS_DRIVER_COMMANDS_H

#include <optional>
#include <string>
#include <vector>

namespace torchalias::driver {

enum ExitCode { Clean = 0, Found = 1, ToolError = 2 };

enum class OutputFormat { Text, Json, Sarif };

/// `torchalias check`: the checks over a project, for a pull-request gate.
struct CheckOptions {
  std::string BuildPath;          // the directory of compile_commands.json
  std::vector<std::string> Paths; // empty: every file of the database
  std::optional<std::string> Checks;
  unsigned Jobs = 0; // 0: all cores
  OutputFormat Format = OutputFormat::Text;
  std::string OutputFile, ExportFixes, WriteBaseline, Baseline; // empty: none
  std::optional<std::string> Diff; // a git ref, or "-" for a diff on stdin
  std::string Shard;               // "K/N"; empty: all units
  bool NoPch = false;
  std::string PchCacheDir; // empty: $XDG_CACHE_HOME/torchalias/pch
  bool FullTraversal = false;
  std::string Root; // empty: the working directory
  std::string HelpUriBase;
  bool Quiet = false;
};
int runCheck(const CheckOptions &Options);

/// `torchalias merge-sarif`: the SARIF logs of sharded runs joined into one.
int runMergeSarif(const std::vector<std::string> &Inputs,
                  const std::string &Output);

/// `torchalias instrument`: a copy of the project with a run-time validator
/// at each finding's site.
struct InstrumentOptions {
  std::string Findings, BuildPath;
  std::string Root;      // empty: the log's SRCROOT
  std::string OutputDir; // empty with InPlace
  bool InPlace = false;
  std::string Manifest; // empty: OutputDir/torchalias-instrument.json
  unsigned Jobs = 0;
};
int runInstrument(const InstrumentOptions &Options);

/// `torchalias report`: each finding's verdict from the instrumented runs.
struct ReportOptions {
  std::string Static;
  std::vector<std::string> Dynamic;
  std::string Manifest, Output; // empty: none
  std::string Root;             // empty: the log's SRCROOT
};
int runReport(const ReportOptions &Options);

} // namespace torchalias::driver

#endif
