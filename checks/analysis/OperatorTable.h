//===- OperatorTable.h - aten:: operator facts from PyTorch's schemas -----===//
//
// The checks' only source of operator knowledge: which arguments an aten::
// operator writes, which are `out=` arguments, which argument its result
// aliases, and whether that alias is a definite view or only a possible one.
// The table is generated from c10::Dispatcher by torchalias-gen-operator-table;
// the one generated from Debian's libtorch 1.13.1 is compiled in.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_OPERATORTABLE_H
#define TORCHALIAS_ANALYSIS_OPERATORTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// How the result of an aliasing operator relates to the input it aliases.
enum class ViewKind {
  None,     ///< The result does not alias an input as a view.
  Definite, ///< Always a view (the operator has a `<op>_copy` twin).
  MayAlias, ///< The input itself or a view when the layout allows, else a copy.
};

/// One overload of an aten:: operator, as its schema describes it.
struct OperatorOverload {
  std::string Overload;
  std::vector<std::string> Arguments;
  llvm::SmallVector<unsigned, 2> Written; ///< Indices into Arguments.
  llvm::SmallVector<unsigned, 2> Out;     ///< Written keyword-only `out=`.
  std::optional<unsigned> ResultAliases;  ///< Argument the first result aliases.
  ViewKind View = ViewKind::None;
  bool ReturnsList = false; ///< A list of views (`Tensor(a -> *)`).
  bool Expands = false;     ///< Elements of the result may share memory.
  /// The written arguments' metadata changes, not their data (`squeeze_`,
  /// `requires_grad_`).
  bool MetadataOnly = false;
};

/// How a C++ spelling of an operator call is written; it decides where the
/// schema's arguments sit among the C++ call's arguments.
enum class CallSpelling {
  Method,       ///< `t.op(args)`: the object is schema argument 0.
  Function,     ///< `at::op(args)`: schema order.
  OutFirst,     ///< `at::op_out(out, args)`: `out=` arguments first.
  OutLast,      ///< `at::op_outf(args, out)`: schema order.
};

/// What one C++ call does, in terms of C++ argument positions. For a method
/// call, position 0 is the object.
struct CallEffect {
  std::string Operator; ///< Table name, e.g. "add_" or "add" for add_out.
  llvm::SmallVector<unsigned, 2> WrittenArgs;
  llvm::SmallVector<unsigned, 2> OutArgs;
  std::optional<unsigned> ResultAliases;
  ViewKind View = ViewKind::None;
  bool ReturnsList = false;
  bool Expands = false;

  bool MetadataOnly = false;

  /// Whether the call writes the data of an argument.
  bool writes() const { return !WrittenArgs.empty() && !MetadataOnly; }
  bool writesArgument(unsigned Position) const;
};

class OperatorTable {
public:
  /// Parses a table in the format torchalias-gen-operator-table writes.
  static llvm::Expected<std::shared_ptr<const OperatorTable>>
  parse(llvm::StringRef JSON);

  /// The table compiled into torchalias (Debian's libtorch 1.13.1).
  static std::shared_ptr<const OperatorTable> builtin();

  /// Reads and parses the table at Path; an empty path means builtin(). Tables
  /// are cached per path, so every check of a run shares one.
  static llvm::Expected<std::shared_ptr<const OperatorTable>>
  load(llvm::StringRef Path);

  llvm::StringRef libtorchVersion() const { return LibtorchVersion; }
  size_t size() const { return NumOverloads; }

  /// All overloads of the operator named Name (without `aten::`).
  llvm::ArrayRef<OperatorOverload> overloads(llvm::StringRef Name) const;

  /// Resolves a C++ call of Name with NumArgs arguments (counting the object
  /// of a method call). The spelling of a free function is derived from its
  /// name: `op_out` is OutFirst, `op_outf` is OutLast.
  std::optional<CallEffect> resolveMethod(llvm::StringRef Name,
                                          unsigned NumArgs) const;
  std::optional<CallEffect> resolveFunction(llvm::StringRef Name,
                                            unsigned NumArgs) const;

private:
  std::optional<CallEffect> resolve(llvm::StringRef Name, CallSpelling Spelling,
                                    unsigned NumArgs) const;

  std::string LibtorchVersion;
  size_t NumOverloads = 0;
  llvm::StringMap<std::vector<OperatorOverload>> ByName;
};

} // namespace clang::tidy::libtorch

#endif
