//===- Runner.h - Runs the checks over translation units --------*- C++ -*-===//
//
// One translation unit, run as clang-tidy runs it (the same options, NOLINT
// and header filtering), with two differences that change only the cost:
// an automatic PCH of its preamble (Note [When a PCH is used]) and a
// traversal scope of the project's own code (Note [Traversal scope]).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_DRIVER_RUNNER_H
#define TORCHALIAS_DRIVER_RUNNER_H

#include "Findings.h"
#include "PchCache.h"

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CompilationDatabase.h"

#include <optional>
#include <string>
#include <vector>

namespace torchalias::driver {

struct RunSettings {
  /// Defaults, then `.clang-tidy` files, then these overrides (--checks).
  clang::tidy::ClangTidyOptions Defaults, Overrides;
  PchCache *Pch = nullptr; // null: no PCH
  bool ScopeToProject = true;
};

struct UnitResult {
  std::string File;
  std::vector<Finding> Findings;
  /// The same findings as clang-tidy reports them, for --export-fixes.
  std::vector<clang::tidy::ClangTidyError> Errors;
  /// Problems of the run rather than the code: diagnostics without a location
  /// (bad check options), and units that could not be analysed.
  std::vector<std::string> ToolErrors, ToolWarnings;
  /// Whether it was parsed with a PCH: None, or why not.
  PchMiss Pch = PchMiss::Disabled;
};

/// Runs the enabled checks on every command \p Database has for \p File.
UnitResult runUnit(const clang::tooling::CompilationDatabase &Database,
                   llvm::StringRef File, const RunSettings &Settings);

} // namespace torchalias::driver

#endif
