//===- FromBlobEscapeAnalysis.cpp - from_blob tensors that escape ---------===//

#include "FromBlobEscapeAnalysis.h"
#include "Compat.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::libtorch {

namespace {

/// The variable or member whose memory a pointer expression points into:
/// `buf`, `buf.data()`, `&buf[0]`, `buf + offset`, `img.data`, `images_`,
/// through casts.
const ValueDecl *bufferOf(const Expr *E) {
  while (E) {
    E = E->IgnoreParens();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(Ref->getDecl());
    if (const auto *Field = dyn_cast<MemberExpr>(E);
        Field && isa<CXXThisExpr>(Field->getBase()->IgnoreImplicit()))
      return Field->getMemberDecl();
    if (const auto *Cast = dyn_cast<CastExpr>(E))
      E = Cast->getSubExpr();
    else if (const auto *Unary = dyn_cast<UnaryOperator>(E))
      E = Unary->getSubExpr();
    else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
      E = Subscript->getBase();
    else if (const auto *Binary = dyn_cast<BinaryOperator>(E))
      E = Binary->getLHS()->getType()->isPointerType() ? Binary->getLHS()
                                                       : Binary->getRHS();
    else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E))
      E = Operator->getNumArgs() > 0 ? Operator->getArg(0) : nullptr;
    else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
      E = Member->getImplicitObjectArgument();
    else if (const auto *Field = dyn_cast<MemberExpr>(E))
      E = Field->getBase();
    else if (const auto *Temporary = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temporary->getSubExpr();
    else
      return nullptr;
  }
  return nullptr;
}

/// `get()` of a class derived from a torch::data dataset.
bool isDatasetGet(const FunctionDecl *Function) {
  const auto *Method = dyn_cast<CXXMethodDecl>(Function);
  if (!Method || !Method->getIdentifier() || Method->getName() != "get")
    return false;
  const CXXRecordDecl *Class = Method->getParent();
  if (!Class->hasDefinition())
    return false;
  bool Found = false;
  Class->forallBases([&](const CXXRecordDecl *Base) {
    if (compat::startsWith(Base->getQualifiedNameAsString(), "torch::data::datasets::"))
      Found = true;
    return true;
  });
  return Found;
}

/// Methods that rewrite or reallocate a buffer object's memory.
bool isRewritingMethod(llvm::StringRef Name) {
  static constexpr llvm::StringLiteral Rewriting[] = {
      "assign",    "fill",         "resize", "clear", "swap", "reserve",
      "push_back", "emplace_back", "insert", "erase", "read"};
  return llvm::is_contained(Rewriting, Name);
}

std::string nameOf(const Expr *E) {
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(skipHandleCopies(E)))
    return Ref->getDecl()->getName().str();
  return "";
}

} // namespace

bool mentionsFromBlob(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && Callee->getIdentifier() && Callee->getName() == "from_blob")
      return true;
  return llvm::any_of(S->children(), mentionsFromBlob);
}

bool isScopedBuffer(const ValueDecl *Decl) {
  const auto *Buffer = dyn_cast_or_null<VarDecl>(Decl);
  if (!Buffer || isa<ParmVarDecl>(Buffer) || !Buffer->hasLocalStorage())
    return false;
  QualType Type = Buffer->getType();
  return !Type->isPointerType() && !Type->isReferenceType();
}

void FromBlobEscapeAnalysis::run(const FunctionDecl *F) {
  Function = F;
  DatasetGet = isDatasetGet(F);
  visit(F->getBody());
  findRewrites();
  for (const BlobEscape &Store : LoopStores) {
    const Stmt *Loop = Store.Site->Loop;
    SourceRange Range = Loop->getSourceRange();
    const SourceManager &SM = F->getASTContext().getSourceManager();
    bool Refilled = llvm::any_of(Writes, [&](const BufferWrite &W) {
      SourceLocation L = W.Where->getBeginLoc();
      return W.Buffer == Store.Site->Buffer &&
             !SM.isBeforeInTranslationUnit(L, Range.getBegin()) &&
             !SM.isBeforeInTranslationUnit(Range.getEnd(), L);
    });
    if (Refilled)
      Escapes.push_back(Store);
  }
}

const CallExpr *FromBlobEscapeAnalysis::findFromBlob(const Expr *E) const {
  if (!E)
    return nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table);
        Tensor && Tensor->Special == SpecialOperation::FromBlob)
      return Call;
  for (const Stmt *Child : E->children())
    if (const auto *Inner = dyn_cast_or_null<Expr>(Child))
      if (const CallExpr *Found = findFromBlob(Inner))
        return Found;
  return nullptr;
}

const BlobSite *FromBlobEscapeAnalysis::blobOf(const Expr *E) const {
  if (!E || !(isTensorType(E->getType()) || isTensorListType(E->getType())))
    return nullptr;
  AliasValue Value = Analysis.evaluate(E, Environment);
  if (Value.RootOrigin != Origin::External)
    return nullptr;
  if (Value.Root)
    return SiteOfRoot.lookup(Value.Root);
  return SiteOfCall.lookup(findFromBlob(E));
}

void FromBlobEscapeAnalysis::bind(const VarDecl *Var, const Expr *Init) {
  AliasValue Value = Analysis.evaluate(Init, Environment);
  if (!Value.Root && !Value.isView()) {
    Value.Root = Var;
    Value.Rel = Relation::Handle;
    if (Value.RootOrigin == Origin::External)
      if (const BlobSite *Site = SiteOfCall.lookup(findFromBlob(Init)))
        SiteOfRoot[Var] = Site;
  }
  Environment[Var] = Value;
}

bool FromBlobEscapeAnalysis::outlives(const Expr *Container,
                                    const ValueDecl *Buffer) const {
  const auto *Var = dyn_cast_or_null<VarDecl>(bufferOf(Container));
  if (!Var || !Var->hasLocalStorage() || Var->getType()->isReferenceType() ||
      isa<ParmVarDecl>(Var))
    return true; // a member, a global or the caller's container
  auto Outer = ScopesOf.find(Var),
       Inner = ScopesOf.find(dyn_cast<VarDecl>(Buffer));
  if (Outer == ScopesOf.end() || Inner == ScopesOf.end())
    return false;
  const std::vector<const Stmt *> &O = Outer->second, &I = Inner->second;
  return O.size() < I.size() && std::equal(O.begin(), O.end(), I.begin());
}

void FromBlobEscapeAnalysis::noteEscape(EscapeRoute Route, const Expr *E,
                                      std::string Into,
                                      bool NeedsScopedBuffer) {
  const BlobSite *Site = blobOf(E);
  if (!Site || (NeedsScopedBuffer && !isScopedBuffer(Site->Buffer)))
    return;
  Escapes.push_back({Route, E->getBeginLoc(), nameOf(E), Site, std::move(Into)});
}

// A method of the translation unit stores an argument in its object only if
// its summary says it keeps it (Note [Escapes]); a container's storing
// method always does.
void FromBlobEscapeAnalysis::checkStores(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  if (!Method)
    return;
  bool StoringMethod = isStoringMethod(Method);
  const Expr *Container = Call->getImplicitObjectArgument();
  const auto *ContainerVar = dyn_cast_or_null<VarDecl>(bufferOf(Container));
  std::string Name = ContainerVar ? ContainerVar->getName().str() : "";
  if (const auto *Field = dyn_cast<MemberExpr>(Container->IgnoreImplicit()))
    Name = Field->getMemberDecl()->getName().str();
  // An index loop: llvm::enumerate over arguments() visits nothing when built
  // against LLVM 16 (see docs/llvm-releases.md).
  for (unsigned Index = 0; Index < Call->getNumArgs(); ++Index) {
    const Expr *Arg = Call->getArg(Index);
    const BlobSite *Site = blobOf(Arg);
    if (!Site || !Site->Buffer ||
        !compat::valueOr(Context.keepsArgument(Call, Index), StoringMethod))
      continue;
    if (isScopedBuffer(Site->Buffer) && outlives(Container, Site->Buffer)) {
      Escapes.push_back(
          {EscapeRoute::Stored, Arg->getBeginLoc(), nameOf(Arg), Site, Name});
      continue;
    }
    // Each iteration stores another handle on the one buffer.
    if (Site->Loop && !Loops.empty() && Loops.back() == Site->Loop) {
      auto Declared = ScopesOf.find(dyn_cast<VarDecl>(Site->Buffer));
      bool BufferOutsideLoop =
          !isScopedBuffer(Site->Buffer) ||
          (Declared != ScopesOf.end() &&
           !llvm::is_contained(Declared->second, Site->Loop));
      auto Stored = ContainerVar ? ScopesOf.find(ContainerVar) : ScopesOf.end();
      bool ContainerOutsideLoop =
          Stored == ScopesOf.end() ||
          !llvm::is_contained(Stored->second, Site->Loop);
      if (BufferOutsideLoop && ContainerOutsideLoop)
        LoopStores.push_back({EscapeRoute::StoredEachIteration,
                              Arg->getBeginLoc(), nameOf(Arg), Site, Name});
    }
  }
}

void FromBlobEscapeAnalysis::checkSpawn(const Expr *E) {
  std::optional<WorkerSpawn> Spawn = Workers.match(E);
  if (!Spawn)
    return;
  for (const Expr *Arg : Spawn->Args)
    if (!lambdaArgument(Arg))
      noteEscape(EscapeRoute::Worker, Arg, Spawn->EntryPoint, false);
  if (!Spawn->Lambda)
    return;
  for (const LambdaCapture &Capture : Spawn->Lambda->captures()) {
    if (!Capture.capturesVariable())
      continue;
    const auto *Var = dyn_cast<VarDecl>(Capture.getCapturedVar());
    if (!Var)
      continue;
    const Expr *Captured = Var->isInitCapture() ? Var->getInit() : nullptr;
    if (Captured) {
      noteEscape(EscapeRoute::Worker, Captured, Spawn->EntryPoint, false);
      continue;
    }
    auto It = Environment.find(Var);
    if (It == Environment.end() || It->second.RootOrigin != Origin::External)
      continue;
    if (const BlobSite *Site = SiteOfRoot.lookup(It->second.Root))
      Escapes.push_back({EscapeRoute::Worker, Capture.getLocation(),
                         Var->getName().str(), Site, Spawn->EntryPoint});
  }
}

void FromBlobEscapeAnalysis::checkBufferWrite(const Stmt *S) {
  auto Record = [&](const Expr *Target) {
    if (const ValueDecl *Buffer = bufferOf(Target))
      Writes.push_back({Buffer, S});
  };
  if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
    if (Binary->isAssignmentOp())
      Record(Binary->getLHS());
    return;
  }
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(S)) {
    if (Operator->isAssignmentOp() && Operator->getNumArgs() == 2 &&
        !isTensorType(Operator->getArg(0)->getType()))
      Record(Operator->getArg(0));
    return;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    if (Method && Method->getIdentifier() && !Method->isConst() &&
        isRewritingMethod(Method->getName()) &&
        !isTensorType(Member->getImplicitObjectArgument()->getType()))
      Record(Member->getImplicitObjectArgument());
  }
  const auto *Call = dyn_cast<CallExpr>(S);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isLibtorchDecl(Callee))
    return;
  for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
       ++I) {
    QualType Param = Callee->getParamDecl(I)->getType();
    bool Writable =
        (Param->isPointerType() && !Param->getPointeeType().isConstQualified()) ||
        (Param->isLValueReferenceType() &&
         !Param.getNonReferenceType().isConstQualified());
    if (Writable && !isTensorType(Call->getArg(I)->getType()))
      Record(Call->getArg(I));
  }
}


void FromBlobEscapeAnalysis::visit(const Stmt *S) {
  if (!S)
    return;
  bool IsScope = isa<CompoundStmt>(S);
  bool IsLoop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
  if (IsScope || IsLoop)
    Scopes.push_back(S);
  if (IsLoop)
    Loops.push_back(S);

  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    visitChildren(S);
    for (const auto *D : Decl->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D)) {
        ScopesOf[Var] = Scopes;
        if (Var->getInit() &&
            (isTensorType(Var->getType()) || isTensorListType(Var->getType())))
          bind(Var, Var->getInit());
      }
  } else if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
    for (const LambdaCapture &Capture : Lambda->captures())
      if (Capture.capturesVariable())
        if (const auto *Var = dyn_cast<VarDecl>(Capture.getCapturedVar());
            Var && Var->isInitCapture() && Var->getInit()) {
          visit(Var->getInit());
          if (isTensorType(Var->getType()))
            bind(Var, Var->getInit());
        }
    ++LambdaDepth;
    visit(Lambda->getBody());
    --LambdaDepth;
  } else {
    visitChildren(S);
  }
  visitExpression(S);

  if (IsLoop)
    Loops.pop_back();
  if (IsScope || IsLoop)
    Scopes.pop_back();
}

/// S, once its children are visited: a from_blob site, a use of a from_blob
/// tensor, an escape, a store, a spawn or a write to a buffer.
void FromBlobEscapeAnalysis::visitExpression(const Stmt *S) {
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    if (const CallExpr *FromBlob = findFromBlob(Call); FromBlob == Call) {
      auto Site = std::make_unique<BlobSite>();
      Site->FromBlob = Call;
      Site->Buffer = Call->getNumArgs() ? bufferOf(Call->getArg(0)) : nullptr;
      Site->Loop = Loops.empty() ? nullptr : Loops.back();
      SiteOfCall[Call] = Site.get();
      Sites.push_back(std::move(Site));
    }
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      if (auto It = Environment.find(Var);
          It != Environment.end() && It->second.RootOrigin == Origin::External)
        Uses.push_back({It->second.Root, Ref});
  } else if (const auto *Return = dyn_cast<ReturnStmt>(S);
             Return && LambdaDepth == 0 && Return->getRetValue()) {
    visitReturn(Return);
  } else if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
             Assign && Assign->getOperator() == OO_Equal &&
             Assign->getNumArgs() == 2) {
    const Expr *Lhs = Assign->getArg(0)->IgnoreImplicit();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Lhs)) {
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && isTensorType(Var->getType()))
        bind(Var, Assign->getArg(1));
    } else if (const auto *Field = dyn_cast<MemberExpr>(Lhs);
               Field && isTensorType(Field->getType())) {
      noteEscape(EscapeRoute::StoredInMember, Assign->getArg(1),
                 Field->getMemberDecl()->getNameAsString(), true);
    }
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S))
    checkStores(Member);
  if (isa<CallExpr, CXXConstructExpr>(S))
    checkSpawn(cast<Expr>(S));
  checkBufferWrite(S);
}

/// The function's own return (not a lambda's): the returned value, and the
/// elements of a returned braced list or construction.
void FromBlobEscapeAnalysis::visitReturn(const ReturnStmt *Return) {
  llvm::SmallVector<const Expr *, 4> Returned = {Return->getRetValue()};
  const Expr *Value = Return->getRetValue()->IgnoreImplicit();
  if (const auto *List = dyn_cast<InitListExpr>(Value))
    Returned.append(List->inits().begin(), List->inits().end());
  else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Value))
    Returned.append(Construct->arg_begin(), Construct->arg_end());
  std::string Name = Function->getNameAsString();
  for (const Expr *E : Returned)
    noteEscape(DatasetGet ? EscapeRoute::DatasetGet : EscapeRoute::Returned, E,
               Name, !DatasetGet);
}

void FromBlobEscapeAnalysis::findRewrites() {
  const SourceManager &SM = Function->getASTContext().getSourceManager();
  auto Before = [&](const Stmt *A, const Stmt *B) {
    return SM.isBeforeInTranslationUnit(A->getEndLoc(), B->getBeginLoc());
  };
  for (const auto &[Root, Site] : SiteOfRoot) {
    if (!Site->Buffer)
      continue;
    for (const BufferWrite &Write : Writes) {
      if (Write.Buffer != Site->Buffer || !Before(Site->FromBlob, Write.Where))
        continue;
      const DeclRefExpr *Earlier = nullptr, *Later = nullptr;
      for (const TensorUse &Use : Uses) {
        if (Use.Root != Root)
          continue;
        if (Before(Site->FromBlob, Use.Ref) && Before(Use.Ref, Write.Where))
          Earlier = Use.Ref;
        else if (!Later && Before(Write.Where, Use.Ref))
          Later = Use.Ref;
      }
      if (Earlier && Later) {
        Rewrites.push_back({Write.Where, Site, Root, Later});
        break;
      }
    }
  }
}

} // namespace clang::tidy::libtorch
