//===- SharedParameterUpdateCheck.cpp - libtorch-shared-parameter-update --===//

#include "SharedParameterUpdateCheck.h"
#include "Compat.h"

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
#include "llvm/ADT/StringSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

static constexpr llvm::StringRef OptimizerId = "optimizer";
static constexpr llvm::StringRef OptimizerFactoryId = "optimizer-factory";
static constexpr llvm::StringRef AddGroupId = "add-param-group";
static constexpr llvm::StringRef ClipId = "clip";
static constexpr llvm::StringRef LoopId = "loop";
static constexpr llvm::StringRef AssignId = "assign";
static constexpr llvm::StringRef ModuleClassId = "module-class";
static constexpr llvm::StringRef ContainerId = "container";
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
      const Expr *Aliased = Tensor->aliasedArgument();
      if (!Aliased)
        return Target;
      Target = Aliased;
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
  if (const auto *Member = dyn_cast<MemberExpr>(S);
      Member && Member->getMemberDecl() == Decl)
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *Child) { return mentions(Child, Decl); });
}

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
      compat::parseStringList(DefaultWorkerEntryPoints));
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
      Isolation(Options.get("IsolationHelper", IsolationHelper::Clone)),
      WarnWithoutSink(Options.get("WarnWithoutSink", false)),
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
  // A local container of module handles, which may be filled with copies of
  // one handle; reported only with WarnWithoutSink.
  auto Container = declStmt(has(
      varDecl(hasType(hasCanonicalType(hasDeclaration(cxxRecordDecl(hasAnyName(
                  "::std::vector", "::std::deque", "::std::list"))))))
          .bind(ContainerId)));
  return findAll(
      stmt(anyOf(OptimizerConstruction, OptimizerFactory, AddParamGroup,
                 ClipGradNorm, UpdateLoop, MemberAssignment, Container)));
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
  } else if (const auto *Factory =
                 Nodes.getNodeAs<CallExpr>(OptimizerFactoryId)) {
    const auto *Optimizer = Factory->getDirectCallee()
                                ->getTemplateSpecializationArgs()
                                ->get(0)
                                .getAsType()
                                ->getAsCXXRecordDecl();
    checkSink(Factory, Factory->getArg(0), SinkKind::Optimizer,
              Optimizer->getName(), Function, AST);
  } else if (const auto *Call =
                 Nodes.getNodeAs<CXXMemberCallExpr>(AddGroupId)) {
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
  } else if (const auto *Var = Nodes.getNodeAs<VarDecl>(ContainerId);
             Var && WarnWithoutSink) {
    if (std::optional<ParameterSharingAnalysis::ContainerFill> Fill =
            analysis(AST).containerFill(Var))
      Fills.push_back(Fill->Site);
  }
}

/// What repairs a tie, for a sink whose list gets no de-duplicating fix-it.
static std::string repairHint(const ParameterTie &Tie, bool ModuleLoop) {
  using Kind = ParameterTie::Kind;
  if (Tie.K == Kind::FilledElement)
    return "; construct a separate module for each element";
  std::string Hint = ModuleLoop ? "; loop over a de-duplicated parameter list"
                                : "; de-duplicate the list "
                                  "(torchalias::unique_parameters)";
  switch (Tie.K) {
  case Kind::SameTensor:
    return Hint + " or register the tensor once";
  case Kind::SameList:
    return Hint + " or add the module's parameters once";
  default:
    return Hint + " or register the module once";
  }
}

static const Expr *fillSiteOf(const ParameterTie &Tie) {
  return Tie.First->FillSite ? Tie.First->FillSite : Tie.Second->FillSite;
}

void SharedParameterUpdateCheck::checkSink(const Expr *Sink, const Expr *ListExpr,
                                           SinkKind Kind, llvm::StringRef Name,
                                           const FunctionDecl *Function,
                                           ASTContext &AST) {
  if (Sink->getBeginLoc().isMacroID())
    return;
  bool ModuleLoop = Kind == SinkKind::ModuleLoop;
  std::optional<std::vector<ParameterEntry>> List =
      ModuleLoop ? analysis(AST).moduleLoopParameters(ListExpr)
                 : analysis(AST).parameterList(ListExpr);
  if (!List)
    return;
  std::optional<ParameterTie> Tie = ParameterSharingAnalysis::firstTie(*List);
  if (!Tie) {
    if (!ModuleLoop)
      checkHolderCopy(Sink, ListExpr, Name, Function, AST);
    return;
  }
  // A filled container is repaired at the fill, once; any other list by
  // de-duplicating it.
  std::optional<FixItHint> Fix;
  bool Filled = Tie->K == ParameterTie::Kind::FilledElement;
  if (Filled && FixedFills.insert(fillSiteOf(*Tie)).second)
    Fix = distinctConstruction(fillSiteOf(*Tie), AST);
  else if (!Filled && Kind != SinkKind::UpdateLoop && !ModuleLoop)
    Fix = deduplicate(ListExpr, AST);
  std::string Hint =
      Fix && !Filled ? std::string() : repairHint(*Tie, ModuleLoop);
  std::string Also = Tie->Parameter == Tie->OtherParameter
                         ? std::string()
                         : " (also as '" + Tie->OtherParameter + "')";
  std::string Parameter = nameOr(Tie->Parameter, "?");
  SourceLocation Loc = Sink->getExprLoc();
  {
    auto Diag =
        Kind == SinkKind::UpdateLoop || ModuleLoop
            ? diag(Loc,
                   "'%0' updates parameter '%1' in place twice per pass "
                   "over %select{the list|modules()}3%2; %select{the list "
                   "holds it twice|the modules it visits hold it twice}3%4")
            : diag(Loc, "%select{'%0' is built from|'%0' is given|'%0' is "
                        "given}3 a list that holds parameter '%1' twice%2; "
                        "%select{each step() updates it twice|each step() "
                        "updates it twice|the total norm counts it twice and "
                        "its gradient is scaled twice}3%4");
    unsigned Which = Kind == SinkKind::UpdateLoop || ModuleLoop
                         ? static_cast<unsigned>(ModuleLoop)
                         : static_cast<unsigned>(Kind);
    Diag << Name << Parameter << Also << Which << Hint;
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

// Note [De-duplicating fix-it]
// Wrapping the list in torchalias::unique_parameters keeps each tensor once,
// in first-seen order, which is what Python's optimizer would have built. It
// needs the runtime library, so it is offered only when IsolationHelper is
// `torchalias`, and only for a list of tensors (a list of parameter groups
// has no single place to wrap).
std::optional<FixItHint>
SharedParameterUpdateCheck::deduplicate(const Expr *List, ASTContext &AST) {
  if (Isolation != IsolationHelper::Torchalias || !isTensorListType(List->getType()))
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

namespace {
/// Whether evaluating Value again constructs another module: a construction
/// (`Linear(4, 4)`, `Net()`, `std::make_shared<NetImpl>()`) whose arguments
/// are neither modules nor have side effects. A named handle (`shared`,
/// `Linear(shared)`) evaluates to the same module every time.
bool constructsFreshModule(const Expr *Value, const ASTContext &AST) {
  const Expr *E = skipModuleHandleCopies(Value);
  llvm::ArrayRef<const Expr *> Args;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    Args = llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs());
  } else if (const auto *Call = dyn_cast<CallExpr>(E);
             Call && Call->getDirectCallee() &&
             Call->getDirectCallee()->isInStdNamespace() &&
             Call->getDirectCallee()->getIdentifier() &&
             Call->getDirectCallee()->getName() == "make_shared") {
    Args = llvm::ArrayRef(Call->getArgs(), Call->getNumArgs());
  } else {
    return false;
  }
  return llvm::none_of(Args, [&](const Expr *Arg) {
    return Arg->getType()->isNullPtrType() || moduleImplOf(Arg->getType()) ||
           Arg->HasSideEffects(AST, /*IncludePossibleEffects=*/false);
  });
}

/// Whether S, below Body, is a statement of a block: not the condition or
/// initializer of another statement, where a loop cannot be inserted.
bool isBlockStatement(const Stmt *Body,
                      llvm::function_ref<bool(const Stmt *)> IsIt) {
  if (!Body)
    return false;
  if (isa<CompoundStmt>(Body) && llvm::any_of(Body->children(), IsIt))
    return true;
  return llvm::any_of(Body->children(), [&](const Stmt *Child) {
    return isBlockStatement(Child, IsIt);
  });
}

/// The first of Candidates that is no word of Text.
std::optional<std::string>
unusedName(llvm::StringRef Text, llvm::ArrayRef<llvm::StringRef> Candidates) {
  llvm::StringSet<> Used;
  std::string Word;
  for (char C : Text.str() + " ") {
    if (isAlphanumeric(C) || C == '_') {
      Word += C;
      continue;
    }
    Used.insert(Word);
    Word.clear();
  }
  for (llvm::StringRef Candidate : Candidates)
    if (!Used.contains(Candidate))
      return Candidate.str();
  return std::nullopt;
}
} // namespace

// Note [Distinct construction fix-it]
// `std::vector<Linear> v(n, Linear(4, 4))` copies one handle n times. The fix
// declares the container empty and constructs a module per element:
//   std::vector<Linear> v;
//   for (std::size_t i = 0, count = n; i < count; ++i)
//     v.push_back(Linear(4, 4));
// and `v.assign(n, Linear(4, 4))` becomes `v.clear();` and the same loop.
// The count is evaluated once, before the loop, as the fill evaluated it
// (a constant is used as it is), and converted to std::size_t as the
// container's size_type would be. The loop's names are chosen among words
// the count and the value do not use. Offered only where it is the same
// program but for distinct modules: the value is a construction (see
// constructsFreshModule), the container is a non-const local declared alone,
// the fill is a statement of a block, and nothing is in a macro. The
// container keeps its name and type, so its other uses stay valid.
std::optional<FixItHint>
SharedParameterUpdateCheck::distinctConstruction(const Expr *FillSite,
                                                 ASTContext &AST) {
  const ParameterSharingAnalysis::ContainerFill *Fill =
      analysis(AST).fillAt(FillSite);
  if (!Fill || !constructsFreshModule(Fill->Value, AST))
    return std::nullopt;
  const VarDecl *Var = Fill->Container;
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
  if (!Function || Var->getType().isConstQualified() || !Var->hasLocalStorage())
    return std::nullopt;
  bool Assign = isa<CXXMemberCallExpr>(FillSite);
  bool InBlock = isBlockStatement(Function->getBody(), [&](const Stmt *S) {
    if (Assign)
      return isa<Expr>(S) && cast<Expr>(S)->IgnoreImplicit() == FillSite;
    const auto *Decl = dyn_cast<DeclStmt>(S);
    return Decl && Decl->isSingleDecl() && Decl->getSingleDecl() == Var;
  });
  if (!InBlock || (!Assign && Var->getInitStyle() != VarDecl::CallInit))
    return std::nullopt;
  SourceLocation Begin = Assign ? FillSite->getBeginLoc() : Var->getLocation();
  SourceLocation End = FillSite->getEndLoc();
  if (Begin.isMacroID() || End.isMacroID() ||
      Fill->Value->getBeginLoc().isMacroID() ||
      Fill->Count->getBeginLoc().isMacroID())
    return std::nullopt;

  const SourceManager &SM = AST.getSourceManager();
  std::string Count = sourceText(Fill->Count, AST);
  std::string Value = sourceText(Fill->Value, AST);
  std::string Name = Var->getName().str();
  std::string Words = Count + " " + Value;
  std::optional<std::string> Index = unusedName(Words, {"i", "j", "k"});
  std::optional<std::string> Bound = unusedName(Words, {"count", "n", "size"});
  if (Count.empty() || Value.empty() || !Index || !Bound ||
      !unusedName(Words, {Name}))
    return std::nullopt;
  std::string Header = "for (std::size_t " + *Index + " = 0";
  if (Fill->Count->isIntegerConstantExpr(AST))
    Header += "; " + *Index + " < " + Count;
  else
    Header += ", " + *Bound + " = " + Count + "; " + *Index + " < " + *Bound;
  Header += "; ++" + *Index + ")";
  std::string Indent =
      Lexer::getIndentationForLine(Assign ? Begin : Var->getBeginLoc(), SM)
          .str();
  std::string Loop =
      Header + "\n" + Indent + "  " + Name + ".push_back(" + Value + ")";
  // The statement's own `;` ends the loop's body.
  SourceLocation AfterEnd =
      Lexer::getLocForEndOfToken(End, 0, SM, AST.getLangOpts());
  if (Assign)
    return FixItHint::CreateReplacement(
        CharSourceRange::getCharRange(Begin, AfterEnd),
        Name + ".clear();\n" + Indent + Loop);
  return FixItHint::CreateReplacement(
      CharSourceRange::getCharRange(
          Lexer::getLocForEndOfToken(Begin, 0, SM, AST.getLangOpts()),
          AfterEnd),
      ";\n" + Indent + Loop);
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
    if (std::optional<FixItHint> Fix = distinctConstruction(FillSite, AST))
      Diag << *Fix;
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
    const Expr *Fill = fillSiteOf(Tie);
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
          SinkKind Kind = SinkKind::UpdateLoop;
          if (RangeFor) {
            const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Target);
            if (Ref && Ref->getDecl() == RangeFor->getLoopVariable()) {
              List = RangeFor->getRangeInit();
              Parameter = Ref->getDecl();
              if (analysis(AST).moduleLoopParameters(List))
                Kind = SinkKind::ModuleLoop;
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
          checkSink(Call, List, Kind, Tensor->Spelling, Function, AST);
          return true;
        }
      }
    }
    return llvm::any_of(S->children(), Visit);
  };
  Visit(Body);
}

// Note [Clone fix-it]
// `auto target = online;` copies a shared_ptr. The fix replaces the copied
// handle with a deep copy of the module: `clone()` (offered only when the
// module class is Cloneable, since Module::clone() throws otherwise), cast
// back to the module's type, or torchalias::deep_clone, which does the same
// and keeps the holder's type. For `=` initialisation the cast is wrapped in
// the holder's type; a member initializer (`target(online)`) initialises
// directly, so the cast alone will do. Not inside macros.
std::optional<FixItHint>
SharedParameterUpdateCheck::cloneAtCopy(const Expr *Init, QualType Type,
                                        bool DirectInit, ASTContext &AST) {
  const CXXRecordDecl *Impl = moduleImplOf(Type);
  const CXXRecordDecl *Holder = Type->getAsCXXRecordDecl();
  // The copied handle: `online` in `auto target = online` or `target(online)`.
  const Expr *Source = Init->IgnoreImplicit();
  if (const auto *Copy = dyn_cast<CXXConstructExpr>(Source);
      Copy && Copy->getNumArgs() == 1)
    Source = Copy->getArg(0)->IgnoreImplicit();
  if (!Holder || !Impl || Source->getBeginLoc().isMacroID() ||
      Source->getEndLoc().isMacroID())
    return std::nullopt;
  bool Cloneable = llvm::any_of(Impl->bases(), [](const CXXBaseSpecifier &B) {
    const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl();
    return Base && Base->getIdentifier() && Base->getName() == "Cloneable" &&
           isLibtorchDecl(Base);
  });
  if (!Cloneable)
    return std::nullopt;
  std::string Text = sourceText(Source, AST);
  std::string Cast = "std::dynamic_pointer_cast<" +
                     Impl->getQualifiedNameAsString() + ">(" + Text +
                     "->clone())";
  std::string Replacement;
  bool IsHolder = isModuleHolderType(Type);
  if (Isolation == IsolationHelper::Torchalias && IsHolder &&
      isModuleHolderType(Source->getType()))
    Replacement = "torchalias::deep_clone(" + Text + ")";
  else if (DirectInit || !IsHolder)
    Replacement = Cast;
  else if (!isa<ClassTemplateSpecializationDecl>(Holder))
    Replacement = Holder->getQualifiedNameAsString() + "(" + Cast + ")";
  if (Text.empty() || Replacement.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Source->getSourceRange()), Replacement);
}

void SharedParameterUpdateCheck::reportHolderCopy(
    const Expr *Sink, llvm::StringRef Name, llvm::StringRef Original,
    llvm::StringRef Copy, llvm::StringRef Via, SourceLocation CopySite,
    std::optional<FixItHint> Fix, ASTContext &AST) {
  {
    auto Diag =
        diag(Sink->getExprLoc(),
             "'%0' updates the parameters of '%1', and '%2' is a copy of its "
             "ModuleHolder, not of the module: '%2' changes with every update")
        << Name << Original << Copy;
    if (Fix) {
      Diag << *Fix;
      if (compat::startsWith(Fix->CodeToInsert, "torchalias::"))
        Diag << Includes.createIncludeInsertion(
            AST.getSourceManager().getFileID(Fix->RemoveRange.getBegin()),
            ParametersHeader);
    }
  } // The warning is emitted before its note.
  diag(CopySite,
       "'%0' shares the module of '%1' from here%select{|: both are "
       "copies of '%3'}2",
       DiagnosticIDs::Note)
      << Copy << Original << !Via.empty() << Via;
}

namespace {
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
/// `target(online)`, or `online(n), target(n)`.
struct MemberCopy {
  const FieldDecl *Copy = nullptr, *Original = nullptr;
  const CXXCtorInitializer *CopyInit = nullptr;
  const ValueDecl *Via = nullptr; ///< `n`, when both copy a third handle.
};

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
  return std::nullopt;
}
} // namespace

bool SharedParameterUpdateCheck::checkMemberCopy(const Expr *Sink,
                                                 const MemberExpr *Updated,
                                                 llvm::StringRef Name,
                                                 const FunctionDecl *Function,
                                                 ASTContext &AST) {
  const auto *Field = dyn_cast<FieldDecl>(Updated->getMemberDecl());
  std::optional<MemberCopy> Copy = Field ? findMemberCopy(Field) : std::nullopt;
  if (!Copy)
    return false;
  // The other member must be used: after the sink in this function (Note
  // [Used after the update]), or in another method of the class.
  const FieldDecl *Other = Copy->Copy == Field ? Copy->Original : Copy->Copy;
  HolderCopyFinder Finder;
  Finder.TraverseStmt(const_cast<Stmt *>(Function->getBody()));
  UsesAfterSink After(Function->getBody(), Sink, AST.getSourceManager());
  bool Used = llvm::any_of(Finder.References.lookup(Other),
                           [&](const Expr *Use) { return After.isAfter(Use); });
  for (const CXXMethodDecl *Method :
       cast<CXXRecordDecl>(Field->getParent())->methods()) {
    const FunctionDecl *Definition = nullptr;
    if (!Used && Method->hasBody(Definition) &&
        Definition->getCanonicalDecl() != Function->getCanonicalDecl())
      Used = mentions(Definition->getBody(), Other);
  }
  if (!Used)
    return false;
  reportHolderCopy(Sink, Name, Copy->Original->getName(), Copy->Copy->getName(),
                   Copy->Via ? Copy->Via->getName() : llvm::StringRef(),
                   Copy->CopyInit->getSourceLocation(),
                   cloneAtCopy(Copy->CopyInit->getInit(), Copy->Copy->getType(),
                               /*DirectInit=*/true, AST),
                   AST);
  return true;
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
  // The handle the list is taken from: `online` in `online->parameters()`.
  const Expr *Listed = nullptr;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(skipModuleHandleCopies(
          List->empty() ? ListExpr : List->front().Route.front().Site)))
    Listed = skipModuleHandleCopies(Call->getImplicitObjectArgument());
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(Listed))
    if (checkMemberCopy(Sink, Member, Name, Function, AST))
      return true;
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
  const auto *ListedRef = dyn_cast_or_null<DeclRefExpr>(Listed);
  const ValueDecl *Named = ListedRef ? ListedRef->getDecl() : nullptr;
  HolderCopyFinder Finder;
  Finder.TraverseStmt(const_cast<Stmt *>(Function->getBody()));
  UsesAfterSink After(Function->getBody(), Sink, AST.getSourceManager());
  for (const HolderCopy &Copy : Finder.Copies) {
    if (isCopiedInWorker(Copy.Copy, Function))
      continue;
    std::optional<ModuleValue> Original =
        analysis(AST).moduleValue(skipModuleHandleCopies(Copy.Copy->getInit()));
    if (!Original || !(Original->Identity == Updated))
      continue;
    // Both handles must be used apart from the copy itself: one is updated,
    // the other read as if it were an independent model, after the update
    // (Note [Used after the update]).
    auto UsedElsewhere = [&](const ValueDecl *Decl) {
      return llvm::any_of(Finder.References.lookup(Decl), [&](const Expr *Ref) {
        return !containsExpr(Copy.Copy->getInit(), Ref);
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
    std::optional<FixItHint> Fix;
    if (Copy.Copy->getInitStyle() == VarDecl::CInit)
      Fix = cloneAtCopy(Copy.Copy->getInit(), Copy.Copy->getType(),
                        /*DirectInit=*/false, AST);
    reportHolderCopy(Sink, Name, Copy.Original->getName(), Copy.Copy->getName(),
                     "", Copy.Copy->getInit()->getExprLoc(), Fix, AST);
    return true;
  }
  return false;
}

/// Whether A and B are the same expression, spelled alike up to implicit
/// nodes: `gpt->tok_emb->weight` twice.
static bool isSameExpression(const Expr *A, const Expr *B,
                             const ASTContext &AST) {
  llvm::FoldingSetNodeID IdA, IdB;
  A->IgnoreParenImpCasts()->Profile(IdA, AST, /*Canonical=*/true);
  B->IgnoreParenImpCasts()->Profile(IdB, AST, /*Canonical=*/true);
  return IdA == IdB;
}

// Note [Assigning a member the tensor it holds]
// `m->weight = assign(m->weight, w)`, where `assign` copies `w` into its
// argument and returns it, binds the member to the tensor it already holds:
// the registration still names the same tensor, so there is nothing to
// re-register. The right-hand side is followed through every call that
// returns its argument's handle unchanged (in-place operators, and functions
// of the translation unit whose summary says so) and compared with the
// member. A view of the member (`w = w.t()`) is another tensor and is still
// reported.
bool SharedParameterUpdateCheck::assignsHeldTensor(
    const CXXOperatorCallExpr *Assign, ASTContext &AST) {
  const Expr *Value = skipHandleCopies(Assign->getArg(1));
  while (const auto *Call = dyn_cast_or_null<CallExpr>(Value)) {
    const Expr *Returned = aliasContext(AST).returnedArgument(Call);
    if (!Returned)
      break;
    Value = skipHandleCopies(Returned);
  }
  return Value && isSameExpression(Value, Assign->getArg(0), AST);
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
  if (assignsHeldTensor(Assign, AST))
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
  if (Analysis) {
    for (const CXXRecordDecl *Impl : ModuleClasses)
      checkModuleClass(Impl, Analysis->ast());
    for (const Expr *Fill : Fills)
      reportFill(Fill, Analysis->ast());
  }
  ModuleClasses.clear();
  Fills.clear();
  FixedFills.clear();
  NotedSites.clear();
  Analysis.reset();
}

} // namespace clang::tidy::libtorch
