//===- InplaceOnViewCheck.cpp - libtorch-inplace-on-view ------------------===//

#include "InplaceOnViewCheck.h"
#include "Compat.h"
#include "ModuleState.h"
#include "Snapshots.h"

#include "clang-tidy/utils/OptionsUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

static constexpr llvm::StringRef DefaultOutputParameterNames =
    "out;output;result;dst";

InplaceOnViewCheck::InplaceOnViewCheck(StringRef Name, ClangTidyContext *Context)
    : AliasCheckBase(Name, Context),
      WarnOnLocalBuffers(Options.get("WarnOnLocalBuffers", false)),
      RawOutputParameterNames(
          Options.get("OutputParameterNames", DefaultOutputParameterNames)),
      OutputParameterNames(
          compat::parseStringList(RawOutputParameterNames)) {}

void InplaceOnViewCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  AliasCheckBase::storeOptions(Opts);
  Options.store(Opts, "WarnOnLocalBuffers", WarnOnLocalBuffers);
  Options.store(Opts, "OutputParameterNames", RawOutputParameterNames);
}

void InplaceOnViewCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = matchedFunction(Result);
  if (!Function)
    return;
  for (const SnapshotUse &Use : findSnapshotUses(*Function, table())) {
    reportSnapshotUse(Use);
    // A record of one handle read against its tensor is a stale view of the
    // whole too: one finding.
    StaleReported.insert(Use.Record);
  }
  if (std::optional<StateRecord> Record = findStateRecord(*Function, table())) {
    diag(Record->Return->getRetValue()->getBeginLoc(),
         "'%0' returns a record holding a handle to member '%1', not a copy; "
         "'%2' writes '%1' in place, so every record '%0' returned changes "
         "with the object")
        << Function->getName() << Record->Member->getName()
        << Record->Writer->getName();
    diag(Record->Write->getExprLoc(), "'%0' writes '%1' in place here",
         DiagnosticIDs::Note)
        << Record->WriteName << Record->Member->getName();
  }
  const FunctionAliasAnalysis *Analysis = analyze(Function, *Result.Context);
  if (!Analysis)
    return;
  WriteChains Chains;
  // One finding per call: `batch_norm` writes both statistics.
  llvm::DenseSet<const Expr *> TieReported;
  std::unique_ptr<AutogradAnalysis> Saves;
  for (const WriteEvent &Write : Analysis->writes()) {
    // Note [In-place writes into saved tensors]: through a view.
    if (Write.Value.Root && writesThroughView(Write) &&
        Write.Operator != "requires_grad_" && !runsLater(Write, *Function)) {
      if (!Saves)
        Saves = autogradFacts(*Function, *Result.Context);
      if (const SavedTensor *Save = savedTensorBroken(Write, *Saves)) {
        if (!Chains.continuesReported(Write))
          reportSavedTensorWrite(Write, *Save, *Saves);
        continue;
      }
    }
    if (shouldReport(Write, *Analysis) && !Chains.continuesReported(Write))
      report(Write);
    else if (const FunctionDecl *Callee = changedArgumentReadAfter(Write))
      reportChangedArgument(Write, Callee);
    else if (!Write.CalleeWrite && !TieReported.count(Write.Call) &&
             !Chains.continuesReported(Write) &&
             (checkConstructionTie(Write) || checkInplaceOption(Write)))
      TieReported.insert(Write.Call);
    else if (std::optional<StaleView> Stale = staleView(Write))
      reportStaleView(Write, *Stale);
  }
  for (const WriteEvent &Write : Analysis->memberWrites())
    if (std::optional<StaleView> Stale = staleView(Write))
      reportStaleView(Write, *Stale);
}

// Note [A view read after its base changed]
// A view keeps no values of its own: `auto red = img.select(2, 2)` names
// the elements of `img` that are red now, and a later in-place write of
// `img` (a channel swap, a refill with `copy_`, a shift of a history, an
// in-place standardisation, a call to a function that writes its argument)
// changes what `red` reads. Code that reads the view after such a write as
// if it held the values it was taken from reads the new ones; `clone()`
// where the view is taken keeps them. A write is reported when:
// - a local variable of the function held a view of part of the written
//   tensor (`select`, `narrow`, `slice`, an index, an element of `chunk`,
//   `split` or `unbind`); a view of the whole (`view`, `reshape`, `t()`,
//   `expand`) is the same tensor seen another way, which code reads after
//   an update on purpose, unless the expression that reads the view reads
//   the base too (`(x - old_mean) * (x - mean_)`): code that wanted the
//   new values would not need both, so it takes the view for the old ones;
// - the written region may overlap the view's (not two provably disjoint
//   ranges, nor two `select`s whose indices the code does not show);
// - the view is read afterwards on some path, before the variable is
//   declared, rebound or written again;
// - every loop that holds the write holds the view's declaration too, or
//   does not name the view. A view taken before a loop that refills its
//   base and reads the view in each pass is a window over a buffer, kept to
//   see each new fill; one read only after the loop (`previous` before a
//   k-means pass that updates each centroid in place) is stale.
// The same holds for a view of an object's member that a method of the
// object returned (`auto dropped = stack.oldest()`, where `oldest()` returns
// `frames_[0]`), and a call of another method on the same object that writes
// the member in place (`stack.push(frame)` shifting `frames_`).
// The finding is at the read, where the stale values are used; the write
// and the view's declaration get notes, the latter with a `clone()` fix-it
// (applied with --fix-notes: the finding is about what the author meant).
/// Whether two extents of one base share an element, when every step shows
/// its bounds as constants: each step of one dimension either covers the
/// same elements (the next step decides) or none. None where a step is
/// symbolic or of another kind.
static std::optional<bool> constantOverlap(const ViewExtent &A,
                                           const ViewExtent &B) {
  for (size_t I = 0; I < A.Steps.size() && I < B.Steps.size(); ++I) {
    const ViewStep &L = A.Steps[I], &R = B.Steps[I];
    if (L.Kind != R.Kind || L.Dim != R.Dim || L.Kind == ViewStep::Other ||
        L.Strided || R.Strided || !L.Start || !R.Start)
      return std::nullopt;
    std::optional<int64_t> LS = L.Start->constant(), RS = R.Start->constant();
    if (!LS || !RS)
      return std::nullopt;
    if (L.Kind != ViewStep::Range) {
      if (*LS != *RS)
        return false;
      continue;
    }
    std::optional<int64_t> LE = L.End ? L.End->constant() : std::nullopt;
    std::optional<int64_t> RE = R.End ? R.End->constant() : std::nullopt;
    if (!LE || !RE)
      return std::nullopt;
    if (*LE <= *RS || *RE <= *LS)
      return false;
    if (*LS != *RS || *LE != *RE)
      return true; // partly shared
  }
  return true;
}

/// For a call to a function of the translation unit that writes its
/// parameter only through views: whether one of those writes is shown to
/// cover part of the caller's view Read (of the argument). A helper that
/// writes the whole parameter, or any part the caller's view may share,
/// returns true; one whose parts are all shown disjoint, or cannot be
/// related, false.
bool InplaceOnViewCheck::calleeWriteReaches(const WriteEvent &Write,
                                            const DeclRefExpr *Read) {
  const auto *Callee = dyn_cast<FunctionDecl>(Write.CalleeParam->getDeclContext());
  ASTContext &AST = Callee->getASTContext();
  const FunctionAliasAnalysis &Inner = aliasContext(AST).analyze(Callee);
  OverlapAnalysis InCallee(*Callee, AST, table());
  ViewExtent Caller = overlaps(*Write.Owner->enclosingFunction()).extentOf(Read);
  for (const WriteEvent &Part : Inner.writes()) {
    if (Part.Value.Root != Write.CalleeParam)
      continue;
    if (!Part.Value.isView() || Part.CalleeWrite)
      return true;
    if (constantOverlap(InCallee.extentOf(Part.Target), Caller).value_or(false))
      return true;
  }
  return false;
}

OverlapAnalysis &InplaceOnViewCheck::overlaps(const FunctionDecl &Function) {
  if (OverlapFunction != &Function) {
    Overlaps = std::make_unique<OverlapAnalysis>(Function, Function.getASTContext(),
                                                 table());
    OverlapFunction = &Function;
  }
  return *Overlaps;
}

std::optional<InplaceOnViewCheck::StaleView>
InplaceOnViewCheck::staleView(const WriteEvent &Write) {
  static constexpr llvm::StringLiteral PartViews[] = {
      "select", "narrow", "slice", "operator[]", "index", "chunk", "split",
      "split_with_sizes", "tensor_split", "unbind", "unsafe_chunk",
      "unsafe_split", "hsplit", "vsplit", "dsplit", "diagonal"};
  const FunctionAliasAnalysis &Owner = *Write.Owner;
  if (!Write.Value.Root || Write.HeldViews.empty())
    return std::nullopt;
  const FunctionDecl *Function = Owner.enclosingFunction();
  ASTContext &AST = Function->getASTContext();
  const SourceManager &SM = AST.getSourceManager();
  const ParentMap &Parents = intended(AST).parents(Function);
  auto InnermostLoop = [&](const Stmt *S) -> const Stmt * {
    for (S = Parents.getParent(S); S; S = Parents.getParent(S))
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S))
        return S;
    return nullptr;
  };
  const Stmt *Loop = InnermostLoop(Write.Call);
  // A method call writing a member: the object it is called on.
  bool MemberWrite = !isTensorType(Write.Target->getType());
  auto ObjectOf = [&](const Expr *Call) -> const ValueDecl * {
    const auto *Method = dyn_cast_or_null<CXXMemberCallExpr>(Call);
    return Method ? namedDecl(Method->getImplicitObjectArgument()) : nullptr;
  };
  // The object whose written member a view was taken of directly
  // (`track.P.diagonal()`), for a helper that writes an argument's member
  // (Note [Members of an argument written by a helper]).
  auto MemberOf = [&](const Expr *Site) -> const ValueDecl * {
    const Expr *Self = nullptr;
    if (const auto *Method = dyn_cast_or_null<CXXMemberCallExpr>(Site))
      Self = Method->getImplicitObjectArgument();
    else if (const auto *Call = dyn_cast_or_null<CallExpr>(Site);
             Call && Call->getNumArgs() > 0)
      Self = Call->getArg(0);
    const auto *Member =
        Self ? dyn_cast<MemberExpr>(skipHandleCopies(Self)) : nullptr;
    if (!Member || Member->getMemberDecl() != Write.Value.Root)
      return nullptr;
    return namedDecl(Member->getBase()->IgnoreParenImpCasts());
  };
  // The object a helper is given: `track`, or `&track` for a pointer.
  const Expr *Argument = Write.Target->IgnoreParenImpCasts();
  if (const auto *Address = dyn_cast<UnaryOperator>(Argument);
      Address && Address->getOpcode() == UO_AddrOf)
    Argument = Address->getSubExpr()->IgnoreParenImpCasts();
  const ValueDecl *ArgumentObject = namedDecl(Argument);
  // The operator that took the view, through an accessor of the object.
  auto OperatorOf = [&](const AliasValue &Value) {
    if (!Value.HandedOut)
      return Value.AliasOperator;
    const auto *Call = dyn_cast_or_null<CallExpr>(Value.AliasSite);
    const FunctionSummary *Summary =
        Call ? aliasContext(AST).summary(Call->getDirectCallee()) : nullptr;
    return Summary ? Summary->MemberViewOperator : llvm::StringRef();
  };
  // Whether the expression that holds Read also reads the values of the
  // written tensor itself, after the write (not only its sizes or dtype).
  auto ReadBesideBase = [&](const DeclRefExpr *Read) {
    const Stmt *Full = Read;
    while (const Stmt *Parent = Parents.getParent(Full))
      if (isa<Expr>(Parent))
        Full = Parent;
      else
        break;
    auto AsksMetadata = [&](const Stmt *Ref) {
      const auto *Member =
          dyn_cast_or_null<MemberExpr>(Parents.getParentIgnoreParenImpCasts(
              const_cast<Stmt *>(Ref)));
      return Member && asksOnlyMetadata(
                           dyn_cast<CXXMethodDecl>(Member->getMemberDecl()));
    };
    bool Found = false;
    forEachStmt(Full, [&](const Stmt *S) {
      if (isa<DeclRefExpr, MemberExpr>(S) && S != Read &&
          namedDecl(cast<Expr>(S)) == Write.Value.Root &&
          SM.isBeforeInTranslationUnit(Write.Call->getEndLoc(),
                                       S->getBeginLoc()) &&
          !AsksMetadata(S))
        Found = true;
    });
    return Found;
  };
  std::optional<StaleView> First;
  for (const auto &[View, Value] : Write.HeldViews) {
    if (StaleReported.count(View) || !View->isLocalVarDecl() ||
        View->isStaticLocal() || View->getDeclContext() != Owner.function() ||
        !llvm::is_contained({Relation::DefiniteView, Relation::Expanded}, Value.Rel) ||
        OperatorOf(Value).empty())
      continue;
    bool Whole = !llvm::is_contained(PartViews, OperatorOf(Value));
    if (MemberWrite && !(Value.HandedOut && ObjectOf(Value.AliasSite) &&
                         ObjectOf(Value.AliasSite) == namedDecl(Write.Target)) &&
        !(MemberOf(Value.AliasSite) &&
          MemberOf(Value.AliasSite) == ArgumentObject))
      continue;
    if (Loop &&
        !(SM.isBeforeInTranslationUnit(Loop->getBeginLoc(), View->getLocation()) &&
          SM.isBeforeInTranslationUnit(View->getLocation(), Loop->getEndLoc())) &&
        mentions(Loop, View))
      continue;
    const DeclRefExpr *Read = Owner.readAfter(Write, View);
    if (!Read || (Whole && !ReadBesideBase(Read)))
      continue;
    if (Write.Value.isView() && !Write.CalleeWrite && !MemberWrite) {
      ExtentOverlap Overlap = overlaps(*Function).compare(Write.Target, Read);
      if (Overlap == ExtentOverlap::Disjoint ||
          Overlap == ExtentOverlap::SameOrDisjoint)
        continue;
    }
    if (Write.CalleeParam && !Write.Value.isView() &&
        !calleeWriteReaches(Write, Read))
      continue;
    if (!First || SM.isBeforeInTranslationUnit(View->getLocation(),
                                               First->View->getLocation()))
      First = StaleView{View, &Value, Read, Whole};
  }
  return First;
}

void InplaceOnViewCheck::reportStaleView(const WriteEvent &Write,
                                         const StaleView &Stale) {
  StaleReported.insert(Stale.View);
  llvm::StringRef Base = Write.Value.Root->getName();
  bool Member = isa<FieldDecl>(Write.Value.Root) && Write.CalleeWrite &&
                !Write.CalleeParam;
  // Reported where the stale values are used, as a helper's write into a
  // saved tensor is reported at the backward; the write gets a note.
  diag(Stale.Read->getLocation(),
       "'%2' is read after '%0' wrote %select{|member }3'%1' in place; '%2' "
       "holds a view of %select{part of it, so it reads the new values, not "
       "the ones it was taken from|all of it, so it reads the new values, as "
       "'%1' beside it does}4")
      << Write.Operator << Base << Stale.View->getName() << Member << Stale.Whole;
  diag(Write.Call->getExprLoc(), "'%0' writes %select{|member }1'%2' in place here",
       DiagnosticIDs::Note)
      << Write.Operator << Member << Base;
  if (Write.CalleeWrite)
    diag(Write.CalleeWrite->getExprLoc(), "'%0' writes %select{its parameter|member}1 '%2' here",
         DiagnosticIDs::Note)
        << Write.Operator << Member
        << (Member ? Base : Write.CalleeParam->getName());
  // The clone goes at the end of the declaration's initializer, a call
  // (`qkv.chunk(3, -1)[0]`, `columns[2]`), if the variable is never assigned
  // another view.
  ASTContext &AST = Stale.View->getASTContext();
  const SourceManager &SM = AST.getSourceManager();
  const Expr *Site = Stale.Value->AliasSite;
  const Expr *Init = Stale.View->getInit()
                         ? skipHandleCopies(Stale.View->getInit())->IgnoreParens()
                         : nullptr;
  auto Assigned = [&] {
    auto Lhs = declRefExpr(to(varDecl(equalsNode(Stale.View))));
    return !match(findAll(cxxOperatorCallExpr(isAssignmentOperator(),
                                              hasArgument(0, Lhs))),
                  *Write.Owner->enclosingFunction()->getBody(), AST)
                .empty();
  };
  std::optional<FixItHint> Fix;
  if (Init && isa<CallExpr>(Init) && !Stale.Value->Merged &&
      isTensorType(Stale.View->getType()) && !Assigned() &&
      FixedSites.insert(Init).second)
    Fix = appendClone(Init, SM, getLangOpts());
  diag(Site ? Site->getExprLoc() : Stale.View->getLocation(),
       "'%0' is a view of '%1' taken here; clone it to keep the values",
       DiagnosticIDs::Note)
      << Stale.View->getName() << Base << Fix;
}

// Note [In-place options on a tensor someone still reads]
// An activation or dropout built with `inplace(true)` (a module, or a
// functional with such options; the API effect table says which write their
// input) overwrites the tensor it is given, which is what the option is for
// on a tensor nobody else needs. On a parameter of the function the caller's
// tensor changes (a module's forward handed the batch it is given, a policy
// clipping the observation the caller stores), and on a tensor another
// variable still holds and reads (a residual block's `identity = x`) that
// variable sees the write. Writes the author spells out (`x.relu_()`) are
// the other rules' concern.
bool InplaceOnViewCheck::checkInplaceOption(const WriteEvent &Write) {
  const auto *Call = dyn_cast<CallExpr>(Write.Call);
  std::optional<TensorCall> Tensor =
      Call ? resolveTensorCall(Call, table()) : std::nullopt;
  const AliasValue &Value = Write.Value;
  if (!Tensor || Tensor->OperandNames.empty() || Value.isView() ||
      !Value.Root || operandName(*Tensor, 0) != "input" ||
      skipHandleCopies(Write.Target) != skipHandleCopies(Tensor->Args[0]))
    return false;
  const auto *Param = dyn_cast<ParmVarDecl>(Value.Root);
  bool CallerTensor =
      Param && Value.RootOrigin == Origin::CallerOwned &&
      !(Param->getType()->isLValueReferenceType() &&
        !Param->getType().getNonReferenceType().isConstQualified());
  const VarDecl *Holder = nullptr;
  for (const VarDecl *Other : Write.RootHolders)
    if (Write.Owner->isReferencedAfter(Write, Other)) {
      Holder = Other;
      break;
    }
  if (!CallerTensor && !Holder)
    return false;
  diag(Write.Call->getExprLoc(),
       "'%0' is built to write its input in place, and its input is %1; "
       "%select{the caller's tensor changes too|'%3', which holds the same "
       "tensor, is read afterwards and sees the write}2")
      << Write.Operator << describeRoot(Value) << (Holder != nullptr)
      << (Holder ? Holder->getName() : llvm::StringRef());
  if (std::optional<ModuleCall> Module = moduleCallOf(Call)) {
    llvm::SmallVector<const Expr *, 2> Built =
        moduleConstructions(Module->Module);
    if (!Built.empty())
      diag(Built.front()->getBeginLoc(), "'%0' is built here",
           DiagnosticIDs::Note)
          << Write.Operator;
  }
  return true;
}

/// The tensors a write target names, followed through views, handle copies
/// and local variables (both branches of a conditional): members, and
/// elements of containers (`v[i]`, `v.at(i)`, a range-for variable over
/// `v`) with IsElement set.
static void collectWrittenNames(
    const Expr *E, const llvm::DenseMap<const VarDecl *, const Expr *> &Ranges,
    const OperatorTable &Table,
    llvm::SmallVectorImpl<std::pair<const ValueDecl *, bool>> &Out,
    unsigned Depth = 0) {
  if (!E || Depth > 8)
    return;
  E = skipHandleCopies(E)->IgnoreParens();
  if (const auto *Conditional = dyn_cast<AbstractConditionalOperator>(E)) {
    collectWrittenNames(Conditional->getTrueExpr(), Ranges, Table, Out,
                        Depth + 1);
    collectWrittenNames(Conditional->getFalseExpr(), Ranges, Table, Out,
                        Depth + 1);
    return;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    Out.push_back({Member->getMemberDecl(), false});
    return;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return;
    if (auto Range = Ranges.find(Var); Range != Ranges.end()) {
      const Expr *Container = Range->second->IgnoreImplicit();
      if (const auto *Named = dyn_cast<DeclRefExpr>(Container))
        Out.push_back({Named->getDecl(), true});
      else if (const auto *Member = dyn_cast<MemberExpr>(Container))
        Out.push_back({Member->getMemberDecl(), true});
      return;
    }
    if (Var->isLocalVarDecl() && Var->getInit() && isTensorType(Var->getType()))
      collectWrittenNames(Var->getInit(), Ranges, Table, Out, Depth + 1);
    else
      Out.push_back({Var, false});
    return;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return;
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
      Operator && Operator->getOperator() == OO_Subscript &&
      Operator->getNumArgs() == 2 &&
      isTensorListType(Operator->getArg(0)->getType())) {
    llvm::SmallVector<std::pair<const ValueDecl *, bool>, 2> Containers;
    collectWrittenNames(Operator->getArg(0), Ranges, Table, Containers,
                        Depth + 1);
    for (auto [Container, Element] : Containers)
      if (!Element)
        Out.push_back({Container, true});
    return;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
      Member &&
      isTensorListType(Member->getImplicitObjectArgument()->getType())) {
    llvm::SmallVector<std::pair<const ValueDecl *, bool>, 2> Containers;
    collectWrittenNames(Member->getImplicitObjectArgument(), Ranges, Table,
                        Containers, Depth + 1);
    for (auto [Container, Element] : Containers)
      if (!Element)
        Out.push_back({Container, true});
    return;
  }
  // A view, or an in-place call that returns its target.
  if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table))
    if (Tensor->Effect.View != ViewKind::MayAlias)
      collectWrittenNames(Tensor->aliasedArgument(), Ranges, Table, Out,
                          Depth + 1);
}

// Note [Writes into tensors made one at construction]
// Two names a construction made one tensor (Note [Tensors made one at
// construction]) are meant as two: the elements of `std::vector<Tensor>(n,
// t)` as n running averages, `mean_src` and `mean_tgt` as two domains'
// statistics. An in-place write through one changes the others. A weight
// tie made with `register_parameter` is usually meant, and its duplicate
// updates are libtorch-shared-parameter-update's; two tied operands of one
// call are libtorch-overlapping-inplace's.
bool InplaceOnViewCheck::checkConstructionTie(const WriteEvent &Write) {
  const Stmt *Body = Write.Owner->enclosingFunction()->getBody();
  if (!Ties)
    Ties = std::make_unique<ConstructionTies>();
  llvm::SmallVector<std::pair<const ValueDecl *, bool>, 2> Names;
  collectWrittenNames(Write.Target, rangeForInits(Body), table(), Names);
  // Another operand of the call that is the same root (another element of
  // the container, the tied member).
  auto IsOperand = [&](const ValueDecl *Root) {
    return llvm::any_of(Write.Operands, [&](const WriteOperand &Operand) {
      return Operand.Value.Root == Root && skipHandleCopies(Operand.Operand) !=
                                               skipHandleCopies(Write.Target);
    });
  };
  for (auto [Name, Element] : Names) {
    if (Element) {
      const Expr *Fill = Ties->filledBy(Name);
      if (!Fill || IsOperand(Name))
        continue;
      diag(Write.Call->getExprLoc(),
           "'%0' writes an element of '%1' in place, but every element of "
           "'%1' is one tensor: the write changes all of them")
          << Write.Operator << Name->getName();
      diag(Fill->getBeginLoc(), "'%0' is filled with copies of one handle here",
           DiagnosticIDs::Note)
          << Name->getName();
      return true;
    }
    const auto *Field = dyn_cast<FieldDecl>(Name);
    std::optional<MemberTie> Tie = Field ? Ties->tieOf(Field) : std::nullopt;
    if (!Tie || Tie->Parameter || IsOperand(Tie->Other))
      continue;
    std::optional<MemberTie> Back = Ties->tieOf(Tie->Other);
    if (Back && Back->Parameter)
      continue;
    diag(Write.Call->getExprLoc(),
         "'%0' writes member '%1' in place, which is the same tensor as member "
         "'%2': both are bound to '%3'; the write changes '%2' too")
        << Write.Operator << Field->getName() << Tie->Other->getName()
        << sourceText(Tie->Source, Field->getASTContext().getSourceManager(),
                      getLangOpts());
    diag(Tie->OtherBinding->getBeginLoc(), "'%0' is bound to it here",
         DiagnosticIDs::Note)
        << Tie->Other->getName();
    return true;
  }
  return false;
}

// Note [Snapshots of handles]: the record holds the tensors themselves.
void InplaceOnViewCheck::reportSnapshotUse(const SnapshotUse &Use) {
  const SourceManager &SM = Use.Record->getASTContext().getSourceManager();
  if (Use.HandleCopy) {
    diag(Use.Use->getExprLoc(),
         "'%0' reads '%1' and '%2', which are one tensor: '%2' is "
         "%select{a copy of the handle %3, not of its values|'%5()' of %3, "
         "which shares its storage rather than copying it}6, and '%4' has "
         "changed it in place since, so '%2' is not the old values")
        << Use.Operation << sourceText(Use.Live, SM, getLangOpts())
        << Use.Record->getName() << Use.State << Use.WriteName << Use.Through
        << !Use.Through.empty();
    std::optional<FixItHint> Fix;
    if (FixedSites.insert(Use.Binding).second)
      Fix = appendClone(skipHandleCopies(Use.Binding), SM, getLangOpts());
    diag(Use.Binding->getBeginLoc(),
         "'%0' takes the handle here; clone it to keep the values",
         DiagnosticIDs::Note)
        << Use.Record->getName() << Fix;
  } else {
    diag(Use.Use->getExprLoc(),
         "'%0' reads '%1' and '%2', which are one tensor: '%3' holds handles "
         "to %4, not copies, and '%5' has changed them in place since, so the "
         "record is not the old values")
        << Use.Operation << sourceText(Use.Live, SM, getLangOpts())
        << sourceText(Use.Recorded, SM, getLangOpts()) << Use.Record->getName()
        << Use.State << Use.WriteName;
    diag(Use.Binding->getBeginLoc(),
         "'%0' takes the handles here; clone them to keep the values",
         DiagnosticIDs::Note)
        << Use.Record->getName();
  }
  diag(Use.Write->getExprLoc(), "'%0' writes %select{them|it}1 in place here",
       DiagnosticIDs::Note)
      << Use.WriteName << Use.HandleCopy;
}

// Note [A changed argument read after the call]
// A function meant to write its parameter (Note [Output parameters]) is
// quiet in itself. Its caller is wrong to rely on the argument staying as it
// was: `auto unit = normalized(kpts); draw(kpts);` takes the result for the
// transformed tensor and reads the argument as if the call had not changed
// it. So a call is reported when the function writes the parameter through a
// view, returns a tensor the caller uses, the argument is a local or
// parameter of the caller, and the caller reads it after the call. Where the
// function's name or signature says that it writes its argument (`foo_`,
// `foo_out`, a `Tensor &`, an output name), the caller was told.
const FunctionDecl *
InplaceOnViewCheck::changedArgumentReadAfter(const WriteEvent &Write) {
  const AliasValue &Value = Write.Value;
  const auto *Callee = dyn_cast_or_null<FunctionDecl>(
      Write.CalleeParam ? Write.CalleeParam->getDeclContext() : nullptr);
  const auto *Argument = dyn_cast<DeclRefExpr>(skipHandleCopies(Write.Target));
  if (!Callee || !Argument || Value.Rel != Relation::Handle ||
      Argument->getDecl() != Value.Root ||
      (Value.RootOrigin != Origin::Fresh &&
       Value.RootOrigin != Origin::CallerOwned) ||
      !isTensorType(Callee->getReturnType()))
    return nullptr;
  const FunctionSummary *Summary =
      aliasContext(Callee->getASTContext()).summary(Callee);
  unsigned Index = Write.CalleeParam->getFunctionScopeIndex();
  bool ThroughView = Summary && llvm::any_of(Summary->WrittenParameters,
                                             [&](const auto &W) {
                                               return W.Index == Index &&
                                                      W.ThroughView;
                                             });
  if (!ThroughView || namesItsWrite(Write.CalleeParam, Callee))
    return nullptr;
  const ParentMap &CallerParents =
      intended(Callee->getASTContext()).parents(Write.Owner->enclosingFunction());
  if (isDiscarded(cast<Expr>(Write.Call), CallerParents) ||
      !Write.Owner->isReferencedAfter(Write, Value.Root))
    return nullptr;
  return Callee;
}

void InplaceOnViewCheck::reportChangedArgument(const WriteEvent &Write,
                                               const FunctionDecl *Callee) {
  const auto *Argument = cast<DeclRefExpr>(skipHandleCopies(Write.Target));
  diag(Write.Call->getExprLoc(),
       "'%0' writes its argument '%1' in place through a view of its "
       "parameter '%2', and '%1' is read after the call as if it were "
       "unchanged")
      << Callee->getName() << Argument->getDecl()->getName()
      << Write.CalleeParam->getName();
  diag(Write.CalleeWrite->getExprLoc(),
       "'%0' writes its parameter '%1' in place here", DiagnosticIDs::Note)
      << Callee->getName() << Write.CalleeParam->getName();
}

void InplaceOnViewCheck::onEndOfTranslationUnit() {
  AliasCheckBase::onEndOfTranslationUnit();
  FixedSites.clear();
  Parameters.reset();
  Intended.reset();
  Autograd.reset();
  AutogradFunction = nullptr;
  Overlaps.reset();
  OverlapFunction = nullptr;
  StaleReported.clear();
}

IntendedWrites &InplaceOnViewCheck::intended(ASTContext &AST) {
  if (!Intended)
    Intended = std::make_unique<IntendedWrites>(aliasContext(AST));
  return *Intended;
}

/// Whether Function's name or Param's declaration says that the function
/// writes the parameter: ATen's `foo_` and `foo_out`, a non-const
/// reference, a name in OutputParameterNames.
bool InplaceOnViewCheck::namesItsWrite(const ParmVarDecl *Param,
                                       const FunctionDecl *Function) const {
  if (Function->getIdentifier()) {
    StringRef Name = Function->getName();
    if (compat::endsWith(Name, "_") || compat::endsWith(Name, "_out") ||
        compat::endsWith(Name, "_outf"))
      return true;
  }
  QualType Type = Param->getType();
  if (Type->isLValueReferenceType() &&
      !Type.getNonReferenceType().isConstQualified())
    return true;
  return llvm::is_contained(OutputParameterNames, Param->getName());
}

/// Note [Output parameters], and the conventions a user can name.
bool InplaceOnViewCheck::isOutputParameter(
    const ValueDecl *Root, const FunctionAliasAnalysis &Analysis) {
  const auto *Param = dyn_cast_or_null<ParmVarDecl>(Root);
  if (!Param)
    return false;
  IntendedWrites &Facts = intended(Param->getASTContext());
  if (Facts.treatsAsReadOnly(Param))
    return false;
  if (namesItsWrite(Param, Analysis.function()))
    return true;
  return Facts.outputEvidence(Param, Analysis) != OutputEvidence::None;
}

bool InplaceOnViewCheck::shouldReport(const WriteEvent &Write,
                                      const FunctionAliasAnalysis &Analysis) {
  const AliasValue &Value = Write.Value;
  if (!Value.isView() || Value.Rel == Relation::Detached)
    return false;
  if (Value.Rel == Relation::Expanded)
    return true;
  if (!Value.Root)
    return false;
  ASTContext &AST = Value.Root->getASTContext();
  bool CopiedBack =
      Value.Rel == Relation::MayAlias && intended(AST).isCopiedBack(Write);
  switch (Value.RootOrigin) {
  case Origin::CallerOwned:
    // A may-alias write into an output misses it when the layout makes a
    // copy, so only a copy back makes it safe.
    if (Value.Rel == Relation::MayAlias)
      return !CopiedBack;
    return !isOutputParameter(Value.Root, Analysis);
  case Origin::ObjectState:
    return stateHazard(Write) != StateHazard::None;
  case Origin::Fresh:
    if ((Value.Rel == Relation::MayAlias && !CopiedBack) || WarnOnLocalBuffers)
      return Write.Owner->isReferencedAfter(Write, Value.Root);
    return false;
  case Origin::External:
  case Origin::Unknown:
    return false;
  }
  return false;
}

// Note [Writes into object state]
// An object writing views of its own members (`observations_[step + 1]
// .copy_(obs)` in a rollout buffer) is updating its state, which is what the
// class is for, and so is code that reaches into an object's member on
// purpose. Such a write harms someone only when they hold the view and do not
// expect it to change, or when autograd records it:
// - HandedOut: a method of the object returned the view, and the caller
//   writes it; the object's state changes behind its back;
// - EscapedBefore: this function stored, returned, captured or passed on the
//   view to a function that keeps it, and then writes it; whoever holds it
//   sees the write;
// - TrackedParameter: the member is a registered parameter (or a loop
//   variable over `parameters()`) and no no-grad scope encloses the write;
//   PyTorch throws "a view of a leaf Variable that requires grad is being
//   used in an in-place operation".
// A may-alias view of object state follows the same rule.
InplaceOnViewCheck::StateHazard
InplaceOnViewCheck::stateHazard(const WriteEvent &Write) {
  const AliasValue &Value = Write.Value;
  if (Value.HandedOut)
    return StateHazard::HandedOut;
  if (escapeBefore(Write))
    return StateHazard::EscapedBefore;
  const FunctionDecl *Function = Write.Owner->enclosingFunction();
  const AutogradAnalysis &Facts = autograd(*Function);
  const auto *Field = dyn_cast<FieldDecl>(Value.Root);
  bool Parameter = Field ? isRegisteredParameter(Field)
                         : Facts.requiresGrad(Value.Root);
  if (!Parameter || Facts.isInNoGradScope(Write.Call))
    return StateHazard::None;
  return StateHazard::TrackedParameter;
}

const AutogradAnalysis &
InplaceOnViewCheck::autograd(const FunctionDecl &Function) {
  if (AutogradFunction != &Function) {
    Autograd = std::make_unique<AutogradAnalysis>(Function,
                                                  Function.getASTContext());
    AutogradFunction = &Function;
  }
  return *Autograd;
}

const EscapeEvent *
InplaceOnViewCheck::escapeBefore(const WriteEvent &Write) const {
  for (const EscapeEvent &Escape : Write.Owner->escapes())
    if (Escape.Value.isView() && Escape.Value.Root == Write.Value.Root &&
        Escape.Value.AliasSite == Write.Value.AliasSite &&
        Write.Owner->isBefore(Escape, Write))
      return &Escape;
  return nullptr;
}

/// A module member registered as a parameter: libtorch's modules register
/// their public tensor members (buffers included, see the docs page), a user
/// module the members it binds to register_parameter.
bool InplaceOnViewCheck::isRegisteredParameter(const FieldDecl *Field) {
  const auto *Owner = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!Owner || !isModuleClass(Owner))
    return false;
  if (isLibtorchDecl(Owner))
    return Field->getAccess() == AS_public;
  ASTContext &AST = Field->getASTContext();
  if (!Parameters || &Parameters->ast() != &AST)
    Parameters = std::make_unique<ParameterSharingAnalysis>(AST, table());
  const ModuleValue *Model = Parameters->classModel(Owner, std::nullopt);
  return Model && Model->RegisteredFields.count(Field);
}

void InplaceOnViewCheck::report(const WriteEvent &Write) {
  const AliasValue &Value = Write.Value;
  std::string Target = describeTarget(Write);
  SourceLocation Loc = Write.Call->getExprLoc();
  StateHazard Hazard = Value.RootOrigin == Origin::ObjectState &&
                               Value.Rel != Relation::Expanded
                           ? stateHazard(Write)
                           : StateHazard::None;
  // Cloning a view that was meant to be shared, or a parameter that was
  // meant to be updated, would silently drop the write.
  std::optional<FixItHint> Fix;
  if (Hazard != StateHazard::EscapedBefore &&
      Hazard != StateHazard::TrackedParameter)
    Fix = cloneAtView(Write);

  if (Value.Rel == Relation::Expanded) {
    bool OnlyWarns =
        Write.Operator == "index_put_" || Write.Operator == "masked_fill_";
    diag(Loc, "'%0' writes in place to %1, whose elements share memory; "
              "%select{PyTorch throws 'unsupported operation: more than one "
              "element of the written-to tensor refers to a single memory "
              "location'|PyTorch only warns and the result is silently wrong}2")
        << Write.Operator << Target << OnlyWarns << Fix;
  } else if (Value.Rel == Relation::MayAlias && Value.Merged) {
    diag(Loc, "'%0' writes in place to %1 (a view of it on some paths); "
              "whether '%2' changes depends on the path taken")
        << Write.Operator << Target << Value.Root->getName() << Fix;
  } else if (Value.Rel == Relation::MayAlias) {
    diag(Loc, "'%0' writes in place to %1 ('%2' returns a view when the layout "
              "allows); whether '%3' changes depends on its layout at run time")
        << Write.Operator << Target << Value.AliasOperator
        << Value.Root->getName() << Fix;
  } else if (Hazard == StateHazard::HandedOut) {
    diag(Loc, "'%0' writes in place to %1, which '%2' returned; the object's "
              "state changes too")
        << Write.Operator << Target << Value.AliasOperator << Fix;
  } else if (const EscapeEvent *Escape = Hazard == StateHazard::EscapedBefore
                                             ? escapeBefore(Write)
                                             : nullptr) {
    diag(Loc, "'%0' writes in place to %1 after the view %select{is "
              "returned|is stored in '%3'|is captured by copy|is passed to "
              "'%3', which keeps it}2; whoever holds it sees the write")
        << Write.Operator << Target << static_cast<unsigned>(Escape->Kind)
        << Escape->Into;
    diag(Escape->Where->getExprLoc(), "the view escapes here",
         DiagnosticIDs::Note);
  } else {
    unsigned Consequence = Value.RootOrigin == Origin::CallerOwned   ? 0
                           : Value.RootOrigin == Origin::ObjectState ? 1
                                                                     : 2;
    diag(Loc, "'%0' writes in place to %1; %select{the caller's tensor changes "
              "too|the object's state changes too|'%2' is read afterwards and "
              "sees the write}3%select{|, and autograd records the write: "
              "PyTorch throws 'a view of a leaf Variable that requires grad is "
              "being used in an in-place operation' outside a no-grad scope}4")
        << Write.Operator << Target << Value.Root->getName() << Consequence
        << (Hazard == StateHazard::TrackedParameter) << Fix;
  }
  addAliasNotes(Write);
}

// Note [Clone fix-it]
// Cloning where the view is created makes the variable an independent tensor,
// which is what writing it in place assumes. It is offered only when the view
// initialises a declared tensor variable (so the clone is not a discarded
// temporary), outside macros, once per view, and only when the view reaches
// the write on every path (not after a merge).
std::optional<FixItHint> InplaceOnViewCheck::cloneAtView(const WriteEvent &Write) {
  const Expr *Site = Write.Value.AliasSite;
  const VarDecl *Binding = Site ? Write.Owner->viewBinding(Site) : nullptr;
  if (!Binding || Write.Value.Merged || !isTensorType(Binding->getType()) ||
      Site->getBeginLoc().isMacroID() || Site->getEndLoc().isMacroID() ||
      !FixedSites.insert(Site).second)
    return std::nullopt;
  return appendClone(Site, Binding->getASTContext().getSourceManager(),
                     getLangOpts());
}

} // namespace clang::tidy::libtorch
