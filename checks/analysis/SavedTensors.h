//===- SavedTensors.h - what autograd saves for backward, per operator ----===//
//
// Which tensor arguments, and which results, an aten:: operator saves for
// backward. A schema does not say; torchalias-gen-saved-tensors measures it on
// the libtorch it links (Note [Measuring saved tensors]) and writes
// checks/data/aten-saved-tensors.json, which is compiled in. An entry names
// its saved arguments; the operator table gives their positions.
//
// The table lists what an operator saves when every input requires grad, so
// it is the most the operator saves: `mul` saves `other` only for the
// gradient of `self`. Operators the generator skipped (out= overloads, those
// that are not differentiable or could not be called) have no entry and save
// nothing as far as the table knows.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_SAVEDTENSORS_H
#define TORCHALIAS_ANALYSIS_SAVEDTENSORS_H

#include "OperatorTable.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// One measured overload.
struct SavedTensorEntry {
  std::string Overload;
  std::vector<std::string> SavedInputs;        ///< Schema argument names.
  llvm::SmallVector<unsigned, 2> SavedResults; ///< Result indices.
};

/// What one C++ call saves, in its C++ argument positions (for a method
/// call, position 0 is the object).
struct SavedOperands {
  llvm::SmallVector<unsigned, 2> Inputs;
  bool Result = false; ///< The first result is saved.

  bool empty() const { return Inputs.empty() && !Result; }
  bool savesInput(unsigned Position) const;
};

class SavedTensorTable {
public:
  /// Parses a table in the format torchalias-gen-saved-tensors writes.
  static llvm::Expected<std::shared_ptr<const SavedTensorTable>>
  parse(llvm::StringRef JSON);

  /// The table compiled into torchalias (Debian's libtorch 1.13.1).
  static std::shared_ptr<const SavedTensorTable> builtin();

  llvm::StringRef libtorchVersion() const { return LibtorchVersion; }
  size_t size() const { return NumOverloads; }

  /// The measured overloads of the operator named Name (without `aten::`).
  llvm::ArrayRef<SavedTensorEntry> entries(llvm::StringRef Name) const;

  /// What a C++ call of Operator saves. MayHoldTensor says, per C++ argument
  /// (the object of a method call first), whether it can be a tensor: an
  /// overload that saves an argument the call passes as a Scalar is not the
  /// one called (`x * 2` is `mul.Scalar`, which saves nothing). Among the
  /// overloads the arity allows, the union is taken; Ops gives the schema
  /// argument names of each overload.
  SavedOperands savedBy(llvm::StringRef Operator, bool Method,
                        llvm::ArrayRef<bool> MayHoldTensor,
                        const OperatorTable &Ops) const;

private:
  std::string LibtorchVersion;
  size_t NumOverloads = 0;
  llvm::StringMap<std::vector<SavedTensorEntry>> ByName;
};

} // namespace clang::tidy::libtorch

#endif
