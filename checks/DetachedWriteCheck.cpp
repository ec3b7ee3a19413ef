//===- DetachedWriteCheck.cpp - libtorch-detached-write -------------------===//

#include "DetachedWriteCheck.h"
#include "IntendedWrites.h"
#include "SavedTensors.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

/// Writes that reach a tensor autograd may have saved: through its handle,
/// a view (which shares the version counter), `detach()` or `data()`. A
/// possible alias (`reshape`) may be a copy, and is left alone.
static bool mayReachSavedTensor(const WriteEvent &Write) {
  return Write.Value.Root && Write.Value.Rel != Relation::MayAlias &&
         Write.Operator != "requires_grad_";
}

/// Whether the writing call writes its target also when that is a leaf
/// that requires grad.
static bool writesGradLeaf(const WriteEvent &Write, const OperatorTable &Ops) {
  const auto *Call = dyn_cast<CallExpr>(Write.Call);
  std::optional<TensorCall> Tensor =
      Call ? resolveTensorCall(Call, Ops) : std::nullopt;
  if (!Tensor)
    return false;
  return llvm::any_of(Tensor->WritesGradLeaves, [&](unsigned Position) {
    return Tensor->Args[Position] == Write.Target;
  });
}

void DetachedWriteCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = matchedFunction(Result);
  const FunctionAliasAnalysis *Analysis = analyze(Function, *Result.Context);
  if (!Analysis)
    return;
  std::unique_ptr<AutogradAnalysis> Autograd;
  WriteChains Chains;
  for (const WriteEvent &Write : Analysis->writes()) {
    if (!mayReachSavedTensor(Write) || Chains.continuesReported(Write))
      continue;
    if (!Autograd)
      Autograd = std::make_unique<AutogradAnalysis>(
          *Function, *Result.Context, &table(),
          SavedTensorTable::builtin().get());
    if (Write.Value.Rel == Relation::Detached)
      checkDetachedWrite(Write, *Autograd, *Result.Context);
    else
      checkInPlaceWrite(Write, *Autograd);
  }
}

// Note [Detached writes]
// `.data()` shares storage and not the version counter: autograd cannot see
// the write, and backward silently uses the changed values. `detach()` shares
// both, so autograd notices and backward throws if it saved the tensor; and
// for the forward pass both are the same tensor, so every other reader sees
// the write. A write through either is reported when something still needs
// the old values: an operation that saved the tensor for a backward that
// follows the write (Note [Saved tensors]), a caller who passed the tensor
// (for `detach()`, where a copy was plainly meant), or a later read. The
// parameter-update idiom (a no-grad scope, a loop over `parameters()`) is
// what `.data()` exists for and stays quiet. A `.data()` write is reported
// when the operation may have saved the tensor (the message says which);
// `detach()` and direct writes, whose message says that backward throws,
// only when it certainly did.
void DetachedWriteCheck::checkDetachedWrite(const WriteEvent &Write,
                                            const AutogradAnalysis &Autograd,
                                            ASTContext &AST) {
  const AliasValue &Value = Write.Value;
  if (Autograd.isParameterUpdate(Write.Call))
    return;
  bool ThroughData = Value.AliasOperator == "data";
  const ValueDecl *Root = Value.Root;
  const SavedTensor *Save =
      Autograd.savedFor(Root, Write.Call, /*DefiniteOnly=*/!ThroughData);
  SourceLocation Loc = Write.Call->getExprLoc();

  if (ThroughData) {
    if (!Save)
      return;
    diag(Loc, "'%0' writes through 'data()' into %1, which '%2' "
              "%select{may have saved|saved}3 for backward; 'data()' does not "
              "share the version counter, so backward computes wrong "
              "gradients without an error")
        << Write.Operator << describeRoot(Value) << Save->Operator
        << Save->Definite;
    addAliasNotes(Write);
    noteSave(*Save);
    return;
  }

  const auto *Param = dyn_cast<ParmVarDecl>(Root);
  bool CallerInput =
      Param && !(Param->getType()->isLValueReferenceType() &&
                 !Param->getType().getNonReferenceType().isConstQualified());
  bool ReadAfter = Write.Owner->isReferencedAfter(Write, Root);
  if (!Save && !CallerInput && !ReadAfter)
    return;
  std::optional<FixItHint> Fix = cloneAtDetach(Write, AST);
  if (Save)
    diag(Loc, "'%0' writes through 'detach()' into %1, which '%2' saved for "
              "backward; 'detach()' shares the storage and the version "
              "counter, so backward throws 'one of the variables needed for "
              "gradient computation has been modified by an inplace "
              "operation'")
        << Write.Operator << describeRoot(Value) << Save->Operator << Fix;
  else
    diag(Loc, "'%0' writes through 'detach()' into %1; 'detach()' shares the "
              "storage, it does not copy, so %select{the caller's tensor "
              "changes too|'%3' changes too, and is read afterwards}2")
        << Write.Operator << describeRoot(Value) << !CallerInput
        << Root->getName() << Fix;
  addAliasNotes(Write);
  if (Save)
    noteSave(*Save);
}

// Note [In-place writes into saved tensors]
// Any in-place write bumps the version counter that the tensor shares with
// its views, so backward refuses a tensor an earlier operation saved. The
// write is reported when the save is certain and a backward that needs it
// follows (Note [Saved tensors]). Parameter updates (a no-grad scope, a loop
// over `parameters()`) stay quiet like the detached writes: they are meant to
// follow the backward of the step they belong to. A leaf that requires grad
// is left alone: outside a no-grad scope the write itself throws ("a leaf
// Variable that requires grad is being used in an in-place operation").
void DetachedWriteCheck::checkInPlaceWrite(const WriteEvent &Write,
                                           const AutogradAnalysis &Autograd) {
  if (!Autograd.hasBackward() || Autograd.isParameterUpdate(Write.Call))
    return;
  const SavedTensor *Save =
      Autograd.savedFor(Write.Value.Root, Write.Call, /*DefiniteOnly=*/true);
  // A leaf that requires grad refuses the write itself, with another error,
  // unless the call writes under its own NoGradGuard (ApiEffectTable: the
  // max-norm renormalisation of `embedding`); a saved result is no leaf.
  if (!Save || (!Save->IsResult && Autograd.requiresGrad(Write.Value.Root) &&
                !writesGradLeaf(Write, table())))
    return;
  diag(Write.Call->getExprLoc(),
       "'%0' writes in place into %1, which '%2' saved for backward; backward "
       "throws 'one of the variables needed for gradient computation has "
       "been modified by an inplace operation'")
      << Write.Operator << describeRoot(Write.Value) << Save->Operator;
  addAliasNotes(Write);
  noteSave(*Save);
}

void DetachedWriteCheck::noteSave(const SavedTensor &Save) {
  diag(Save.Saver->getExprLoc(),
       "'%0' %select{may save|saves}3 %select{'%2'|its result}1 for "
       "backward here",
       DiagnosticIDs::Note)
      << Save.Operator << Save.IsResult << Save.Tensor->getName()
      << Save.Definite;
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
               !isDiscarded(Write.Call, Parents));
  if (!Kept)
    return std::nullopt;
  return appendClone(Site, AST.getSourceManager(), getLangOpts());
}

} // namespace clang::tidy::libtorch
