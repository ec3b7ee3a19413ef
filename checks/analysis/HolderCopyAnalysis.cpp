//===- HolderCopyAnalysis.cpp - ModuleHolder copies used as models --------===//

#include "HolderCopyAnalysis.h"
#include "ParameterLists.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <functional>

namespace clang::tidy::libtorch {

using detail::isStdContainer;

namespace {

/// Whether S assigns a new handle to Decl (`target = Net(...)`).
bool assigns(const Stmt *S, const ValueDecl *Decl) {
  if (!S)
    return false;
  const Expr *Lhs = nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
      Op && Op->isAssignmentOp() && Op->getNumArgs() == 2)
    Lhs = Op->getArg(0)->IgnoreImplicit();
  else if (const auto *Binary = dyn_cast<BinaryOperator>(S);
           Binary && Binary->isAssignmentOp())
    Lhs = Binary->getLHS()->IgnoreImplicit();
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Lhs);
      Ref && Ref->getDecl() == Decl)
    return true;
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(Lhs);
      Member && Member->getMemberDecl() == Decl)
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *Child) { return assigns(Child, Decl); });
}

/// A handle named by E: a variable, a parameter or a member.
const ValueDecl *namedHandle(const Expr *E) {
  E = skipModuleHandleCopies(E);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(E))
    return Member->getMemberDecl();
  return nullptr;
}

/// The parameter whose handle Callee returns: every `return` gives back the
/// parameter, or a local copy of it that the function never reassigns.
/// Return statements in lambdas are the lambda's own and are skipped.
class ReturnedParameter : public RecursiveASTVisitor<ReturnedParameter> {
public:
  explicit ReturnedParameter(const FunctionDecl *Callee) : Callee(Callee) {}

  const ParmVarDecl *find(const ReturnStmt *&Site) {
    if (!Callee->getBody() || !moduleImplOf(Callee->getReturnType()) ||
        Callee->getReturnType()->isReferenceType())
      return nullptr;
    TraverseStmt(const_cast<Stmt *>(Callee->getBody()));
    if (Mixed || !Param)
      return nullptr;
    Site = First;
    return Param;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitReturnStmt(ReturnStmt *Return) {
    const ValueDecl *Handle = namedHandle(Return->getRetValue());
    if (const auto *Local = dyn_cast_or_null<VarDecl>(Handle);
        Local && !isa<ParmVarDecl>(Local) && Local->getInit() &&
        !assigns(Callee->getBody(), Local))
      Handle = namedHandle(Local->getInit());
    const auto *Returned = dyn_cast_or_null<ParmVarDecl>(Handle);
    if (!Returned || (Param && Returned != Param))
      Mixed = true;
    if (!First)
      First = Return;
    Param = Returned;
    return true;
  }

private:
  const FunctionDecl *Callee;
  const ParmVarDecl *Param = nullptr;
  const ReturnStmt *First = nullptr;
  bool Mixed = false;
};

/// A copy of a module handle made in a function: a variable initialised
/// from another handle (`auto t = m;`), or from a call of a function of the
/// translation unit that returns the handle it is given (`auto t =
/// make_target(m);`), or a container the handle is stored in
/// (`teachers.push_back(m)`).
struct LocalCopy {
  const ValueDecl *Copy;
  const ValueDecl *Original;
  const Expr *From; ///< The expression naming Original.
  const Expr *Site; ///< The initializer, or the call that stores the handle.
  /// For a copy returned by a helper: the helper's `return`.
  const ReturnStmt *Returned = nullptr;
};

/// The container of module handles that E is an element of: `teachers` in
/// `teachers[0]`, `teachers.at(i)`, `teachers.front()`, `teachers.back()`.
const VarDecl *containerOfElement(const Expr *E) {
  E = skipModuleHandleCopies(E);
  const Expr *Base = nullptr;
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript)
    Base = Op->getArg(0);
  else if (const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    static constexpr llvm::StringLiteral ElementAccessors[] = {"at", "front",
                                                               "back"};
    if (Method && Method->getIdentifier() &&
        llvm::is_contained(ElementAccessors, Method->getName()))
      Base = Call->getImplicitObjectArgument();
  }
  const auto *Ref =
      Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()) : nullptr;
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->isLocalVarDecl() &&
                 isStdContainer(Var->getType()->getAsCXXRecordDecl())
             ? Var
             : nullptr;
}

/// The local copies of module handles in a function, and the references to
/// every declaration.
class LocalCopyFinder : public RecursiveASTVisitor<LocalCopyFinder> {
public:
  std::vector<LocalCopy> Copies;
  llvm::DenseMap<const ValueDecl *, std::vector<const Expr *>> References;

  bool VisitVarDecl(VarDecl *Var) {
    if (!Var->getInit() || !moduleImplOf(Var->getType()) ||
        isModuleClass(Var->getType()->getAsCXXRecordDecl()) ||
        Var->getType()->isReferenceType())
      return true;
    const Expr *Init = skipModuleHandleCopies(Var->getInit());
    if (const ValueDecl *Original = namedHandle(Init)) {
      Copies.push_back({Var, Original, Init, Var->getInit()});
      return true;
    }
    // A helper that returns the handle it is given.
    const auto *Call = dyn_cast<CallExpr>(Init);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    const FunctionDecl *Definition = nullptr;
    if (!Callee || isa<CXXMethodDecl>(Callee) || !Callee->hasBody(Definition))
      return true;
    const ReturnStmt *Return = nullptr;
    const ParmVarDecl *Param = ReturnedParameter(Definition).find(Return);
    if (!Param || Param->getFunctionScopeIndex() >= Call->getNumArgs())
      return true;
    const Expr *Arg = Call->getArg(Param->getFunctionScopeIndex());
    if (const ValueDecl *Original = namedHandle(Arg))
      Copies.push_back({Var, Original, skipModuleHandleCopies(Arg),
                        Var->getInit(), Return});
    return true;
  }
  // `c.push_back(m)`: the container holds a second handle on m's module.
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    const auto *Object = dyn_cast_or_null<DeclRefExpr>(
        Call->getImplicitObjectArgument()
            ? Call->getImplicitObjectArgument()->IgnoreParenImpCasts()
            : nullptr);
    const auto *Container =
        Object ? dyn_cast<VarDecl>(Object->getDecl()) : nullptr;
    static constexpr llvm::StringLiteral StoreMethods[] = {
        "push_back", "emplace_back", "push_front", "emplace_front"};
    if (!Method || !Method->getIdentifier() || !Container ||
        !Container->isLocalVarDecl() ||
        !isStdContainer(Container->getType()->getAsCXXRecordDecl()) ||
        !llvm::is_contained(StoreMethods, Method->getName()) ||
        Call->getNumArgs() != 1)
      return true;
    const Expr *Arg = Call->getArg(0);
    if (!moduleImplOf(Arg->getType()) ||
        isModuleClass(Arg->getType()->getAsCXXRecordDecl()))
      return true;
    if (const ValueDecl *Original = namedHandle(Arg))
      Copies.push_back(
          {Container, Original, skipModuleHandleCopies(Arg), Call});
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    References[Ref->getDecl()].push_back(Ref);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *Member) {
    References[Member->getMemberDecl()].push_back(Member);
    return true;
  }
};

bool containsExpr(const Stmt *Outer, const Expr *Inner) {
  if (!Outer || !Inner)
    return false;
  SourceRange Range = Outer->getSourceRange();
  SourceLocation Loc = Inner->getBeginLoc();
  return Range.getBegin() <= Loc && Loc <= Range.getEnd();
}

// Note [Used after the update]
// A copy of a ModuleHolder is a mistake when one handle is updated and the
// other is then used as if it were a model of its own. The analysis is
// flow-insensitive; it orders uses by their place in the function: a use
// after the sink counts, and so does a use anywhere in a loop that holds the
// sink, which the next iteration reaches after it. Branches are not told
// apart.
class UsesAfterSink {
public:
  UsesAfterSink(const Stmt *Body, const Expr *Sink, const SourceManager &SM)
      : Sink(Sink), SM(SM) {
    findLoops(Body);
  }
  bool isAfter(const Expr *Use) const {
    return SM.isBeforeInTranslationUnit(Sink->getEndLoc(),
                                        Use->getBeginLoc()) ||
           llvm::any_of(Loops, [&](const Stmt *Loop) {
             return containsExpr(Loop, Use);
           });
  }

private:
  void findLoops(const Stmt *S) {
    if (!S || !containsExpr(S, Sink))
      return;
    if (isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S))
      Loops.push_back(S);
    for (const Stmt *Child : S->children())
      findLoops(Child);
  }
  const Expr *Sink;
  const SourceManager &SM;
  llvm::SmallVector<const Stmt *, 4> Loops;
};

/// The handle a member initializer copies: a variable, a parameter or
/// another member of `this`.
const ValueDecl *copiedHandle(const CXXCtorInitializer *Init) {
  if (!Init || !Init->isMemberInitializer() || !Init->getInit())
    return nullptr;
  const Expr *E = skipModuleHandleCopies(Init->getInit());
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast<MemberExpr>(E);
      Member && isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()))
    return Member->getMemberDecl();
  return nullptr;
}

bool isModuleHandleMember(const FieldDecl *Field) {
  return Field && !Field->getType()->isReferenceType() &&
         moduleImplOf(Field->getType()) &&
         !isModuleClass(Field->getType()->getAsCXXRecordDecl());
}

/// Two module members that a constructor initialises with one handle:
/// `target(online)`, or `online(n), target(n)`; or a member a method assigns
/// another's handle: `target_ = online_;`.
struct MemberCopy {
  const FieldDecl *Copy = nullptr, *Original = nullptr;
  const CXXCtorInitializer *CopyInit = nullptr;
  const ValueDecl *Via = nullptr; ///< `n`, when both copy a third handle.
  const CXXOperatorCallExpr *CopyAssign = nullptr; ///< `target_ = online_`.
};

/// An assignment of a member of `this` in a body of its class, and the
/// member whose handle it copies (null when the right-hand side is not
/// another member).
using MemberAssignment = std::pair<const CXXOperatorCallExpr *, const FieldDecl *>;

/// The assignments of members of `this` in the bodies of Record's methods
/// and constructors, by the member assigned: one walk of the class.
llvm::DenseMap<const FieldDecl *, std::vector<MemberAssignment>>
memberAssignments(const CXXRecordDecl *Record) {
  llvm::DenseMap<const FieldDecl *, std::vector<MemberAssignment>> Found;
  std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
      const auto *Lhs = dyn_cast<MemberExpr>(Op->getArg(0)->IgnoreImplicit());
      const auto *Field = Lhs ? dyn_cast<FieldDecl>(Lhs->getMemberDecl()) : nullptr;
      if (Field && isa<CXXThisExpr>(Lhs->getBase()->IgnoreImplicit())) {
        const auto *Rhs =
            dyn_cast<MemberExpr>(skipModuleHandleCopies(Op->getArg(1)));
        const auto *Source =
            Rhs && isa<CXXThisExpr>(Rhs->getBase()->IgnoreImplicit())
                ? dyn_cast<FieldDecl>(Rhs->getMemberDecl())
                : nullptr;
        Found[Field].emplace_back(Op, Source);
      }
    }
    llvm::for_each(S->children(), Visit);
  };
  for (const CXXMethodDecl *Method : Record->methods()) {
    const FunctionDecl *Definition = nullptr;
    if (!Method->isImplicit() && Method->hasBody(Definition))
      Visit(Definition->getBody());
  }
  return Found;
}

// Note [A member assigned another member's handle]
// `target_ = online_;` in a constructor's body or a method copies the
// ModuleHolder as `target_(online_)` does. It is a copy only when it is the
// one assignment of `target_` in the class, and `online_` is never assigned
// a handle in a body: a member assigned in several places selects among
// modules (`current_ = models_[i]`), and an original rebound later is a
// module of its own again.
std::optional<MemberCopy> assignedMemberCopy(const FieldDecl *Updated) {
  const auto *Record = dyn_cast<CXXRecordDecl>(Updated->getParent());
  if (!Record)
    return std::nullopt;
  const auto Assignments = memberAssignments(Record);
  for (const FieldDecl *Other : Record->fields()) {
    if (Other == Updated || !isModuleHandleMember(Other))
      continue;
    // Updated copied into Other, or Other into Updated.
    for (auto [Copy, Original] : {std::pair(Other, Updated),
                                  std::pair(Updated, Other)}) {
      const auto CopyAssignments = Assignments.lookup(Copy);
      if (CopyAssignments.size() != 1 ||
          CopyAssignments.front().second != Original ||
          Assignments.count(Original))
        continue;
      MemberCopy Result;
      Result.Copy = Copy;
      Result.Original = Original;
      Result.CopyAssign = CopyAssignments.front().first;
      return Result;
    }
  }
  return std::nullopt;
}

std::optional<MemberCopy> findMemberCopy(const FieldDecl *Updated) {
  const auto *Record = dyn_cast<CXXRecordDecl>(Updated->getParent());
  if (!Record || !isModuleHandleMember(Updated))
    return std::nullopt;
  for (const CXXConstructorDecl *Ctor : Record->ctors()) {
    const FunctionDecl *Definition = nullptr;
    if (Ctor->isImplicit() || !Ctor->hasBody(Definition))
      continue;
    const auto *Defined = cast<CXXConstructorDecl>(Definition);
    // A member given a handle of its own in the body is no copy.
    auto Reassigned = [&](const FieldDecl *Field) {
      return assigns(Defined->getBody(), Field);
    };
    const CXXCtorInitializer *UpdatedInit = nullptr;
    for (const CXXCtorInitializer *Init : Defined->inits())
      if (Init->getMember() == Updated)
        UpdatedInit = Init;
    const ValueDecl *UpdatedSource = copiedHandle(UpdatedInit);
    for (const CXXCtorInitializer *Init : Defined->inits()) {
      const FieldDecl *Other = Init->getMember();
      if (Other == Updated || !isModuleHandleMember(Other) ||
          Reassigned(Other) || Reassigned(Updated))
        continue;
      const ValueDecl *OtherSource = copiedHandle(Init);
      if (OtherSource == Updated)
        return MemberCopy{Other, Updated, Init, nullptr};
      if (UpdatedSource == Other)
        return MemberCopy{Updated, Other, UpdatedInit, nullptr};
      if (UpdatedSource && OtherSource == UpdatedSource)
        return MemberCopy{Other, Updated, Init, UpdatedSource};
    }
  }
  return assignedMemberCopy(Updated);
}

/// What a local list variable was initialised from, when the function
/// never assigns it another list: `online->parameters()` for `dst` after
/// `auto dst = online->parameters();`. Otherwise List itself.
const Expr *listSource(const Expr *List, const Stmt *Body) {
  const Expr *E = List;
  for (int Depth = 0; Depth < 4; ++Depth) {
    const auto *Ref = dyn_cast<DeclRefExpr>(skipModuleHandleCopies(E));
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Var || !Var->isLocalVarDecl() || !Var->getInit() ||
        assigns(Body, Var))
      break;
    E = Var->getInit();
  }
  return E;
}

} // namespace

std::optional<HolderCopy>
HolderCopyAnalysis::find(const Expr *Sink, const Expr *ListExpr,
                         const FunctionDecl *Function) {
  if (!Function || !Function->getBody())
    return std::nullopt;
  std::optional<std::vector<ParameterEntry>> List =
      Sharing.parameterList(ListExpr);
  if (!List)
    return std::nullopt;
  // The handle the list is taken from: `online` in `online->parameters()`,
  // also through a local list (`auto dst = online->parameters();`).
  const Expr *Source =
      List->empty() ? listSource(ListExpr, Function->getBody()) : ListExpr;
  const Expr *Listed = nullptr;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(skipModuleHandleCopies(
          List->empty() ? Source : List->front().Route.front().Site)))
    Listed = skipModuleHandleCopies(Call->getImplicitObjectArgument());
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(Listed))
    if (std::optional<HolderCopy> Copy = memberCopy(Sink, Member, Function))
      return Copy;
  ObjectKey Updated;
  if (!List->empty())
    Updated = List->front().Route.front().Object;
  else if (const auto *Call =
               dyn_cast<CXXMemberCallExpr>(skipModuleHandleCopies(Source)))
    if (std::optional<ModuleValue> Module =
            Sharing.moduleValue(Call->getImplicitObjectArgument()))
      Updated = Module->Identity;
  if (!Updated.known() && !containerOfElement(Listed))
    return std::nullopt;
  return localCopy(Sink, Listed, Updated, Function);
}

std::optional<HolderCopy>
HolderCopyAnalysis::memberCopy(const Expr *Sink, const MemberExpr *Updated,
                               const FunctionDecl *Function) {
  const auto *Field = dyn_cast<FieldDecl>(Updated->getMemberDecl());
  std::optional<MemberCopy> Copy = Field ? findMemberCopy(Field) : std::nullopt;
  if (!Copy)
    return std::nullopt;
  // The other member must be used: after the sink in this function (Note
  // [Used after the update]), or in another method of the class.
  const FieldDecl *Other = Copy->Copy == Field ? Copy->Original : Copy->Copy;
  LocalCopyFinder Finder;
  Finder.TraverseStmt(const_cast<Stmt *>(Function->getBody()));
  UsesAfterSink After(Function->getBody(), Sink,
                      Function->getASTContext().getSourceManager());
  // The copying assignment is no use of the copy.
  auto IsUse = [&](const Expr *Ref) {
    return !containsExpr(Copy->CopyAssign, Ref);
  };
  bool Used = llvm::any_of(Finder.References.lookup(Other), [&](const Expr *Use) {
    return After.isAfter(Use) && IsUse(Use);
  });
  for (const CXXMethodDecl *Method :
       cast<CXXRecordDecl>(Field->getParent())->methods()) {
    const FunctionDecl *Definition = nullptr;
    if (Used || !Method->hasBody(Definition) ||
        Definition->getCanonicalDecl() == Function->getCanonicalDecl())
      continue;
    LocalCopyFinder InMethod;
    InMethod.TraverseStmt(const_cast<Stmt *>(Definition->getBody()));
    Used = llvm::any_of(InMethod.References.lookup(Other), IsUse);
  }
  if (!Used)
    return std::nullopt;
  HolderCopy Result;
  Result.Original = Copy->Original;
  Result.Copy = Copy->Copy;
  Result.Via = Copy->Via;
  if (Copy->CopyAssign) {
    Result.Where = Copy->CopyAssign->getBeginLoc();
    Result.Init = Copy->CopyAssign->getArg(1);
    return Result;
  }
  Result.Where = Copy->CopyInit->getSourceLocation();
  Result.Init = Copy->CopyInit->getInit();
  Result.DirectInit = true;
  return Result;
}

std::optional<HolderCopy>
HolderCopyAnalysis::localCopy(const Expr *Sink, const Expr *Listed,
                              const ObjectKey &Updated,
                              const FunctionDecl *Function) {
  const auto *ListedRef = dyn_cast_or_null<DeclRefExpr>(Listed);
  const ValueDecl *Named = ListedRef ? ListedRef->getDecl() : nullptr;
  if (!Named)
    Named = containerOfElement(Listed);
  LocalCopyFinder Finder;
  Finder.TraverseStmt(const_cast<Stmt *>(Function->getBody()));
  UsesAfterSink After(Function->getBody(), Sink,
                      Function->getASTContext().getSourceManager());
  for (const LocalCopy &Copy : Finder.Copies) {
    // The list is taken from the copy (a container's element has no module
    // identity of its own), or from a handle on the copied module.
    if (!Named || Named != Copy.Copy) {
      std::optional<ModuleValue> Original = Sharing.moduleValue(Copy.From);
      if (!Updated.known() || !Original || !(Original->Identity == Updated))
        continue;
    }
    // Both handles must be used apart from the copy itself: one is updated,
    // the other read as if it were an independent model, after the update
    // (Note [Used after the update]).
    auto UsedElsewhere = [&](const ValueDecl *Decl) {
      return llvm::any_of(Finder.References.lookup(Decl), [&](const Expr *Ref) {
        return !containsExpr(Copy.Site, Ref);
      });
    };
    auto UsedAfter = [&](const ValueDecl *Decl) {
      return llvm::any_of(Finder.References.lookup(Decl),
                          [&](const Expr *Ref) { return After.isAfter(Ref); });
    };
    bool OtherUsedAfter =
        Named == Copy.Copy ? UsedAfter(Copy.Original)
        : Named == Copy.Original
            ? UsedAfter(Copy.Copy)
            : UsedAfter(Copy.Copy) || UsedAfter(Copy.Original);
    if (!UsedElsewhere(Copy.Copy) || !UsedElsewhere(Copy.Original) ||
        !OtherUsedAfter || assigns(Function->getBody(), Copy.Copy))
      continue;
    HolderCopy Result;
    Result.Original = Copy.Original;
    Result.Copy = Copy.Copy;
    Result.Returned = Copy.Returned;
    Result.ObjectCopy = copiesModuleObject(Copy.Site);
    const auto *Var = cast<VarDecl>(Copy.Copy);
    if (Var->getInit() == Copy.Site) {
      Result.Where = Copy.Site->getExprLoc();
      if (Var->getInitStyle() == VarDecl::CInit)
        Result.Init = Copy.Site;
    } else { // A container: the stored argument.
      Result.Where = Copy.From->getExprLoc();
      Result.Init = Copy.From;
      Result.Stored = true;
    }
    return Result;
  }
  return std::nullopt;
}
} // namespace clang::tidy::libtorch
