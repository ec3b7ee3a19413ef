//===- IntendedWrites.h - writes through views that are meant -*- C++ -*-===//
//
// Problem: an in-place write through a view of a parameter changes the
// caller's tensor, and a write through a may-alias result (`flatten`,
// `reshape`) reaches its input only when the layout allows. Either is a bug
// when the author did not expect it, and the point of the code when they
// did: an ATen-style kernel fills the output tensor it was handed (whether it
// is declared `const Tensor &`, `Tensor` or `Tensor &` says nothing about
// that), and `buf[g] = buf[g].flatten(1).addmm_(a, b).view_as(buf[g])` puts
// the sum into `buf[g]` whether `flatten` made a copy or not.
//
// Approach: decide from facts the translation unit shows.
// - A parameter is one the function is meant to write (an output or in-out
//   parameter, Note [Output parameters]) when the function writes it
//   directly, returns it, is registered as an operator, or is called only
//   with tensors its callers have just made. A const parameter that the
//   function clones and keeps reading is one it treats as read-only, and
//   none of that evidence counts for it.
// - A may-alias write is copied back (Note [Results copied back]) when its
//   result, through views, is assigned to the very expression the may-alias
//   operation was applied to.
//
// Simplifications: the callers are those of this translation unit, and a
// function whose address is taken has callers it cannot see. Expressions are
// compared by their spelling (clang's Profile), which is only meaningful
// when they have no side effects.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_INTENDEDWRITES_H
#define TORCHALIAS_ANALYSIS_INTENDEDWRITES_H

#include "AliasAnalysis.h"

#include "clang/AST/ParentMap.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <memory>
#include <optional>

namespace clang::tidy::libtorch {

/// Why a parameter is one its function is meant to write.
enum class OutputEvidence {
  None,
  WrittenDirectly, ///< The parameter itself, or a view nothing holds.
  Returned,        ///< Returned, alone or in a returned list.
  FreshAtEveryCall, ///< Each call in the TU passes a tensor just made.
  Registered,      ///< The function is registered as an operator.
};

/// The calls and registrations of the translation unit's own functions.
class CallSiteIndex {
public:
  explicit CallSiteIndex(ASTContext &AST);

  struct CallSite {
    const CallExpr *Call;
    const FunctionDecl *Caller; ///< The function whose body holds it.
  };
  /// The calls of Callee (a definition), or null when something else
  /// refers to it too (its address is taken), so that not every call is
  /// known.
  const std::vector<CallSite> *callsOf(const FunctionDecl *Callee) const;
  /// Whether Function (a definition, or a lambda's call operator) is handed
  /// to `torch::Library::def`/`impl` or to a pybind11 `def`.
  bool isRegistered(const FunctionDecl *Function) const {
    return Registered.count(Function);
  }

private:
  class Builder;
  llvm::DenseMap<const FunctionDecl *, std::vector<CallSite>> Calls;
  llvm::DenseSet<const FunctionDecl *> AddressTaken;
  llvm::DenseSet<const FunctionDecl *> Registered;
};

/// The writes of one translation unit that land where they are meant to.
class IntendedWrites {
public:
  explicit IntendedWrites(AliasAnalysisContext &Context);
  ~IntendedWrites();

  /// Why the function that declares Param is meant to write it; None when
  /// the translation unit does not show it, or when the function treats it
  /// as read-only. Enclosing is the analysis of the function whose body
  /// holds Param's function (itself, or the function around a lambda).
  OutputEvidence outputEvidence(const ParmVarDecl *Param,
                                const FunctionAliasAnalysis &Enclosing);

  /// Whether Param is a const parameter that its function clones and then
  /// keeps reading: the function treats it as an input.
  bool treatsAsReadOnly(const ParmVarDecl *Param);

  /// Whether Write, a write through a may-alias result, is copied back into
  /// the expression the may-alias operation was applied to.
  bool isCopiedBack(const WriteEvent &Write);

  /// The parent map of Function's body, built once.
  const ParentMap &parents(const FunctionDecl *Function);

private:
  bool isViewChainOf(const Expr *E, const ParmVarDecl *Param);
  bool isPlainViewOf(const Expr *E);
  bool writesDirectly(const ParmVarDecl *Param,
                      const FunctionAliasAnalysis &Enclosing);
  bool isFreshAtEveryCall(const ParmVarDecl *Param);

  AliasAnalysisContext &Context;
  std::unique_ptr<CallSiteIndex> Index;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<ParentMap>> Parents;
  llvm::DenseMap<const ParmVarDecl *, OutputEvidence> Evidence;
};

/// Whether the value of E is thrown away: E is a statement of its own, the
/// body of a branch or loop, a for loop's increment, the left of a comma or
/// cast to void.
bool isDiscarded(const Expr *E, const ParentMap &Parents);

} // namespace clang::tidy::libtorch

#endif
