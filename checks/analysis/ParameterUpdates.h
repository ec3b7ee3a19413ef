//===- ParameterUpdates.h - how code updates module parameters -*- C++ -*-===//
//
// How code updates the parameters of a module, for
// libtorch-shared-parameter-update: the sinks that take a parameter list (an
// optimizer, add_param_group, clip_grad_norm_), also inside a helper given
// the module; a loop that writes each tensor of a parameter list in place
// (the check then looks for duplicates in that list, as in the list an
// optimizer is built from); and an assignment to a parameter member, which
// rebinds the member unless it assigns the tensor the member already holds.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_PARAMETERUPDATES_H
#define TORCHALIAS_ANALYSIS_PARAMETERUPDATES_H

#include "AliasAnalysis.h"
#include "ParameterSharing.h"

#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

#include <optional>
#include <string>

namespace clang::tidy::libtorch {

/// What updates the parameters of a list; the order is that of the
/// check's %select.
enum class SinkKind {
  Optimizer,
  AddParamGroup,
  ClipGradNorm,
  UpdateLoop,
  ModuleLoop ///< An update loop nested in a loop over modules().
};

/// A sink that takes a parameter list: an optimizer, add_param_group or
/// clip_grad_norm_.
struct ListSink {
  const Expr *Sink = nullptr;
  const Expr *List = nullptr;
  SinkKind Kind = SinkKind::Optimizer;
  llvm::StringRef Name;
};

/// The IDs the check's sink matcher binds the list sinks to.
inline constexpr llvm::StringLiteral OptimizerId = "optimizer";
inline constexpr llvm::StringLiteral OptimizerFactoryId = "optimizer-factory";
inline constexpr llvm::StringLiteral AddGroupId = "add-param-group";
inline constexpr llvm::StringLiteral ClipId = "clip";
inline constexpr llvm::StringLiteral SetFromVectorId = "set-from-vector";

/// The list sink a match binds (to the IDs above), if it binds one.
std::optional<ListSink> listSinkOf(const ast_matchers::BoundNodes &Nodes);

/// A construction of an optimizer written in the translation unit (Note
/// [Optimizers of the translation unit]): a class whose constructor keeps a
/// list it is given in a member and one of whose methods writes the
/// member's elements in place. The sink of that list argument, if so.
std::optional<ListSink> userOptimizerSink(const CXXConstructExpr *Construct,
                                          const OperatorTable &Table);

/// The definition of the callee of Call when Call passes a module to a
/// function of the translation unit, which may build an optimizer from it
/// (Note [Sinks in helper functions]); null otherwise.
const FunctionDecl *moduleHelperDefinition(const CallExpr *Call);

/// The list Sink, a list sink in the body of Call's callee, holds when the
/// callee's module parameters are the modules Call passes, if it holds one
/// tensor twice there and not already in the callee (a tie reported in the
/// callee).
std::optional<std::vector<ParameterEntry>>
listTiedThroughHelper(const ListSink &Sink, const CallExpr *Call,
                      ParameterSharingAnalysis &Sharing);

/// The tensors an optimizer already holds when `opt.add_param_group(g)`
/// runs: those of the list it was constructed from and of the groups added
/// to it earlier in Function (Note [Parameter groups added over time]).
///
/// Problem: libtorch's add_param_group does not check that the new group is
/// disjoint from the others (Python's does), so a parameter in two groups is
/// stepped once per group: the gradual-unfreezing bug, where the whole model
/// is in the optimizer and the backbone is added again with its own rate.
///
/// Simplification: the optimizer is a local variable (or a smart pointer
/// to one) constructed in Function, directly or by make_unique/make_shared;
/// earlier means before in source order; lists that cannot be followed are
/// left out, since a tensor found in a known earlier list is held twice
/// whatever the others hold.
///
/// Limitation: a call in a loop is not compared with itself on the next
/// iteration; groups edited through param_groups() (`clear`, `erase`,
/// `pop_back`, `resize`, assignment) make the answer empty.
std::vector<ParameterEntry> heldParameters(const CXXMemberCallExpr *AddGroup,
                                           const FunctionDecl *Function,
                                           ParameterSharingAnalysis &Sharing);

/// An in-place write of each element of a parameter list, in a loop.
struct LoopUpdate {
  const CallExpr *Call = nullptr; ///< The write.
  std::string Spelling;           ///< Its C++ spelling: "sub_", "add_".
  /// The list walked: a range-for's range, or the container indexed.
  const Expr *List = nullptr;
  /// The range is `m->parameters()` for each `m` of a loop over modules().
  bool ModuleLoop = false;
};

/// The first in-place update of the loop variable's parameter in Loop's body
/// (a range-for, for or while loop, or a `std::for_each` with a lambda:
/// Note [Algorithms over a list]), if there is one.
///
/// Problem: a loop that updates every parameter of a list in place (a
/// hand-written SGD step, a weight decay) updates a tensor that the list
/// holds twice two times per pass, as an optimizer built from it would.
///
/// Simplification: the update is a write, by the operator table, whose
/// target is the range-for variable or an element `params[i]` of a list of
/// tensors, through views, `data()`, `detach()` and the `value()` of a
/// named_parameters() item. A write that does not read the parameter it
/// replaces is no update (Note [Overwriting is not an update]). Lambda
/// bodies are skipped; the first update found stands for the loop.
///
/// Limitation: the index of `params[i]` is not compared with the loop's
/// counter, and updates through a helper function are not seen.
/// A loop over the elements of a list: its body, and for a range-for or a
/// `std::for_each` with a lambda (Note [Algorithms over a list]) the
/// variable bound to each element and the list. Body is null for a
/// statement that is no such loop.
struct ElementLoop {
  const Stmt *Body = nullptr;
  const VarDecl *Variable = nullptr;
  const Expr *Range = nullptr;
};
ElementLoop elementLoop(const Stmt *Loop);

std::optional<LoopUpdate> findLoopUpdate(const Stmt *Loop,
                                         ParameterSharingAnalysis &Sharing);

/// Whether Assign (`m->weight = ...`) binds the member to the tensor it
/// already holds (Note [Assigning a member the tensor it holds]), so that
/// its registration still names the member's tensor.
bool assignsHeldTensor(const CXXOperatorCallExpr *Assign,
                       AliasAnalysisContext &Aliases, const ASTContext &AST);

/// An assignment to a registered parameter member that rebinds it: the
/// module computes with the new tensor, its registration keeps the old one.
struct MemberRebinding {
  const FieldDecl *Field = nullptr;
  const CXXRecordDecl *Owner = nullptr;
  std::string Registered; ///< The name the member is registered under.
};

/// Whether Assign (`m->weight = t`, in Function) rebinds a tensor member a
/// module class registers as a parameter. Not in a constructor binding its
/// own members, nor for `register_parameter`'s result, the tensor the member
/// already holds, or a value the module's method computes from its other
/// registered members (Note [Reparametrised members]).
std::optional<MemberRebinding>
memberRebinding(const CXXOperatorCallExpr *Assign, const FunctionDecl *Function,
                AliasAnalysisContext &Aliases, ParameterSharingAnalysis &Sharing);

} // namespace clang::tidy::libtorch

#endif
