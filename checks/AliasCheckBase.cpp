//===- AliasCheckBase.cpp - shared plumbing of the libtorch checks --------===//

#include "AliasCheckBase.h"

#include "SavedTensors.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

namespace {
AST_MATCHER(Decl, isLibtorchCode) { return isLibtorchDecl(&Node); }
AST_MATCHER(FunctionDecl, isDependentPattern) {
  return Node.isDependentContext();
}

ast_matchers::internal::BindableMatcher<Decl> analyzableFunction() {
  return functionDecl(
      isDefinition(), hasBody(stmt()), unless(isExpansionInSystemHeader()),
      unless(isImplicit()), unless(isLibtorchCode()),
      unless(isDependentPattern()),
      unless(cxxMethodDecl(ofClass(cxxRecordDecl(isLambda())))));
}
} // namespace

AliasCheckBase::AliasCheckBase(StringRef Name, ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context), CheckName(Name.str()),
      OperatorTablePath(Options.get("OperatorTable", "")) {}

void AliasCheckBase::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "OperatorTable", OperatorTablePath);
}

static constexpr llvm::StringRef FunctionId = "function";

void AliasCheckBase::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(analyzableFunction().bind(FunctionId), this);
}

const FunctionDecl *
AliasCheckBase::matchedFunction(const MatchFinder::MatchResult &Result) {
  return Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
}

void AliasCheckBase::onEndOfTranslationUnit() {
  Analysis.reset();
  Calls.reset();
}

std::optional<FixItHint> appendClone(const Expr *E, const SourceManager &SM,
                                     const LangOptions &LangOpts) {
  if (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return std::nullopt;
  SourceLocation End =
      Lexer::getLocForEndOfToken(E->getEndLoc(), 0, SM, LangOpts);
  if (End.isInvalid())
    return std::nullopt;
  // `.clone()` binds tighter than a prefix operator: `*opt` becomes
  // `(*opt).clone()`.
  const Expr *Inner = E->IgnoreImplicit();
  while (const auto *Copy = dyn_cast<CXXConstructExpr>(Inner)) {
    if (isa<CXXTemporaryObjectExpr>(Copy) || Copy->getNumArgs() != 1)
      break;
    Inner = Copy->getArg(0)->IgnoreImplicit();
  }
  bool Postfix = isa<DeclRefExpr, MemberExpr, ParenExpr, ArraySubscriptExpr,
                     CXXFunctionalCastExpr, CXXTemporaryObjectExpr>(Inner);
  if (const auto *Call = dyn_cast<CallExpr>(Inner)) {
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
    Postfix = !Op || Op->getOperator() == OO_Call ||
              Op->getOperator() == OO_Subscript ||
              Op->getOperator() == OO_Arrow;
  }
  if (Postfix)
    return FixItHint::CreateInsertion(End, ".clone()");
  // One hint can make only one edit: replace the expression's text.
  std::string Text = Lexer::getSourceText(
                         CharSourceRange::getTokenRange(E->getSourceRange()),
                         SM, LangOpts)
                         .str();
  if (Text.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(E->getSourceRange()),
      "(" + Text + ").clone()");
}

std::string sourceText(const Expr *E, const SourceManager &SM,
                       const LangOptions &LangOpts) {
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(E->getSourceRange()), SM, LangOpts)
      .str();
}

const OperatorTable &AliasCheckBase::table() {
  if (Table)
    return *Table;
  llvm::Expected<std::shared_ptr<const OperatorTable>> Loaded =
      OperatorTable::load(OperatorTablePath);
  if (Loaded) {
    Table = *Loaded;
  } else {
    // A bad table path must not silently disable the check: report it and
    // fall back to the built-in table so the run still finds bugs.
    configurationDiag("cannot use option '%0.OperatorTable': %1; using the "
                      "built-in table for libtorch %2",
                      DiagnosticIDs::Error)
        << CheckName << llvm::toString(Loaded.takeError())
        << OperatorTable::builtin()->libtorchVersion();
    Table = OperatorTable::builtin();
  }
  return *Table;
}

const FunctionAliasAnalysis *
AliasCheckBase::analyze(const FunctionDecl *Function, ASTContext &AST,
                        bool RequireWrites) {
  const OperatorTable &Operators = table();
  if (RequireWrites && !mayWriteTensors(Function->getBody(), Operators))
    return nullptr;
  const FunctionAliasAnalysis &Result = aliasContext(AST).analyze(Function);
  return Result.built() ? &Result : nullptr;
}

AliasAnalysisContext &AliasCheckBase::aliasContext(ASTContext &AST) {
  if (!Analysis || &Analysis->ast() != &AST)
    Analysis = std::make_unique<AliasAnalysisContext>(AST, table());
  return *Analysis;
}

std::string AliasCheckBase::describeTarget(const WriteEvent &Write) {
  const AliasValue &Value = Write.Value;
  llvm::StringRef Relation;
  switch (Value.Rel) {
  case Relation::Handle:
    Relation = "the same tensor as";
    break;
  case Relation::DefiniteView:
    Relation = "a view of";
    break;
  case Relation::MayAlias:
    Relation = "a possible alias of";
    break;
  case Relation::Expanded:
    Relation = "an expanded view of";
    break;
  case Relation::Detached:
    Relation = "a detached view of";
    break;
  }
  std::string Text = (Relation + " " + describeRoot(Value)).str();
  const Expr *Target = skipHandleCopies(Write.Target);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Target))
    return ("'" + Ref->getDecl()->getName() + "', " + Text).str();
  return Text;
}

std::string AliasCheckBase::describeRoot(const AliasValue &Value) {
  if (!Value.Root || !Value.Root->getIdentifier())
    return "a temporary";
  return (describeOrigin(Value.RootOrigin) + " '" + Value.Root->getName() + "'")
      .str();
}

void AliasCheckBase::addAliasNotes(const WriteEvent &Write) {
  const AliasValue &Value = Write.Value;
  if (Value.AliasSite) {
    unsigned Kind = Value.Rel == Relation::MayAlias   ? 1
                    : Value.Rel == Relation::Expanded ? 2
                    : Value.Rel == Relation::Detached ? 3
                                                      : 0;
    diag(Value.AliasSite->getExprLoc(),
         "%select{view|possible alias|expanded view|detached view}0 of %1 "
         "created here by '%2'",
         DiagnosticIDs::Note)
        << Kind << describeRoot(Value) << Value.AliasOperator;
  }
  if (Write.CalleeWrite && Write.CalleeParam)
    diag(Write.CalleeWrite->getExprLoc(),
         "'%0' writes its parameter '%1' in place here", DiagnosticIDs::Note)
        << Write.Operator << Write.CalleeParam->getName();
  else if (Write.CalleeWrite && Write.ArgumentMember)
    diag(Write.CalleeWrite->getExprLoc(),
         "'%0' writes member '%1' of its argument in place here",
         DiagnosticIDs::Note)
        << Write.Operator << Value.Root->getName();
}


std::string writerName(const Expr *Call, const OperatorTable &Table) {
  const auto *AsCall = dyn_cast<CallExpr>(Call);
  if (!AsCall)
    return "";
  if (std::optional<TensorCall> Tensor = resolveTensorCall(AsCall, Table))
    return Tensor->Spelling;
  const FunctionDecl *Callee = AsCall->getDirectCallee();
  return Callee ? Callee->getNameAsString() : "";
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

std::unique_ptr<AutogradAnalysis>
AliasCheckBase::autogradFacts(const FunctionDecl &Function, ASTContext &AST) {
  const SavedTensorTable *Saved = SavedTensorTable::builtin().get();
  if (!Calls)
    Calls = std::make_unique<MainFileCalls>(AST);
  // Note [Forwards run only without grad]
  bool WithoutGrad = forwardRunsOnlyWithoutGrad(Function, *Calls);
  auto Autograd = std::make_unique<AutogradAnalysis>(
      Function, AST, &table(), Saved, /*Caller=*/nullptr,
      /*Differentiated=*/false, WithoutGrad);
  // A function with no backward of its own may return a graph that a
  // caller differentiates (Note [A graph returned to the caller]).
  if (!Autograd->hasBackward() && !WithoutGrad) {
    if (std::optional<CallerBackward> Caller =
            callerBackward(Function, *Calls, AST, &table()))
      Autograd = std::make_unique<AutogradAnalysis>(Function, AST, &table(),
                                                    Saved, &*Caller);
  }
  return Autograd;
}

// Note [In-place writes into saved tensors]
// Any in-place write bumps the version counter that the tensor shares with
// its views, so backward refuses a tensor an earlier operation saved. The
// write is reported when the save is certain and a backward that needs it
// follows (Note [Saved tensors]). A write through a view of the saved
// tensor (`adj.diagonal().zero_()` of a sigmoid's output, or a helper's
// `probs.narrow(1, move, 1).zero_()` of the output it is given) is an
// in-place write through a view whose base autograd still reads, and so
// libtorch-inplace-on-view's; a write into the tensor itself is
// libtorch-detached-write's, with the writes through `.data()` and
// `detach()`. Parameter updates (a no-grad scope, a loop
// over `parameters()`) stay quiet like the detached writes: they are meant to
// follow the backward of the step they belong to. A leaf that requires grad
// is left alone: outside a no-grad scope the write itself throws ("a leaf
// Variable that requires grad is being used in an in-place operation").
bool AliasCheckBase::writesThroughView(const WriteEvent &Write) {
  Relation Rel = Write.Value.Rel;
  return Rel == Relation::DefiniteView || Rel == Relation::Expanded ||
         (Rel == Relation::Handle && Write.CalleeWrite && Write.CalleeThroughView);
}

const SavedTensor *
AliasCheckBase::savedTensorBroken(const WriteEvent &Write,
                                  const AutogradAnalysis &Autograd) {
  if (!Autograd.hasBackward())
    return nullptr;
  const SavedTensor *Save =
      Autograd.savedFor(Write.Value.Root, Write.Call, /*DefiniteOnly=*/true);
  // A write under a no-grad guard, or in a loop over parameters, is the
  // parameter-update idiom; it is meant for leaves, and a saved result is
  // no leaf: the backward that needs it throws all the same.
  if (Save && Autograd.isParameterUpdate(Write.Call) && !Save->IsResult)
    return nullptr;
  // A leaf that requires grad refuses the write itself, with another error,
  // unless the call writes under its own NoGradGuard (ApiEffectTable: the
  // max-norm renormalisation of `embedding`); a saved result is no leaf.
  if (!Save || (!Save->IsResult && Autograd.requiresGrad(Write.Value.Root) &&
                !writesGradLeaf(Write, table())))
    return nullptr;
  return Save;
}

void AliasCheckBase::reportSavedTensorWrite(const WriteEvent &Write,
                                            const SavedTensor &Save,
                                            const AutogradAnalysis &Autograd) {
  // A helper's write is reported where it is, in the helper, as a callee's
  // write into module state is (Note [Module state written before
  // backward]); the notes point at the call, at the views on the way and at
  // the backward that needs the tensor.
  const Expr *Where = Write.CalleeWrite ? Write.CalleeWrite : Write.Call;
  std::string Writer = Write.CalleeWrite ? writerName(Write.CalleeWrite, table())
                                         : Write.Operator.str();
  diag(Where->getExprLoc(),
       "'%0' writes in place into %1, which '%2' saved for backward; backward "
       "throws 'one of the variables needed for gradient computation has "
       "been modified by an inplace operation'")
      << (Writer.empty() ? Write.Operator.str() : Writer)
      << describeRoot(Write.Value) << Save.Operator;
  if (Write.CalleeWrite)
    diag(Write.Call->getExprLoc(), "'%0' is called here", DiagnosticIDs::Note)
        << Write.Operator;
  addAliasNotes(Write);
  if (Write.CalleeWrite && !Autograd.caller())
    if (std::optional<SourceLocation> Backward =
            Autograd.backwardNeeding(Save, Write.Call))
      diag(*Backward, "the backward that needs it runs here",
           DiagnosticIDs::Note);
  noteSave(Save, Autograd, Write.Call);
}

void AliasCheckBase::noteSave(const SavedTensor &Save,
                              const AutogradAnalysis &Autograd,
                              const Expr *Write) {
  if (Save.Inner && !Save.IsResult) {
    // Note [Saved by a function of its arguments]
    const FunctionDecl *Helper = Save.Saver->getDirectCallee();
    diag(Save.Saver->getExprLoc(),
         "'%0' is given '%1', which '%2' in it %select{may save|saves}3 for "
         "backward",
         DiagnosticIDs::Note)
        << Helper->getName() << Save.Tensor->getName() << Save.Operator
        << Save.Definite;
    diag(Save.Inner->getExprLoc(),
         "'%0' %select{may save|saves}1 its input for backward here",
         DiagnosticIDs::Note)
        << Save.Operator << Save.Definite;
  } else if (Save.Inner) {
    const FunctionDecl *Helper = Save.Saver->getDirectCallee();
    diag(Save.Saver->getExprLoc(),
         "'%0' returns what '%1' saved for backward", DiagnosticIDs::Note)
        << Helper->getName() << Save.Operator;
    diag(Save.Inner->getExprLoc(), "'%0' saves its result for backward here",
         DiagnosticIDs::Note)
        << Save.Operator;
  } else {
    diag(Save.Saver->getExprLoc(),
         "'%0' %select{may save|saves}3 %select{'%2'|its result}1 for "
         "backward here",
         DiagnosticIDs::Note)
        << Save.Operator << Save.IsResult << Save.Tensor->getName()
        << Save.Definite;
  }
  // Note [A graph returned to the caller]: where the graph leaves the
  // function and where the caller's backward runs.
  const CallerBackward *Caller = Autograd.caller();
  std::optional<SourceLocation> Return =
      Caller ? Autograd.backwardNeeding(Save, Write) : std::nullopt;
  if (!Return || !Autograd.isReturnOfGraph(*Return))
    return;
  // A function object's call is named by the object (`decode(z)`).
  auto CalledName = [](const CallExpr *Call) -> std::string {
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
        Operator && Operator->getOperator() == OO_Call)
      if (const ValueDecl *Object = namedDecl(Operator->getArg(0)))
        return Object->getNameAsString();
    const auto *Callee = dyn_cast_or_null<NamedDecl>(Call->getCalleeDecl());
    return Callee ? Callee->getNameAsString() : "";
  };
  diag(*Return, "the graph is returned here", DiagnosticIDs::Note);
  diag(Caller->Call->getExprLoc(), "'%0' is called here",
       DiagnosticIDs::Note)
      << CalledName(Caller->Call);
  // Note [A graph returned through several callers]
  for (const CallExpr *Through : Caller->Through)
    diag(Through->getExprLoc(),
         "'%0' returns what it computes from it, and is called here",
         DiagnosticIDs::Note)
        << CalledName(Through);
  diag(Caller->Backward, "the backward that needs it runs here",
       DiagnosticIDs::Note);
}

// Note [Lambdas stored for later]
// A write in a lambda body runs when the lambda is called. A lambda handed
// to a call (an algorithm, `parallel_for`, `apply`) runs during that call,
// and one held by a local variable is taken to run where it is written; but
// one stored in a member or a non-local (`pending_ = [cb] { ... };`) or
// returned runs at a time this function does not show, typically after the
// backward the module's caller runs. Its writes are not ordered against
// this function's forward and backward.
static bool storedForLater(const LambdaExpr *Lambda, const ParentMap &Parents) {
  const Stmt *Node = Lambda;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    Node = Parents.getParent(Node);
    if (!Node)
      return false;
    if (isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
            CXXConstructExpr, CXXFunctionalCastExpr, ExprWithCleanups,
            ParenExpr>(Node))
      continue;
    if (isa<ReturnStmt>(Node))
      return true;
    if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(Node);
        Assign && Assign->getOperator() == OO_Equal) {
      const auto *Ref = dyn_cast<DeclRefExpr>(Assign->getArg(0)->IgnoreImplicit());
      const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      return !Var || !Var->hasLocalStorage();
    }
    return false;
  }
  return false;
}

bool AliasCheckBase::runsLater(const WriteEvent &Write,
                               const FunctionDecl &Function) {
  for (const FunctionAliasAnalysis *Owner = Write.Owner;
       Owner && Owner->function() != &Function; Owner = Owner->parent()) {
    const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Owner->function());
    if (!Method || !Method->getParent()->isLambda())
      return false;
    const LambdaExpr *Lambda = nullptr;
    forEachStmt(Function.getBody(), [&](const Stmt *S) {
      if (const auto *L = dyn_cast<LambdaExpr>(S);
          L && L->getLambdaClass() == Method->getParent())
        Lambda = L;
    });
    if (Lambda &&
        storedForLater(Lambda, ParentMap(const_cast<Stmt *>(Function.getBody()))))
      return true;
  }
  return false;
}

} // namespace clang::tidy::libtorch
