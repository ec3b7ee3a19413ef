//===- ParameterLists.h - the tensors a parameter list holds ----*- C++ -*-===//

#ifndef TORCHALIAS_ANALYSIS_PARAMETERLISTS_H
#define TORCHALIAS_ANALYSIS_PARAMETERLISTS_H

#include "ParameterSharing.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include <optional>
#include <utility>
#include <vector>

namespace clang::tidy::libtorch {

/// Evaluates a parameter list expression to the multiset of tensors it holds,
/// for ParameterSharingAnalysis::parameterList and parameterListThrough.
///
/// Problem: the list an optimizer, add_param_group or clip_grad_norm_ gets
/// is rarely a bare `m->parameters()`. Code builds it: a local vector grown
/// with `push_back`/`emplace_back`/`insert`/`assign`, a brace list of
/// parameter groups, a list returned by a function of the translation unit,
/// a list a helper builds from the module it is given. A tensor the list
/// holds twice is stepped twice.
///
/// Simplification: a list is its initializer, then its mutations in source
/// order (Note [Lists built step by step]); a call of a function of the
/// translation unit with a single `return` is the list returned, with the
/// callee's module parameters replaced by the modules passed (Note [Lists
/// returned by functions]); a helper's list is evaluated with its module
/// parameters bound to a caller's modules (Note [Sinks in helper functions]).
/// Modules and tensors are evaluated by the ParameterSharingAnalysis that
/// owns the builder, which keeps all state: a builder is a view of it.
///
/// Limitation: flow-insensitive. A list grown any other way (a loop that
/// filters duplicates or tests anything but a parameter's name
/// (Note [Lists filtered by parameter name]), erase or resize, an unknown
/// callee such as `torchalias::unique_parameters`), or a variable assigned
/// after its declaration, is unknown and never reported: precision over
/// recall. Helpers of helpers and a helper's other arguments are not
/// followed.
class ParameterListBuilder {
public:
  explicit ParameterListBuilder(ParameterSharingAnalysis &Sharing)
      : Sharing(Sharing) {}

  /// See ParameterSharingAnalysis::parameterList.
  std::optional<std::vector<ParameterEntry>> parameterList(const Expr *E);
  /// See ParameterSharingAnalysis::parameterListThrough.
  std::optional<std::vector<ParameterEntry>>
  parameterListThrough(const Expr *List, const CallExpr *Call);

private:
  using FunctionIndex = ParameterSharingAnalysis::FunctionIndex;
  using ModuleArguments =
      llvm::SmallVector<std::pair<const ParmVarDecl *, ModuleValue>, 2>;

  std::optional<ModuleArguments> moduleArguments(const FunctionDecl *Definition,
                                                 const CallExpr *Call);

  std::optional<std::vector<ParameterEntry>> localList(const VarDecl *Var);
  bool applyListMutation(const CallExpr *Call, std::vector<ParameterEntry> &List);
  bool appendTensor(const Expr *Tensor, const CallExpr *Site,
                    std::vector<ParameterEntry> &List);
  const VarDecl *loopItemOf(const Expr *E);
  bool appendFiltered(const std::vector<ParameterEntry> &Range,
                      const CXXForRangeStmt *Loop, const CallExpr *Site,
                      std::vector<ParameterEntry> &List);
  std::optional<std::vector<ParameterEntry>> rangeList(const Expr *Begin,
                                                       const Expr *End);
  /// What a standard algorithm appends through an inserter (Note [Lists
  /// appended to by standard algorithms]).
  bool applyAlgorithm(const CallExpr *Call, std::vector<ParameterEntry> &List);
  /// Whether Entry's tensor requires grad, where that is known (Note [Lists
  /// filtered by requires_grad()]).
  std::optional<bool> requiresGrad(const ParameterEntry &Entry);
  std::vector<std::optional<bool>>
  requiresGrad(const std::vector<ParameterEntry> &Entries);
  void findFrozen();
  std::optional<std::vector<ParameterEntry>> returnedList(const CallExpr *Call);
  std::optional<std::vector<ParameterEntry>> listInCallee(
      const CallExpr *Call, const FunctionDecl *Definition, size_t Kept,
      llvm::function_ref<std::optional<std::vector<ParameterEntry>>()> Evaluate);
  std::optional<std::vector<ParameterEntry>>
  filledList(const CallExpr *Call, unsigned Arg, const VarDecl *Var,
             std::vector<ParameterEntry> SoFar);
  /// The range-for loops over module handles, between Call and the
  /// declaration of List, that Call runs once per iteration of and whose
  /// ranges are known, with those ranges (Note [Lists built over a range of
  /// modules]).
  llvm::SmallVector<std::pair<const VarDecl *, ModuleElements>, 2>
  moduleLoopsAround(const CallExpr *Call, const VarDecl *List,
                    const FunctionIndex &Index);
  /// The modules a range of module handles holds, each with the step that
  /// names it; std::nullopt when one of them is not known.
  std::optional<ModuleElements> moduleRange(const Expr *Range);
  std::optional<std::vector<ParameterEntry>>
  unrolledParameters(const CXXMemberCallExpr *Call);

  ParameterSharingAnalysis &Sharing;
};

/// Helpers private to the parameter analyses: ParameterSharing.cpp,
/// ParameterLists.cpp and HolderCopyAnalysis.cpp.
namespace detail {
const CXXMethodDecl *methodOf(const CallExpr *Call);
/// Whether Record is std::vector, std::deque or std::list.
bool isStdContainer(const CXXRecordDecl *Record);
/// The variable a loop item names: `m` in `m`, and `item` in `item.value()`
/// (an OrderedDict item of named_modules() or named_parameters()); null for
/// anything but a local.
const VarDecl *itemVariable(const Expr *E);
/// Whether Type is a std::map or std::unordered_map of module handles.
bool isHandleMap(QualType Type);
/// The variable of a range-for that a module expression names: the
/// variable itself, `entry.second` of a loop over a map of handles, or the
/// second name of `auto &[name, tower]`; null for anything else.
const VarDecl *loopHandleVariable(const Expr *Module);
/// Whether a call's name says it mutates a standard container.
bool isContainerMutation(const CallExpr *Call);
/// For a call of a standard algorithm that writes through
/// `std::back_inserter(v)`, `std::front_inserter(v)` or
/// `std::inserter(v, pos)`: the container expression `v`; null otherwise.
const Expr *insertedContainer(const CallExpr *Call);
/// The value of a `bool` argument written as a literal (`parameters(false)`),
/// or Default.
bool boolArgument(const CallExpr *Call, unsigned Index, bool Default);
/// Appends each of Entries to Out, its route prefixed by Step.
void prefix(std::vector<ParameterEntry> &Out,
            const std::vector<ParameterEntry> &Entries,
            const RegistrationStep &Step);
/// The parameters of each of Elements (only its own unless Recurse), each
/// prefixed by the step that names the element.
std::vector<ParameterEntry> elementParameters(const ModuleElements &Elements,
                                              bool Recurse);
/// Key with its root replaced as Substitution says.
ObjectKey rebase(const ObjectKey &Key,
                 const llvm::DenseMap<const void *, ObjectKey> &Substitution);
} // namespace detail

} // namespace clang::tidy::libtorch

#endif
