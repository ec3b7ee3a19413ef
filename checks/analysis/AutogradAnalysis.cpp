//===- AutogradAnalysis.cpp - what autograd still needs in one function ---===//

#include "AutogradAnalysis.h"
#include "TensorModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::libtorch {

namespace {

llvm::StringRef calleeName(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  return Callee && Callee->getIdentifier() ? Callee->getName() : "";
}

/// `requires_grad(true)`, `requires_grad_()`, `set_requires_grad(true)`:
/// anything but an explicit `false`.
bool turnsOnGrad(const CallExpr *Call) {
  llvm::StringRef Name = calleeName(Call);
  if (Name != "requires_grad" && Name != "requires_grad_" &&
      Name != "set_requires_grad")
    return false;
  if (Call->getNumArgs() == 0)
    return true;
  const Expr *Flag = Call->getArg(0)->IgnoreImplicit();
  if (isa<CXXDefaultArgExpr>(Flag))
    return true;
  const auto *Literal = dyn_cast<CXXBoolLiteralExpr>(Flag);
  return !Literal || Literal->getValue();
}

bool containsGradRequest(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S); Call && turnsOnGrad(Call))
    return true;
  for (const Stmt *Child : S->children())
    if (containsGradRequest(Child))
      return true;
  return false;
}

const ValueDecl *referencedDecl(const Expr *E) {
  E = skipHandleCopies(E);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(E))
    return Member->getMemberDecl();
  return nullptr;
}

/// `for (auto &p : model->parameters())`, also through a variable holding
/// the list.
bool isParameterRange(const Expr *Range) {
  Range = Range->IgnoreImplicit();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Range))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      if (Var->getInit() && Var->getInit()->IgnoreImplicit() != Range)
        return isParameterRange(Var->getInit());
  const auto *Call = dyn_cast<CallExpr>(Range);
  if (!Call)
    return false;
  llvm::StringRef Name = calleeName(Call);
  return Name == "parameters" || Name == "named_parameters" || Name == "params";
}

bool derivesFromLibtorch(const CXXRecordDecl *Class, llvm::StringRef Name) {
  if (!Class || !Class->hasDefinition())
    return false;
  auto Is = [&](const CXXRecordDecl *Record) {
    return Record->getIdentifier() && Record->getName() == Name &&
           isLibtorchDecl(Record);
  };
  return Is(Class) || !Class->forallBases([&](const CXXRecordDecl *Base) {
    return !Is(Base);
  });
}

/// `net->forward(x)`, `net(x)`, `fc->forward(x)`: a module's output, which
/// requires grad through the module's parameters.
bool isModuleCall(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const auto *Method =
            dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee()))
      if ((Method->getOverloadedOperator() == OO_Call ||
           calleeName(Call) == "forward") &&
          (derivesFromLibtorch(Method->getParent(), "Module") ||
           derivesFromLibtorch(Method->getParent(), "ModuleHolder")))
        return true;
  for (const Stmt *Child : S->children())
    if (isModuleCall(Child))
      return true;
  return false;
}

bool isGradModeGuard(const Stmt *S) {
  const auto *Decl = dyn_cast<DeclStmt>(S);
  if (!Decl)
    return false;
  for (const auto *D : Decl->decls())
    if (const auto *Var = dyn_cast<VarDecl>(D))
      if (const auto *Record = Var->getType()->getAsCXXRecordDecl();
          Record && Record->getIdentifier() && isLibtorchDecl(Record)) {
        llvm::StringRef Name = Record->getName();
        if (Name == "NoGradGuard" || Name == "InferenceMode" ||
            Name == "AutoGradMode")
          return true;
      }
  return false;
}

} // namespace

AutogradAnalysis::AutogradAnalysis(const FunctionDecl &Function,
                                   ASTContext &AST)
    : AST(AST), Parents(const_cast<Stmt *>(Function.getBody())) {
  collect(Function.getBody());
}

bool AutogradAnalysis::isBefore(SourceLocation A, SourceLocation B) const {
  return AST.getSourceManager().isBeforeInTranslationUnit(A, B);
}

void AutogradAnalysis::collectReads(const Stmt *S, const ValueDecl *Result,
                                    SourceLocation Where) {
  if (!S || isa<LambdaExpr>(S))
    return;
  // What is read through `detach()` or `data()` is not part of the graph.
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
    llvm::StringRef Name = calleeName(Call);
    if (Name == "detach" || Name == "data")
      return;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    if (const ValueDecl *Read = referencedDecl(E);
        Read && Read != Result &&
        (isTensorType(E->getType()) || isTensorListType(E->getType()))) {
      Edges.push_back({Result, Read, Where});
      if (isa<DeclRefExpr>(E))
        return;
    }
  }
  for (const Stmt *Child : S->children())
    collectReads(Child, Result, Where);
}

void AutogradAnalysis::collect(const Stmt *S) {
  if (!S)
    return;
  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    for (const auto *D : Decl->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D);
          Var && Var->getInit() && isTensorType(Var->getType())) {
        collectReads(Var->getInit(), Var, Var->getLocation());
        if (containsGradRequest(Var->getInit()))
          RequiresGrad.insert(Var);
        if (isModuleCall(Var->getInit()))
          ModuleOutputs.insert(Var);
      }
  } else if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
             Assign && Assign->getOperator() == OO_Equal &&
             Assign->getNumArgs() == 2) {
    const auto *Lhs = dyn_cast<DeclRefExpr>(Assign->getArg(0)->IgnoreImplicit());
    if (Lhs && isTensorType(Lhs->getType()))
      collectReads(Assign->getArg(1), Lhs->getDecl(), Assign->getExprLoc());
  } else if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
    if (turnsOnGrad(Call))
      if (const ValueDecl *Object = referencedDecl(Call->getImplicitObjectArgument()))
        RequiresGrad.insert(Object);
  } else if (const auto *For = dyn_cast<CXXForRangeStmt>(S)) {
    if (isParameterRange(For->getRangeInit())) {
      ParameterLoops.push_back(For->getSourceRange());
      RequiresGrad.insert(For->getLoopVariable());
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    llvm::StringRef Name = calleeName(Call);
    const FunctionDecl *Callee = Call->getDirectCallee();
    bool IsMethod = isa<CXXMemberCallExpr>(Call);
    if ((Name == "backward" && (IsMethod || (Callee && isLibtorchDecl(Callee)))) ||
        (Name == "grad" && !IsMethod && Callee && isLibtorchDecl(Callee)))
      BackwardCalls.push_back(Call->getBeginLoc());
  }
  for (const Stmt *Child : S->children())
    collect(Child);
}

bool AutogradAnalysis::requiresGrad(const ValueDecl *Root) const {
  if (RequiresGrad.count(Root))
    return true;
  const auto *Field = dyn_cast_or_null<FieldDecl>(Root);
  return Field && derivesFromLibtorch(dyn_cast<CXXRecordDecl>(Field->getParent()),
                                      "Module");
}

bool AutogradAnalysis::isGraphResult(
    const ValueDecl *Root, SourceLocation Before,
    llvm::DenseSet<const ValueDecl *> &Seen) const {
  if (ModuleOutputs.count(Root))
    return true;
  if (!Seen.insert(Root).second)
    return false;
  for (const GraphEdge &Edge : Edges)
    if (Edge.Result == Root && isBefore(Edge.Where, Before) &&
        (requiresGrad(Edge.Input) || isGraphResult(Edge.Input, Edge.Where, Seen)))
      return true;
  return false;
}

bool AutogradAnalysis::isGraphResult(const ValueDecl *Root,
                                     const Expr *Write) const {
  llvm::DenseSet<const ValueDecl *> Seen;
  return isGraphResult(Root, Write->getBeginLoc(), Seen);
}

bool AutogradAnalysis::isUsedInGraphBefore(const ValueDecl *Root,
                                           const Expr *Write) const {
  return llvm::any_of(Edges, [&](const GraphEdge &Edge) {
    return Edge.Input == Root && isBefore(Edge.Where, Write->getBeginLoc());
  });
}

bool AutogradAnalysis::isBackwardAfter(const Expr *Write) const {
  return llvm::any_of(BackwardCalls, [&](SourceLocation Call) {
    return isBefore(Write->getEndLoc(), Call);
  });
}

bool AutogradAnalysis::isParameterUpdate(const Expr *Write) const {
  SourceLocation Loc = Write->getBeginLoc();
  for (SourceRange Loop : ParameterLoops)
    if (!isBefore(Loc, Loop.getBegin()) && isBefore(Loc, Loop.getEnd()))
      return true;
  return isInNoGradScope(Write);
}

bool AutogradAnalysis::isInNoGradScope(const Expr *Write) const {
  const Stmt *Current = Write;
  while (const Stmt *Parent = Parents.getParent(Current)) {
    if (isa<LambdaExpr>(Parent))
      return false;
    if (const auto *Block = dyn_cast<CompoundStmt>(Parent))
      for (const Stmt *Child : Block->body()) {
        if (Child == Current)
          break;
        if (isGradModeGuard(Child))
          return true;
      }
    Current = Parent;
  }
  return false;
}

} // namespace clang::tidy::libtorch
