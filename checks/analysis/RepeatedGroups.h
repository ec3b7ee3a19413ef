//===- RepeatedGroups.h - add_param_group on every pass of a loop -*- C++ -*-===//
//
// An optimizer steps a tensor once for each parameter group that holds it,
// and libtorch's add_param_group does not check that a new group is disjoint
// from the old ones. Called on every pass of a loop, it adds the tensors of
// an earlier pass again when the group does not change from pass to pass,
// or when it grows: the gradual-unfreezing loop that adds "everything
// unfrozen so far" at each stage steps the first blocks once per stage.
// libtorch-shared-parameter-update words what this finds.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_REPEATEDGROUPS_H
#define TORCHALIAS_ANALYSIS_REPEATEDGROUPS_H

#include "ParameterSharing.h"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

#include <optional>

namespace clang::tidy::libtorch {

/// Why a group added on every pass of a loop holds tensors an earlier pass
/// added.
struct RepeatedGroup {
  enum class Kind {
    /// The group reads nothing the loop changes: the same tensors each pass.
    SameList,
    /// The group is a list declared before the loop that the loop grows and
    /// never empties.
    GrowingList,
    /// The group is returned by a helper given the loop's counter, which
    /// collects the elements from a fixed start up to it.
    GrowingHelper,
  };
  Kind K = Kind::SameList;
  const Stmt *Loop = nullptr;
  /// GrowingList: the list, and the mutation in the loop that grows it.
  const VarDecl *List = nullptr;
  const CallExpr *Growth = nullptr;
  /// GrowingHelper: the helper's call, the loop's counter, the helper's
  /// parameter bound to it and its loop up to that parameter.
  const CallExpr *Helper = nullptr;
  const VarDecl *Counter = nullptr;
  const ParmVarDecl *Bound = nullptr;
  const ForStmt *HelperLoop = nullptr;
};

/// For `opt.add_param_group(group)` in Function: why its group repeats
/// tensors of an earlier pass of the innermost loop around it (Note [Groups
/// added on every pass of a loop]), if it does.
///
/// Simplification: the call must run on every pass of that loop (no branch
/// above it, no `break`, `continue`, `return` or `goto` in the loop's body),
/// and the loop is taken to run at least twice unless its bounds are
/// literals that say otherwise.
///
/// Limitation: a call under a condition (`if (epoch == milestone)`) is not
/// followed, since whether it fires twice depends on values; a group grown
/// in a way other than push_back/emplace_back/insert, or by a helper whose
/// loop is not a counting `for` up to the parameter, is not seen.
std::optional<RepeatedGroup> repeatedGroup(const CXXMemberCallExpr *AddGroup,
                                           const FunctionDecl *Function,
                                           ParameterSharingAnalysis &Sharing);

/// A list a loop grows, on every pass, with the elements from a fixed start
/// up to the loop's counter.
struct PrefixGrowth {
  const VarDecl *List = nullptr;
  const CXXMemberCallExpr *Growth = nullptr; ///< The mutation in the prefix.
  const ForStmt *Outer = nullptr;            ///< The loop over passes.
  const ForStmt *Inner = nullptr;            ///< The prefix loop.
  const VarDecl *Counter = nullptr;          ///< Outer's counter.
};

/// For a sink in Function given ListExpr, a local list: how the list came to
/// repeat its first elements, if a loop before the sink grows it with a
/// prefix on every pass (Note [Lists grown with a prefix on every pass]).
std::optional<PrefixGrowth> prefixGrowth(const Expr *ListExpr, const Expr *Sink,
                                         const FunctionDecl *Function);

} // namespace clang::tidy::libtorch

#endif
