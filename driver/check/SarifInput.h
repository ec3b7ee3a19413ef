//===- SarifInput.h - Findings read back from a SARIF log -------*- C++ -*-===//
//
// `torchalias instrument` and `torchalias report` take the runner's SARIF
// log as their input. A StaticFinding is one result of it: the rule, the
// identity (partialFingerprints "torchalias/v1", Note [Finding identity]),
// the message and the locations resolved to absolute paths.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_DRIVER_SARIFINPUT_H
#define TORCHALIAS_DRIVER_SARIFINPUT_H

#include "Findings.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace torchalias::driver {

struct StaticFinding {
  std::string Check, Id, Message;
  SourcePoint Where;
  std::vector<Note> Related;
  unsigned Run = 0, Result = 0; // where it is in the log
};

struct SarifLog {
  llvm::json::Value Log = nullptr;
  std::string Root; // SRCROOT, absolute, without a trailing slash
  std::vector<StaticFinding> Findings;
};

/// Reads \p Path. Relative URIs are resolved against their uriBaseId from
/// the log's originalUriBaseIds, or against \p RootOverride when it is set.
/// Results without a torchalias identity are an error: the log is not one
/// that `torchalias check` wrote.
llvm::Expected<SarifLog> readSarif(llvm::StringRef Path, llvm::StringRef RootOverride = "");

} // namespace torchalias::driver

#endif
