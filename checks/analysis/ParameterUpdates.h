//===- ParameterUpdates.h - how code updates module parameters -*- C++ -*-===//
//
// Two ways code updates the parameters of a module besides an optimizer,
// for libtorch-shared-parameter-update: a loop that writes each tensor of a
// parameter list in place (the check then looks for duplicates in that list,
// as in the list an optimizer is built from), and an assignment to a
// parameter member, which rebinds the member unless it assigns the tensor
// the member already holds.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_PARAMETERUPDATES_H
#define TORCHALIAS_ANALYSIS_PARAMETERUPDATES_H

#include "AliasAnalysis.h"
#include "ParameterSharing.h"

#include "clang/AST/ExprCXX.h"

#include <optional>
#include <string>

namespace clang::tidy::libtorch {

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
/// (a range-for, for or while loop), if there is one.
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
std::optional<LoopUpdate> findLoopUpdate(const Stmt *Loop,
                                         ParameterSharingAnalysis &Sharing);

/// Whether Assign (`m->weight = ...`) binds the member to the tensor it
/// already holds (Note [Assigning a member the tensor it holds]), so that
/// its registration still names the member's tensor.
bool assignsHeldTensor(const CXXOperatorCallExpr *Assign,
                       AliasAnalysisContext &Aliases, const ASTContext &AST);

} // namespace clang::tidy::libtorch

#endif
