//===- ParameterLists.cpp - the tensors a parameter list holds ------------===//

#include "ParameterLists.h"

#include "NameFilters.h"
#include "TensorModel.h"

#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <functional>

namespace clang::tidy::libtorch {

using detail::boolArgument;
using detail::elementParameters;
using detail::insertedContainer;
using detail::isContainerMutation;
using detail::isHandleMap;
using detail::itemVariable;
using detail::isStdContainer;
using detail::loopHandleVariable;
using detail::methodOf;
using detail::prefix;
using detail::rebase;

static bool isStraightLineBody(const Stmt *S, bool AllowRangeLoops);

static bool isParameterGroup(const CXXRecordDecl *Record) {
  return Record && Record->getIdentifier() &&
         Record->getName() == "OptimizerParamGroup" && isLibtorchDecl(Record);
}

/// `std::vector<OptimizerParamGroup>`, what an optimizer is built from.
static bool isGroupListType(QualType Type) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Type.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec || !isStdContainer(Spec))
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  return Args.size() >= 1 && Args[0].getKind() == TemplateArgument::Type &&
         isParameterGroup(Args[0].getAsType()->getAsCXXRecordDecl());
}

// Note [Lists built step by step]
// A local list is its initializer, then each mutation found in its function
// in source order: `push_back`/`emplace_back` of a tensor or of a parameter
// group (or the list a group is built from), `insert` of a tensor, a brace
// list or another list's `begin()`/`end()` range, and `assign` of a range,
// which replaces what came before. Pushing the variable of a range-for adds
// the whole range, but only from a loop body with no branch, `continue`,
// `break` or `return`, or from a loop over named_parameters() whose tests
// on the way to the push_back read only the item's name (Note [Lists
// filtered by parameter name]): any other filtered loop (de-duplication by
// TensorImpl, a test on the tensor) adds a part we do not know, so the list
// is unknown. Any other mutation (erase, resize, a conditional push_back of
// another value) makes the list unknown too.
// Note [Lists that accumulate by assignment]
// `params = params + b->parameters();` (a `+` of the translation unit that
// concatenates, Note [Lists returned by functions]) appends as an `insert`
// does: an assignment whose right-hand side reads the variable itself is
// applied in its place among the mutations, with the variable standing for
// its value so far. In a range-for over module handles it is unrolled as a
// mutation is (Note [Lists built over a range of modules]), which is right
// because it accumulates; a list assigned anything else stays unknown.
std::optional<std::vector<ParameterEntry>>
ParameterListBuilder::localList(const VarDecl *Var) {
  if (auto Current = Sharing.CurrentLists.find(Var); Current != Sharing.CurrentLists.end())
    return Current->second;
  // A helper's list parameter stands for the list the call passes, then
  // takes the helper's own mutations.
  const Expr *Bound = Sharing.BoundRanges.lookup(Var);
  if ((isa<ParmVarDecl>(Var) && !Bound) || !Var->getParentFunctionOrMethod())
    return std::nullopt;
  const FunctionIndex &Index = Sharing.indexOf(Var);
  const auto &Assignments = Index.Assignments.lookup(Var);
  bool Accumulates = llvm::all_of(Assignments, [&](const CXXOperatorCallExpr *Assign) {
    return Assign->getNumArgs() == 2 && mentions(Assign->getArg(1), Var);
  });
  if ((Index.Reassigned.count(Var) && (Assignments.empty() || !Accumulates)) ||
      Index.RangeInits.count(Var))
    return std::nullopt;
  std::vector<ParameterEntry> List;
  if (Bound) {
    std::optional<std::vector<ParameterEntry>> Passed = parameterList(Bound);
    if (!Passed)
      return std::nullopt;
    List = std::move(*Passed);
  } else if (const Expr *Init = Var->getInit()) {
    const auto *Construct = dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit());
    if (!Construct || Construct->getNumArgs() != 0) {
      std::optional<std::vector<ParameterEntry>> Initial = parameterList(Init);
      if (!Initial)
        return std::nullopt;
      List = std::move(*Initial);
    }
  }
  // The mutations and accumulating assignments, in source order.
  std::vector<const CallExpr *> Edits;
  for (const CallExpr *Call : Index.Calls.lookup(Var))
    if (isContainerMutation(Call))
      Edits.push_back(Call);
  // Note [Lists filled by a helper]
  llvm::DenseMap<const CallExpr *, unsigned> Fills;
  for (auto [Call, Arg] : Index.PassedByReference.lookup(Var)) {
    if (Fills.try_emplace(Call, Arg).second)
      Edits.push_back(Call);
  }
  Edits.insert(Edits.end(), Assignments.begin(), Assignments.end());
  const SourceManager &SM = Sharing.AST.getSourceManager();
  llvm::stable_sort(Edits, [&](const CallExpr *A, const CallExpr *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  for (const CallExpr *Call : Edits) {
    // Unroll the loops around the mutation; those already unrolled by an
    // enclosing evaluation stay as they are.
    llvm::SmallVector<const VarDecl *, 2> Unrolled;
    for (auto &[Loop, Elements] : moduleLoopsAround(Call, Var, Index))
      if (Sharing.UnrolledLoops.try_emplace(Loop, std::move(Elements)).second)
        Unrolled.push_back(Loop);
    auto Restore = llvm::make_scope_exit([&] {
      for (const VarDecl *Loop : Unrolled)
        Sharing.UnrolledLoops.erase(Loop);
    });
    if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(Call);
        Assign && Assign->isAssignmentOp()) {
      Sharing.CurrentLists[Var] = List;
      std::optional<std::vector<ParameterEntry>> Value = parameterList(Assign->getArg(1));
      Sharing.CurrentLists.erase(Var);
      if (!Value)
        return std::nullopt;
      List = std::move(*Value);
      continue;
    }
    if (auto Fill = Fills.find(Call); Fill != Fills.end()) {
      std::optional<std::vector<ParameterEntry>> Filled =
          filledList(Call, Fill->second, Var, std::move(List));
      if (!Filled)
        return std::nullopt;
      List = std::move(*Filled);
      continue;
    }
    if (!applyListMutation(Call, List))
      return std::nullopt;
  }
  return List;
}

// Note [Lists built over a range of modules]
// `for (auto *m : {a.get(), b.get()}) { auto ps = m->parameters();
// all.insert(all.end(), ps.begin(), ps.end()); }` appends the parameters of
// each module of the range in turn. When a mutation of a list runs once per
// iteration of a range-for over module handles (the list is declared outside
// the loop, and the loop's body has no branch or early exit, only nested
// range-for loops that have none either), and the modules of the range are
// known, the loop variable's parameters() stands for those of every module
// of the range, in order: the list holds their concatenation. A range is
// known when it is a brace list of handles, a std container constructed
// from one, a local container of handles (Note [Containers of module
// handles]), or a helper's container parameter bound to such a range at the
// call (Note [Lists returned by functions]). A loop over a range we do not
// know is not unrolled: its variable is a module of its own.
llvm::SmallVector<std::pair<const VarDecl *, ModuleElements>, 2>
ParameterListBuilder::moduleLoopsAround(const CallExpr *Call,
                                        const VarDecl *List,
                                        const FunctionIndex &Index) {
  const SourceManager &SM = Sharing.AST.getSourceManager();
  auto Contains = [&](const Stmt *S, SourceLocation Loc) {
    return !SM.isBeforeInTranslationUnit(Loc, S->getBeginLoc()) &&
           !SM.isBeforeInTranslationUnit(S->getEndLoc(), Loc);
  };
  llvm::SmallVector<std::pair<const VarDecl *, ModuleElements>, 2> Loops;
  for (const Stmt *Loop = Index.Places.lookup(Call).Loop;
       Loop && !Contains(Loop, List->getLocation());
       Loop = Index.OuterLoops.lookup(Loop)) {
    const auto *For = dyn_cast<CXXForRangeStmt>(Loop);
    if (!For ||
        !(moduleImplOf(For->getLoopVariable()->getType()) ||
          isHandleMap(For->getRangeInit()->getType())) ||
        !isStraightLineBody(For->getBody(), /*AllowRangeLoops=*/true))
      continue;
    if (std::optional<ModuleElements> Elements =
            moduleRange(For->getRangeInit()))
      Loops.emplace_back(For->getLoopVariable(), std::move(*Elements));
  }
  return Loops;
}

std::optional<ModuleElements>
ParameterListBuilder::moduleRange(const Expr *Range) {
  if (!Range || Sharing.Depth > 24)
    return std::nullopt;
  ++Sharing.Depth;
  auto Done = llvm::make_scope_exit([&] { --Sharing.Depth; });
  Range = Range->IgnoreParenImpCasts()->IgnoreImplicit();
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(Range))
    return moduleRange(List->getSubExpr());
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Range)) {
    // `std::vector<Module *>{a, b}` (its allocator a default argument), or
    // a copy of another range.
    if (!isStdContainer(Construct->getConstructor()->getParent()) ||
        Construct->getNumArgs() == 0)
      return std::nullopt;
    const Expr *Arg = Construct->getArg(0)->IgnoreImplicit();
    if (isa<CXXStdInitializerListExpr>(Arg) ||
        (Construct->getNumArgs() == 1 &&
         Construct->getConstructor()->isCopyOrMoveConstructor()))
      return moduleRange(Arg);
    return std::nullopt;
  }
  if (const auto *Init = dyn_cast<InitListExpr>(Range)) {
    ModuleElements Elements;
    for (const Expr *Element : Init->inits()) {
      std::optional<ModuleValue> Value =
          Sharing.moduleValue(Element->IgnoreParenCasts());
      if (!Value)
        return std::nullopt;
      RegistrationStep Step{"", Element, Value->Identity, Value->FillSite};
      Elements.emplace_back(std::move(*Value), Step);
    }
    return Elements;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(Range);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var)
    return std::nullopt;
  if (const Expr *Bound = Sharing.BoundRanges.lookup(Var))
    return moduleRange(Bound);
  if (isa<ParmVarDecl>(Var) || !Var->getParentFunctionOrMethod())
    return std::nullopt;
  // A local initialised from a brace list and never changed, or one filled
  // with handles.
  const FunctionIndex &Index = Sharing.indexOf(Var);
  bool Mutated = llvm::any_of(Index.Calls.lookup(Var), isContainerMutation);
  if (Var->getInit() && !Mutated && !Index.Reassigned.count(Var) &&
      !Index.RangeInits.count(Var))
    if (auto Elements = moduleRange(Var->getInit()))
      return Elements;
  return Sharing.handleElements(Var);
}

/// For `m->parameters()` where `m` is the variable of a loop the list
/// mutation being applied is unrolled over: the parameters of every module
/// of the loop's range, each prefixed by the step that names the module.
std::optional<std::vector<ParameterEntry>>
ParameterListBuilder::unrolledParameters(const CXXMemberCallExpr *Call) {
  const VarDecl *Var = loopHandleVariable(Call->getImplicitObjectArgument());
  auto Unrolled = Var ? Sharing.UnrolledLoops.find(Var)
                      : Sharing.UnrolledLoops.end();
  if (Unrolled == Sharing.UnrolledLoops.end())
    return std::nullopt;
  return elementParameters(Unrolled->second, boolArgument(Call, 0, true));
}

bool ParameterListBuilder::applyListMutation(
    const CallExpr *Call, std::vector<ParameterEntry> &List) {
  if (!methodOf(Call))
    return applyAlgorithm(Call, List);
  llvm::StringRef Name = methodOf(Call)->getName();
  unsigned NumArgs = Call->getNumArgs();
  auto Append = [&](std::optional<std::vector<ParameterEntry>> More) {
    if (!More)
      return false;
    List.insert(List.end(), More->begin(), More->end());
    return true;
  };
  if ((Name == "push_back" || Name == "emplace_back") && NumArgs >= 1) {
    const Expr *Value = Call->getArg(0);
    if (NumArgs == 1 && isTensorType(Value->getType()))
      return appendTensor(Value, Call, List);
    // A parameter group, or the list an emplaced group is built from.
    return Append(parameterList(Value));
  }
  if (Name == "insert" && NumArgs == 3)
    return Append(rangeList(Call->getArg(1), Call->getArg(2)));
  if (Name == "insert" && NumArgs == 2) {
    if (isTensorType(Call->getArg(1)->getType()))
      return appendTensor(Call->getArg(1), Call, List);
    return Append(parameterList(Call->getArg(1)));
  }
  if (Name == "assign" && NumArgs == 2) {
    std::optional<std::vector<ParameterEntry>> Range =
        rangeList(Call->getArg(0), Call->getArg(1));
    if (!Range)
      return false;
    List = std::move(*Range);
    return true;
  }
  return false;
}

/// Appends the entries of Range that Passes lets through, each behind a step
/// that records the filtering push at Site.
static void appendPassing(const std::vector<ParameterEntry> &Range,
                          const std::vector<bool> &Passes, const CallExpr *Site,
                          std::vector<ParameterEntry> &List) {
  RegistrationStep Push;
  Push.Site = Site;
  Push.Filtered = true;
  for (size_t I = 0; I < Range.size(); ++I) {
    if (!Passes[I])
      continue;
    ParameterEntry Entry;
    Entry.Route.push_back(Push);
    Entry.Route.append(Range[I].Route.begin(), Range[I].Route.end());
    List.push_back(std::move(Entry));
  }
}

// Note [Lists appended to by standard algorithms]
// `std::copy(head.begin(), head.end(), std::back_inserter(trainable))`
// appends a range to the list as `insert` at its end does, and so do
// std::move and std::copy_n's whole-range cousins; `std::copy_if` appends
// the part of the range its predicate lets through, the predicate evaluated
// for each entry as a loop's tests are (Note [Lists filtered by parameter
// name], Note [Lists filtered by requires_grad()]). Any other algorithm
// writing into the list (std::transform, std::unique_copy) makes it unknown.
bool ParameterListBuilder::applyAlgorithm(const CallExpr *Call,
                                          std::vector<ParameterEntry> &List) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  llvm::StringRef Name = Callee->getIdentifier() ? Callee->getName() : "";
  std::optional<std::vector<ParameterEntry>> Range =
      Call->getNumArgs() >= 3 ? rangeList(Call->getArg(0), Call->getArg(1))
                              : std::nullopt;
  if (!Range)
    return false;
  if ((Name == "copy" || Name == "move") && Call->getNumArgs() == 3) {
    List.insert(List.end(), Range->begin(), Range->end());
    return true;
  }
  if (Name != "copy_if" || Call->getNumArgs() != 4)
    return false;
  std::vector<std::string> Names;
  for (const ParameterEntry &Entry : *Range)
    Names.push_back(Entry.name());
  std::optional<std::vector<bool>> Passes = passesPredicate(
      Call->getArg(3), Names, requiresGrad(*Range), Sharing.AST);
  if (!Passes)
    return false;
  appendPassing(*Range, *Passes, Call, List);
  return true;
}

/// Whether a call's literal `bool` argument Index is missing or true.
static bool literalTrue(const CallExpr *Call, unsigned Index) {
  if (Call->getNumArgs() <= Index || isa<CXXDefaultArgExpr>(Call->getArg(Index)))
    return true;
  const auto *Literal =
      dyn_cast<CXXBoolLiteralExpr>(Call->getArg(Index)->IgnoreParenImpCasts());
  return Literal && Literal->getValue();
}

// Note [Lists filtered by requires_grad()] (in NameFilters.cpp): a
// parameter requires grad unless a statement freezes it. The statements
// that may are the calls of `requires_grad_`, `set_requires_grad` (with an
// argument that is not a literal `true`) and `detach_` in the translation
// unit, and a `register_parameter` with a third argument that is not. The
// tensor such a call freezes is known for the variable of a loop over a
// known parameter list (`for (auto &p : model->stem->parameters())
// p.requires_grad_(false);`) and for a tensor the analysis names; a
// freezing call on anything else leaves every entry's fact unknown. Objects
// are named by the variable they start from, so only an entry reached from
// a local variable of a function (or a global) is known to be unfrozen, and
// a freezing call whose tensor is reached from `this` or a parameter, which
// names the object differently in each function, leaves every fact unknown.
void ParameterListBuilder::findFrozen() {
  Sharing.Frozen.emplace();
  std::vector<ObjectKey> Frozen;
  bool Unknown = false;
  forEachMainFileFunction(Sharing.AST, [&](const FunctionDecl &Function) {
    llvm::SmallPtrSet<const void *, 8> Relative(Function.param_begin(),
                                                Function.param_end());
    if (const auto *Method = dyn_cast<CXXMethodDecl>(&Function))
      Relative.insert(Method->getParent());
    auto Add = [&](const ObjectKey &Key) {
      if (Relative.count(Key.Root))
        Unknown = true;
      Frozen.push_back(Key);
    };
    forEachStmt(Function.getBody(), [&](const Stmt *S) {
      if (const auto *Decls = dyn_cast<DeclStmt>(S))
        for (const Decl *D : Decls->decls())
          if (const auto *Var = dyn_cast<VarDecl>(D))
            Sharing.NamedRoots.insert(Var);
      const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
      const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
      if (!Method || !Method->getIdentifier() ||
          !isTensorType(Call->getImplicitObjectArgument()->getType()))
        return;
      llvm::StringRef Name = Method->getName();
      bool Freezes = Name == "detach_" ||
                     ((Name == "requires_grad_" || Name == "set_requires_grad") &&
                      !literalTrue(Call, 0));
      if (!Freezes || Unknown)
        return;
      const Expr *Tensor = Call->getImplicitObjectArgument();
      if (const VarDecl *Item = loopItemOf(Tensor)) {
        const FunctionIndex &Index = Sharing.indexOf(Item);
        if (auto Loop = Index.RangeLoops.find(Item); Loop != Index.RangeLoops.end()) {
          std::optional<std::vector<ParameterEntry>> Range =
              parameterList(Loop->second->getRangeInit());
          if (!Range) {
            Unknown = true;
            return;
          }
          for (const ParameterEntry &Entry : *Range)
            Add(Entry.tensor());
          return;
        }
      }
      // A module's tensor member (`model->head->weight`), possibly through
      // a local that holds it; a tensor a libtorch operation made here is
      // no parameter. Anything else may be any tensor.
      const Expr *Target = skipModuleHandleCopies(Tensor)->IgnoreParenImpCasts();
      for (unsigned Step = 0; Step < 4; ++Step) {
        const auto *Ref = dyn_cast<DeclRefExpr>(Target);
        const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
        if (!Var || !Var->isLocalVarDecl() || !Var->getInit() ||
            Var->getType()->isReferenceType() ||
            Sharing.indexOf(Var).Reassigned.count(Var))
          break;
        Target = skipModuleHandleCopies(Var->getInit())->IgnoreParenImpCasts();
      }
      if (const auto *Made = dyn_cast<CallExpr>(Target)) {
        std::optional<TensorCall> Op = resolveTensorCall(Made, Sharing.Table);
        if (Op && !Op->aliasedArgument() && !Op->Effect.writes())
          return;
      }
      ObjectKey Key = isa<MemberExpr>(Target) ? Sharing.tensorKey(Target)
                                              : ObjectKey();
      if (!Key.known()) {
        Unknown = true;
        return;
      }
      Add(Key);
    });
  });
  for (const Decl *D : Sharing.AST.getTranslationUnitDecl()->decls())
    if (const auto *Var = dyn_cast<VarDecl>(D))
      Sharing.NamedRoots.insert(Var);
  Sharing.Frozen = std::move(Frozen);
  Sharing.FreezesUnknown = Unknown;
}

std::optional<bool> ParameterListBuilder::requiresGrad(const ParameterEntry &Entry) {
  if (!Sharing.Frozen)
    findFrozen();
  if (Sharing.FreezesUnknown || !Sharing.NamedRoots.count(Entry.tensor().Root) ||
      llvm::is_contained(*Sharing.Frozen, Entry.tensor()))
    return std::nullopt;
  for (const RegistrationStep &Step : Entry.Route) {
    const auto *Register = dyn_cast_or_null<CXXMemberCallExpr>(Step.Site);
    if (Register && Register->getMethodDecl() &&
        Register->getMethodDecl()->getIdentifier() &&
        Register->getMethodDecl()->getName() == "register_parameter" &&
        !literalTrue(Register, 2))
      return std::nullopt;
  }
  return true;
}

std::vector<std::optional<bool>>
ParameterListBuilder::requiresGrad(const std::vector<ParameterEntry> &Entries) {
  std::vector<std::optional<bool>> Facts;
  for (const ParameterEntry &Entry : Entries)
    Facts.push_back(requiresGrad(Entry));
  return Facts;
}

/// The modules a call passes for the module parameters of Definition, in
/// order; none when one of them is not a known module.
std::optional<ParameterListBuilder::ModuleArguments>
ParameterListBuilder::moduleArguments(const FunctionDecl *Definition,
                                      const CallExpr *Call) {
  ModuleArguments Arguments;
  for (unsigned I = 0; I < Definition->getNumParams() && I < Call->getNumArgs();
       ++I) {
    const ParmVarDecl *Param = Definition->getParamDecl(I);
    if (!moduleImplOf(Param->getType()))
      continue;
    std::optional<ModuleValue> Argument = Sharing.moduleValue(Call->getArg(I));
    if (!Argument)
      return std::nullopt;
    Arguments.emplace_back(Param, std::move(*Argument));
  }
  return Arguments;
}

/// Whether a loop body runs each of its statements once per iteration:
/// no branch, no early exit, no nested loop, or with AllowRangeLoops, only
/// nested range-for loops whose bodies are straight-line too.
static bool isStraightLineBody(const Stmt *S, bool AllowRangeLoops) {
  if (!S)
    return true;
  if (const auto *For = dyn_cast<CXXForRangeStmt>(S))
    return AllowRangeLoops && isStraightLineBody(For->getBody(), true);
  if (isa<IfStmt, SwitchStmt, ConditionalOperator, ContinueStmt, BreakStmt,
          ReturnStmt, GotoStmt, ForStmt, WhileStmt, DoStmt>(S))
    return false;
  if (const auto *Binary = dyn_cast<BinaryOperator>(S);
      Binary && Binary->isLogicalOp())
    return false;
  if (isa<LambdaExpr>(S))
    return true;
  return llvm::all_of(S->children(), [&](const Stmt *Child) {
    return isStraightLineBody(Child, AllowRangeLoops);
  });
}

/// The variable a container mutation is called on, or null.
static const VarDecl *listVariable(const CallExpr *Mutation) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Mutation);
  const auto *Ref = Member ? dyn_cast<DeclRefExpr>(
                                 Member->getImplicitObjectArgument()->IgnoreParenImpCasts())
                           : nullptr;
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

bool ParameterListBuilder::appendTensor(const Expr *Tensor,
                                            const CallExpr *Site,
                                            std::vector<ParameterEntry> &List) {
  // `push_back(p)` for each `p` of a range, or `push_back(item.value())`
  // for each item of named_parameters().
  if (const VarDecl *Var = loopItemOf(Tensor)) {
    const FunctionIndex &Index = Sharing.indexOf(Var);
    if (auto Loop = Index.RangeLoops.find(Var); Loop != Index.RangeLoops.end()) {
      bool StraightLine = isStraightLineBody(Loop->second->getBody(), false);
      // Note [Own parameters collected over modules()]
      if (StraightLine)
        if (std::optional<std::vector<ParameterEntry>> Walked =
                Sharing.ownParametersOverWalk(Loop->second,
                                              listVariable(Site))) {
          List.insert(List.end(), Walked->begin(), Walked->end());
          return true;
        }
      std::optional<std::vector<ParameterEntry>> Range =
          parameterList(Loop->second->getRangeInit());
      if (!Range)
        return false;
      if (StraightLine) {
        List.insert(List.end(), Range->begin(), Range->end());
        return true;
      }
      return appendFiltered(*Range, Loop->second, Site, List);
    }
  }
  RegistrationStep Step;
  Step.Name = Sharing.nameArgument(Tensor, &Step.NameFromSource);
  Step.Site = Site;
  Step.Object = Sharing.tensorKey(Tensor, &Step.View);
  Step.Added = true;
  ParameterEntry Entry;
  Entry.Route.push_back(Step);
  List.push_back(std::move(Entry));
  return true;
}

/// The variable of a range-for that E names (`p`, `item.value()`), or
/// that a local holding its value names (`auto &p = item.value();`, never
/// assigned); otherwise the local E names, or null.
const VarDecl *ParameterListBuilder::loopItemOf(const Expr *E) {
  const VarDecl *Var = itemVariable(E);
  if (!Var || !Var->getInit())
    return Var;
  const FunctionIndex &Index = Sharing.indexOf(Var);
  if (Index.RangeLoops.count(Var) || Index.Reassigned.count(Var))
    return Var;
  const VarDecl *Item = itemVariable(Var->getInit());
  return Item && Index.RangeLoops.count(Item) ? Item : Var;
}

// Note [Lists filtered by parameter name] (in NameFilters.cpp): a push_back
// under tests of the item's name adds the entries whose names pass them,
// each behind a step that records the push_back.
bool ParameterListBuilder::appendFiltered(const std::vector<ParameterEntry> &Range,
                                          const CXXForRangeStmt *Loop,
                                          const CallExpr *Site,
                                          std::vector<ParameterEntry> &List) {
  // A name built at run time is not known.
  std::vector<std::string> Names;
  for (const ParameterEntry &Entry : Range) {
    if (llvm::any_of(Entry.Route, [](const RegistrationStep &Step) {
          return Step.NameFromSource;
        }))
      return false;
    Names.push_back(Entry.name());
  }
  std::optional<std::vector<bool>> Passes =
      passesNameTests(Loop, Site, Names, requiresGrad(Range), Sharing.AST);
  if (!Passes)
    return false;
  appendPassing(Range, *Passes, Site, List);
  return true;
}

/// `more.begin(), more.end()` (or `std::begin(more)`): the whole of `more`.
std::optional<std::vector<ParameterEntry>>
ParameterListBuilder::rangeList(const Expr *Begin, const Expr *End) {
  auto RangeOf = [](const Expr *E, llvm::StringRef Which) -> const Expr * {
    E = skipModuleHandleCopies(E);
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *Method = Member->getMethodDecl();
      if (Method && Method->getIdentifier() && Method->getName() == Which &&
          Member->getNumArgs() == 0)
        return Member->getImplicitObjectArgument();
    } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
          Callee->getName() == Which && Call->getNumArgs() == 1)
        return Call->getArg(0);
    }
    return nullptr;
  };
  const Expr *From = RangeOf(Begin, "begin");
  const Expr *To = RangeOf(End, "end");
  if (!From || !To)
    return std::nullopt;
  const auto *FromRef = dyn_cast<DeclRefExpr>(skipModuleHandleCopies(From));
  const auto *ToRef = dyn_cast<DeclRefExpr>(skipModuleHandleCopies(To));
  // `a.begin(), b.end()` is not a range we know.
  if (FromRef && (!ToRef || FromRef->getDecl() != ToRef->getDecl()))
    return std::nullopt;
  if (!FromRef && ToRef)
    return std::nullopt;
  return parameterList(From);
}

// Note [Lists returned by functions]
// A call of a function of the translation unit whose body ends in its only
// `return` of a local list of tensors or of parameter groups (or of a
// parameters() call) is that list, with the callee's module parameters
// replaced by the modules passed; a parameter of the base type
// `torch::nn::Module &` is the module passed while the list is evaluated,
// since it has no class of its own to model. Lists the callee builds in a
// way we cannot follow (a de-duplicating loop) stay unknown.
std::optional<std::vector<ParameterEntry>>
ParameterListBuilder::returnedList(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Callee || isLibtorchDecl(Callee) || Callee->isInStdNamespace() ||
      !Callee->hasBody(Definition) ||
      !(isTensorListType(Callee->getReturnType()) ||
        isGroupListType(Callee->getReturnType())))
    return std::nullopt;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Definition->getBody());
  if (!Body || Body->body_empty())
    return std::nullopt;
  const auto *Return = dyn_cast<ReturnStmt>(Body->body_back());
  unsigned Returns = 0;
  std::function<void(const Stmt *)> Count = [&](const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return;
    Returns += isa<ReturnStmt>(S);
    llvm::for_each(S->children(), Count);
  };
  Count(Body);
  if (!Return || Returns != 1 || !Return->getRetValue())
    return std::nullopt;
  return listInCallee(Call, Definition, 0,
                      [&] { return parameterList(Return->getRetValue()); });
}

/// What Evaluate gives for a list of Definition, the callee of Call, with
/// the callee's container and module parameters standing for what the call
/// passes. The entries after the first Kept get the call as their first
/// step.
std::optional<std::vector<ParameterEntry>> ParameterListBuilder::listInCallee(
    const CallExpr *Call, const FunctionDecl *Definition, size_t Kept,
    llvm::function_ref<std::optional<std::vector<ParameterEntry>>()> Evaluate) {
  // Container parameters stand for the ranges the call passes.
  llvm::SmallVector<const VarDecl *, 2> Ranges;
  for (unsigned I = 0; I < Definition->getNumParams() && I < Call->getNumArgs();
       ++I) {
    const ParmVarDecl *Param = Definition->getParamDecl(I);
    if ((isStdContainer(Param->getType().getNonReferenceType()
                            ->getAsCXXRecordDecl()) ||
         isHandleMap(Param->getType())) &&
        !Sharing.BoundRanges.count(Param)) {
      Sharing.BoundRanges[Param] = Call->getArg(I);
      Ranges.push_back(Param);
    }
  }
  std::optional<ModuleArguments> Arguments = moduleArguments(Definition, Call);
  if (!Arguments)
    return std::nullopt;
  // A parameter of the base type `torch::nn::Module &` has no class to model:
  // it stands for the module the call passes.
  llvm::SmallVector<const VarDecl *, 2> Generic;
  for (auto &[Param, Argument] : *Arguments) {
    const CXXRecordDecl *Impl = moduleImplOf(Param->getType());
    if (Impl && isLibtorchDecl(Impl) && Impl->getIdentifier() &&
        Impl->getName() == "Module" &&
        Sharing.Bound
            .try_emplace(Param, std::make_shared<const ModuleValue>(Argument))
            .second)
      Generic.push_back(Param);
  }
  auto Unbind = llvm::make_scope_exit([&] {
    for (const VarDecl *Param : Ranges)
      Sharing.BoundRanges.erase(Param);
    for (const VarDecl *Param : Generic)
      Sharing.Bound.erase(Param);
  });
  std::optional<std::vector<ParameterEntry>> List = Evaluate();
  if (!List || List->size() < Kept)
    return std::nullopt;
  llvm::DenseMap<const void *, ObjectKey> Substitution;
  for (auto &[Param, Argument] : *Arguments)
    Substitution[Param] = Argument.Identity;
  // A method's `this` is the object it is called on (Note [Objects that
  // hold modules]).
  if (const auto *Method = dyn_cast<CXXMemberCallExpr>(Call)) {
    const Expr *Object = Method->getImplicitObjectArgument();
    std::optional<ModuleValue> Value = Sharing.moduleValue(Object);
    if (!Value)
      Value = Sharing.moduleHolderValue(Object);
    const CXXRecordDecl *Class = Method->getMethodDecl()->getParent();
    if (Value)
      Substitution[Class] = Value->Identity;
    else if (llvm::any_of(Class->fields(), [](const FieldDecl *Field) {
               return !Field->getType()->isScalarType();
             }))
      // Its members may hold modules or tensors of the list, and we do not
      // know the object.
      return std::nullopt;
  }
  RegistrationStep Returned;
  Returned.Site = Call;
  Returned.Returned = true;
  for (ParameterEntry &Entry : llvm::drop_begin(*List, Kept)) {
    for (RegistrationStep &Step : Entry.Route)
      Step.Object = rebase(Step.Object, Substitution);
    Entry.Route.insert(Entry.Route.begin(), Returned);
  }
  return List;
}

// Note [Lists filled by a helper]
// `add_params(ps, *model->encoder);`, where the helper takes the list by a
// non-const reference and inserts into it, appends what the helper appends:
// the helper's parameter stands for the list so far while the helper's own
// mutations of it are applied (Note [Lists built step by step]), with the
// helper's module parameters standing for the modules passed, as for a
// returned list. A list given by non-const reference to a function with no
// body here, or to one whose mutations cannot be followed (a
// de-duplicating `erase`), is unknown from there on.
std::optional<std::vector<ParameterEntry>>
ParameterListBuilder::filledList(const CallExpr *Call, unsigned Arg,
                                 const VarDecl *Var,
                                 std::vector<ParameterEntry> SoFar) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Callee || !Callee->hasBody(Definition))
    return std::nullopt;
  const ParmVarDecl *Param = Definition->getParamDecl(
      Arg - (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee)));
  size_t Kept = SoFar.size();
  Sharing.CurrentLists[Var] = std::move(SoFar);
  auto Restore = llvm::make_scope_exit([&] { Sharing.CurrentLists.erase(Var); });
  return listInCallee(Call, Definition, Kept, [&] { return localList(Param); });
}

std::optional<std::vector<ParameterEntry>>
ParameterListBuilder::parameterList(const Expr *E) {
  if (!E || Sharing.Depth > 24)
    return std::nullopt;
  ++Sharing.Depth;
  auto Done = llvm::make_scope_exit([&] { --Sharing.Depth; });
  E = skipModuleHandleCopies(E);
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    if (!Method || !Method->getIdentifier())
      return std::nullopt;
    llvm::StringRef Name = Method->getName();
    if (Name == "values" && isLibtorchDecl(Method))
      return parameterList(Call->getImplicitObjectArgument());
    // A method of the translation unit on an object that holds modules
    // (`agent.all_parameters()`), read for that object.
    if (!isLibtorchDecl(Method) && !Method->getParent()->isInStdNamespace() &&
        isTensorListType(Method->getReturnType()))
      return returnedList(Call);
    if ((Name != "parameters" && Name != "named_parameters") ||
        !isModuleClass(Method->getParent()))
      return std::nullopt;
    if (auto Unrolled = unrolledParameters(Call))
      return Unrolled;
    std::optional<ModuleValue> Module =
        Sharing.moduleValue(Call->getImplicitObjectArgument());
    if (!Module)
      return std::nullopt;
    bool Recurse = boolArgument(Call, 0, true);
    std::vector<ParameterEntry> Direct;
    for (const ParameterEntry &Entry : Module->Parameters)
      if (Recurse || Entry.Route.size() == 1)
        Direct.push_back(Entry);
    std::vector<ParameterEntry> List;
    prefix(List, Direct, RegistrationStep{"", Call, Module->Identity, nullptr});
    return List;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      return localList(Var);
    return std::nullopt;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const CXXRecordDecl *Record = Construct->getConstructor()->getParent();
    bool IsGroup = isParameterGroup(Record);
    if (IsGroup && Construct->getNumArgs() >= 1)
      return parameterList(Construct->getArg(0));
    if (isStdContainer(Record) && Construct->getNumArgs() >= 1 &&
        isa<CXXStdInitializerListExpr>(Construct->getArg(0)->IgnoreImplicit()))
      return parameterList(Construct->getArg(0));
    // `return list;` copies or moves the local.
    if (isStdContainer(Record) && Construct->getNumArgs() == 1 &&
        Construct->getConstructor()->isCopyOrMoveConstructor())
      return parameterList(Construct->getArg(0));
    return std::nullopt;
  }
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
    return parameterList(List->getSubExpr());
  // A function of the translation unit, or a `+` (or other operator) that
  // is one.
  if (const auto *Call = dyn_cast<CallExpr>(E);
      Call && !isa<CXXMemberCallExpr>(Call) &&
      (!isa<CXXOperatorCallExpr>(Call) ||
       (Call->getDirectCallee() && !isa<CXXMethodDecl>(Call->getDirectCallee()))))
    return returnedList(Call);
  if (const auto *Init = dyn_cast<InitListExpr>(E)) {
    std::vector<ParameterEntry> Result;
    for (const Expr *Element : Init->inits()) {
      if (isTensorType(Element->getType()) ||
          isTensorReferenceWrapper(Element->getType())) {
        RegistrationStep Step;
        Step.Name = Sharing.nameArgument(Element, &Step.NameFromSource);
        Step.Site = Element;
        Step.Object = Sharing.tensorKey(Element, &Step.View);
        ParameterEntry Entry;
        Entry.Route.push_back(Step);
        Result.push_back(std::move(Entry));
        continue;
      }
      std::optional<std::vector<ParameterEntry>> Part = parameterList(Element);
      if (!Part)
        return std::nullopt;
      Result.insert(Result.end(), Part->begin(), Part->end());
    }
    return Result;
  }
  return std::nullopt;
}

// Note [Sinks in helper functions]
// `auto opt = make_optimizer(model);`, where the helper builds an optimizer
// from its parameter's groups, is a sink at the call: the list in the helper
// is evaluated with the parameter standing for the caller's module, so that
// sharing the caller built (`Sequential(shared, shared)`) is seen. Only the
// module parameters are bound; the helper's other arguments, and helpers of
// helpers, are not followed.
std::optional<std::vector<ParameterEntry>>
ParameterListBuilder::parameterListThrough(const Expr *List,
                                               const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Callee || !Callee->hasBody(Definition) || !Sharing.Bound.empty())
    return std::nullopt;
  std::optional<ModuleArguments> Arguments = moduleArguments(Definition, Call);
  if (!Arguments)
    return std::nullopt;
  llvm::DenseMap<const VarDecl *, std::shared_ptr<const ModuleValue>> Bindings;
  for (auto &[Param, Argument] : *Arguments)
    Bindings[Param] = std::make_shared<const ModuleValue>(std::move(Argument));
  // A list parameter stands for the list the call passes
  // (`trust_region_step(params, max_kl)` handing `params` to
  // vector_to_parameters).
  llvm::SmallVector<const ParmVarDecl *, 2> Lists;
  unsigned Offset = isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee);
  for (unsigned I = 0; I < Definition->getNumParams(); ++I) {
    const ParmVarDecl *Param = Definition->getParamDecl(I);
    if (I + Offset < Call->getNumArgs() && isTensorListType(Param->getType()) &&
        !Sharing.BoundRanges.count(Param)) {
      Sharing.BoundRanges[Param] = Call->getArg(I + Offset);
      Lists.push_back(Param);
    }
  }
  auto UnbindLists = llvm::make_scope_exit([&] {
    for (const ParmVarDecl *Param : Lists)
      Sharing.BoundRanges.erase(Param);
  });
  if (Bindings.empty() && Lists.empty())
    return std::nullopt;
  Sharing.Bound = std::move(Bindings);
  auto Unbind = llvm::make_scope_exit([&] { Sharing.Bound.clear(); });
  return parameterList(List);
}

} // namespace clang::tidy::libtorch
