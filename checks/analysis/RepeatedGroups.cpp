//===- RepeatedGroups.cpp - add_param_group on every pass of a loop -------===//

#include "RepeatedGroups.h"

#include "TensorModel.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>

namespace clang::tidy::libtorch {

// Note [Groups added on every pass of a loop]
// An optimizer keeps every group it is given and steps a tensor once per
// group that holds it. `opt.add_param_group(g)` on every pass of a loop
// therefore steps a tensor of g once per pass that added it, whenever g holds
// on one pass what it held on an earlier one. Three ways it does:
// - g reads nothing the loop changes (`head->parameters()` in an epoch
//   loop): the same tensors on every pass. Reported only when the list is
//   known and not empty.
// - g is a list declared before the loop that the loop grows
//   (`unfrozen.insert(...)`) and never empties: each pass re-adds what the
//   earlier passes put in. Any use of the list in the loop other than
//   growing it, reading it, or passing it by value or const reference (a
//   `clear()`, an assignment, a non-const reference) may empty it, so the
//   list is then left alone.
// - g is returned by a helper given the loop's counter `s`, whose loop
//   collects from a fixed start `k = c` while `k < s` (or `<=`) with a body
//   that does not read `s`: the element for `k = c` is collected on every
//   pass where `s` passes it, so two such passes add it twice. When the
//   bounds of the loop around the call are literals, they must allow two
//   such passes.
// The call must run on every pass: no branch between the loop's body and
// the call, no `break`, `continue`, `return` or `goto` in the body. A call
// under a condition (`if (epoch == unfreeze_at)`) fires as often as its
// condition holds, which is left alone.

namespace {

std::optional<int64_t> constantValue(const Expr *E, const ASTContext &AST) {
  std::optional<llvm::APSInt> Value =
      E->isValueDependent() ? std::nullopt : E->getIntegerConstantExpr(AST);
  if (!Value || Value->getBitWidth() > 64)
    return std::nullopt;
  return Value->isSigned() ? Value->getSExtValue()
                           : static_cast<int64_t>(Value->getZExtValue());
}

bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

const Stmt *bodyOf(const Stmt *Loop) {
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return For->getBody();
  if (const auto *While = dyn_cast<WhileStmt>(Loop))
    return While->getBody();
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    return Do->getBody();
  return cast<CXXForRangeStmt>(Loop)->getBody();
}

/// Appends the statements from S down to Target, Target last; lambdas are
/// not entered.
bool pathTo(const Stmt *S, const Stmt *Target,
            llvm::SmallVectorImpl<const Stmt *> &Path) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  Path.push_back(S);
  if (S == Target)
    return true;
  for (const Stmt *Child : S->children())
    if (pathTo(Child, Target, Path))
      return true;
  Path.pop_back();
  return false;
}

bool isBranch(const Stmt *S) {
  const auto *Binary = dyn_cast<BinaryOperator>(S);
  return isa<IfStmt, SwitchStmt, ConditionalOperator>(S) ||
         (Binary && Binary->isLogicalOp());
}

/// Whether S, a loop's body, holds a statement that ends its pass early:
/// `return`, `goto`, or a `break` or `continue` of the loop itself.
bool leavesPass(const Stmt *S, bool Nested = false) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (isa<ReturnStmt, GotoStmt>(S))
    return true;
  if (isa<BreakStmt, ContinueStmt>(S) && !Nested)
    return true;
  bool Inner = Nested || isLoop(S);
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return leavesPass(Child, Inner);
  });
}

/// Whether Target runs on every pass of Body: no branch above it. Nested
/// range-for loops count as running (over a module's parameters).
bool onEveryPass(const Stmt *Body, const Stmt *Target) {
  llvm::SmallVector<const Stmt *, 16> Path;
  if (!pathTo(Body, Target, Path))
    return false;
  return llvm::none_of(Path, [&](const Stmt *S) {
    return S != Target &&
           (isBranch(S) || isa<ForStmt, WhileStmt, DoStmt>(S));
  });
}

const VarDecl *varOf(const Expr *E) {
  const auto *Ref = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// The variables a loop declares or changes: its own, those declared in it,
/// those assigned, incremented or given to a non-const method in it.
llvm::SmallPtrSet<const VarDecl *, 8> varyingIn(const Stmt *Loop) {
  llvm::SmallPtrSet<const VarDecl *, 8> Varying;
  std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Decls = dyn_cast<DeclStmt>(S))
      for (const Decl *D : Decls->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D))
          Varying.insert(Var);
    if (const auto *Binary = dyn_cast<BinaryOperator>(S);
        Binary && Binary->isAssignmentOp())
      if (const VarDecl *Var = varOf(Binary->getLHS()))
        Varying.insert(Var);
    if (const auto *Unary = dyn_cast<UnaryOperator>(S);
        Unary && Unary->isIncrementDecrementOp())
      if (const VarDecl *Var = varOf(Unary->getSubExpr()))
        Varying.insert(Var);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->getNumArgs() >= 1 &&
        (Op->isAssignmentOp() || Op->getOperator() == OO_PlusPlus ||
         Op->getOperator() == OO_MinusMinus))
      if (const VarDecl *Var = varOf(Op->getArg(0)))
        Varying.insert(Var);
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
        Call && Call->getMethodDecl() && !Call->getMethodDecl()->isConst())
      if (const VarDecl *Var = varOf(Call->getImplicitObjectArgument()))
        Varying.insert(Var);
    for (const Stmt *Child : S->children())
      Visit(Child);
  };
  Visit(Loop);
  return Varying;
}

bool mentionsAny(const Stmt *S,
                 const llvm::SmallPtrSetImpl<const VarDecl *> &Vars) {
  if (!S)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
        Var && Vars.count(Var))
      return true;
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return mentionsAny(Child, Vars);
  });
}

/// The list a group is made of: `g` in `OptimizerParamGroup(g)`, `{g}` and
/// `g` (a local list or a call returning one).
const Expr *groupList(const Expr *E) {
  for (int Depth = 0; E && Depth < 6; ++Depth) {
    E = E->IgnoreParenCasts()->IgnoreImplicit();
    if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = Temp->getSubExpr();
      continue;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
        Construct && Construct->getNumArgs() >= 1) {
      E = Construct->getArg(0);
      continue;
    }
    if (const auto *Init = dyn_cast<InitListExpr>(E);
        Init && Init->getNumInits() == 1) {
      E = Init->getInit(0);
      continue;
    }
    return E;
  }
  return E;
}

bool isMethodNamed(const CXXMemberCallExpr *Call,
                   std::initializer_list<llvm::StringRef> Names) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  return Method && Method->getIdentifier() &&
         llvm::is_contained(Names, Method->getName());
}

/// GrowingList: List, declared before Loop, is grown on every pass before
/// Use and only grown, read, or passed by value or const reference in Loop
/// (Use aside); returns the first growth. With AnyGrowth, a growth anywhere
/// in Loop before Use will do, and Emptied says whether the rest holds.
const CallExpr *growsWithoutEmptying(const VarDecl *List, const Stmt *Loop,
                                     const Stmt *Use, const SourceManager &SM,
                                     bool AnyGrowth = false) {
  const Stmt *Body = bodyOf(Loop);
  llvm::SmallPtrSet<const DeclRefExpr *, 8> Accounted;
  const CallExpr *Growth = nullptr;
  auto Account = [&](const Expr *E) {
    const auto *Ref = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
    if (Ref && Ref->getDecl() == List) {
      Accounted.insert(Ref);
      return true;
    }
    return false;
  };
  auto ByValueOrConst = [](QualType Param) {
    return !Param->isReferenceType() ||
           Param.getNonReferenceType().isConstQualified();
  };
  std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
    if (!S)
      return;
    if (S == Use) {
      std::function<void(const Stmt *)> All = [&](const Stmt *Inner) {
        if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Inner))
          Accounted.insert(Ref);
        if (Inner)
          llvm::for_each(Inner->children(), All);
      };
      All(S);
      return;
    }
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
      if (isMethodNamed(Call, {"push_back", "emplace_back", "insert"}) &&
          Account(Call->getImplicitObjectArgument())) {
        if (!Growth && SM.isBeforeInTranslationUnit(Call->getBeginLoc(),
                                                   Use->getBeginLoc()) &&
            (AnyGrowth || onEveryPass(Body, Call)))
          Growth = Call;
      } else if (isMethodNamed(Call, {"size", "empty", "begin", "end", "cbegin",
                                      "cend", "front", "back", "at"})) {
        Account(Call->getImplicitObjectArgument());
      }
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
               Op && Op->getOperator() == OO_Subscript) {
      Account(Op->getArg(0));
    } else if (const auto *Range = dyn_cast<CXXForRangeStmt>(S)) {
      Account(Range->getRangeInit());
    } else if (const auto *Call = dyn_cast<CallExpr>(S);
               Call && Call->getDirectCallee()) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
           ++I)
        if (ByValueOrConst(Callee->getParamDecl(I)->getType()))
          Account(Call->getArg(I));
    } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(S)) {
      const CXXConstructorDecl *Ctor = Construct->getConstructor();
      for (unsigned I = 0;
           I < Construct->getNumArgs() && I < Ctor->getNumParams(); ++I)
        if (ByValueOrConst(Ctor->getParamDecl(I)->getType()))
          Account(Construct->getArg(I));
    }
    for (const Stmt *Child : S->children())
      Visit(Child);
  };
  Visit(Loop);
  bool Unaccounted = false;
  std::function<void(const Stmt *)> Check = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S);
        Ref && Ref->getDecl() == List && !Accounted.count(Ref))
      Unaccounted = true;
    llvm::for_each(S->children(), Check);
  };
  Check(Loop);
  return Unaccounted ? nullptr : Growth;
}

/// `int k = <literal>` (or any constant): its value.
std::optional<int64_t> constantInit(const VarDecl *Var, const ASTContext &AST) {
  if (!Var || !Var->getInit() || !Var->getType()->isIntegerType())
    return std::nullopt;
  return constantValue(Var->getInit(), AST);
}

/// A counting loop `for (T k = c; k < Bound; ++k)` (or `<=`): its counter,
/// start and whether the bound is inclusive. The bound is returned too.
struct Counting {
  const VarDecl *Counter = nullptr;
  int64_t Start = 0;
  const Expr *Bound = nullptr;
  bool Inclusive = false;
};
std::optional<Counting> countingLoop(const ForStmt *For, const ASTContext &AST) {
  const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
  if (!Init || !Init->isSingleDecl())
    return std::nullopt;
  Counting Result;
  Result.Counter = dyn_cast<VarDecl>(Init->getSingleDecl());
  std::optional<int64_t> Start = constantInit(Result.Counter, AST);
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      For->getCond() ? For->getCond()->IgnoreParenImpCasts() : nullptr);
  const auto *Inc = dyn_cast_or_null<UnaryOperator>(
      For->getInc() ? For->getInc()->IgnoreParenImpCasts() : nullptr);
  if (!Start || !Cond || !Inc || !Inc->isIncrementOp() ||
      varOf(Inc->getSubExpr()) != Result.Counter ||
      (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE) ||
      varOf(Cond->getLHS()) != Result.Counter)
    return std::nullopt;
  Result.Start = *Start;
  Result.Bound = Cond->getRHS()->IgnoreParenImpCasts();
  Result.Inclusive = Cond->getOpcode() == BO_LE;
  return Result;
}

/// GrowingHelper: the helper's counting loop up to Param that collects into
/// the list the helper returns, with a body that does not read Param.
const ForStmt *prefixLoop(const FunctionDecl *Helper, const ParmVarDecl *Param,
                          const ASTContext &AST) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Helper->getBody());
  const auto *Return =
      Body && !Body->body_empty() ? dyn_cast<ReturnStmt>(Body->body_back())
                                  : nullptr;
  const VarDecl *Returned =
      Return && Return->getRetValue() ? varOf(groupList(Return->getRetValue()))
                                      : nullptr;
  if (!Returned)
    return nullptr;
  for (const Stmt *S : Body->body()) {
    const auto *For = dyn_cast<ForStmt>(S);
    std::optional<Counting> Loop = For ? countingLoop(For, AST) : std::nullopt;
    if (!Loop || varOf(Loop->Bound) != Param || mentions(For->getBody(), Param) ||
        leavesPass(For->getBody()))
      continue;
    // The loop's body adds to the returned list.
    bool Collects = false;
    std::function<void(const Stmt *)> Visit = [&](const Stmt *Inner) {
      if (const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(Inner);
          Call && isMethodNamed(Call, {"push_back", "emplace_back", "insert"}) &&
          varOf(Call->getImplicitObjectArgument()) == Returned)
        Collects = true;
      if (Inner)
        llvm::for_each(Inner->children(), Visit);
    };
    Visit(For->getBody());
    if (Collects)
      return For;
  }
  return nullptr;
}

/// Whether the literal bounds of Passes (when they are literals) allow two
/// passes whose prefix `k = Inner.Start; k < (or <=) counter` holds its
/// first element; a bound that is not a literal is taken to allow them when
/// the first pass already does.
bool twoPassesHoldTheFirst(const Counting &Passes, const Counting &Inner,
                           const ASTContext &AST) {
  int64_t Holding = Inner.Inclusive ? Inner.Start : Inner.Start + 1;
  int64_t First = std::max(Passes.Start, Holding);
  if (std::optional<int64_t> End = constantValue(Passes.Bound, AST))
    return Passes.Inclusive ? First + 1 <= *End : First + 1 < *End;
  return First == Passes.Start;
}

std::optional<RepeatedGroup>
growingHelper(const CallExpr *Call, const Stmt *Loop,
              const llvm::SmallPtrSetImpl<const VarDecl *> &Varying,
              const ASTContext &AST) {
  const auto *Outer = dyn_cast<ForStmt>(Loop);
  std::optional<Counting> Passes = Outer ? countingLoop(Outer, AST) : std::nullopt;
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Passes || !Callee || isLibtorchDecl(Callee) || Callee->isInStdNamespace() ||
      !Callee->hasBody(Definition) || !isTensorListType(Callee->getReturnType()))
    return std::nullopt;
  const ParmVarDecl *Bound = nullptr;
  for (unsigned I = 0; I < Call->getNumArgs() && I < Definition->getNumParams();
       ++I) {
    if (varOf(Call->getArg(I)) == Passes->Counter)
      Bound = Definition->getParamDecl(I);
    else if (mentionsAny(Call->getArg(I), Varying))
      return std::nullopt; // Another argument changes from pass to pass.
  }
  const ForStmt *Prefix = Bound ? prefixLoop(Definition, Bound, AST) : nullptr;
  std::optional<Counting> Inner =
      Prefix ? countingLoop(Prefix, AST) : std::nullopt;
  if (!Inner)
    return std::nullopt;
  if (!twoPassesHoldTheFirst(*Passes, *Inner, AST))
    return std::nullopt;
  RepeatedGroup Result;
  Result.K = RepeatedGroup::Kind::GrowingHelper;
  Result.Loop = Loop;
  Result.Helper = Call;
  Result.Counter = Passes->Counter;
  Result.Bound = Bound;
  Result.HelperLoop = Prefix;
  return Result;
}

} // namespace

// Note [Lists grown with a prefix on every pass]
// `for (stage = 0; stage < n; ++stage) { for (j = 0; j <= stage; ++j)
// trainable.insert(trainable.end(), ...layers[j]...); SGD opt(trainable); }`
// grows a list kept across passes with the elements from a fixed start up to
// the pass's counter, so the first elements are added again on each pass and
// the list holds their parameters once per pass so far. It is the inline
// form of a helper's prefix (Note [Groups added on every pass of a loop]),
// and any sink given the list after the growth, in the loop or after it,
// steps those parameters more than once. The conditions are the same: the
// inner loop counts up from a constant to the outer loop's counter with a
// body that does not read the counter, both loops run their statements on
// every pass, and the list is declared before the outer loop and never
// emptied in it.
std::optional<PrefixGrowth> prefixGrowth(const Expr *ListExpr, const Expr *Sink,
                                         const FunctionDecl *Function) {
  const VarDecl *List = ListExpr ? varOf(groupList(ListExpr)) : nullptr;
  if (!List || !List->isLocalVarDecl() || !Function || !Function->getBody())
    return std::nullopt;
  const ASTContext &AST = Function->getASTContext();
  const SourceManager &SM = AST.getSourceManager();
  std::optional<PrefixGrowth> Found;
  forEachStmt(Function->getBody(), [&](const Stmt *S) {
    const auto *Growth = dyn_cast<CXXMemberCallExpr>(S);
    if (Found || !Growth ||
        !isMethodNamed(Growth, {"push_back", "emplace_back", "insert"}) ||
        varOf(Growth->getImplicitObjectArgument()) != List ||
        !SM.isBeforeInTranslationUnit(Growth->getBeginLoc(), Sink->getBeginLoc()))
      return;
    llvm::SmallVector<const Stmt *, 16> Path;
    if (!pathTo(Function->getBody(), Growth, Path))
      return;
    // The innermost counting loop around the growth (range-for loops over a
    // module's parameters may lie between), and the loop whose counter
    // bounds it.
    auto InnerIt = llvm::find_if(llvm::reverse(Path), [](const Stmt *S) {
      return isLoop(S) && !isa<CXXForRangeStmt>(S);
    });
    const auto *Inner =
        InnerIt != Path.rend() ? dyn_cast<ForStmt>(*InnerIt) : nullptr;
    std::optional<Counting> Prefix =
        Inner ? countingLoop(Inner, AST) : std::nullopt;
    const VarDecl *Counter = Prefix ? varOf(Prefix->Bound) : nullptr;
    if (!Counter || mentions(Inner->getBody(), Counter) ||
        leavesPass(Inner->getBody()) || !onEveryPass(Inner->getBody(), Growth))
      return;
    const ForStmt *Outer = nullptr;
    std::optional<Counting> Passes;
    for (const Stmt *Enclosing : Path)
      if (const auto *For = dyn_cast<ForStmt>(Enclosing); For && For != Inner)
        if (std::optional<Counting> Loop = countingLoop(For, AST);
            Loop && Loop->Counter == Counter) {
          Outer = For;
          Passes = Loop;
        }
    if (!Outer || leavesPass(Outer->getBody()) ||
        !onEveryPass(Outer->getBody(), Inner) ||
        !SM.isBeforeInTranslationUnit(List->getLocation(), Outer->getBeginLoc()) ||
        !twoPassesHoldTheFirst(*Passes, *Prefix, AST) ||
        !growsWithoutEmptying(List, Outer, Sink, SM, /*AnyGrowth=*/true))
      return;
    Found = PrefixGrowth{List, Growth, Outer, Inner, Counter};
  });
  return Found;
}

std::optional<RepeatedGroup> repeatedGroup(const CXXMemberCallExpr *AddGroup,
                                           const FunctionDecl *Function,
                                           ParameterSharingAnalysis &Sharing) {
  if (!Function || !Function->getBody() || AddGroup->getNumArgs() != 1)
    return std::nullopt;
  llvm::SmallVector<const Stmt *, 16> Path;
  if (!pathTo(Function->getBody(), AddGroup, Path))
    return std::nullopt;
  auto InnerLoop = llvm::find_if(llvm::reverse(Path), isLoop);
  if (InnerLoop == Path.rend())
    return std::nullopt;
  const Stmt *Loop = *InnerLoop;
  const Stmt *Body = bodyOf(Loop);
  if (leavesPass(Body) || !onEveryPass(Body, AddGroup))
    return std::nullopt;
  const ASTContext &AST = Function->getASTContext();
  llvm::SmallPtrSet<const VarDecl *, 8> Varying = varyingIn(Loop);
  const Expr *Group = AddGroup->getArg(0);
  const Expr *List = groupList(Group);
  const VarDecl *Named = varOf(List);
  // A local the loop declares (`auto group = OptimizerParamGroup(all);`,
  // `auto params = top_blocks(model, stage);`) stands for its initializer.
  const SourceManager &SM = AST.getSourceManager();
  auto DeclaredInLoop = [&](const VarDecl *Var) {
    return Var && Var->isLocalVarDecl() && Var->getInit() &&
           !SM.isBeforeInTranslationUnit(Var->getLocation(),
                                         Loop->getBeginLoc());
  };
  for (int Depth = 0; Depth < 3 && DeclaredInLoop(Named); ++Depth) {
    List = groupList(Named->getInit());
    Named = varOf(List);
  }
  if (DeclaredInLoop(Named))
    return std::nullopt;
  if (const auto *Call = dyn_cast<CallExpr>(List);
      Call && !isa<CXXMemberCallExpr, CXXOperatorCallExpr>(Call) &&
      mentionsAny(Call, Varying))
    return growingHelper(Call, Loop, Varying, AST);
  if (Named && Named->isLocalVarDecl() &&
      SM.isBeforeInTranslationUnit(Named->getLocation(), Loop->getBeginLoc()))
    if (const CallExpr *Growth =
            growsWithoutEmptying(Named, Loop, AddGroup, SM)) {
      RepeatedGroup Result;
      Result.K = RepeatedGroup::Kind::GrowingList;
      Result.Loop = Loop;
      Result.List = Named;
      Result.Growth = Growth;
      return Result;
    }
  if (mentionsAny(List, Varying))
    return std::nullopt;
  std::optional<std::vector<ParameterEntry>> Entries = Sharing.parameterList(List);
  if (!Entries || Entries->empty())
    return std::nullopt;
  RepeatedGroup Result;
  Result.Loop = Loop;
  return Result;
}

} // namespace clang::tidy::libtorch
