//===- OverlapSemantics.h - which overlaps libtorch's operators reject ----===//
//
// Problem: whether an operand may share memory with the tensor an operator
// writes is decided inside each kernel. `x.add_(x)` runs and is right,
// `x.index_put_({i}, x)` throws, `x.narrow(0, 1, 2).add_(x.narrow(0, 0, 2))`
// throws; no schema says so.
//
// Simplification: the facts are measured, not modelled. The generator
// torchalias-gen-overlap-semantics runs every in-place and out= overload of
// the libtorch it links twice per tensor input, once with the input being the
// written argument and once with the two overlapping by one element, and
// records `rejects`, `accepts` (it ran, and the result was the one computed
// from copies), `corrupts` (it ran and the result was another) or `untested`
// (docs/operator-table.md, "aten-overlap.json"). The table measured on Debian's libtorch 1.13.1 is
// compiled in. Facts are looked up by operator name, written argument and
// input name; the overloads of one name that measured that pair are merged,
// and where they disagree the fact is `untested`.
//
// Limitations: one input profile decides each fact; an operator or input that
// was skipped or could not be built has no fact (std::nullopt, or Untested).
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_OVERLAPSEMANTICS_H
#define TORCHALIAS_ANALYSIS_OVERLAPSEMANTICS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace clang::tidy::libtorch {

/// What libtorch did when a written argument and an input shared memory.
enum class OverlapVerdict {
  Rejects,  ///< It threw its overlap error ("... a single memory location").
  Accepts,  ///< The call ran, and the result was right for the profile.
  Corrupts, ///< The call ran, and the result was wrong (`mm.out`).
  Untested, ///< The case could not be measured, or overloads disagree.
};

/// The two measured cases for one (operator, written argument, input).
struct MeasuredOverlap {
  OverlapVerdict ExactAlias = OverlapVerdict::Untested;     ///< `x.add_(x)`
  OverlapVerdict PartialOverlap = OverlapVerdict::Untested; ///< one apart
};

class OverlapSemantics {
public:
  /// Parses a table in the format torchalias-gen-overlap-semantics writes.
  static llvm::Expected<std::shared_ptr<const OverlapSemantics>>
  parse(llvm::StringRef JSON);

  /// The table compiled into torchalias (Debian's libtorch 1.13.1).
  static std::shared_ptr<const OverlapSemantics> builtin();

  llvm::StringRef libtorchVersion() const { return LibtorchVersion; }
  /// Measured overloads.
  size_t size() const { return NumOverloads; }

  /// The facts for Input of Operator (the table's name: `add_`, or `add` for
  /// `add_out`) against its written argument Destination (`self`, `out`);
  /// std::nullopt when no overload of Operator measured that pair.
  std::optional<MeasuredOverlap> lookup(llvm::StringRef Operator,
                                        llvm::StringRef Destination,
                                        llvm::StringRef Input) const;

private:
  std::string LibtorchVersion;
  size_t NumOverloads = 0;
  /// Keyed by "operator\0destination\0input".
  llvm::StringMap<MeasuredOverlap> Facts;
};

} // namespace clang::tidy::libtorch

#endif
