//===- AutogradAnalysis.h - what autograd still needs in one function -----===//
//
// Problem: a write through `.data()` or `detach()` is harmless on a tensor
// autograd does not know about and corrupts gradients (or makes backward
// throw) on one that is part of a graph that is still to be differentiated.
// Whether a tensor requires grad is a run-time property.
//
// Simplification: facts are read from the function's source, in source order:
// - a tensor requires grad if it is a module parameter (a member of a class
//   derived from torch::nn::Module, or the variable of a loop over
//   `parameters()`), or was created with `requires_grad(true)` options, or
//   had `requires_grad_()`/`set_requires_grad(true)` called on it;
// - a local is a graph result if it is initialised by a module's output
//   (`net->forward(x)`, `net(x)`), or its initializer or an assignment to it
//   reads a tensor that requires grad or is itself a graph result;
// - a tensor is used in the graph before a write if an initializer or an
//   assignment that precedes the write reads it;
// - the graph is still needed at a write if `backward()` (or
//   torch::autograd::backward/grad) is called after it;
// - the parameter-update idiom is a write in a block that declares a
//   NoGradGuard (or InferenceMode, AutoGradMode) before it, or in a range-for
//   loop over `parameters()`, `params()` or `named_parameters()`.
//
// Limitations: parameters read implicitly by a module call (`model(x)`) are
// not seen as used in the graph; a backward call that precedes the write in
// the source but follows it in a loop's next iteration is not seen; a
// function that only builds the graph and returns it is not followed.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_AUTOGRADANALYSIS_H
#define TORCHALIAS_ANALYSIS_AUTOGRADANALYSIS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include "clang/AST/ParentMap.h"

#include <vector>

namespace clang::tidy::libtorch {

class AutogradAnalysis {
public:
  AutogradAnalysis(const FunctionDecl &Function, ASTContext &AST);

  /// A module parameter or a tensor made to require grad.
  bool requiresGrad(const ValueDecl *Root) const;
  /// Computed, before Write, from a tensor that requires grad.
  bool isGraphResult(const ValueDecl *Root, const Expr *Write) const;
  /// Read by an initializer or assignment of another tensor before Write.
  bool isUsedInGraphBefore(const ValueDecl *Root, const Expr *Write) const;
  /// A backward call follows Write.
  bool isBackwardAfter(const Expr *Write) const;
  /// Write is in a no-grad scope or an optimizer-style loop over parameters.
  bool isParameterUpdate(const Expr *Write) const;
  /// Write follows a NoGradGuard (or InferenceMode, AutoGradMode) declared
  /// in an enclosing block of the function.
  bool isInNoGradScope(const Expr *Write) const;

private:
  struct GraphEdge {
    const ValueDecl *Result;
    const ValueDecl *Input;
    SourceLocation Where;
  };
  void collect(const Stmt *S);
  void collectReads(const Stmt *S, const ValueDecl *Result, SourceLocation Where);
  bool isBefore(SourceLocation A, SourceLocation B) const;
  bool isGraphResult(const ValueDecl *Root, SourceLocation Before,
                     llvm::DenseSet<const ValueDecl *> &Seen) const;

  ASTContext &AST;
  /// Parents within the function body only: ASTContext::getParents would
  /// build a map of the whole translation unit, libtorch's headers included.
  ParentMap Parents;
  llvm::DenseSet<const ValueDecl *> RequiresGrad;
  llvm::DenseSet<const ValueDecl *> ModuleOutputs;
  std::vector<GraphEdge> Edges;
  llvm::SmallVector<SourceLocation, 4> BackwardCalls;
  llvm::SmallVector<SourceRange, 4> ParameterLoops;
};

} // namespace clang::tidy::libtorch

#endif
