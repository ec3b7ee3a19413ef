//===- TensorModel.h - C++ spellings of libtorch tensor operations --------===//
//
// Maps a C++ call to what it does to tensors: the lookup layer between clang's
// AST and the operator table. Method calls on at::Tensor/at::TensorBase,
// at::/torch:: free functions and their _out/_outf forms are looked up in the
// table. Only the C++ surface that has no schema is modelled here by hand: the
// rvalue `Tensor::operator=` (assignment into an index), `index`/`operator[]`,
// `data()`, `detach()`, the compound assignments, the free arithmetic
// operators (`a * b` is `mul`) and `from_blob`.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_TENSORMODEL_H
#define TORCHALIAS_ANALYSIS_TENSORMODEL_H

#include "ApiEffects.h"
#include "OperatorTable.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace clang::tidy::libtorch {

/// True for at::Tensor and at::TensorBase, through references and qualifiers.
bool isTensorType(QualType Type);

/// True for standard containers of tensors (`std::vector<at::Tensor>`), which
/// hold the views returned by `split`, `chunk` and `unbind`, and for
/// `at::TensorList`, which refers to such a list's handles (Note [Lists that
/// refer to their tensors]).
bool isTensorListType(QualType Type);

/// True for `std::reference_wrapper<at::Tensor>` (Note [References to
/// tensors]).
bool isTensorReferenceWrapper(QualType Type);

/// True for `at::TensorList`, which refers to another list's handles.
bool isTensorListRef(QualType Type);

/// True for a standard container, pair, tuple or optional that holds tensors
/// (`std::map<std::string, at::Tensor>`, `std::array<at::Tensor, 2>`,
/// `std::vector<std::pair<int, at::Tensor>>`): copying it copies handles.
bool isTensorContainerType(QualType Type);

/// True for a user's object whose members are tensors or containers of them
/// (`struct Gates { at::Tensor input, forget; }`, a torch::data::Example),
/// not a module: copying it copies the handles.
bool isTensorRecordType(QualType Type);

/// True if Decl is declared in namespace at, c10 or torch (directly or nested),
/// i.e. it is libtorch's own code, not the user's.
bool isLibtorchDecl(const Decl *Decl);

/// C++-only operations with no schema of their own.
enum class SpecialOperation {
  None,
  Detach,   ///< `detach()`: a view sharing the version counter.
  Data,     ///< `data()`: a view that does not share the version counter.
  FromBlob, ///< `from_blob`: wraps memory the tensor does not own.
};

/// A call that involves tensors, resolved to its effect.
struct TensorCall {
  const CallExpr *Call = nullptr;
  /// The C++ spelling, for diagnostics: "add_", "add_out", "operator[]".
  std::string Spelling;
  /// The call's tensor operands, in C++ order; for a method or operator call
  /// on a tensor the object comes first. CallEffect positions index this.
  llvm::SmallVector<const Expr *, 4> Args;
  CallEffect Effect;
  SpecialOperation Special = SpecialOperation::None;
  /// Assignment into an index (`t[i] = v`, `t.index({...}) = v`).
  bool IsIndexAssignment = false;
  /// For a call of the C++ API measured in the API effect table (Note
  /// [Calls of the C++ API]): the name of each operand, since operands past
  /// the call's arguments are tensors handed to its options (`.weight(w)`),
  /// and what the call saves for backward.
  llvm::SmallVector<std::string, 4> OperandNames;
  struct Saves {
    llvm::SmallVector<unsigned, 2> Inputs;
    bool Result = false;
  };
  std::optional<Saves> MeasuredSaves;
  /// Written operands the call also writes when they are leaves that
  /// require grad (it writes under its own NoGradGuard).
  llvm::SmallVector<unsigned, 2> WritesGradLeaves;

  const Expr *written(unsigned I) const { return Args[Effect.WrittenArgs[I]]; }
  /// The operand the result aliases (the base of a view, `self` of an
  /// in-place method); null when the result is a fresh tensor.
  const Expr *aliasedArgument() const {
    if (!Effect.ResultAliases || *Effect.ResultAliases >= Args.size())
      return nullptr;
    return Args[*Effect.ResultAliases];
  }
};

/// Resolves Call if it is a libtorch tensor operation, or a call of the C++
/// API the API effect table measured; std::nullopt otherwise (including
/// calls to the user's own functions).
std::optional<TensorCall> resolveTensorCall(const CallExpr *Call,
                                            const OperatorTable &Table);

/// What the forward of the library module class Impl does (Note [Module
/// calls]), built by Constructions (moduleConstructions; none: the options'
/// defaults); std::nullopt for a module the API effect table does not
/// measure.
std::optional<ApiEffect>
moduleForwardEffect(const CXXRecordDecl *Impl,
                    llvm::ArrayRef<const Expr *> Constructions);

/// The name of a TensorCall operand: the API table's name for it, else the
/// C++ parameter's name ("self" for the object of a method call); empty
/// when the callee does not name it.
llvm::StringRef operandName(const TensorCall &Call, unsigned Position);

/// Views that permute their input's strides (`t`, `transpose`, `permute`,
/// `mT`, ...): on a tensor with two dimensions larger than one the result is
/// not contiguous. Schemas say nothing about strides, so this is modelled by
/// hand; runtime/test/libtorch_facts_test.cpp checks it against the library.
bool permutesStrides(llvm::StringRef Operator);

/// Views that keep a contiguous input contiguous: the reshaping views
/// (`view`, `reshape`, `flatten`, `unsqueeze`, ...) and a selection along the
/// first dimension (`t[i]`, `select(0, i)`, `narrow(0, ...)`, `slice(0, a, b)`
/// with step 1). Hand-modelled, like permutesStrides.
bool keepsContiguity(const TensorCall &Call, const ASTContext &AST);

/// Views that keep every element of their input, reordered or reshaped:
/// the permuting and reshaping views, `expand` and friends, `alias`,
/// `detach()` and `data()`. Other views keep a part (`narrow`, `diagonal`).
bool keepsEveryElement(const TensorCall &Call);

/// Views that keep a tensor's strides as they are, up to dimensions of size
/// one: `unsqueeze`, `squeeze`, `alias`, `detach()`, `data()`. A permuted
/// tensor stays permuted through them.
bool keepsStrides(const TensorCall &Call);

/// Whether Call makes a new contiguous tensor from sizes alone: a libtorch
/// function that takes no tensor (`zeros`, `empty`, `arange`, ...; not
/// `empty_strided`), a `new_*` method (`x.new_zeros(...)`), or `from_blob`
/// without strides.
bool makesContiguousTensor(const TensorCall &Call);

/// Out-of-place operations whose result takes its input's strides
/// (`memory_format=preserve_format`): `clone()` and the `*_like` factories,
/// when the call names no memory format of its own.
bool preservesFormat(const TensorCall &Call);

/// Strips the implicit nodes around a tensor-valued expression: casts,
/// temporaries, parentheses and copy or move construction of a handle.
const Expr *skipHandleCopies(const Expr *E);

/// Whether the local Var is never assigned (`=`, `+=`, ...) anywhere in its
/// function, lambdas included; false where the function has no body.
bool neverAssigned(const VarDecl *Var);

/// Calls Visit on S and every statement under it, parents first; the
/// bodies of lambdas (which run when called) only with IntoLambdas.
void forEachStmt(const Stmt *S, llvm::function_ref<void(const Stmt *)> Visit,
                 bool IntoLambdas = true);

/// Visits each function defined in the main file that has a body (methods,
/// function templates' patterns, functions in namespaces and classes).
void forEachMainFileFunction(ASTContext &AST,
                             llvm::function_ref<void(const FunctionDecl &)> Visit);

/// Whether a tensor method returns a view that autograd does not record:
/// `detach()`, and `data()` or `variable_data()`, which also do not share
/// the tensor's version counter (Note [Views outside the graph]).
bool isDetachingMethod(llvm::StringRef Name);

/// Whether a tensor method is `data()` or `variable_data()`, the two
/// spellings of one operation.
bool isDataMethod(llvm::StringRef Name);

/// Whether a method of a tensor asks only its metadata (sizes, strides,
/// dtype, device) or hands out its data pointer or an accessor, rather
/// than reading its values as a tensor.
bool asksOnlyMetadata(const CXXMethodDecl *Method);

/// The declaration an expression names: `v`, `this->v`, `obj.v`; null for
/// anything else.
const ValueDecl *namedDecl(const Expr *E);

/// The range of each range-for loop in Body, by its loop variable
/// (`for (auto &p : range)`), so that a use of `p` can be followed to `range`.
llvm::DenseMap<const VarDecl *, const Expr *> rangeForInits(const Stmt *Body);

} // namespace clang::tidy::libtorch

#endif
