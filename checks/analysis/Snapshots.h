//===- Snapshots.h - records of tensor handles taken as if they were values
//-===//
//
// Problem: a struct, a pair or a vector built from tensor handles holds the
// tensors, not their values. Code that keeps one as a record of the state at
// some point (`best = {val_loss, model->parameters()}`, a running total's
// `Snapshot{sum_, count_}`) and later changes the state in place
// (`opt.step()`, `sum_.add_(...)`) has recorded nothing: restoring from the
// record copies each tensor into itself, and the difference to the record is
// zero.
//
// Approach (Note [Snapshots of handles]): in one function, a local record
// (an aggregate, a pair or a tuple, or a container of tensors) is bound, by
// its initializer or an assignment of a braced list or construction, to
// tensors named by identity: a member of the object, a local tensor, or
// element i of a module's `parameters()`. An operation between a tensor and
// the record's copy of the same tensor (`params[i].copy_(best.params[i])`,
// `sum_ - s.sum`) is a finding when the state was written in place (an
// in-place operation, or a step of an optimizer over the module's
// parameters) after the record was bound, or in the loop that binds it.
//
// Limitations: records passed between functions, stored in containers of
// records or built element by element (`push_back`) are not followed;
// elements are matched by the same index expression only.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_SNAPSHOTS_H
#define TORCHALIAS_ANALYSIS_SNAPSHOTS_H

#include "OperatorTable.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// An operation between a tensor and a record's handle to the same tensor.
struct SnapshotUse {
  const CallExpr *Use = nullptr;
  std::string Operation;          ///< "copy_", "operator-".
  const Expr *Live = nullptr;     ///< The tensor itself: `params[i]`.
  const Expr *Recorded = nullptr; ///< Its record: `best.params[i]`.
  const VarDecl *Record = nullptr;
  const Expr *Binding = nullptr; ///< Where the record took the handle.
  /// Record is a tensor variable holding a copy of the handle.
  bool HandleCopy = false;
  /// For such a record: "detach" when it holds `t.detach()` (or `data()`),
  /// which shares the storage as the handle does.
  std::string Through;
  const Expr *Write = nullptr;   ///< The in-place write since.
  std::string WriteName;         ///< "step", "add_".
  std::string State;             ///< "the parameters of 'model'".
};

/// The findings of Note [Snapshots of handles] in Function.
std::vector<SnapshotUse> findSnapshotUses(const FunctionDecl &Function,
                                          const OperatorTable &Table);

/// A method that returns a record holding handles to members of its object
/// that another method of the class writes in place (Note [Records of an
/// object's state]).
struct StateRecord {
  const ReturnStmt *Return = nullptr;
  const FieldDecl *Member = nullptr;
  const CXXMethodDecl *Writer = nullptr;
  const Expr *Write = nullptr;
  std::string WriteName;
};
std::optional<StateRecord> findStateRecord(const FunctionDecl &Function,
                                           const OperatorTable &Table);

} // namespace clang::tidy::libtorch

#endif
