//===- DetachedWriteCheck.cpp - libtorch-detached-write -------------------===//

#include "DetachedWriteCheck.h"

#include "clang/AST/ParentMap.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

void DetachedWriteCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = matchedFunction(Result);
  const FunctionAliasAnalysis *Analysis = analyze(Function, *Result.Context);
  if (!Analysis)
    return;
  std::unique_ptr<AutogradAnalysis> Autograd;
  WriteChains Chains;
  for (const WriteEvent &Write : Analysis->writes()) {
    if (Write.Value.Rel != Relation::Detached || !Write.Value.Root ||
        Chains.continuesReported(Write))
      continue;
    if (!Autograd)
      Autograd = std::make_unique<AutogradAnalysis>(*Function, *Result.Context);
    checkWrite(Write, *Autograd, *Result.Context);
  }
}

// Note [Detached writes]
// `.data()` shares storage and not the version counter: autograd cannot see
// the write, and backward silently uses the changed values. `detach()` shares
// both, so autograd notices and backward throws if it saved the tensor; and
// for the forward pass both are the same tensor, so every other reader sees
// the write. A write through either is reported when something still needs
// the old values: a graph that is differentiated after the write, a caller
// who passed the tensor (for `detach()`, where a copy was plainly meant), or
// a later read. The parameter-update idiom (a no-grad scope, a loop over
// `parameters()`) is what `.data()` exists for and stays quiet.
void DetachedWriteCheck::checkWrite(const WriteEvent &Write,
                                    const AutogradAnalysis &Autograd,
                                    ASTContext &AST) {
  const AliasValue &Value = Write.Value;
  // `requires_grad_` is marked as writing by its schema but changes only
  // autograd's flag: `x.detach().requires_grad_()` is the usual idiom.
  if (Write.Operator == "requires_grad_" ||
      Autograd.isParameterUpdate(Write.Call))
    return;
  bool ThroughData = Value.AliasOperator == "data";
  const ValueDecl *Root = Value.Root;
  bool GraphResult = Autograd.isGraphResult(Root, Write.Call);
  bool NeededByGraph =
      (Autograd.requiresGrad(Root) || GraphResult) &&
      (GraphResult || Autograd.isUsedInGraphBefore(Root, Write.Call)) &&
      Autograd.isBackwardAfter(Write.Call);
  SourceLocation Loc = Write.Call->getExprLoc();

  if (ThroughData) {
    if (!NeededByGraph)
      return;
    diag(Loc, "'%0' writes through 'data()' into %1, which %select{requires "
              "grad and is already used in the graph|autograd may have saved "
              "for backward}2; 'data()' does not share the version counter, "
              "so backward computes wrong gradients without an error")
        << Write.Operator << describeRoot(Value) << GraphResult;
    addAliasNotes(Write);
    return;
  }

  const auto *Param = dyn_cast<ParmVarDecl>(Root);
  bool CallerInput =
      Param && !(Param->getType()->isLValueReferenceType() &&
                 !Param->getType().getNonReferenceType().isConstQualified());
  bool ReadAfter = Write.Owner->isReferencedAfter(Write, Root);
  if (!NeededByGraph && !CallerInput && !ReadAfter)
    return;
  std::optional<FixItHint> Fix = cloneAtDetach(Write, AST);
  if (NeededByGraph)
    diag(Loc, "'%0' writes through 'detach()' into %1, which autograd may "
              "have saved for backward; 'detach()' shares the storage and "
              "the version counter, so backward throws 'one of the variables "
              "needed for gradient computation has been modified by an "
              "inplace operation'")
        << Write.Operator << describeRoot(Value) << Fix;
  else
    diag(Loc, "'%0' writes through 'detach()' into %1; 'detach()' shares the "
              "storage, it does not copy, so %select{the caller's tensor "
              "changes too|'%3' changes too, and is read afterwards}2")
        << Write.Operator << describeRoot(Value) << !CallerInput
        << Root->getName() << Fix;
  addAliasNotes(Write);
}

/// Whether the value of E is used: not a discarded statement.
static bool isResultUsed(const Expr *E, const ParentMap &Parents) {
  const Stmt *Parent = Parents.getParent(E);
  while (Parent && isa<ExprWithCleanups, MaterializeTemporaryExpr,
                       ImplicitCastExpr, CXXBindTemporaryExpr>(Parent))
    Parent = Parents.getParent(Parent);
  return Parent && !isa<CompoundStmt>(Parent);
}

// Note [Clone after detach]
// `detach().clone()` is the copy the author meant. It is offered where the
// detached tensor is kept: it initialises or is assigned to a variable, or
// the write's result is used. On a discarded `x.detach().zero_();` cloning
// would silently turn the statement into a no-op, so no fix-it is offered.
std::optional<FixItHint> DetachedWriteCheck::cloneAtDetach(const WriteEvent &Write,
                                                           ASTContext &AST) {
  const Expr *Site = Write.Value.AliasSite;
  if (!Site || Write.Value.Merged || Write.Value.AliasOperator != "detach" ||
      Site->getBeginLoc().isMacroID() || Site->getEndLoc().isMacroID())
    return std::nullopt;
  ParentMap Parents(const_cast<Stmt *>(Write.Owner->function()->getBody()));
  bool Kept = Write.Owner->viewBinding(Site) != nullptr ||
              (skipHandleCopies(Write.Target) == Site &&
               isResultUsed(Write.Call, Parents));
  if (!Kept)
    return std::nullopt;
  return appendClone(Site, AST.getSourceManager(), getLangOpts());
}

} // namespace clang::tidy::libtorch
