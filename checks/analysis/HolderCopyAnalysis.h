//===- HolderCopyAnalysis.h - ModuleHolder copies used as models *- C++ -*-===//
//
// Finds the copy of a ModuleHolder (`auto target = online;`, or two members
// a constructor initialises with one handle) whose module an optimizer or an
// update loop updates while the other handle is then used as if it were an
// independent model. libtorch-shared-parameter-update words and fixes what it
// finds.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_HOLDERCOPYANALYSIS_H
#define TORCHALIAS_ANALYSIS_HOLDERCOPYANALYSIS_H

#include "ParameterSharing.h"

#include <optional>

namespace clang::tidy::libtorch {

/// Two handles on one module, of which a sink updates one.
struct HolderCopy {
  const ValueDecl *Original = nullptr; ///< The handle copied.
  const ValueDecl *Copy = nullptr;     ///< The handle made by copying it.
  /// For two members that both copy a third handle (`online(n), target(n)`):
  /// that handle.
  const ValueDecl *Via = nullptr;
  /// Where the copy starts sharing: the copy's initializer, or the member
  /// initializer.
  SourceLocation Where;
  /// The copying initializer a deep copy of the module would replace; null
  /// when it is not a `=` initialisation or a member initializer.
  const Expr *Init = nullptr;
  bool DirectInit = false; ///< Init is a member initializer.
  /// Init is the handle stored in a container (`teachers.push_back(m)`).
  bool Stored = false;
  /// The copy is of the module object, not of its handle
  /// (`std::make_shared<NetImpl>(*online)`): another object over the same
  /// tensors.
  bool ObjectCopy = false;
  /// For a copy a helper returns (`auto t = make_target(m);`): the helper's
  /// `return`.
  const ReturnStmt *Returned = nullptr;
};

/// Finds a copy of the ModuleHolder whose parameters a sink updates.
///
/// Problem: copying a ModuleHolder copies a shared_ptr, so `auto target =
/// online;` gives a second handle on the one module. Code that updates one
/// handle and uses the other as a model of its own (a target network, an
/// exponential moving average) computes with a model that changes with every
/// update.
///
/// Simplification: a copy is a local initialised from a named handle or
/// from a call of a function of the translation unit that returns the
/// handle it is given (`auto target = make_target(online);`), a local
/// container a named handle is stored in (`teachers.push_back(student)`,
/// updated through `teachers[0]`), or a member initialised from another (or
/// both from a third handle) in a constructor. A list is followed through a
/// local it is kept in (`auto dst = target->parameters();`). It is reported
/// when the sink updates its module (by the ParameterSharingAnalysis
/// identity of the updated list) and the other handle is used after the
/// sink: later in the function, in a loop holding the sink, or, for a
/// member, in another method of the class (Note [Used after the update]).
/// Whether another check owns the finding (a worker racing through the copy)
/// is for the check to decide.
///
/// Limitation: uses are ordered by source position, not along the CFG, so
/// branches are not told apart; a copy reassigned anywhere in the function
/// is taken to be a module of its own; a helper's copy is seen only when
/// every `return` gives back the parameter (or a local copy of it), and a
/// container's only through its elements, not a range-for over it.
class HolderCopyAnalysis {
public:
  explicit HolderCopyAnalysis(ParameterSharingAnalysis &Sharing)
      : Sharing(Sharing) {}

  /// The copy that matters for Sink, in Function, which updates the
  /// parameters ListExpr holds.
  std::optional<HolderCopy> find(const Expr *Sink, const Expr *ListExpr,
                                 const FunctionDecl *Function);

private:
  std::optional<HolderCopy> memberCopy(const Expr *Sink,
                                       const MemberExpr *Updated,
                                       const FunctionDecl *Function);
  std::optional<HolderCopy> localCopy(const Expr *Sink, const Expr *Listed,
                                      const ObjectKey &Updated,
                                      const FunctionDecl *Function);

  ParameterSharingAnalysis &Sharing;
};

} // namespace clang::tidy::libtorch

#endif
