//===- IntendedWrites.cpp - writes through views that are meant -----------===//

#include "IntendedWrites.h"
#include "Compat.h"
#include "TensorModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/FoldingSet.h"

#include <functional>

namespace clang::tidy::libtorch {

namespace {

bool isImplicitWrapper(const Stmt *S) {
  return isa<ExprWithCleanups, MaterializeTemporaryExpr, ImplicitCastExpr,
             CXXBindTemporaryExpr, ParenExpr, CXXFunctionalCastExpr,
             CXXConstructExpr>(S);
}

/// The nearest parent of E that is not an implicit node, a parenthesis or
/// the member expression of a call on E; Child is set to its child on the
/// way.
const Stmt *userOf(const Expr *E, const ParentMap &Parents,
                   const Stmt *&Child) {
  Child = E;
  const Stmt *Parent = Parents.getParent(E);
  while (Parent && (isImplicitWrapper(Parent) || isa<MemberExpr>(Parent))) {
    Child = Parent;
    Parent = Parents.getParent(Parent);
  }
  return Parent;
}

/// A registration API: `torch::Library::def`/`impl` (TORCH_LIBRARY),
/// `c10::RegisterOperators::op`, and pybind11's `def` on modules and
/// classes.
bool isRegistrationCall(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  if (!Method || !Method->getIdentifier())
    return false;
  llvm::StringRef Name = Method->getName();
  const CXXRecordDecl *Class = Method->getParent();
  if (!Class->getIdentifier())
    return false;
  std::string Qualified = Class->getQualifiedNameAsString();
  if (Name == "def" || Name == "impl")
    return Qualified == "torch::Library" ||
           compat::startsWith(Qualified, "pybind11::");
  if (Name == "def_static")
    return compat::startsWith(Qualified, "pybind11::");
  return Name == "op" && compat::endsWith(Qualified, "RegisterOperators");
}

/// The functions an argument of a registration hands over: `&f`, `f`, a
/// lambda, or `TORCH_FN(f)` (a template argument).
void collectHandedFunctions(const Stmt *S,
                            llvm::DenseSet<const FunctionDecl *> &Out) {
  if (!S)
    return;
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
    Out.insert(Lambda->getCallOperator());
    return;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (const auto *Function = dyn_cast<FunctionDecl>(Ref->getDecl()))
      if (const FunctionDecl *Definition = Function->getDefinition())
        Out.insert(Definition);
  if (const auto *E = dyn_cast<Expr>(S))
    if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
            E->getType()->getAsCXXRecordDecl()))
      for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
        if (Arg.getKind() == TemplateArgument::Declaration)
          if (const auto *Function = dyn_cast<FunctionDecl>(Arg.getAsDecl()))
            if (const FunctionDecl *Definition = Function->getDefinition())
              Out.insert(Definition);
  for (const Stmt *Child : S->children())
    collectHandedFunctions(Child, Out);
}

} // namespace

bool isDiscarded(const Expr *E, const ParentMap &Parents) {
  const Stmt *Child = E;
  const Stmt *Parent = Parents.getParent(E);
  while (Parent && isa<ExprWithCleanups, MaterializeTemporaryExpr,
                       ImplicitCastExpr, CXXBindTemporaryExpr, ParenExpr>(Parent)) {
    Child = Parent;
    Parent = Parents.getParent(Parent);
  }
  if (!Parent)
    return false;
  if (isa<CompoundStmt, CaseStmt, DefaultStmt, LabelStmt, AttributedStmt>(Parent))
    return true;
  if (const auto *If = dyn_cast<IfStmt>(Parent))
    return Child == If->getThen() || Child == If->getElse();
  if (const auto *For = dyn_cast<ForStmt>(Parent))
    return Child == For->getBody() || Child == For->getInc();
  if (const auto *While = dyn_cast<WhileStmt>(Parent))
    return Child == While->getBody();
  if (const auto *Do = dyn_cast<DoStmt>(Parent))
    return Child == Do->getBody();
  if (const auto *RangeFor = dyn_cast<CXXForRangeStmt>(Parent))
    return Child == RangeFor->getBody();
  if (const auto *Comma = dyn_cast<BinaryOperator>(Parent);
      Comma && Comma->getOpcode() == BO_Comma)
    return Child == Comma->getLHS() || isDiscarded(Comma, Parents);
  if (const auto *Cast = dyn_cast<CStyleCastExpr>(Parent))
    return Cast->getType()->isVoidType();
  return false;
}

class CallSiteIndex::Builder : public RecursiveASTVisitor<Builder> {
  using Base = RecursiveASTVisitor<Builder>;

public:
  Builder(CallSiteIndex &Index, const SourceManager &SM) : Index(Index), SM(SM) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D || (!isa<TranslationUnitDecl>(D) &&
               (SM.isInSystemHeader(D->getLocation()) || isLibtorchDecl(D))))
      return true;
    const auto *Function = dyn_cast<FunctionDecl>(D);
    if (!Function || !Function->doesThisDeclarationHaveABody())
      return Base::TraverseDecl(D);
    const FunctionDecl *Outer = Current;
    Current = Function;
    bool Result = Base::TraverseDecl(D);
    Current = Outer;
    return Result;
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
        Member && isRegistrationCall(Member))
      for (const Expr *Arg : Call->arguments())
        collectHandedFunctions(Arg, Index.Registered);
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Definition = Callee ? Callee->getDefinition() : nullptr;
    if (!Definition || !Current)
      return true;
    Index.Calls[Definition].push_back({Call, Current});
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts()))
      CalleeNames.insert(Ref);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (const auto *Function = dyn_cast<FunctionDecl>(Ref->getDecl()))
      if (!CalleeNames.count(Ref))
        if (const FunctionDecl *Definition = Function->getDefinition())
          Index.AddressTaken.insert(Definition);
    return true;
  }

private:
  CallSiteIndex &Index;
  const SourceManager &SM;
  const FunctionDecl *Current = nullptr;
  llvm::DenseSet<const DeclRefExpr *> CalleeNames;
};

CallSiteIndex::CallSiteIndex(ASTContext &AST) {
  Builder(*this, AST.getSourceManager()).TraverseAST(AST);
}

const std::vector<CallSiteIndex::CallSite> *
CallSiteIndex::callsOf(const FunctionDecl *Callee) const {
  if (AddressTaken.count(Callee))
    return nullptr;
  auto It = Calls.find(Callee);
  return It == Calls.end() ? nullptr : &It->second;
}

IntendedWrites::IntendedWrites(AliasAnalysisContext &Context)
    : Context(Context) {}

IntendedWrites::~IntendedWrites() = default;

const ParentMap &IntendedWrites::parents(const FunctionDecl *Function) {
  std::unique_ptr<ParentMap> &Map = Parents[Function];
  if (!Map)
    Map = std::make_unique<ParentMap>(const_cast<Stmt *>(Function->getBody()));
  return *Map;
}

// Note [Output parameters]
// In ATen's convention a kernel fills the tensors it is handed, and
// `const Tensor &` says nothing about that (in-place methods are const). So a
// write through a view of a parameter is reported only when the translation
// unit does not show that the function is meant to write it:
// - it writes the parameter directly: the parameter itself (`out.zero_()`),
//   or a view of it that nothing holds and whose value is thrown away
//   (`out[i] = v;`, `out.narrow(0, i, 1).copy_(row);`,
//   `p.select(-1, 0) -= w / 2;`): such a statement has no effect but on the
//   caller's tensor, so no one writes it believing the view to be a copy.
//   The parameter variable may have been rebound to a view of itself on
//   some paths only (`if (bias) g = g.view(...); g[i] = v;`): g holds the
//   parameter or a view of it, and the write lands in it either way;
// - it returns the parameter, alone or in a returned list: an in-out
//   parameter, the caller takes the updated tensor;
// - it is registered as an operator (TORCH_LIBRARY's def/impl, pybind11's
//   def): its callers are on the other side of the binding, and writing the
//   tensors they pass is the operator's contract;
// - every call in the translation unit passes a tensor the caller made
//   (`auto out = torch::zeros(...); kernel(x, out);`), and nothing takes
//   the function's address.
// A const parameter that the function clones and keeps reading (`auto w =
// x.clone(); ... x ...`) is one it treats as an input; none of the above
// counts for it, and a write through a view of it is reported.
OutputEvidence
IntendedWrites::outputEvidence(const ParmVarDecl *Param,
                               const FunctionAliasAnalysis &Enclosing) {
  if (auto It = Evidence.find(Param); It != Evidence.end())
    return It->second;
  OutputEvidence Result = OutputEvidence::None;
  const auto *Function = dyn_cast<FunctionDecl>(Param->getDeclContext());
  auto Returns = [&] {
    return llvm::any_of(Enclosing.escapes(), [&](const EscapeEvent &Escape) {
      return Escape.Kind == EscapeKind::Returned && Escape.Value.Root == Param &&
             Escape.Value.RootOrigin == Origin::CallerOwned &&
             Escape.Value.Rel == Relation::Handle;
    });
  };
  if (!Function || treatsAsReadOnly(Param))
    Result = OutputEvidence::None;
  else if (writesDirectly(Param, Enclosing))
    Result = OutputEvidence::WrittenDirectly;
  else if (Returns())
    Result = OutputEvidence::Returned;
  else if ((Index ? *Index : *(Index = std::make_unique<CallSiteIndex>(
                                   Context.ast())))
               .isRegistered(Function))
    Result = OutputEvidence::Registered;
  else if (isFreshAtEveryCall(Param))
    Result = OutputEvidence::FreshAtEveryCall;
  return Evidence[Param] = Result;
}

/// Whether E is Param, or views taken of it in one expression
/// (`p.select(-1, 0)`, `p.view({-1})[i]`): a view no variable or container
/// holds.
bool IntendedWrites::isViewChainOf(const Expr *E, const ParmVarDecl *Param) {
  E = skipHandleCopies(E);
  while (const auto *Call = dyn_cast_or_null<CallExpr>(E)) {
    std::optional<TensorCall> Tensor = resolveTensorCall(Call, Context.table());
    if (!Tensor || Tensor->Effect.View == ViewKind::None ||
        !Tensor->aliasedArgument())
      return false;
    E = skipHandleCopies(Tensor->aliasedArgument());
  }
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  return Ref && Ref->getDecl() == Param;
}

bool IntendedWrites::writesDirectly(const ParmVarDecl *Param,
                                    const FunctionAliasAnalysis &Enclosing) {
  const ParentMap &Map = parents(Enclosing.function());
  // The write, or the chain of in-place writes it starts, is a statement.
  auto ChainDiscarded = [&](const Expr *Call) {
    const Expr *E = Call;
    while (!isDiscarded(E, Map)) {
      const Stmt *Child = nullptr;
      const auto *Next = dyn_cast_or_null<CallExpr>(userOf(E, Map, Child));
      std::optional<TensorCall> Tensor =
          Next ? resolveTensorCall(Next, Context.table()) : std::nullopt;
      if (!Tensor || Tensor->Args.empty() ||
          skipHandleCopies(Tensor->Args[0]) != E ||
          !Tensor->Effect.writesArgument(0))
        return false;
      E = Next;
    }
    return true;
  };
  return llvm::any_of(Enclosing.writes(), [&](const WriteEvent &Write) {
    const AliasValue &Value = Write.Value;
    if (Value.Root != Param || Value.RootOrigin != Origin::CallerOwned)
      return false;
    if (Value.Rel == Relation::Handle)
      return true;
    return Value.Rel == Relation::DefiniteView &&
           isViewChainOf(Write.Target, Param) && ChainDiscarded(Write.Call);
  });
}

bool IntendedWrites::isFreshAtEveryCall(const ParmVarDecl *Param) {
  const auto *Function = cast<FunctionDecl>(Param->getDeclContext());
  if (!Index)
    Index = std::make_unique<CallSiteIndex>(Context.ast());
  const std::vector<CallSiteIndex::CallSite> *Calls = Index->callsOf(Function);
  if (!Calls || Calls->empty())
    return false;
  return llvm::all_of(*Calls, [&](const CallSiteIndex::CallSite &Site) {
    const FunctionAliasAnalysis &Caller = Context.analyze(Site.Caller);
    return llvm::any_of(Caller.writes(), [&](const WriteEvent &Write) {
      return Write.Call == Site.Call && Write.CalleeParam == Param &&
             Write.Value.RootOrigin == Origin::Fresh;
    });
  });
}

bool IntendedWrites::treatsAsReadOnly(const ParmVarDecl *Param) {
  const auto *Function = dyn_cast<FunctionDecl>(Param->getDeclContext());
  if (!Function || !Function->getBody() ||
      !Param->getType().getNonReferenceType().isConstQualified())
    return false;
  const SourceManager &SM = Context.ast().getSourceManager();
  auto IsParam = [&](const Expr *E) {
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(skipHandleCopies(E));
    return Ref && Ref->getDecl() == Param;
  };
  // The end of the first `clone()` of Param, then any later use of it.
  std::optional<SourceLocation> ClonedAt;
  bool ReadAfter = false;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || ReadAfter)
      return;
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (std::optional<TensorCall> Tensor =
              resolveTensorCall(Call, Context.table());
          Tensor && Tensor->Spelling == "clone" && !Tensor->Args.empty() &&
          IsParam(Tensor->Args[0]) && !ClonedAt) {
        ClonedAt = Call->getEndLoc();
        return;
      }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S);
        Ref && Ref->getDecl() == Param && ClonedAt &&
        SM.isBeforeInTranslationUnit(*ClonedAt, Ref->getLocation()))
      ReadAfter = true;
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Function->getBody());
  return ReadAfter;
}

/// Whether E names a tensor, or views of one, with indices that read
/// variables and constants only: evaluating it twice gives the same view.
bool IntendedWrites::isPlainViewOf(const Expr *E) {
  E = skipHandleCopies(E);
  if (isa<DeclRefExpr, MemberExpr>(E))
    return true;
  const auto *Call = dyn_cast<CallExpr>(E);
  std::optional<TensorCall> Tensor =
      Call ? resolveTensorCall(Call, Context.table()) : std::nullopt;
  if (!Tensor || Tensor->Effect.View == ViewKind::None ||
      Tensor->Effect.writes() || Tensor->Args.empty())
    return false;
  ASTContext &AST = Context.ast();
  return isPlainViewOf(Tensor->Args[0]) &&
         llvm::all_of(llvm::ArrayRef(Tensor->Args).drop_front(),
                      [&](const Expr *Arg) {
                        return !isTensorType(Arg->getType()) &&
                               !Arg->HasSideEffects(AST);
                      });
}

// Note [Results copied back]
// `buf[g] = buf[g].flatten(1).addmm_(a, b).view_as(buf[g]);` writes through
// what `flatten` returned and assigns the result to `buf[g]`: if `flatten`
// made a view, `buf[g]` already holds the sum and is assigned itself; if it
// made a copy, the sum is copied in. Either way `buf[g]` ends up with it, so
// the layout the may-alias write depends on does not matter. Only an
// assignment (or `copy_`) into the same expression the may-alias operation
// took, spelled the same and free of side effects, counts.
bool IntendedWrites::isCopiedBack(const WriteEvent &Write) {
  const auto *Site = dyn_cast_or_null<CallExpr>(Write.Value.AliasSite);
  if (Write.Value.Rel != Relation::MayAlias || !Site || Write.Value.Merged)
    return false;
  std::optional<TensorCall> MayAlias = resolveTensorCall(Site, Context.table());
  const Expr *Input = MayAlias ? MayAlias->aliasedArgument() : nullptr;
  ASTContext &AST = Context.ast();
  if (!Input || !isPlainViewOf(Input))
    return false;
  const ParentMap &Map = parents(Write.Owner->enclosingFunction());
  // Up through the views and in-place writes of the written value.
  const Expr *Value = Write.Call;
  const CallExpr *User = nullptr;
  std::optional<TensorCall> Use;
  while (true) {
    const Stmt *Child = nullptr;
    User = dyn_cast_or_null<CallExpr>(userOf(Value, Map, Child));
    Use = User ? resolveTensorCall(User, Context.table()) : std::nullopt;
    if (!Use || Use->IsIndexAssignment || Use->Spelling == "copy_" ||
        Use->aliasedArgument() == nullptr ||
        skipHandleCopies(Use->aliasedArgument()) != Value)
      break;
    Value = User;
  }
  if (!Use || Use->Args.size() < 2 || skipHandleCopies(Use->Args[1]) != Value ||
      !(Use->IsIndexAssignment || Use->Spelling == "copy_"))
    return false;
  llvm::FoldingSetNodeID Destination, Source;
  Use->Args[0]->IgnoreImplicit()->Profile(Destination, AST, /*Canonical=*/true);
  Input->IgnoreImplicit()->Profile(Source, AST, /*Canonical=*/true);
  return Destination == Source;
}

} // namespace clang::tidy::libtorch
