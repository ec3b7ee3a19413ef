//===- SharedParameterUpdateCheck.cpp - libtorch-shared-parameter-update --===//

#include "SharedParameterUpdateCheck.h"
#include "Compat.h"

#include "AliasCheckBase.h"
#include "HolderCopyAnalysis.h"
#include "ModuleFixIts.h"
#include "ParameterUpdates.h"
#include "TensorModel.h"
#include "WorkerRaceAnalysis.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

// OptimizerId, OptimizerFactoryId, AddGroupId and ClipId, the list sinks,
// are in ParameterUpdates.h: listSinkOf reads them.
static constexpr llvm::StringRef LoopId = "loop";
static constexpr llvm::StringRef AssignId = "assign";
static constexpr llvm::StringRef ModuleClassId = "module-class";
static constexpr llvm::StringRef ContainerId = "container";
static constexpr llvm::StringRef HelperCallId = "helper-call";
static constexpr llvm::StringRef ParametersHeader = "<torchalias/parameters.h>";

namespace {
AST_MATCHER(CXXRecordDecl, isUserModuleClass) {
  return isModuleClass(&Node) && !isLibtorchDecl(&Node);
}

std::string nameOr(const std::string &Name, llvm::StringRef Fallback) {
  return Name.empty() ? Fallback.str() : Name;
}

/// " (also as 'b.weight')" when the tie's two entries have two names.
std::string alsoAs(const ParameterTie &Tie) {
  return Tie.Parameter == Tie.OtherParameter
             ? std::string()
             : " (also as '" + Tie.OtherParameter + "')";
}
} // namespace

static constexpr llvm::StringRef WorkerCheckName =
    "libtorch-worker-missing-clone";

/// The worker entry points libtorch-worker-missing-clone is configured with,
/// if that check is enabled for this file.
static std::optional<WorkerEntryPoints>
workerCheckEntryPoints(ClangTidyContext *Context) {
  if (!Context->isCheckEnabled(WorkerCheckName))
    return std::nullopt;
  const ClangTidyOptions::OptionMap &Options =
      Context->getOptions().CheckOptions;
  auto Configured =
      Options.find((WorkerCheckName + ".WorkerEntryPoints").str());
  return WorkerEntryPoints(compat::parseStringList(
      Configured == Options.end() ? llvm::StringRef(DefaultWorkerEntryPoints)
                                  : llvm::StringRef(Configured->second.Value)));
}

static std::string sourceText(const Expr *E, const ASTContext &AST) {
  return sourceText(E, AST.getSourceManager(), AST.getLangOpts());
}

SharedParameterUpdateCheck::SharedParameterUpdateCheck(StringRef Name,
                                                       ClangTidyContext *Context)
    : AliasCheckBase(Name, Context),
      Isolation(Options.get("IsolationHelper", IsolationHelper::Clone)),
      WarnWithoutSink(Options.get("WarnWithoutSink", false)),
      WorkerCheckEntryPoints(workerCheckEntryPoints(Context)),
      Includes(Options.getLocalOrGlobal("IncludeStyle",
                                        utils::IncludeSorter::IS_LLVM)
               TORCHALIAS_SELF_CONTAINED_DIAGS) {}

void SharedParameterUpdateCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "IsolationHelper", Isolation);
  Options.store(Opts, "WarnWithoutSink", WarnWithoutSink);
  AliasCheckBase::storeOptions(Opts);
  Options.store(Opts, "IncludeStyle", Includes.getStyle());
}

void SharedParameterUpdateCheck::registerPPCallbacks(
    const SourceManager &SM, Preprocessor *PP, Preprocessor *ModuleExpanderPP) {
  Includes.registerPreprocessor(PP);
}

/// The sinks and sources looked for inside one function body. They are
/// matched below a function definition rather than across the translation
/// unit, so that no parent map of libtorch's headers is ever built.
static StatementMatcher sinkMatcher() {
  auto OptimizerClass =
      cxxRecordDecl(isSameOrDerivedFrom(hasName("::torch::optim::Optimizer")));
  // `torch::optim::SGD opt(model->parameters(), ...)`, and every optimizer
  // derived from torch::optim::Optimizer.
  auto OptimizerConstruction =
      cxxConstructExpr(hasDeclaration(cxxConstructorDecl(ofClass(OptimizerClass))),
                       hasArgument(0, expr()))
          .bind(OptimizerId);
  // `std::make_unique<torch::optim::SGD>(params, ...)` and make_shared: the
  // arguments reach the optimizer's constructor unchanged. (`new SGD(...)`
  // holds an OptimizerConstruction.)
  auto OptimizerFactory =
      callExpr(
          callee(functionDecl(
              hasAnyName("::std::make_unique", "::std::make_shared"),
              hasTemplateArgument(0, refersToType(hasCanonicalType(
                                         hasDeclaration(OptimizerClass)))))),
          hasArgument(0, expr()))
          .bind(OptimizerFactoryId);
  // `opt.add_param_group(group)`.
  auto AddParamGroup =
      cxxMemberCallExpr(callee(cxxMethodDecl(hasName("add_param_group"),
                                             ofClass(OptimizerClass))),
                        hasArgument(0, expr()))
          .bind(AddGroupId);
  // `torch::nn::utils::clip_grad_norm_(params, max_norm)`.
  auto ClipGradNorm =
      callExpr(callee(functionDecl(hasName("::torch::nn::utils::clip_grad_norm_"))),
               hasArgument(0, expr()))
          .bind(ClipId);
  // `torch::nn::utils::vector_to_parameters(theta, params)`.
  auto SetFromVector =
      callExpr(callee(functionDecl(
                   hasName("::torch::nn::utils::vector_to_parameters"))),
               hasArgument(1, expr()))
          .bind(SetFromVectorId);
  // Loops whose body may update each parameter in place.
  auto UpdateLoop = stmt(anyOf(
                             // `for (auto &p : model->parameters())`
                             cxxForRangeStmt(),
                             // `for (size_t i = 0; ...) params[i].sub_(...)`
                             forStmt(), whileStmt(),
                             // Note [Algorithms over a list]
                             callExpr(callee(functionDecl(hasName("::std::for_each"))))))
                        .bind(LoopId);
  // `module->weight = tensor` on a member.
  auto MemberAssignment =
      cxxOperatorCallExpr(hasOverloadedOperatorName("="),
                          hasArgument(0, ignoringImplicit(memberExpr(
                                             member(fieldDecl())))))
          .bind(AssignId);
  // A local container of module handles, which may be filled with copies of
  // one handle; reported only with WarnWithoutSink.
  auto Container = declStmt(has(
      varDecl(hasType(hasCanonicalType(hasDeclaration(cxxRecordDecl(hasAnyName(
                  "::std::vector", "::std::deque", "::std::list"))))))
          .bind(ContainerId)));
  // A call of a function of the translation unit, which may build an
  // optimizer from the module it is given (Note [Sinks in helper functions]).
  auto HelperCall =
      callExpr(callee(functionDecl(hasBody(compoundStmt()),
                                   unless(isExpansionInSystemHeader()))))
          .bind(HelperCallId);
  return findAll(stmt(anyOf(OptimizerConstruction, OptimizerFactory,
                            AddParamGroup, ClipGradNorm, SetFromVector,
                            UpdateLoop,
                            MemberAssignment, Container, HelperCall)));
}

void SharedParameterUpdateCheck::registerMatchers(MatchFinder *Finder) {
  AliasCheckBase::registerMatchers(Finder);
  if (WarnWithoutSink)
    Finder->addMatcher(cxxRecordDecl(isDefinition(), isUserModuleClass(),
                                     unless(isExpansionInSystemHeader()))
                           .bind(ModuleClassId),
                       this);
}

ParameterSharingAnalysis &SharedParameterUpdateCheck::analysis(ASTContext &AST) {
  if (!Analysis || &Analysis->ast() != &AST)
    Analysis = std::make_unique<ParameterSharingAnalysis>(AST, table());
  return *Analysis;
}

void SharedParameterUpdateCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &AST = *Result.Context;
  if (const auto *Impl = Result.Nodes.getNodeAs<CXXRecordDecl>(ModuleClassId)) {
    analysis(AST);
    ModuleClasses.push_back(Impl);
    return;
  }
  const auto *Function = matchedFunction(Result);
  if (!Function || !Function->getBody())
    return;
  std::vector<OptimizerList> Lists;
  Optimizers = &Lists;
  for (const BoundNodes &Nodes : match(sinkMatcher(), *Function->getBody(), AST))
    checkNode(Nodes, Function, AST);
  // An optimizer member built in a constructor's initializer list.
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Function))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isWritten() && Init->isMemberInitializer() && Init->getInit())
        for (const BoundNodes &Nodes :
             match(sinkMatcher(), *Init->getInit(), AST))
          checkNode(Nodes, Function, AST);
  forEachStmt(Function->getBody(), [&](const Stmt *S) {
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(S))
      if (std::optional<ListSink> Sink = userOptimizerSink(Construct, table()))
        checkSink(Sink->Sink, Sink->List, Sink->Kind, Sink->Name, Function,
                  AST);
  });
  Optimizers = nullptr;
  checkAcrossOptimizers(Lists);
}

// Note [One tensor under two names in two optimizers]
// `actor_enc = register_parameter("actor_enc", pretrained);` and
// `critic_enc = register_parameter("critic_enc", pretrained);` make one
// tensor with two names. When one optimizer steps it under one name and
// another under the other (an actor's and a critic's), each one's step()
// moves the other's parameter, and the two lists each hold it once, so no
// single list shows the tie. A tensor that two optimizers' lists reach
// through the same registration (a trunk whose parameters both lists add)
// is shared on purpose and left alone; one reached through two different
// registrations, in two optimizers built in one function, is reported at
// the second.
std::optional<SharedParameterUpdateCheck::Registration>
SharedParameterUpdateCheck::registrationOf(const ParameterEntry &Entry) {
  const RegistrationStep &Last = Entry.Route.back();
  if (Entry.Route.size() > 1 && !Last.Name.empty() && !Last.Added)
    return Registration{Last.Site, Last.Name};
  // An element of a brace list (`{ac->actor_enc, ...}`): the registration
  // of the member it names, in its module's model.
  const auto *Member =
      Entry.Route.size() == 1 ? dyn_cast_or_null<MemberExpr>(skipHandleCopies(Last.Site))
                              : nullptr;
  const auto *Field = Member ? dyn_cast<FieldDecl>(Member->getMemberDecl()) : nullptr;
  std::optional<ModuleValue> Module =
      Field ? Analysis->moduleValue(Member->getBase()) : std::nullopt;
  if (!Module)
    return std::nullopt;
  auto Registered = Module->RegisteredFields.find(Field);
  if (Registered == Module->RegisteredFields.end())
    return std::nullopt;
  for (const ParameterEntry &Own : Module->Parameters)
    if (Own.Route.size() == 1 && Own.Route.back().Name == Registered->second)
      return Registration{Own.Route.back().Site, Registered->second};
  return std::nullopt;
}

void SharedParameterUpdateCheck::checkAcrossOptimizers(const std::vector<OptimizerList> &Lists) {
  for (size_t J = 1; J < Lists.size(); ++J)
    for (size_t I = 0; I < J; ++I) {
      if (Lists[I].Sink == Lists[J].Sink)
        continue;
      for (const ParameterEntry &Later : Lists[J].List) {
        if (!Later.tensor().known())
          continue;
        std::optional<Registration> Second = registrationOf(Later);
        if (!Second)
          continue;
        std::optional<Registration> First;
        auto Earlier = llvm::find_if(Lists[I].List, [&](const ParameterEntry &E) {
          if (!(E.tensor() == Later.tensor()))
            return false;
          First = registrationOf(E);
          return First && First->Site != Second->Site;
        });
        if (Earlier == Lists[I].List.end())
          continue;
        const Expr *Where = Later.Route.front().Site;
        if (Where->getBeginLoc().isMacroID())
          continue;
        diag(Where->getExprLoc(),
             "'%0' steps parameter '%1', the same tensor as '%2', which another "
             "'%3' steps: one tensor registered under two names, so each "
             "optimizer's step() also moves the other's parameter; give it to "
             "one optimizer, or register a copy (clone()) if the two were "
             "meant to be separate")
            << Lists[J].Name << nameOr(Second->Name, "?") << nameOr(First->Name, "?")
            << Lists[I].Name;
        diag(Earlier->Route.front().Site->getExprLoc(), "the other '%0' steps it here",
             DiagnosticIDs::Note)
            << Lists[I].Name;
        diag(First->Site->getExprLoc(), "'%0' and '%1' are the same tensor, registered here",
             DiagnosticIDs::Note)
            << nameOr(First->Name, "?") << nameOr(Second->Name, "?");
        diag(Second->Site->getExprLoc(), "and here", DiagnosticIDs::Note);
        return;
      }
    }
}

void SharedParameterUpdateCheck::checkNode(const BoundNodes &Nodes,
                                           const FunctionDecl *Function,
                                           ASTContext &AST) {
  if (std::optional<ListSink> Sink = listSinkOf(Nodes)) {
    checkSink(Sink->Sink, Sink->List, Sink->Kind, Sink->Name, Function, AST);
  } else if (const auto *Call = Nodes.getNodeAs<CallExpr>(HelperCallId)) {
    checkHelperCall(Call, Function, AST);
  } else if (const auto *Loop = Nodes.getNodeAs<Stmt>(LoopId)) {
    checkUpdateLoop(Loop, Function, AST);
  } else if (const auto *Assign =
                 Nodes.getNodeAs<CXXOperatorCallExpr>(AssignId)) {
    checkMemberAssignment(Assign, Function, AST);
  } else if (const auto *Var = Nodes.getNodeAs<VarDecl>(ContainerId);
             Var && WarnWithoutSink) {
    if (std::optional<ParameterSharingAnalysis::ContainerFill> Fill =
            analysis(AST).containerFill(Var))
      Fills.push_back(Fill->Site);
  }
}

static bool isModuleRegistration(const Expr *Site) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(Site);
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  return Method && Method->getIdentifier() &&
         Method->getName() == "register_module" && Call->getNumArgs() == 2;
}

/// The handle a repeated step adds: `shared` in `v.push_back(shared)` or
/// `register_module(name, shared)`.
static const Expr *addedHandle(const RegistrationStep &Step) {
  // `register_module(name, m)` and a ParameterDict's `insert(key, t)` take
  // the name first.
  const auto *Call = cast<CallExpr>(Step.Site);
  return Call->getArg(Call->getNumArgs() == 2 ? 1 : 0);
}

/// What repairs a tie, for a sink whose list gets no de-duplicating fix-it.
static std::string repairHint(const ParameterTie &Tie, bool ModuleLoop) {
  using Kind = ParameterTie::Kind;
  // Note [Registrations repeated by a loop]: each pass builds its own
  // module, around one shared one.
  if (Tie.K == Kind::RepeatedHandle && Tie.First->Repeated &&
      Tie.First->Repeated != addedHandle(*Tie.First))
    return "; register the shared module in one place only";
  if (Tie.K == Kind::RepeatedHandle && isTensorType(addedHandle(*Tie.First)->getType()))
    return cast<CallExpr>(Tie.First->Site)->getNumArgs() == 2
               ? "; give each key a tensor of its own"
               : "; give each element a tensor of its own";
  if (Tie.K == Kind::FilledElement || Tie.K == Kind::RepeatedHandle)
    return "; construct a separate module for each element";
  std::string Hint = ModuleLoop ? "; loop over a de-duplicated parameter list"
                                : "; de-duplicate the list "
                                  "(torchalias::unique_parameters)";
  switch (Tie.K) {
  case Kind::SameTensor:
    return Hint + " or register the tensor once";
  case Kind::SameList:
  case Kind::Overlap:
    return Hint + " or add the module's parameters once";
  case Kind::AddedTensor:
    return Hint + " or add the tensor once";
  case Kind::FilteredTwice:
    return Hint + " or make the name tests exclusive (an 'else')";
  default:
    return Hint + " or register the module once";
  }
}

void SharedParameterUpdateCheck::checkSink(const Expr *Sink, const Expr *ListExpr,
                                           SinkKind Kind, llvm::StringRef Name,
                                           const FunctionDecl *Function,
                                           ASTContext &AST) {
  if (Sink->getBeginLoc().isMacroID())
    return;
  bool ModuleLoop = Kind == SinkKind::ModuleLoop;
  if (ModuleLoop)
    if (std::optional<ParameterSharingAnalysis::RepeatedVisit> Visit =
            analysis(AST).recursiveModuleLoop(ListExpr)) {
      reportRecursiveModuleLoop(Sink, ListExpr, Name, *Visit);
      return;
    }
  if (!ModuleLoop)
    if (std::optional<ParameterSharingAnalysis::CollectedVisit> Collected =
            analysis(AST).collectedOverModules(ListExpr)) {
      reportCollectedOverModules(Sink, Kind, Name, *Collected);
      return;
    }
  if (Kind == SinkKind::Optimizer || Kind == SinkKind::AddParamGroup ||
      Kind == SinkKind::ClipGradNorm)
    if (std::optional<PrefixGrowth> Growth =
            prefixGrowth(ListExpr, Sink, Function)) {
      reportPrefixGrowth(Sink, Kind, Name, *Growth);
      return;
    }
  if (Kind == SinkKind::AddParamGroup)
    if (std::optional<RepeatedGroup> Repeated = repeatedGroup(
            cast<CXXMemberCallExpr>(Sink), Function, analysis(AST))) {
      reportRepeatedGroup(Sink, *Repeated);
      return;
    }
  std::optional<std::vector<ParameterEntry>> List =
      ModuleLoop ? analysis(AST).moduleLoopParameters(ListExpr)
                 : analysis(AST).parameterList(ListExpr);
  if (!List)
    return;
  if (Optimizers && Kind == SinkKind::Optimizer)
    Optimizers->push_back({Sink, Name.str(), *List});
  std::optional<ParameterTie> Tie = ParameterSharingAnalysis::firstTie(*List);
  if (!Tie) {
    if (Kind == SinkKind::AddParamGroup &&
        checkAddedGroup(cast<CXXMemberCallExpr>(Sink), *List, Function, AST))
      return;
    if (!ModuleLoop)
      checkHolderCopy(Sink, ListExpr, Name, Function, AST);
    return;
  }
  // A filled container is repaired at the fill, once; any other list by
  // de-duplicating it.
  std::optional<FixItHint> Fix;
  bool Filled = Tie->K == ParameterTie::Kind::FilledElement;
  if (Filled && FixedFills.insert(Tie->fillSite()).second) {
    if (const auto *Fill = analysis(AST).fillAt(Tie->fillSite()))
      Fix = distinctConstruction(*Fill, AST);
  } else if (!Filled && Kind != SinkKind::UpdateLoop && !ModuleLoop &&
             Isolation == IsolationHelper::Torchalias) {
    Fix = uniqueParameters(ListExpr, AST);
  }
  std::string Hint =
      Fix && !Filled ? std::string() : repairHint(*Tie, ModuleLoop);
  std::string Also = alsoAs(*Tie);
  std::string Parameter = nameOr(Tie->Parameter, "?");
  SourceLocation Loc = Sink->getExprLoc();
  {
    auto Diag =
        Kind == SinkKind::UpdateLoop || ModuleLoop
            ? diag(Loc,
                   "'%0' updates parameter '%1' in place twice per pass "
                   "over %select{the list|modules()|'%5'}3%2; %select{the "
                   "list holds it twice|the modules it visits hold it "
                   "twice|its elements hold it twice}3%4")
            : diag(Loc, "%select{'%0' is built from|'%0' is given|'%0' is "
                        "given}3 a list that holds parameter '%1' twice%2; "
                        "%select{each step() updates it twice|each step() "
                        "updates it twice|the total norm counts it twice and "
                        "its gradient is scaled twice}3%4");
    const VarDecl *Container =
        ModuleLoop ? analysis(AST).moduleLoopContainer(ListExpr) : nullptr;
    unsigned Which = Kind == SinkKind::UpdateLoop || ModuleLoop
                         ? static_cast<unsigned>(ModuleLoop) + !!Container
                         : static_cast<unsigned>(Kind);
    Diag << Name << Parameter << Also << Which << Hint;
    if (Kind == SinkKind::UpdateLoop || ModuleLoop)
      Diag << (Container ? Container->getName() : llvm::StringRef());
    if (Fix) {
      Diag << *Fix;
      if (!Filled)
        Diag << Includes.createIncludeInsertion(
            AST.getSourceManager().getFileID(Sink->getBeginLoc()),
            ParametersHeader);
    }
  } // The warning is emitted before its notes.
  addTieNotes(*Tie);
}

void SharedParameterUpdateCheck::reportRecursiveModuleLoop(
    const Expr *Sink, const Expr *ListExpr, llvm::StringRef Name,
    const ParameterSharingAnalysis::RepeatedVisit &Visit) {
  const auto *Call =
      dyn_cast<CXXMemberCallExpr>(skipModuleHandleCopies(ListExpr));
  auto Diag = diag(Sink->getExprLoc(),
                   "'%0' updates parameter '%1' in place %2 times per pass "
                   "over %4(): '%3' recurses into submodules, so each "
                   "module that contains a parameter visits it again; pass "
                   "'false' to visit each module's own parameters")
              << Name << nameOr(Visit.Parameter, "?") << Visit.Visits
              << Call->getMethodDecl()->getName()
              << Visit.Modules->getMethodDecl()->getName();
  if (Call->getRParenLoc().isMacroID())
    return;
  if (Call->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(Call->getArg(0)))
    Diag << FixItHint::CreateInsertion(Call->getRParenLoc(), "false");
  else if (!Call->getArg(0)->getBeginLoc().isMacroID())
    Diag << FixItHint::CreateReplacement(Call->getArg(0)->getSourceRange(),
                                         "false");
}

void SharedParameterUpdateCheck::reportCollectedOverModules(
    const Expr *Sink, SinkKind Kind, llvm::StringRef Name,
    const ParameterSharingAnalysis::CollectedVisit &Collected) {
  const CXXMemberCallExpr *Call = Collected.Parameters;
  {
    auto Diag =
        diag(Sink->getExprLoc(),
             "%select{'%0' is built from|'%0' is given|'%0' is given|'%0' "
             "updates}1 parameters collected over %2(): '%3' recurses into "
             "submodules, so '%4' holds parameter '%5' %6 times and "
             "%select{each step() updates it %6 times|each step() updates it "
             "%6 times|the total norm counts it %6 times|each pass updates it "
             "%6 times}1; pass 'false' to collect each module's own "
             "parameters")
        << Name << static_cast<unsigned>(Kind)
        << Collected.Visit.Modules->getMethodDecl()->getName()
        << Call->getMethodDecl()->getName() << Collected.List->getName()
        << nameOr(Collected.Visit.Parameter, "?") << Collected.Visit.Visits;
    if (!Call->getRParenLoc().isMacroID() &&
        FixedRecursions.insert(Call).second) {
      if (Call->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(Call->getArg(0)))
        Diag << FixItHint::CreateInsertion(Call->getRParenLoc(), "false");
      else if (!Call->getArg(0)->getBeginLoc().isMacroID())
        Diag << FixItHint::CreateReplacement(Call->getArg(0)->getSourceRange(),
                                             "false");
    }
  } // The warning is emitted before its notes.
  diag(Call->getExprLoc(), "'%0' is filled here, once for each module on a "
                           "parameter's path",
       DiagnosticIDs::Note)
      << Collected.List->getName();
}

void SharedParameterUpdateCheck::reportPrefixGrowth(
    const Expr *Sink, SinkKind Kind, llvm::StringRef Name,
    const PrefixGrowth &Growth) {
  diag(Sink->getExprLoc(),
       "%select{'%0' is built from|'%0' is given|'%0' is given}1 '%2', which "
       "the loop over '%3' grows on every pass with the elements from the "
       "same start up to '%3': the first ones are added again on each pass, "
       "so the list holds their parameters more than once and %select{each "
       "step() updates them|each step() updates them|the total norm counts "
       "them}1 once per copy; add only the elements new to this pass")
      << Name << static_cast<unsigned>(Kind) << Growth.List->getName()
      << Growth.Counter->getName();
  diag(Growth.Growth->getExprLoc(), "'%0' grows here, for each element up to "
                                    "'%1', and the loop never empties it",
       DiagnosticIDs::Note)
      << Growth.List->getName() << Growth.Counter->getName();
}

void SharedParameterUpdateCheck::reportRepeatedGroup(
    const Expr *Sink, const RepeatedGroup &Repeated) {
  using Kind = RepeatedGroup::Kind;
  llvm::StringRef Consequence =
      "each step() updates a parameter once per group that holds it; add "
      "only the parameters new to this pass";
  switch (Repeated.K) {
  case Kind::SameList:
    diag(Sink->getExprLoc(),
         "'add_param_group' adds the same parameters on every pass of the "
         "loop: %0")
        << Consequence;
    diag(Repeated.Loop->getBeginLoc(), "the loop is here", DiagnosticIDs::Note);
    return;
  case Kind::GrowingList:
    diag(Sink->getExprLoc(),
         "'add_param_group' is given '%0' on every pass of the loop, and '%0' "
         "keeps what earlier passes put in it: %1")
        << Repeated.List->getName() << Consequence;
    diag(Repeated.Growth->getExprLoc(),
         "'%0' grows here, and the loop never empties it", DiagnosticIDs::Note)
        << Repeated.List->getName();
    return;
  case Kind::GrowingHelper: {
    const auto *Helper = Repeated.Helper->getDirectCallee();
    diag(Sink->getExprLoc(),
         "'add_param_group' is given the list '%0' returns for '%1' on every "
         "pass of the loop, and the list grows with '%1': %2")
        << Helper->getName() << Repeated.Counter->getName() << Consequence;
    diag(Repeated.HelperLoop->getBeginLoc(),
         "'%0' collects from the same start up to '%1' here",
         DiagnosticIDs::Note)
        << Helper->getName() << Repeated.Bound->getName();
    return;
  }
  }
}

bool SharedParameterUpdateCheck::checkAddedGroup(
    const CXXMemberCallExpr *AddGroup, const std::vector<ParameterEntry> &Group,
    const FunctionDecl *Function, ASTContext &AST) {
  std::vector<ParameterEntry> Held =
      heldParameters(AddGroup, Function, analysis(AST));
  for (const ParameterEntry &Added : Group) {
    if (!Added.tensor().known())
      continue;
    const auto Earlier = llvm::find_if(Held, [&](const ParameterEntry &E) {
      return E.tensor() == Added.tensor();
    });
    if (Earlier == Held.end())
      continue;
    // The tie between the two entries says where the sharing comes from.
    std::vector<ParameterEntry> Pair = {*Earlier, Added};
    std::optional<ParameterTie> Tie = ParameterSharingAnalysis::firstTie(Pair);
    if (!Tie)
      continue;
    diag(AddGroup->getExprLoc(),
         "'add_param_group' adds parameter '%0', which the optimizer already "
         "holds%1 in an earlier group; each step() updates it twice; leave "
         "it out of the new group or remove it from the earlier one")
        << nameOr(Tie->OtherParameter, "?")
        << (Tie->Parameter == Tie->OtherParameter
                ? std::string()
                : " (as '" + Tie->Parameter + "')");
    addTieNotes(*Tie);
    return true;
  }
  return false;
}

void SharedParameterUpdateCheck::reportFill(const Expr *FillSite,
                                            ASTContext &AST) {
  const ParameterSharingAnalysis::ContainerFill *Fill =
      analysis(AST).fillAt(FillSite);
  if (!Fill || NotedSites.count(FillSite) ||
      FillSite->getBeginLoc().isMacroID() ||
      !analysis(AST).moduleValue(Fill->Value))
    return;
  auto Diag = diag(FillSite->getExprLoc(),
                   "every element of '%0' is a handle to one module; an "
                   "optimizer built from the elements' parameters would "
                   "update it once per element; construct a separate module "
                   "for each element")
              << Fill->Container->getName();
  if (FixedFills.insert(FillSite).second)
    if (std::optional<FixItHint> Fix = distinctConstruction(*Fill, AST))
      Diag << *Fix;
}

/// The name a step gives its object: the registered name, or for the call
/// a list starts from, the module it is called on (`shared`).
static std::string stepName(const RegistrationStep &Step, ASTContext &AST) {
  if (!Step.Name.empty())
    return Step.Name;
  // A helper's call: the module it is given.
  if (const auto *Call = dyn_cast<CallExpr>(Step.Site); Call && Step.Returned)
    for (const Expr *Arg : Call->arguments())
      if (moduleImplOf(Arg->getType()))
        return sourceText(skipModuleHandleCopies(Arg), AST);
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Step.Site))
    if (const Expr *Object = Call->getImplicitObjectArgument())
      return sourceText(skipModuleHandleCopies(Object), AST);
  return "?";
}

void SharedParameterUpdateCheck::addTieNotes(const ParameterTie &Tie) {
  using Kind = ParameterTie::Kind;
  ASTContext &AST = Analysis->ast();
  const RegistrationStep &First = *Tie.First, &Second = *Tie.Second;
  NotedSites.insert(First.Site);
  NotedSites.insert(Second.Site);
  switch (Tie.K) {
  case Kind::SameTensor:
    diag(First.Site->getExprLoc(),
         "'%0' and '%1' are the same tensor, registered here",
         DiagnosticIDs::Note)
        << nameOr(Tie.Parameter, "?") << nameOr(Tie.OtherParameter, "?");
    diag(Second.Site->getExprLoc(), "and here%select{| as a view of it}0",
         DiagnosticIDs::Note)
        << (First.View || Second.View);
    return;
  case Kind::SameModule:
    diag(First.Site->getExprLoc(),
         "'%0' and '%1' are the same module, registered here",
         DiagnosticIDs::Note)
        << stepName(First, AST) << stepName(Second, AST);
    diag(Second.Site->getExprLoc(), "and here", DiagnosticIDs::Note);
    return;
  case Kind::SameList:
    diag(First.Site->getExprLoc(),
         "the parameters of one module are added to the list here",
         DiagnosticIDs::Note);
    diag(Second.Site->getExprLoc(), "and again here", DiagnosticIDs::Note);
    return;
  case Kind::SharedArgument:
    NotedSites.insert(Tie.Registration->Site);
    diag(First.Site->getExprLoc(), "one path to the shared module starts here",
         DiagnosticIDs::Note);
    diag(Second.Site->getExprLoc(), "another starts here", DiagnosticIDs::Note);
    diag(Tie.Registration->Site->getExprLoc(),
         "both reach this registration of '%0' with the same module",
         DiagnosticIDs::Note)
        << Tie.Registration->Name;
    return;
  case Kind::Overlap:
    NotedSites.insert(Tie.Registration->Site);
    diag(First.Site->getExprLoc(),
         "the parameters of '%0' include those of its submodule '%1'",
         DiagnosticIDs::Note)
        << stepName(First, AST) << nameOr(Tie.Registration->Name, "?");
    diag(Second.Site->getExprLoc(), "and the submodule's are added again here",
         DiagnosticIDs::Note);
    return;
  case Kind::AddedTensor:
    diag(First.Site->getExprLoc(), "the list gets '%0' here",
         DiagnosticIDs::Note)
        << nameOr(First.Added ? First.Name : Tie.Parameter, "?");
    diag(Second.Site->getExprLoc(), "and again here", DiagnosticIDs::Note);
    return;
  case Kind::FilteredTwice:
    diag(First.Site->getExprLoc(), "the loop adds '%0' here, since its name "
                                   "passes the tests on the way",
         DiagnosticIDs::Note)
        << nameOr(Tie.Parameter, "?");
    diag(Second.Site->getExprLoc(), "and again here, since it passes these "
                                    "tests too",
         DiagnosticIDs::Note);
    return;
  case Kind::RepeatedHandle: {
    bool Registers = isModuleRegistration(First.Site);
    const Expr *Added = addedHandle(First);
    const Expr *Repeated = First.Repeated ? First.Repeated : Added;
    if (Repeated == Added) {
      diag(First.Site->getExprLoc(),
           "every iteration of the loop %select{adds|registers}0 '%1' here, a "
           "handle to the same %select{module|tensor}2",
           DiagnosticIDs::Note)
          << Registers << sourceText(skipModuleHandleCopies(Added), AST)
          << isTensorType(Added->getType());
      return;
    }
    diag(First.Site->getExprLoc(),
         "every iteration of the loop registers a new module here, built from "
         "'%0', and each holds that same %select{module|tensor}1",
         DiagnosticIDs::Note)
        << sourceText(skipModuleHandleCopies(Repeated), AST)
        << isTensorType(Repeated->getType());
    return;
  }
  case Kind::FilledElement: {
    const Expr *Fill = Tie.fillSite();
    NotedSites.insert(Fill);
    // A named handle says which module; re-evaluating it gives no new one.
    const ParameterSharingAnalysis::ContainerFill *Filled =
        Analysis->fillAt(Fill);
    const Expr *Value =
        Filled ? skipModuleHandleCopies(Filled->Value) : nullptr;
    bool Named = isa_and_nonnull<DeclRefExpr, MemberExpr>(Value);
    diag(Fill->getExprLoc(),
         "every element of this container is a handle to %select{one module|"
         "'%1'}0",
         DiagnosticIDs::Note)
        << Named << (Named ? sourceText(Value, AST) : std::string());
    // An unregistered container's elements are walked directly.
    if (First.Site == Fill)
      return;
    diag(First.Site->getExprLoc(), "%select{each element is|its elements are}0 "
                                   "registered here",
         DiagnosticIDs::Note)
        << (First.Site != Second.Site);
    if (First.Site != Second.Site)
      diag(Second.Site->getExprLoc(), "and here", DiagnosticIDs::Note);
    return;
  }
  }
}

// Note [Sinks in helper functions] (in ParameterLists.cpp): a helper that
// builds an optimizer from the module it is given is a sink at each call.
// A list that already holds a duplicate in the helper is reported there.
void SharedParameterUpdateCheck::checkHelperCall(const CallExpr *Call,
                                                 const FunctionDecl *Function,
                                                 ASTContext &AST) {
  const FunctionDecl *Definition = moduleHelperDefinition(Call);
  if (!Definition || Call->getBeginLoc().isMacroID())
    return;
  for (const BoundNodes &Nodes :
       match(sinkMatcher(), *Definition->getBody(), AST)) {
    std::optional<ListSink> Sink = listSinkOf(Nodes);
    std::optional<std::vector<ParameterEntry>> List =
        Sink ? listTiedThroughHelper(*Sink, Call, analysis(AST))
             : std::nullopt;
    if (!List)
      continue;
    std::optional<ParameterTie> Tie = ParameterSharingAnalysis::firstTie(*List);
    diag(Call->getExprLoc(),
         "'%0' gives '%1' a list that holds parameter "
         "'%3' twice%4; %select{each step() updates it twice|each step() "
         "updates it twice|the total norm counts it twice and its gradient "
         "is scaled twice|each pass updates it twice}2%5")
        << Call->getDirectCallee()->getName() << Sink->Name << static_cast<unsigned>(Sink->Kind)
        << nameOr(Tie->Parameter, "?")
        << alsoAs(*Tie)
        << repairHint(*Tie, false);
    diag(Sink->Sink->getExprLoc(), "the list reaches '%0' here",
         DiagnosticIDs::Note)
        << Sink->Name;
    addTieNotes(*Tie);
  }
  // A helper that updates each parameter of the module it is given in a loop
  // (a hand-written optimizer's step) is a sink too.
  bool Reported = false;
  forEachStmt(Definition->getBody(), [&](const Stmt *S) {
    if (Reported || !elementLoop(S).Body)
      return;
    std::optional<LoopUpdate> Update = findLoopUpdate(S, analysis(AST));
    if (!Update)
      return;
    // A loop over a list the helper is given (`soft_update(target, online,
    // tau)`): the caller's argument reaches the update loop.
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Update->List->IgnoreImplicit()))
      if (const auto *Param = dyn_cast<ParmVarDecl>(Ref->getDecl());
          Param && Param->getDeclContext() == Definition) {
        unsigned Index = Param->getFunctionScopeIndex();
        if (isa<CXXOperatorCallExpr>(Call))
          ++Index;
        if (Index < Call->getNumArgs() &&
            isTensorListType(Call->getArg(Index)->getType())) {
          checkSink(Call, Call->getArg(Index), SinkKind::UpdateLoop,
                    Call->getDirectCallee()->getName(), Function, AST);
          Reported = true;
        }
        return;
      }
    ListSink Sink{Update->Call, Update->List, SinkKind::UpdateLoop,
                  Update->Spelling};
    std::optional<std::vector<ParameterEntry>> List =
        listTiedThroughHelper(Sink, Call, analysis(AST));
    if (!List)
      return;
    std::optional<ParameterTie> Tie = ParameterSharingAnalysis::firstTie(*List);
    diag(Call->getExprLoc(),
         "'%0' updates each parameter of the module it is given in place, "
         "and the list holds parameter '%1' twice%2; each call updates it "
         "twice%3")
        << Call->getDirectCallee()->getName() << nameOr(Tie->Parameter, "?")
        << alsoAs(*Tie)
        << repairHint(*Tie, false);
    diag(Update->Call->getExprLoc(), "'%0' updates the parameter here",
         DiagnosticIDs::Note)
        << Update->Spelling;
    addTieNotes(*Tie);
    Reported = true;
  });
}

void SharedParameterUpdateCheck::checkUpdateLoop(const Stmt *Loop,
                                                 const FunctionDecl *Function,
                                                 ASTContext &AST) {
  if (std::optional<LoopUpdate> Update = findLoopUpdate(Loop, analysis(AST)))
    checkSink(Update->Call, Update->List,
              Update->ModuleLoop ? SinkKind::ModuleLoop : SinkKind::UpdateLoop,
              Update->Spelling, Function, AST);
}

void SharedParameterUpdateCheck::reportHolderCopy(
    const Expr *Sink, llvm::StringRef Name, const HolderCopy &Copy,
    std::optional<FixItHint> Fix, ASTContext &AST) {
  // Note [A holder copy is reported at the copy]: the copy is the mistake,
  // and its fix-it goes there; the update that exposes it gets a note.
  if (!ReportedCopies.insert(Copy.Where.getRawEncoding()).second)
    return;
  llvm::StringRef Original = Copy.Original->getName();
  llvm::StringRef Via = Copy.Via ? Copy.Via->getName() : llvm::StringRef();
  {
    auto Diag = diag(Copy.Where,
                     "'%0' updates the parameters of '%1', and '%2' "
                     "%select{is|holds}3 a copy of its %select{ModuleHolder, "
                     "not of the module|module object, which holds the same "
                     "parameter tensors}4: %select{'%2'|its element}3 changes "
                     "with every update")
                << Name << Original << Copy.Copy->getName() << Copy.Stored
                << Copy.ObjectCopy;
    if (Fix) {
      Diag << *Fix;
      if (compat::startsWith(Fix->CodeToInsert, "torchalias::"))
        Diag << Includes.createIncludeInsertion(
            AST.getSourceManager().getFileID(Fix->RemoveRange.getBegin()),
            ParametersHeader);
    }
  } // The warning is emitted before its notes.
  if (!Via.empty())
    diag(Copy.Where, "both '%0' and '%1' are copies of '%2'", DiagnosticIDs::Note)
        << Copy.Copy->getName() << Original << Via;
  diag(Sink->getExprLoc(), "'%0' updates the parameters of '%1' here",
       DiagnosticIDs::Note)
      << Name << Original;
  if (Copy.Returned)
    diag(Copy.Returned->getReturnLoc(),
         "the ModuleHolder returned here is the one given as an argument",
         DiagnosticIDs::Note);
}

// Note [One finding for a worker's holder copy]
// When a worker updates a module through a copy of its ModuleHolder
// (`auto local = global;` captured by, or made in, a thread's lambda) while
// the spawner still uses the original, two checks see one bug: this one (a
// copy updated as if it were a model of its own) and
// libtorch-worker-missing-clone (a module shared with a worker). The worker
// check owns it: its warning, at the capture, explains the race and carries
// notes at the copy, the update and the spawner's use. This check reports the
// copy only when no such race is reported: the worker check is disabled, or
// the spawner joins before it uses the original.
bool SharedParameterUpdateCheck::reportedAsWorkerRace(
    const ValueDecl *Copy, const Expr *Sink, const FunctionDecl *Function,
    ASTContext &AST) {
  const auto *Local = dyn_cast<VarDecl>(Copy);
  if (!WorkerCheckEntryPoints || !Local)
    return false;
  const FunctionAliasAnalysis *Aliases =
      analyze(Function, AST, /*RequireWrites=*/false);
  if (!Aliases)
    return false;
  auto AnalyzeCallee = [&](const FunctionDecl *Callee) {
    return analyze(Callee, AST, /*RequireWrites=*/false);
  };
  WorkerRaceAnalysis Races(*Aliases, *WorkerCheckEntryPoints, table(),
                           AnalyzeCallee);
  Races.run(Function);
  return Races.raceThroughHolderCopy(Local, Sink) != nullptr;
}

void SharedParameterUpdateCheck::checkHolderCopy(const Expr *Sink,
                                                 const Expr *ListExpr,
                                                 llvm::StringRef Name,
                                                 const FunctionDecl *Function,
                                                 ASTContext &AST) {
  std::optional<HolderCopy> Copy =
      HolderCopyAnalysis(analysis(AST)).find(Sink, ListExpr, Function);
  if (!Copy || reportedAsWorkerRace(Copy->Copy, Sink, Function, AST))
    return;
  std::optional<FixItHint> Fix;
  if (Copy->Init && FixedCopies.insert(Copy->Init).second)
    Fix = cloneAtCopy(Copy->Init,
                      Copy->Stored ? Copy->Init->getType()
                                   : Copy->Copy->getType(),
                      Copy->DirectInit,
                      Isolation == IsolationHelper::Torchalias, AST);
  reportHolderCopy(Sink, Name, *Copy, Fix, AST);
}

void SharedParameterUpdateCheck::checkMemberAssignment(
    const CXXOperatorCallExpr *Assign, const FunctionDecl *Function,
    ASTContext &AST) {
  if (Assign->getBeginLoc().isMacroID())
    return;
  std::optional<MemberRebinding> Rebinding =
      memberRebinding(Assign, Function, aliasContext(AST), analysis(AST));
  if (!Rebinding)
    return;
  diag(Assign->getOperatorLoc(),
       "assigning '%0' does not re-register it: '%1' computes with the new "
       "tensor, but parameters(), to() and serialization still see the one "
       "registered as '%2'")
      << Rebinding->Field->getName() << Rebinding->Owner->getName()
      << Rebinding->Registered;
}

void SharedParameterUpdateCheck::checkModuleClass(const CXXRecordDecl *Impl,
                                                  ASTContext &AST) {
  const ModuleValue *Model = analysis(AST).classModel(Impl, std::nullopt);
  if (!Model)
    return;
  std::optional<ParameterTie> Tie =
      ParameterSharingAnalysis::firstTie(Model->Parameters);
  if (!Tie || NotedSites.count(Tie->Second->Site) ||
      NotedSites.count(Tie->First->Site))
    return;
  diag(Tie->Second->Site->getExprLoc(),
       "'%0' holds parameter '%1' twice%2; an optimizer built from its "
       "parameters() would update it twice")
      << Impl->getName() << nameOr(Tie->Parameter, "?")
      << alsoAs(*Tie);
  addTieNotes(*Tie);
}

void SharedParameterUpdateCheck::onEndOfTranslationUnit() {
  AliasCheckBase::onEndOfTranslationUnit();
  if (Analysis) {
    for (const CXXRecordDecl *Impl : ModuleClasses)
      checkModuleClass(Impl, Analysis->ast());
    for (const Expr *Fill : Fills)
      reportFill(Fill, Analysis->ast());
  }
  ModuleClasses.clear();
  Fills.clear();
  FixedCopies.clear();
  ReportedCopies.clear();
  FixedFills.clear();
  NotedSites.clear();
  Analysis.reset();
}

} // namespace clang::tidy::libtorch
