//===- Output.h - Text, JSON and SARIF output of findings -------*- C++ -*-===//

#ifndef TORCHALIAS_DRIVER_OUTPUT_H
#define TORCHALIAS_DRIVER_OUTPUT_H

#include "Findings.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace torchalias::driver {

struct OutputContext {
  std::string Root;        // paths are written relative to it
  std::string HelpUriBase; // check pages: <base>/<check>.md
  bool AgainstBaseline = false;
  /// Problems of the run itself (bad options, units that could not run).
  std::vector<std::string> Errors, Warnings;
  /// Each unit, and why it was parsed without a PCH ("" if it had one).
  struct UnitPch {
    std::string File; // absolute
    std::string NoPchReason;
  };
  std::vector<UnitPch> Units;
};

void writeText(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
               const OutputContext &Context);
llvm::json::Value toJson(const std::vector<Finding> &Findings, const OutputContext &Context);
llvm::json::Value toSarif(const std::vector<Finding> &Findings, const OutputContext &Context);

/// Joins SARIF logs (the shards of one run) into one log with one run: the
/// union of the rules, every result, every invocation.
llvm::Expected<llvm::json::Value> mergeSarif(const std::vector<llvm::json::Value> &Logs);

} // namespace torchalias::driver

#endif
