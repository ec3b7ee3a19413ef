//===- CallTargets.cpp - the code a call may run, chosen at run time ------===//

#include "CallTargets.h"

#include "AliasAnalysis.h"
#include "TensorModel.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::libtorch {

// Note [Calls that run code chosen at run time]
// Two C++ constructions choose the code of a call at run time, and user code
// reaches its helpers through both:
// - `constraint->project(w)`, where `project` is virtual, runs the override
//   of the object's dynamic type. Unless clang can devirtualise the call (an
//   object of a known type, a `final` class or method, a qualified call),
//   every definition of the method and of its overriders in the translation
//   unit is a target.
// - `hook_(w)`, where `hook_` is a `std::function`, runs what was last
//   stored into it: a lambda or a function, by initialisation, assignment,
//   a container's storing method or subscript, a constructor's member
//   initialiser, or a registration function's parameter.
// A summary of such a call is the merge of its targets' summaries
// (AliasAnalysisContext::callSummary): what one of them may do, the call may
// do. The worker rules read the targets' bodies as they read a direct
// callee's.

namespace {

bool isUserCode(const Decl *D, const ASTContext &AST) {
  return D && !isLibtorchDecl(D) && !D->isInStdNamespace() &&
         !AST.getSourceManager().isInSystemHeader(D->getLocation());
}

bool isStdFunctionRecord(const CXXRecordDecl *Record) {
  return Record && Record->isInStdNamespace() && Record->getIdentifier() &&
         Record->getName() == "function";
}

/// A std::function, or a container, pair or optional of them.
bool holdsStdFunction(QualType Type, unsigned Depth = 0) {
  Type = Type.getNonReferenceType().getCanonicalType();
  if (isStdFunctionType(Type))
    return true;
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(Type->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace() || Depth > 3)
    return false;
  return llvm::any_of(Spec->getTemplateArgs().asArray(), [&](const TemplateArgument &Arg) {
    return Arg.getKind() == TemplateArgument::Type &&
           holdsStdFunction(Arg.getAsType(), Depth + 1);
  });
}

/// E without parentheses, implicit conversions and temporaries.
const Expr *strip(const Expr *E) {
  const Expr *Previous = nullptr;
  while (E && E != Previous) {
    Previous = E;
    E = E->IgnoreImplicit()->IgnoreParens();
  }
  return E;
}

/// std::move, std::forward, std::make_pair and friends pass their argument.
bool passesArgument(const FunctionDecl *Callee) {
  static constexpr llvm::StringLiteral Passing[] = {"move",       "forward", "make_pair",
                                                    "make_tuple", "ref",     "cref"};
  return Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
         llvm::is_contained(Passing, Callee->getName());
}

/// The methods of a standard container that store a callable given to them:
/// the storing methods every analysis knows, and a map's assigning ones.
bool storesArgument(const CXXMethodDecl *Method) {
  static constexpr llvm::StringLiteral MapStoring[] = {"insert_or_assign",
                                                       "try_emplace", "assign"};
  return isStoringMethod(Method) ||
         (Method && Method->getIdentifier() &&
          llvm::is_contained(MapStoring, Method->getName()));
}

} // namespace

bool isStdFunctionType(QualType Type) {
  return isStdFunctionRecord(Type.getNonReferenceType()->getAsCXXRecordDecl());
}

const ValueDecl *functionHolderOf(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = strip(E);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (!Var)
        return nullptr;
      // A local alias or copy of a stored callable, and the range and
      // iterator of a range-for, lead to where the callable is stored.
      if (Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) && Var->getInit() &&
          !isa<LambdaExpr>(Var->getInit()->IgnoreImplicit()))
        if (const ValueDecl *Holder = functionHolderOf(Var->getInit()))
          return Holder;
      return Var;
    }
    if (const auto *Member = dyn_cast<MemberExpr>(E)) {
      const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
      const auto *Parent = Field ? Field->getParent() : nullptr;
      // `entry.second` of a map's element is the map's.
      if (Parent && Parent->isInStdNamespace()) {
        E = Member->getBase();
        continue;
      }
      return Field;
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(E);
        Unary && Unary->getOpcode() == UO_Deref) {
      E = Unary->getSubExpr();
      continue;
    }
    // `hooks_[i]`, `*it`, `it->second`: the container's.
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Operator->getNumArgs() == 0)
        return nullptr;
      E = Operator->getArg(0);
      continue;
    }
    // `hooks_.at(k)`, `hooks_.begin()`, `hooks_.front()`.
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXRecordDecl *Object = Call->getRecordDecl();
      if (!Object || !Object->isInStdNamespace())
        return nullptr;
      E = Call->getImplicitObjectArgument();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

void CallTargets::noteStore(const ValueDecl *Holder, const Expr *Value) {
  if (!Holder || !Value || !holdsStdFunction(Holder->getType()))
    return;
  llvm::SmallVector<std::pair<const Expr *, unsigned>, 4> Work = {{Value, 0}};
  while (!Work.empty()) {
    auto [E, Depth] = Work.pop_back_val();
    if (!E || Depth > 4)
      continue;
    E = strip(E);
    if (const auto *Lambda = dyn_cast<LambdaExpr>(E)) {
      if (!llvm::is_contained(Stored[Holder], Lambda))
        Stored[Holder].push_back(Lambda);
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *Function = dyn_cast<FunctionDecl>(Ref->getDecl()))
        StoredFunctions[Holder].push_back(Function);
      else if (const auto *Param = dyn_cast<ParmVarDecl>(Ref->getDecl()))
        StoredParameters.push_back({Holder, Param});
      else if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
               Var && Var->hasLocalStorage() && Var->getInit())
        Work.push_back({Var->getInit(), Depth + 1});
    } else if (const auto *Unary = dyn_cast<UnaryOperator>(E);
               Unary && Unary->getOpcode() == UO_AddrOf) {
      Work.push_back({Unary->getSubExpr(), Depth + 1});
    } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      for (const Expr *Arg : Construct->arguments())
        Work.push_back({Arg, Depth + 1});
    } else if (const auto *List = dyn_cast<InitListExpr>(E)) {
      for (const Expr *Init : List->inits())
        Work.push_back({Init, Depth + 1});
    } else if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E)) {
      Work.push_back({Cast->getSubExpr(), Depth + 1});
    } else if (const auto *Call = dyn_cast<CallExpr>(E);
               Call && passesArgument(Call->getDirectCallee())) {
      for (const Expr *Arg : Call->arguments())
        Work.push_back({Arg, Depth + 1});
    }
  }
}

void CallTargets::buildIndex() {
  if (Indexed)
    return;
  Indexed = true;

  struct Indexer : RecursiveASTVisitor<Indexer> {
    CallTargets &Targets;
    explicit Indexer(CallTargets &Targets) : Targets(Targets) {}
    bool shouldVisitTemplateInstantiations() const { return true; }

    // Only the user's code: libtorch's and the standard library's classes
    // override each other, but their calls are modelled by the table.
    bool TraverseDecl(Decl *D) {
      if (D && !isa<TranslationUnitDecl>(D) && !isUserCode(D, Targets.AST))
        return true;
      return RecursiveASTVisitor::TraverseDecl(D);
    }

    void noteOverrider(const CXXMethodDecl *Overrider, const CXXMethodDecl *Method) {
      for (const CXXMethodDecl *Overridden : Method->overridden_methods()) {
        auto &Known = Targets.Overriders[Overridden->getCanonicalDecl()];
        if (!llvm::is_contained(Known, Overrider))
          Known.push_back(Overrider);
        noteOverrider(Overrider, Overridden);
      }
    }
    bool VisitCXXMethodDecl(CXXMethodDecl *Method) {
      if (Method->isThisDeclarationADefinition())
        noteOverrider(Method, Method);
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Method))
        for (const CXXCtorInitializer *Init : Ctor->inits())
          if (Init->isAnyMemberInitializer() && Init->isWritten())
            Targets.noteStore(Init->getAnyMember(), Init->getInit());
      return true;
    }
    bool VisitVarDecl(VarDecl *Var) {
      if (!isa<ParmVarDecl>(Var))
        Targets.noteStore(Var, Var->getInit());
      return true;
    }
    bool VisitFieldDecl(FieldDecl *Field) {
      Targets.noteStore(Field, Field->getInClassInitializer());
      return true;
    }
    bool VisitCallExpr(CallExpr *Call) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (!Callee)
        return true;
      // `hook_ = f`, `hooks_[name] = f`.
      if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
          Operator && Operator->isAssignmentOp() && Operator->getNumArgs() == 2) {
        Targets.noteStore(functionHolderOf(Operator->getArg(0)), Operator->getArg(1));
        return true;
      }
      // `hooks_.push_back(f)`, `hooks_.emplace(name, f)`.
      if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
        if (storesArgument(Member->getMethodDecl()))
          for (const Expr *Arg : Member->arguments())
            Targets.noteStore(functionHolderOf(Member->getImplicitObjectArgument()), Arg);
      }
      // What a registration function's std::function parameter is given.
      if (isUserCode(Callee, Targets.AST)) {
        unsigned Skip = isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee);
        for (unsigned I = 0; I < Callee->getNumParams() && I + Skip < Call->getNumArgs(); ++I)
          if (holdsStdFunction(Callee->getParamDecl(I)->getType()))
            Targets.Passed[{Callee->getCanonicalDecl(), I}].push_back(Call->getArg(I + Skip));
      }
      return true;
    }
  };
  Indexer(*this).TraverseDecl(AST.getTranslationUnitDecl());

  // A parameter stored into a holder stores what its callers pass.
  for (auto [Holder, Param] : decltype(StoredParameters)(StoredParameters))
    if (const auto *Function = dyn_cast<FunctionDecl>(Param->getDeclContext()))
      for (const Expr *Arg : Passed.lookup(
               {Function->getCanonicalDecl(), Param->getFunctionScopeIndex()}))
        noteStore(Holder, Arg);
}

llvm::ArrayRef<const LambdaExpr *> CallTargets::storedLambdas(const ValueDecl *Holder) {
  buildIndex();
  auto It = Stored.find(Holder);
  return It == Stored.end() ? llvm::ArrayRef<const LambdaExpr *>() : It->second;
}

/// The std::function object a call of its operator() calls, or null.
static const Expr *calledFunctionObject(const CallExpr *Call) {
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
  if (!Method || Method->getOverloadedOperator() != OO_Call ||
      !isStdFunctionRecord(Method->getParent()))
    return nullptr;
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call))
    return Operator->getNumArgs() ? Operator->getArg(0) : nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    return Member->getImplicitObjectArgument();
  return nullptr;
}

/// The method a virtual call names, when clang cannot tell which override
/// runs; null for any other call.
static const CXXMethodDecl *virtualCallee(const CallExpr *Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
  if (!Method || !Method->isVirtual())
    return nullptr;
  const auto *Callee = dyn_cast<MemberExpr>(Member->getCallee()->IgnoreParens());
  if (Callee && Callee->hasQualifier())
    return nullptr;
  const Expr *Object = Member->getImplicitObjectArgument();
  if (Object && Method->getDevirtualizedMethod(Object, /*IsAppleKext=*/false))
    return nullptr;
  return Method;
}

bool callsStdFunction(const CallExpr *Call) {
  return isa<CXXOperatorCallExpr>(Call) && calledFunctionObject(Call);
}

bool CallTargets::dispatches(const CallExpr *Call) {
  if (calledFunctionObject(Call))
    return true;
  const CXXMethodDecl *Virtual = virtualCallee(Call);
  return Virtual && isUserCode(Virtual, AST);
}

llvm::SmallVector<const FunctionDecl *, 2>
CallTargets::definitionsRunBy(const CallExpr *Call) {
  llvm::SmallVector<const FunctionDecl *, 2> Definitions;
  auto Add = [&](const FunctionDecl *Function) {
    const FunctionDecl *Definition = Function ? Function->getDefinition() : nullptr;
    if (Definition && Definition->getBody() && isUserCode(Definition, AST) &&
        !llvm::is_contained(Definitions, Definition))
      Definitions.push_back(Definition);
  };
  if (const Expr *Object = calledFunctionObject(Call)) {
    const ValueDecl *Holder = functionHolderOf(Object);
    if (!Holder)
      return Definitions;
    for (const LambdaExpr *Lambda : storedLambdas(Holder))
      if (!Lambda->isGenericLambda())
        Add(Lambda->getCallOperator());
    for (const FunctionDecl *Function : StoredFunctions.lookup(Holder))
      Add(Function);
    return Definitions;
  }
  const CXXMethodDecl *Virtual = virtualCallee(Call);
  if (!Virtual || !isUserCode(Virtual, AST)) {
    Add(Call->getDirectCallee());
    return Definitions;
  }
  buildIndex();
  Add(Virtual);
  for (const CXXMethodDecl *Overrider : Overriders.lookup(Virtual->getCanonicalDecl()))
    Add(Overrider);
  return Definitions;
}

} // namespace clang::tidy::libtorch
