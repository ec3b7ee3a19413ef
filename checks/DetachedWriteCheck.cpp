//===- DetachedWriteCheck.cpp - libtorch-detached-write -------------------===//

#include "DetachedWriteCheck.h"
#include "Compat.h"
#include "IntendedWrites.h"
#include "ModuleState.h"
#include "ParameterSharing.h"
#include "SavedTensors.h"
#include "TensorModel.h"

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

/// The structured binding a write's target names directly, or null.
static const BindingDecl *boundName(const WriteEvent &Write) {
  const auto *Ref =
      Write.Target ? dyn_cast<DeclRefExpr>(Write.Target->IgnoreParenImpCasts())
                   : nullptr;
  return Ref ? dyn_cast<BindingDecl>(Ref->getDecl()) : nullptr;
}

/// Whether Body calls a module and a backward (or, with Backward, is one):
/// what the rule on module state needs before it builds anything.
static bool callsModuleAndBackward(const Stmt *Body, bool Backward) {
  bool Module = false;
  llvm::SmallVector<const CallExpr *, 8> Calls;
  forEachStmt(Body, [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      return;
    Calls.push_back(Call);
    Module |= moduleCallOf(Call).has_value();
    const FunctionDecl *Callee = Call->getDirectCallee();
    Backward |=
        Callee && Callee->getIdentifier() &&
        (Callee->getName() == "backward" || Callee->getName() == "grad");
  });
  // A helper's forward is looked for only when it could matter: it reads
  // the helper's body.
  if (Backward && !Module)
    Module = llvm::any_of(Calls, [](const CallExpr *Call) {
      return helperForward(Call).has_value() ||
             graphMethodCallOf(Call).has_value();
    });
  return Module && Backward;
}

void DetachedWriteCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = matchedFunction(Result);
  if (!Function)
    return;
  std::unique_ptr<AutogradAnalysis> Autograd;
  auto Facts = [&]() -> AutogradAnalysis & {
    if (!Autograd)
      Autograd = autogradFacts(*Function, *Result.Context);
    return *Autograd;
  };
  llvm::DenseSet<const Expr *> Reported;
  if (const FunctionAliasAnalysis *Analysis =
          analyze(Function, *Result.Context)) {
    WriteChains Chains;
    // A helper's write of a member of its argument (`clip_obs_(batch)`)
    // reaches a tensor the caller saved as a write of the argument's own
    // tensor does.
    llvm::SmallVector<const WriteEvent *, 16> Writes;
    for (const WriteEvent &Write : Analysis->writes())
      Writes.push_back(&Write);
    for (const WriteEvent &Write : Analysis->memberWrites())
      if (Write.ArgumentMember)
        Writes.push_back(&Write);
    // Note [Element writes through an accessor]
    for (const WriteEvent &Write : Analysis->rawWrites())
      Writes.push_back(&Write);
    for (const WriteEvent *Each : Writes) {
      const WriteEvent &Write = *Each;
      if (!Write.Value.Root)
        if (const BindingDecl *Bound = boundName(Write)) {
          // A name of a structured binding (`auto [probs, value] =
          // ac->forward(obs)`) holds what a returned tuple saved.
          WriteEvent Named = Write;
          Named.Value.Root = Bound;
          if (checkInPlaceWrite(Named, Facts(), /*ThroughViews=*/true))
            Reported.insert(Write.Call);
          continue;
        }
      if (!mayReachSavedTensor(Write) || Chains.continuesReported(Write) ||
          runsLater(Write, *Function))
        continue;
      bool Found = Write.Value.Rel == Relation::Detached
                       ? checkDetachedWrite(Write, Facts(), *Result.Context)
                       : checkInPlaceWrite(Write, Facts());
      if (Found)
        Reported.insert(Write.Call);
    }
  }
  // A module's forward is differentiated by its caller (Note [A module's
  // forward is differentiated]).
  const auto *Method = dyn_cast<CXXMethodDecl>(Function);
  bool Forward = Method && Method->getIdentifier() &&
                 Method->getName() == "forward" &&
                 isModuleClass(Method->getParent());
  if (callsModuleAndBackward(Function->getBody(), Forward))
    checkModuleStateWrites(*Function, Facts(), Reported, *Result.Context);
  checkSequentialOrder(*Function);
}

// Note [Statements that only write through detach()]
// `ema_(codebook.detach(), centroids, 0.99);` or `p.detach().mul_(0.5);` as
// a statement of its own does nothing but write the tensor: the detached
// handle is a temporary and the write's result is thrown away. Nobody writes
// that believing detach() to copy, so the tensor is the target on purpose
// (as for output parameters, Note [Output parameters]): neither the caller's
// copy of it nor a later read of it (the next use of a parameter SAM has
// just perturbed with `p.detach().add_(e)`) sees a surprise. Only a save for
// backward, or a later read of another holder of its handle, still makes it
// a bug.
/// Whether Node is the body of the loop or a branch of the if statement
/// Parent: a statement of its own, as one in braces is.
static bool isStatementBody(const Stmt *Node, const Stmt *Parent) {
  if (const auto *Loop = dyn_cast<CXXForRangeStmt>(Parent))
    return Loop->getBody() == Node;
  if (const auto *Loop = dyn_cast<ForStmt>(Parent))
    return Loop->getBody() == Node;
  if (const auto *Loop = dyn_cast<WhileStmt>(Parent))
    return Loop->getBody() == Node;
  if (const auto *Loop = dyn_cast<DoStmt>(Parent))
    return Loop->getBody() == Node;
  if (const auto *If = dyn_cast<IfStmt>(Parent))
    return If->getThen() == Node || If->getElse() == Node;
  return false;
}

static bool writesOnlyThrough(const WriteEvent &Write) {
  if (!Write.Value.AliasSite || Write.Owner->viewBinding(Write.Value.AliasSite))
    return false;
  const FunctionDecl *Owner = Write.Owner->function();
  if (!Owner || !Owner->getBody())
    return false;
  ParentMap Parents(const_cast<Stmt *>(Owner->getBody()));
  const Stmt *Node = Write.Call;
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    const Stmt *Parent = Parents.getParent(Node);
    if (!Parent)
      return false;
    if (isa<CompoundStmt>(Parent) || isStatementBody(Node, Parent))
      return true;
    // A chained call on the result (`.mul_(d).add_(v)`) is reached through
    // its callee's member expression; as any other call's argument, the
    // result is used.
    bool Chained = isa<CXXMemberCallExpr>(Parent) && isa<MemberExpr>(Node);
    if (!Chained && !isa<ImplicitCastExpr, ExprWithCleanups,
                         MaterializeTemporaryExpr, CXXBindTemporaryExpr,
                         ParenExpr, MemberExpr>(Parent))
      return false;
    Node = Parent;
  }
  return false;
}

void DetachedWriteCheck::onEndOfTranslationUnit() {
  Modules.reset();
  AliasCheckBase::onEndOfTranslationUnit();
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
bool DetachedWriteCheck::checkDetachedWrite(const WriteEvent &Write,
                                            const AutogradAnalysis &Autograd,
                                            ASTContext &AST) {
  const AliasValue &Value = Write.Value;
  if (Autograd.isParameterUpdate(Write.Call))
    return false;
  // Note [Element writes through an accessor]: no version counter either.
  bool Raw = Write.RawElements;
  bool ThroughData = isDataMethod(Value.AliasOperator) || Raw;
  const ValueDecl *Root = Value.Root;
  const SavedTensor *Save =
      Autograd.savedFor(Root, Write.Call, /*DefiniteOnly=*/!ThroughData);
  SourceLocation Loc = Write.Call->getExprLoc();

  if (Raw) {
    if (!Save)
      return false;
    diag(Loc, "'%0' writes elements through '%1()' into %2, which '%3' "
              "%select{may have saved|saved}4 for backward; an accessor or a "
              "data pointer does not bump the version counter, so backward "
              "computes wrong gradients without an error")
        << Write.Operator << Value.AliasOperator << describeRoot(Value)
        << Save->Operator << Save->Definite;
    addAliasNotes(Write);
    noteSave(*Save, Autograd, Write.Call);
    return true;
  }
  if (ThroughData) {
    if (!Save)
      return false;
    diag(Loc, "'%0' writes through '%1()' into %2, which '%3' "
              "%select{may have saved|saved}4 for backward; '%1()' does not "
              "share the version counter, so backward computes wrong "
              "gradients without an error")
        << Write.Operator << Value.AliasOperator << describeRoot(Value)
        << Save->Operator << Save->Definite;
    addAliasNotes(Write);
    noteSave(*Save, Autograd, Write.Call);
    return true;
  }

  const auto *Param = dyn_cast<ParmVarDecl>(Root);
  bool OnPurpose = writesOnlyThrough(Write);
  bool CallerInput =
      Param && !(Param->getType()->isLValueReferenceType() &&
                 !Param->getType().getNonReferenceType().isConstQualified()) &&
      !OnPurpose;
  // `h = h.detach(); h.masked_fill_(...)`: the variable was rebound to its
  // own detached handle, so reading it afterwards reads what was written on
  // purpose; only another holder of the old handle would see a surprise.
  const ValueDecl *Reader = Root;
  bool ReadAfter = false;
  if (namedDecl(Write.Target) == Root) {
    for (const VarDecl *Holder : Write.RootHolders)
      if (Holder != Root && Write.Owner->readAfter(Write, Holder)) {
        Reader = Holder;
        ReadAfter = true;
        break;
      }
  } else if (!OnPurpose) {
    ReadAfter = Write.Owner->isReferencedAfter(Write, Root);
  }
  if (!Save && !CallerInput && !ReadAfter)
    return false;
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
        << Reader->getName() << Fix;
  addAliasNotes(Write);
  if (Save)
    noteSave(*Save, Autograd, Write.Call);
  return true;
}

// Note [In-place writes into saved tensors] (in AliasCheckBase.cpp): a
// write into the saved tensor itself is reported here.

bool DetachedWriteCheck::checkInPlaceWrite(const WriteEvent &Write,
                                           const AutogradAnalysis &Autograd,
                                           bool ThroughViews) {
  // A write through a view of the saved tensor is libtorch-inplace-on-view's
  // (Note [In-place writes into saved tensors]), except through a view of
  // a structured binding's element, which that check does not name.
  if (writesThroughView(Write) && !ThroughViews)
    return false;
  const SavedTensor *Save = savedTensorBroken(Write, Autograd);
  if (!Save)
    return false;
  reportSavedTensorWrite(Write, *Save, Autograd);
  return true;
}

static std::string describeModuleState(const ModuleStateWrite &Write);

/// The module whose member Member the saving call reads.
static ModuleInstance savedMemberInstance(const CallExpr &Saver,
                                          const FieldDecl *Member) {
  ModuleInstance Found;
  forEachStmt(&Saver, [&](const Stmt *S) {
    if (const auto *Read = dyn_cast<MemberExpr>(S);
        Read && Read->getMemberDecl() == Member)
      Found = moduleInstanceOf(Read->getBase());
  });
  return Found;
}

/// Two module instances that may share state: one holds the other, or
/// they are not both known.
static bool sameModule(const ModuleInstance &A, const ModuleInstance &B) {
  return A.mayOverlap(B);
}

// Note [Module state written before backward]
// A module call saves some of the module's parameters and buffers for the
// backward of its result (ModuleStateAnalysis::savedBy: Linear its weight,
// a user's module what its forward's operations save). Weight clipping,
// renormalisation or a setter that writes that state in place after the
// forward and before that backward breaks it like any other write into a
// saved tensor: through `.data()` backward silently uses the new values,
// through `detach()`, or directly under a NoGradGuard, it throws. The
// parameter-update idiom exempts such writes from the rules above because
// it belongs after the backward; here the order shows it does not. So does
// an optimizer's step (Note [Optimizer steps]). A direct write outside a
// no-grad scope is left alone unless it is into a registered buffer: a
// parameter is a leaf that requires grad, and autograd refuses that write
// at once. The write is
// reported where it is, also inside a function of the translation unit
// that makes it, with notes at the call that runs it, at the forward and at
// the backward.
void DetachedWriteCheck::checkModuleStateWrites(
    const FunctionDecl &Function, const AutogradAnalysis &Autograd,
    const llvm::DenseSet<const Expr *> &Reported, ASTContext &AST) {
  const std::vector<ModuleSave> &Saves = Autograd.moduleSaves();
  if (Saves.empty())
    return;
  if (!Modules)
    Modules = std::make_unique<ModuleStateAnalysis>(table());
  const SourceManager &SM = AST.getSourceManager();
  llvm::DenseSet<const Expr *> Done;
  for (const ModuleStateWrite &Write : Modules->writesIn(&Function)) {
    // A parameter (a leaf that requires grad) written directly with grad
    // on is refused at once; a buffer is not, nor a member that holds what
    // an operation computed (a recurrent state).
    bool AllowedWrite =
        !Write.ThroughData.empty() || Write.ThroughDetach ||
        Write.InNoGradScope ||
        (Write.Member && (isRegisteredBuffer(Write.Member) ||
                          (!isRegisteredParameter(Write.Member) &&
                           !memberRequestsGrad(Write.Member))));
    if (Reported.count(Write.Call) || Done.count(Write.Call) || !AllowedWrite)
      continue;
    // A member an operation of this function saved: a max-norm Embedding's
    // lookup after a tied projection `matmul(h, embed->weight.t())`.
    if (const SavedTensor *Save =
            Write.Member && Write.Site == Write.Call
                ? Autograd.savedFor(Write.Member, Write.Call,
                                    /*DefiniteOnly=*/true)
                : nullptr;
        Save && sameModule(savedMemberInstance(*Save->Saver, Write.Member),
                           Write.Instance)) {
      diag(Write.Call->getExprLoc(),
           "'%0' writes in place into %1, which '%2' saved for backward; "
           "backward throws 'one of the variables needed for gradient "
           "computation has been modified by an inplace operation'")
          << writerName(Write.Call, table()) << describeModuleState(Write)
          << Save->Operator;
      noteSave(*Save, Autograd, Write.Call);
      Done.insert(Write.Call);
      continue;
    }
    // The latest module call before the write whose saved state it reaches
    // and whose backward follows it.
    for (const ModuleSave &Save : llvm::reverse(Saves)) {
      if (!SM.isBeforeInTranslationUnit(Save.Call.Call->getEndLoc(),
                                        Write.Call->getBeginLoc()) ||
          !Modules->reachesSavedState(Write, Save.Call))
        continue;
      if (std::optional<SourceLocation> Backward =
              Autograd.backwardNeeding(Save, Write.Call)) {
        reportModuleStateWrite(Write, Save, *Backward, AST);
        Done.insert(Write.Call);
        break;
      }
    }
  }
}

/// "member 'inv_temp_'", "member 'weight' of 'out'", "the parameters of
/// 'critic'".
static std::string describeModuleState(const ModuleStateWrite &Write) {
  std::string Owner;
  if (Write.Instance.Of == ModuleInstance::Kind::Variable &&
      Write.Instance.Variable->getIdentifier())
    Owner = ("'" + Write.Instance.Variable->getName() + "'").str();
  if (Write.Member) {
    std::string Text = ("member '" + Write.Member->getName() + "'").str();
    return Owner.empty() ? Text : Text + " of " + Owner;
  }
  if (!Owner.empty())
    return "the parameters of " + Owner;
  return Write.Module && Write.Module->getIdentifier()
             ? ("the parameters of a '" + Write.Module->getName() + "'").str()
             : "the parameters of a module";
}

/// The C++ spelling of a writing call (`clamp_`, `operator=`) or the name
/// of the function called.
void DetachedWriteCheck::reportModuleStateWrite(const ModuleStateWrite &Write,
                                                const ModuleSave &Save,
                                                SourceLocation Backward,
                                                ASTContext &AST) {
  std::string State = describeModuleState(Write);
  bool Plural = !Write.Member;
  bool ThroughData = !Write.ThroughData.empty();
  unsigned Through = ThroughData ? 0 : Write.ThroughDetach ? 1 : 2;
  std::string Module =
      sourceText(Save.Call.Module, AST.getSourceManager(), getLangOpts());
  if (const ModuleInstance Called = moduleInstanceOf(Save.Call.Module);
      Called.Of == ModuleInstance::Kind::Variable &&
      Called.Variable->getIdentifier())
    Module = Called.Variable->getName().str();
  else if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Save.Call.Module);
           Arrow && Arrow->getOperator() == OO_Arrow)
    // `model_->forward(x)` of a member of an object that is no module.
    Module = sourceText(Arrow->getArg(0), AST.getSourceManager(), getLangOpts());
  // "the forward of 'net'", or "the call 'policy.step()'" (Note [Methods
  // that build a graph]).
  std::string Pass = Save.Call.Method
                         ? ("the call '" + Module + "." +
                            Save.Call.Method->getName() + "()'")
                               .str()
                         : "the forward of '" + Module + "'";
  static constexpr llvm::StringLiteral Consequence =
      "%select{'%6()' does not share the version counter, so backward "
      "computes wrong gradients without an error|backward throws 'one of the "
      "variables needed for gradient computation has been modified by an "
      "inplace operation'}";
  // A write a function of the translation unit makes is reported where it
  // is, in that function, with a note at the call that runs it between the
  // forward and the backward.
  diag(Write.Site->getExprLoc(),
       ("'%0' writes %select{through '%6()' |through 'detach()' |}1into "
        "%2 between %3 that saved %select{it|them}4 and the "
        "backward that needs %select{it|them}4; " +
        Consequence + "5")
           .str())
      << writerName(Write.Site, table()) << Through << State << Pass
      << Plural << !ThroughData << Write.ThroughData;
  if (Write.Site != Write.Call)
    diag(Write.Call->getExprLoc(),
         "'%0' is called here, between the forward and the backward",
         DiagnosticIDs::Note)
        << writerName(Write.Call, table());
  diag(Save.Call.Call->getExprLoc(),
       "%0 saves %select{it|them}1 for backward here", DiagnosticIDs::Note)
      << Pass << Plural;
  diag(Backward, "the backward that needs %select{it|them}0 runs here",
       DiagnosticIDs::Note)
      << Plural;
}

// Note [In-place modules in a Sequential]
// A Sequential passes each module's output to the next one. A module that
// writes its input in place (`Dropout(DropoutOptions(0.25).inplace(true))`)
// right after one that saved its output for backward (`LeakyReLU` with
// `inplace(true)`, which saves what it wrote; `ReLU`, `Sigmoid`, `Tanh`,
// `Softmax`, which save their result) makes the Sequential's backward throw.
// What each module writes and saves is the API effect table's, under the
// options it is built with (Note [Module calls]); `Linear`, `Conv2d` or
// `BatchNorm2d` save their input, not their output, so an in-place
// activation after them is fine.
void DetachedWriteCheck::checkSequentialOrder(const FunctionDecl &Function) {
  auto Visit = [&](const Stmt *S) {
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(S))
      if (const CXXRecordDecl *Impl = moduleImplOf(Construct->getType());
          Impl && Impl->getIdentifier() &&
          Impl->getName() == "SequentialImpl" && isLibtorchDecl(Impl))
        checkSequential(*Construct);
  };
  forEachStmt(Function.getBody(), Visit);
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(&Function))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isWritten())
        forEachStmt(Init->getInit(), Visit);
}

/// The class name a module is known by: `LeakyReLU` for LeakyReLUImpl.
static std::string moduleName(const CXXRecordDecl *Impl) {
  llvm::StringRef Name = Impl->getName();
  return (compat::endsWith(Name, "Impl") ? Name.drop_back(4) : Name).str();
}

void DetachedWriteCheck::checkSequential(const CXXConstructExpr &Sequential) {
  struct Stage {
    const Expr *Module = nullptr;
    const CXXRecordDecl *Impl = nullptr;
    std::optional<ApiEffect> Effect;
  };
  llvm::SmallVector<Stage, 8> Stages;
  for (const Expr *Arg : Sequential.arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    Stage S;
    S.Module = skipModuleHandleCopies(Arg);
    S.Impl = moduleImplOf(Arg->getType());
    if (S.Impl) {
      // A module variable is built where it is declared.
      llvm::SmallVector<const Expr *, 2> Built = moduleConstructions(S.Module);
      if (Built.empty() && !isa<DeclRefExpr>(S.Module))
        Built.push_back(S.Module);
      S.Effect = moduleForwardEffect(S.Impl, Built);
    }
    Stages.push_back(std::move(S));
  }
  auto SavesOutput = [](const ApiEffect &Effect) {
    return Effect.SavesResult || (Effect.writes("input") &&
                                  llvm::is_contained(Effect.Saves, "input"));
  };
  for (unsigned I = 1; I < Stages.size(); ++I) {
    const Stage &Before = Stages[I - 1], &After = Stages[I];
    if (!Before.Effect || !After.Effect || !SavesOutput(*Before.Effect) ||
        !After.Effect->writes("input"))
      continue;
    diag(After.Module->getBeginLoc(),
         "'%0' writes its input in place, the output of '%1', which '%1' "
         "saved for backward; backward through this Sequential throws 'one "
         "of the variables needed for gradient computation has been modified "
         "by an inplace operation'")
        << moduleName(After.Impl) << moduleName(Before.Impl);
    diag(Before.Module->getBeginLoc(), "'%0' saves its output for backward",
         DiagnosticIDs::Note)
        << moduleName(Before.Impl);
  }
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
