//===- ApiEffects.h - what libtorch's C++ API does to its tensors ---------===//
//
// Which tensors a function of libtorch's C++ API, or a module's forward,
// writes in place and saves for backward, under each setting of the options
// that decide it: `at::batch_norm(..., training, ...)` writes its running
// statistics when `training` is true, `F::relu(x, F::ReLUFuncOptions()
// .inplace(true))` writes `x`, `nn::init::normal_(w)` writes `w`, an
// `nn::Embedding` with `max_norm` writes its `weight` in forward. No schema
// says so (`aten::batch_norm` declares no written argument; `torch::nn` has
// no schemas), so torchalias-gen-api-effects measures it on the libtorch it
// links (Note [Measuring API effects]) and writes
// checks/data/libtorch-api-effects.json, which is compiled in.
//
// Tensors are named by the C++ parameter that takes them (`running_mean`),
// by the option setter that takes them (`.weight(w)`), or, for a module, by
// `input` and the names of its parameters and buffers.
//
// Limitations: one shape and one setting of the options not named in a case
// decide each fact; an entry point the generator does not call has no entry.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_APIEFFECTS_H
#define TORCHALIAS_ANALYSIS_APIEFFECTS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang::tidy::libtorch {

/// Option values by name: `{"training", true}`.
using OptionSetting = std::vector<std::pair<std::string, bool>>;

/// What one entry point did under one setting.
struct ApiCase {
  OptionSetting When;
  std::vector<std::string> Writes;        ///< Arguments (or `input`).
  std::vector<std::string> WritesMembers; ///< A module's own tensors.
  /// Written through the data pointer: the version did not move, so
  /// autograd cannot notice (`batch_norm`'s running statistics).
  std::vector<std::string> WritesWithoutVersion;
  /// Also written when a leaf that requires grad: the function writes under
  /// its own NoGradGuard (`nn::init`, `embedding`'s max-norm renorm).
  std::vector<std::string> WritesGradLeaves;
  std::vector<std::string> Saves;
  std::vector<std::string> SavesMembers;
  std::string Returns; ///< The tensor the result shares storage with.
  bool SavesResult = false;
};

/// The union of the cases a call may be in.
struct ApiEffect {
  std::vector<std::string> Writes, WritesMembers, WritesWithoutVersion,
      WritesGradLeaves, Saves, SavesMembers;
  std::string Returns; ///< Empty unless every such case returns it.
  bool SavesResult = false;

  bool writes(llvm::StringRef Tensor) const;
};

/// One measured entry point.
struct ApiEntry {
  std::string Api; ///< Qualified: `torch::nn::functional::batch_norm`.
  bool IsModule = false;
  std::vector<std::string> Tensors;
  OptionSetting Defaults;
  std::vector<ApiCase> Cases;

  /// What a call does, given the value of each option it sets: ValueOf
  /// returns the call's value of an option, the default when the call does
  /// not set it, and std::nullopt when it cannot tell. A case applies unless
  /// one of its options is known to have another value.
  ApiEffect under(
      llvm::function_ref<std::optional<bool>(llvm::StringRef Option,
                                             std::optional<bool> Default)>
          ValueOf) const;
};

class ApiEffectTable {
public:
  /// Parses a table in the format torchalias-gen-api-effects writes.
  static llvm::Expected<std::shared_ptr<const ApiEffectTable>>
  parse(llvm::StringRef JSON);

  /// The table compiled into torchalias (Debian's libtorch 1.13.1).
  static std::shared_ptr<const ApiEffectTable> builtin();

  llvm::StringRef libtorchVersion() const { return LibtorchVersion; }
  size_t size() const { return ByApi.size(); }

  /// The entry of a function or module class by its qualified name, or null.
  const ApiEntry *lookup(llvm::StringRef Api) const;

private:
  std::string LibtorchVersion;
  llvm::StringMap<ApiEntry> ByApi;
};

} // namespace clang::tidy::libtorch

#endif
