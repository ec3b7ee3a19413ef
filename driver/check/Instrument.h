//===- Instrument.h - Validators at the sites of static findings -*- C++ -*-===//
//
// `torchalias instrument` reads the findings of `torchalias check` (its
// SARIF log) and writes a copy of the project in which each flagged site
// calls a validator of the runtime library (runtime/include/torchalias/
// instrument.h). The user's tree is not touched, so its build is unchanged;
// the copy is built with TorchAlias::runtime and run, and `torchalias report`
// turns the run's records into verdicts. See Note [Instrumented sites] and
// docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_DRIVER_INSTRUMENT_H
#define TORCHALIAS_DRIVER_INSTRUMENT_H

#include "SarifInput.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace torchalias::driver {

/// One text insertion into a file; Offset counts bytes of the original.
struct Insertion {
  unsigned Offset = 0;
  std::string Text;
};

/// What instrumenting one finding did.
struct SiteOutcome {
  const StaticFinding *Finding = nullptr;
  std::vector<std::string> Validators; // the macros inserted
  std::string Skipped;                 // why not, when nothing was inserted
};

struct FileInstrumentation {
  std::string File; // absolute
  std::vector<Insertion> Insertions;
  std::vector<SiteOutcome> Sites;
  std::string Error; // the file could not be parsed
};

/// Parses \p File with its compile command from \p Database and works out
/// the insertions for \p Findings, which are all in that file.
FileInstrumentation
instrumentFile(const clang::tooling::CompilationDatabase &Database, llvm::StringRef File,
               const std::vector<const StaticFinding *> &Findings);

/// The file's text with the insertions applied and the runtime header
/// included first; line numbers are kept (a #line directive).
std::string applyInsertions(llvm::StringRef Original, std::vector<Insertion> Insertions);

/// The manifest written next to the copy: every finding, instrumented or not.
llvm::json::Value manifest(const std::vector<FileInstrumentation> &Files, llvm::StringRef Root);

} // namespace torchalias::driver

#endif
