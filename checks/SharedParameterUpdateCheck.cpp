//===- SharedParameterUpdateCheck.cpp - libtorch-shared-parameter-update --===//

#include "SharedParameterUpdateCheck.h"

#include "AliasCheckBase.h"

#include "TensorModel.h"
#include "WorkerEntryPoints.h"

#include "clang-tidy/utils/OptionsUtils.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

static constexpr llvm::StringRef FunctionId = "function";
static constexpr llvm::StringRef OptimizerId = "optimizer";
static constexpr llvm::StringRef AddGroupId = "add-param-group";
static constexpr llvm::StringRef ClipId = "clip";
static constexpr llvm::StringRef LoopId = "loop";
static constexpr llvm::StringRef AssignId = "assign";
static constexpr llvm::StringRef ModuleClassId = "module-class";
static constexpr llvm::StringRef ParametersHeader = "<torchalias/parameters.h>";

namespace {
AST_MATCHER(CXXRecordDecl, isUserModuleClass) {
  return isModuleClass(&Node) && !isLibtorchDecl(&Node);
}

std::string sourceText(const Expr *E, const ASTContext &AST) {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(E->getSourceRange()),
                              AST.getSourceManager(), AST.getLangOpts())
      .str();
}

std::string nameOr(const std::string &Name, llvm::StringRef Fallback) {
  return Name.empty() ? Fallback.str() : Name;
}

/// The parameter a written tensor is, through views, `data()`, `detach()`
/// and the `value()` of a named_parameters() item.
const Expr *writtenParameter(const Expr *Target, const OperatorTable &Table) {
  while (Target) {
    Target = skipHandleCopies(Target);
    const auto *Call = dyn_cast_or_null<CallExpr>(Target);
    if (!Call)
      return Target;
    if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table)) {
      const std::optional<unsigned> &Aliased = Tensor->Effect.ResultAliases;
      if (!Aliased || *Aliased >= Tensor->Args.size())
        return Target;
      Target = Tensor->Args[*Aliased];
      continue;
    }
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
    if (Member && Member->getMethodDecl() &&
        Member->getMethodDecl()->getIdentifier() &&
        Member->getMethodDecl()->getName() == "value" &&
        isLibtorchDecl(Member->getMethodDecl())) {
      Target = Member->getImplicitObjectArgument();
      continue;
    }
    return Target;
  }
  return Target;
}

bool mentions(const Stmt *S, const ValueDecl *Decl) {
  if (!S)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S); Ref && Ref->getDecl() == Decl)
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *Child) { return mentions(Child, Decl); });
}

// Note [Overwriting is not an update]
// Writing a parameter twice is harmless when the write does not read the
// value it replaces: re-initialisation loops (`p.uniform_(-0.1, 0.1)`,
// `torch::nn::init::zeros_(p)`) and copies from elsewhere (`p.copy_(src)`)
// give the same result once or twice. A random fill is recognised from the
// schema (an overload with a `generator` argument); `copy_`, `fill_` and
// `zero_` are the overwrites ATen spells without one. Such a write counts
// as an update only when another operand reads the parameter itself.
bool isOverwrite(const TensorCall &Tensor, const OperatorTable &Table,
                 const ValueDecl *Parameter) {
  bool Random = llvm::any_of(
      Table.overloads(Tensor.Effect.Operator), [](const OperatorOverload &O) {
        return llvm::is_contained(O.Arguments, "generator");
      });
  llvm::StringRef Op = Tensor.Effect.Operator;
  if (!Random && Op != "copy_" && Op != "fill_" && Op != "zero_")
    return false;
  for (unsigned I = 1; I < Tensor.Call->getNumArgs(); ++I)
    if (mentions(Tensor.Call->getArg(I), Parameter))
      return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Tensor.Call))
    for (const Expr *Arg : Member->arguments())
      if (mentions(Arg, Parameter))
        return false;
  return true;
}

/// Variables initialised by copying another module handle (`auto t = m;`).
struct HolderCopy {
  const VarDecl *Copy;
  const ValueDecl *Original;
};

class HolderCopyFinder : public RecursiveASTVisitor<HolderCopyFinder> {
public:
  std::vector<HolderCopy> Copies;
  llvm::DenseMap<const ValueDecl *, std::vector<const Expr *>> References;

  bool VisitVarDecl(VarDecl *Var) {
    if (!Var->getInit() || !moduleImplOf(Var->getType()) ||
        isModuleClass(Var->getType()->getAsCXXRecordDecl()) ||
        Var->getType()->isReferenceType())
      return true;
    const Expr *Init = skipModuleHandleCopies(Var->getInit());
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Init))
      Copies.push_back({Var, Ref->getDecl()});
    else if (const auto *Member = dyn_cast<MemberExpr>(Init))
      Copies.push_back({Var, Member->getMemberDecl()});
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

// Note [Copies in workers]
// A ModuleHolder copied inside the callable of a worker entry point
// (`std::thread t([&] { auto local = global; ... })`) is one thread's handle
// on a module that others use: libtorch-worker-missing-clone reports it, with
// the spawn and the other side's use, so this check stays quiet. Only the
// default worker entry points are recognised here.
bool isCopiedInWorker(const VarDecl *Copy, const FunctionDecl *Function) {
  static const WorkerEntryPoints Workers(
      utils::options::parseStringList(DefaultWorkerEntryPoints));
  const SourceManager &SM = Function->getASTContext().getSourceManager();
  SourceLocation Loc = Copy->getLocation();
  std::function<bool(const Stmt *)> Visit = [&](const Stmt *S) -> bool {
    if (!S)
      return false;
    if (isa<CallExpr, CXXConstructExpr>(S))
      if (std::optional<WorkerSpawn> Spawn = Workers.match(cast<Expr>(S));
          Spawn && Spawn->Lambda) {
        SourceRange Body = Spawn->Lambda->getSourceRange();
        if (!SM.isBeforeInTranslationUnit(Loc, Body.getBegin()) &&
            !SM.isBeforeInTranslationUnit(Body.getEnd(), Loc))
          return true;
      }
    return llvm::any_of(S->children(), Visit);
  };
  return Visit(Function->getBody());
}

} // namespace

SharedParameterUpdateCheck::SharedParameterUpdateCheck(StringRef Name,
                                                       ClangTidyContext *Context)
    : AliasCheckBase(Name, Context),
      IsolationHelper(Options.get("IsolationHelper", "")),
      WarnWithoutSink(Options.get("WarnWithoutSink", false)),
      Includes(Options.getLocalOrGlobal("IncludeStyle",
                                        utils::IncludeSorter::IS_LLVM),
               areDiagsSelfContained()) {}

void SharedParameterUpdateCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "IsolationHelper", IsolationHelper);
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
  // Loops whose body may update each parameter in place.
  auto UpdateLoop = stmt(anyOf(
                             // `for (auto &p : model->parameters())`
                             cxxForRangeStmt(),
                             // `for (size_t i = 0; ...) params[i].sub_(...)`
                             forStmt(), whileStmt()))
                        .bind(LoopId);
  // `module->weight = tensor` on a member.
  auto MemberAssignment =
      cxxOperatorCallExpr(hasOverloadedOperatorName("="),
                          hasArgument(0, ignoringImplicit(memberExpr(
                                             member(fieldDecl())))))
          .bind(AssignId);
  return findAll(stmt(anyOf(OptimizerConstruction, AddParamGroup, ClipGradNorm,
                            UpdateLoop, MemberAssignment)));
}

void SharedParameterUpdateCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(analyzableFunction().bind(FunctionId), this);
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
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  if (!Function || !Function->getBody())
    return;
  for (const BoundNodes &Nodes : match(sinkMatcher(), *Function->getBody(), AST))
    checkNode(Nodes, Function, AST);
}

void SharedParameterUpdateCheck::checkNode(const BoundNodes &Nodes,
                                           const FunctionDecl *Function,
                                           ASTContext &AST) {
  if (const auto *Construct = Nodes.getNodeAs<CXXConstructExpr>(OptimizerId)) {
    const CXXRecordDecl *Optimizer = Construct->getConstructor()->getParent();
    checkSink(Construct, Construct->getArg(0), SinkKind::Optimizer,
              Optimizer->getName(), Function, AST);
  } else if (const auto *Call = Nodes.getNodeAs<CXXMemberCallExpr>(AddGroupId)) {
    checkSink(Call, Call->getArg(0), SinkKind::AddParamGroup, "add_param_group",
              Function, AST);
  } else if (const auto *Clip = Nodes.getNodeAs<CallExpr>(ClipId)) {
    checkSink(Clip, Clip->getArg(0), SinkKind::ClipGradNorm, "clip_grad_norm_",
              Function, AST);
  } else if (const auto *Loop = Nodes.getNodeAs<Stmt>(LoopId)) {
    checkUpdateLoop(Loop, Function, AST);
  } else if (const auto *Assign =
                 Nodes.getNodeAs<CXXOperatorCallExpr>(AssignId)) {
    checkMemberAssignment(Assign, Function, AST);
  }
}

void SharedParameterUpdateCheck::checkSink(const Expr *Sink, const Expr *ListExpr,
                                           SinkKind Kind, llvm::StringRef Name,
                                           const FunctionDecl *Function,
                                           ASTContext &AST) {
  if (Sink->getBeginLoc().isMacroID())
    return;
  std::optional<std::vector<ParameterEntry>> List =
      analysis(AST).parameterList(ListExpr);
  if (!List)
    return;
  std::optional<ParameterTie> Tie = ParameterSharingAnalysis::firstTie(*List);
  if (!Tie) {
    checkHolderCopy(Sink, ListExpr, Name, Function, AST);
    return;
  }
  std::string Also = Tie->Parameter == Tie->OtherParameter
                         ? std::string()
                         : " (also as '" + Tie->OtherParameter + "')";
  std::string Parameter = nameOr(Tie->Parameter, "?");
  SourceLocation Loc = Sink->getExprLoc();
  if (Kind == SinkKind::UpdateLoop) {
    diag(Loc, "'%0' updates parameter '%1' in place twice per pass over the "
              "list%2; the list holds it twice")
        << Name << Parameter << Also;
  } else {
    unsigned Which = static_cast<unsigned>(Kind);
    auto Diag = diag(Loc, "%select{'%0' is built from|'%0' is given|'%0' is "
                          "given}3 a list that holds parameter '%1' twice%2; "
                          "%select{each step() updates it twice|each step() "
                          "updates it twice|the total norm counts it twice and "
                          "its gradient is scaled twice}3")
                << Name << Parameter << Also << Which;
    if (std::optional<FixItHint> Fix = deduplicate(ListExpr, AST)) {
      Diag << *Fix;
      Diag << Includes.createIncludeInsertion(
          AST.getSourceManager().getFileID(Sink->getBeginLoc()),
          ParametersHeader);
    }
  }
  addTieNotes(*Tie);
}

// Note [De-duplicating fix-it]
// Wrapping the list in torchalias::unique_parameters keeps each tensor once,
// in first-seen order, which is what Python's optimizer would have built. It
// needs the runtime library, so it is offered only when IsolationHelper is
// `torchalias`, and only for a list of tensors (a list of parameter groups
// has no single place to wrap).
std::optional<FixItHint>
SharedParameterUpdateCheck::deduplicate(const Expr *List, ASTContext &AST) {
  if (IsolationHelper != "torchalias" || !isTensorListType(List->getType()))
    return std::nullopt;
  const Expr *Written = List->IgnoreImplicit();
  if (isa<InitListExpr, CXXStdInitializerListExpr>(Written) ||
      Written->getBeginLoc().isMacroID() || Written->getEndLoc().isMacroID())
    return std::nullopt;
  std::string Text = sourceText(Written, AST);
  if (Text.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Written->getSourceRange()),
      "torchalias::unique_parameters(" + Text + ")");
}

/// The name a step gives its object: the registered name, or for the call
/// a list starts from, the module it is called on (`shared`).
static std::string stepName(const RegistrationStep &Step, ASTContext &AST) {
  if (!Step.Name.empty())
    return Step.Name;
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
  case Kind::FilledElement: {
    const Expr *Fill = First.FillSite ? First.FillSite : Second.FillSite;
    NotedSites.insert(Fill);
    diag(Fill->getExprLoc(),
         "every element of this container is a handle to one module",
         DiagnosticIDs::Note);
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

void SharedParameterUpdateCheck::checkUpdateLoop(const Stmt *Loop,
                                                 const FunctionDecl *Function,
                                                 ASTContext &AST) {
  const OperatorTable &Ops = analysis(AST).table();
  const auto *RangeFor = dyn_cast<CXXForRangeStmt>(Loop);
  const Stmt *Body = RangeFor ? RangeFor->getBody()
                     : isa<ForStmt>(Loop) ? cast<ForStmt>(Loop)->getBody()
                                          : cast<WhileStmt>(Loop)->getBody();
  // The first in-place update of the loop's parameter, and the list it
  // comes from.
  std::function<bool(const Stmt *)> Visit = [&](const Stmt *S) -> bool {
    if (!S || isa<LambdaExpr>(S))
      return false;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Ops)) {
        for (unsigned Position : Tensor->Effect.WrittenArgs) {
          if (Position >= Tensor->Args.size())
            continue;
          const Expr *Target = writtenParameter(Tensor->Args[Position], Ops);
          const Expr *List = nullptr;
          const ValueDecl *Parameter = nullptr;
          if (RangeFor) {
            const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Target);
            if (Ref && Ref->getDecl() == RangeFor->getLoopVariable()) {
              List = RangeFor->getRangeInit();
              Parameter = Ref->getDecl();
            }
          } else if (const auto *Index =
                         dyn_cast_or_null<CXXOperatorCallExpr>(Target);
                     Index && Index->getOperator() == OO_Subscript &&
                     isTensorListType(Index->getArg(0)->getType())) {
            List = Index->getArg(0);
            if (const auto *Ref =
                    dyn_cast<DeclRefExpr>(List->IgnoreImplicit()))
              Parameter = Ref->getDecl();
          }
          if (!List || !Parameter || isOverwrite(*Tensor, Ops, Parameter))
            continue;
          checkSink(Call, List, SinkKind::UpdateLoop, Tensor->Spelling,
                    Function, AST);
          return true;
        }
      }
    }
    return llvm::any_of(S->children(), Visit);
  };
  Visit(Body);
}

// Note [Clone fix-it]
// `auto target = online;` copies a shared_ptr. The fix replaces the
// initializer with a deep copy of the module: `clone()` (offered only when
// the module class is Cloneable, since Module::clone() throws otherwise),
// cast back to the module's type, or torchalias::deep_clone, which does the
// same and keeps the holder's type. Only for `=` initialisation outside
// macros.
std::optional<FixItHint>
SharedParameterUpdateCheck::cloneAtCopy(const VarDecl *Copy, ASTContext &AST) {
  const Expr *Init = Copy->getInit()->IgnoreImplicit();
  const CXXRecordDecl *Impl = moduleImplOf(Copy->getType());
  const CXXRecordDecl *Holder = Copy->getType()->getAsCXXRecordDecl();
  if (Copy->getInitStyle() != VarDecl::CInit || !Holder || !Impl ||
      Init->getBeginLoc().isMacroID() || Init->getEndLoc().isMacroID())
    return std::nullopt;
  bool Cloneable = llvm::any_of(Impl->bases(), [](const CXXBaseSpecifier &B) {
    const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl();
    return Base && Base->getIdentifier() && Base->getName() == "Cloneable" &&
           isLibtorchDecl(Base);
  });
  if (!Cloneable)
    return std::nullopt;
  std::string Source = sourceText(Init, AST);
  std::string Cast = "std::dynamic_pointer_cast<" +
                     Impl->getQualifiedNameAsString() + ">(" + Source +
                     "->clone())";
  std::string Replacement;
  bool IsHolder = isModuleHolderType(Copy->getType());
  if (IsolationHelper == "torchalias" && IsHolder)
    Replacement = "torchalias::deep_clone(" + Source + ")";
  else if (IsHolder && !isa<ClassTemplateSpecializationDecl>(Holder))
    Replacement = Holder->getQualifiedNameAsString() + "(" + Cast + ")";
  else if (!IsHolder)
    Replacement = Cast;
  if (Source.empty() || Replacement.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Init->getSourceRange()), Replacement);
}

bool SharedParameterUpdateCheck::checkHolderCopy(const Expr *Sink,
                                                 const Expr *ListExpr,
                                                 llvm::StringRef Name,
                                                 const FunctionDecl *Function,
                                                 ASTContext &AST) {
  if (!Function || !Function->getBody())
    return false;
  std::optional<std::vector<ParameterEntry>> List =
      analysis(AST).parameterList(ListExpr);
  if (!List)
    return false;
  ObjectKey Updated;
  if (!List->empty())
    Updated = List->front().Route.front().Object;
  else if (const auto *Call =
               dyn_cast<CXXMemberCallExpr>(skipModuleHandleCopies(ListExpr)))
    if (std::optional<ModuleValue> Module =
            analysis(AST).moduleValue(Call->getImplicitObjectArgument()))
      Updated = Module->Identity;
  if (!Updated.known())
    return false;
  HolderCopyFinder Finder;
  Finder.TraverseStmt(const_cast<Stmt *>(Function->getBody()));
  for (const HolderCopy &Copy : Finder.Copies) {
    if (isCopiedInWorker(Copy.Copy, Function))
      continue;
    std::optional<ModuleValue> Original =
        analysis(AST).moduleValue(skipModuleHandleCopies(Copy.Copy->getInit()));
    if (!Original || !(Original->Identity == Updated))
      continue;
    // Both handles must be used apart from the copy itself: one is updated,
    // the other read as if it were an independent model.
    auto UsedElsewhere = [&](const ValueDecl *Decl) {
      return llvm::any_of(Finder.References.lookup(Decl), [&](const Expr *Ref) {
        return !containsExpr(Copy.Copy->getInit(), Ref);
      });
    };
    if (!UsedElsewhere(Copy.Copy) || !UsedElsewhere(Copy.Original))
      continue;
    {
    auto Diag =
        diag(Sink->getExprLoc(),
             "'%0' updates the parameters of '%1', and '%2' is a copy of its "
             "ModuleHolder, not of the module: '%2' changes with every update")
        << Name << Copy.Original->getName() << Copy.Copy->getName();
    if (std::optional<FixItHint> Fix = cloneAtCopy(Copy.Copy, AST)) {
      Diag << *Fix;
      if (llvm::StringRef(Fix->CodeToInsert).starts_with("torchalias::"))
        Diag << Includes.createIncludeInsertion(
            AST.getSourceManager().getFileID(Copy.Copy->getBeginLoc()),
            ParametersHeader);
    }
    } // The warning is emitted before its note.
    diag(Copy.Copy->getInit()->getExprLoc(),
         "'%0' shares the module of '%1' from here", DiagnosticIDs::Note)
        << Copy.Copy->getName() << Copy.Original->getName();
    return true;
  }
  return false;
}

void SharedParameterUpdateCheck::checkMemberAssignment(
    const CXXOperatorCallExpr *Assign, const FunctionDecl *Function,
    ASTContext &AST) {
  const auto *Member = cast<MemberExpr>(Assign->getArg(0)->IgnoreImplicit());
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (!Field || !isTensorType(Field->getType()) ||
      Assign->getBeginLoc().isMacroID())
    return;
  const auto *Owner = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!isModuleClass(Owner))
    return;
  // A constructor binding its own members is how registration is written.
  if (isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()) &&
      isa_and_nonnull<CXXConstructorDecl>(Function))
    return;
  const auto *Rhs = dyn_cast<CXXMemberCallExpr>(
      skipModuleHandleCopies(Assign->getArg(1)));
  if (Rhs && Rhs->getMethodDecl() && Rhs->getMethodDecl()->getIdentifier() &&
      Rhs->getMethodDecl()->getName() == "register_parameter")
    return;
  std::string Registered;
  if (isLibtorchDecl(Owner)) {
    if (Field->getAccess() == AS_public)
      Registered = Field->getName().str();
  } else if (const ModuleValue *Model =
                 analysis(AST).classModel(Owner, std::nullopt)) {
    auto It = Model->RegisteredFields.find(Field);
    if (It != Model->RegisteredFields.end())
      Registered = It->second;
  }
  if (Registered.empty())
    return;
  diag(Assign->getOperatorLoc(),
       "assigning '%0' does not re-register it: '%1' computes with the new "
       "tensor, but parameters(), to() and serialization still see the one "
       "registered as '%2'")
      << Field->getName() << Owner->getName() << Registered;
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
      << (Tie->Parameter == Tie->OtherParameter
              ? std::string()
              : " (also as '" + Tie->OtherParameter + "')");
  addTieNotes(*Tie);
}

void SharedParameterUpdateCheck::onEndOfTranslationUnit() {
  AliasCheckBase::onEndOfTranslationUnit();
  if (Analysis)
    for (const CXXRecordDecl *Impl : ModuleClasses)
      checkModuleClass(Impl, Analysis->ast());
  ModuleClasses.clear();
  NotedSites.clear();
  Analysis.reset();
}

} // namespace clang::tidy::libtorch
