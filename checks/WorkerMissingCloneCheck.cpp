//===- WorkerMissingCloneCheck.cpp - libtorch-worker-missing-clone --------===//

#include "WorkerMissingCloneCheck.h"

#include "clang-tidy/utils/OptionsUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

#include <functional>

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

/// Calls after which a worker has finished.
static constexpr llvm::StringLiteral JoinMethods[] = {"join", "get", "wait"};

static constexpr llvm::StringRef FunctionId = "function";
static constexpr llvm::StringRef IsolateHeader = "<torchalias/isolate.h>";

namespace {

/// A tensor the spawner hands to a worker.
struct SharedTensor {
  const ValueDecl *Root = nullptr;
  std::string Name;
  const Expr *Argument = nullptr;       ///< a by-value argument
  const LambdaCapture *Capture = nullptr; ///< or a capture
  const ParmVarDecl *BoundParam = nullptr; ///< the bound function's parameter
};

/// How a shared tensor races.
enum class Race { WorkerWrites, SpawnerWrites, ChunksWrite };

struct WorkerRace {
  const WorkerSpawn *Spawn;
  SharedTensor Shared;
  Race Kind;
  const WriteEvent *Write;
  const Stmt *Use = nullptr; ///< the spawner's later use, for WorkerWrites
};

bool within(const SourceManager &SM, SourceLocation L, SourceRange R) {
  return R.isValid() && !SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
         !SM.isBeforeInTranslationUnit(R.getEnd(), L);
}

/// Finds the races between a spawner and its workers in one function.
///
/// Problem: a tensor passed to a thread shares its storage with the spawner's
/// handle; an in-place write on either side is seen, unordered, by the other.
///
/// Simplification: ordering is source order within the spawning function.
/// A spawner's use or write after the spawn is unordered unless a `join()`,
/// `get()` or `wait()` call comes between, or a `lock_guard`, `unique_lock` or
/// `scoped_lock` is declared earlier in a scope enclosing the write. Tensor
/// values are those of the alias analysis at their declaration, so a variable
/// reassigned after the spawn keeps its first value.
///
/// Limitation: joins in other functions, condition variables and atomics are
/// not seen; a loop that spawns and joins in one iteration is treated like
/// straight-line code.
class WorkerRaceFinder {
public:
  WorkerRaceFinder(const FunctionAliasAnalysis &Analysis,
                   const WorkerEntryPoints &Workers,
                   llvm::function_ref<const FunctionAliasAnalysis *(
                       const FunctionDecl *)>
                       AnalyzeCallee)
      : Analysis(Analysis), Workers(Workers), AnalyzeCallee(AnalyzeCallee) {}

  void run(const FunctionDecl *Function);

  std::vector<std::unique_ptr<WorkerSpawn>> Spawns;
  std::vector<WorkerRace> Races;

private:
  void collect(const Stmt *S);
  std::vector<SharedTensor> sharedTensors(const WorkerSpawn &Spawn) const;
  bool isPartitioned(const WriteEvent &Write, const LambdaExpr *Body) const;
  bool isLocked(const Stmt *S) const;
  bool joinedBetween(SourceLocation From, SourceLocation To) const;
  const Stmt *useAfter(const WorkerSpawn &Spawn, const ValueDecl *Root) const;

  const FunctionAliasAnalysis &Analysis;
  const WorkerEntryPoints &Workers;
  llvm::function_ref<const FunctionAliasAnalysis *(const FunctionDecl *)>
      AnalyzeCallee;
  const SourceManager *SM = nullptr;
  AliasEnvironment Environment;
  std::vector<const CompoundStmt *> Compounds;
  /// Lock guards and the scope they hold the lock for.
  std::vector<std::pair<SourceLocation, SourceRange>> Locks;
  std::vector<const CallExpr *> Joins;
  std::vector<std::pair<const ValueDecl *, const DeclRefExpr *>> References;
};

void WorkerRaceFinder::collect(const Stmt *S) {
  if (!S)
    return;
  if (const auto *Compound = dyn_cast<CompoundStmt>(S))
    Compounds.push_back(Compound);
  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    for (const auto *D : Decl->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D)) {
        std::string Type = Var->getType().getAsString();
        if (!Compounds.empty() &&
            (llvm::StringRef(Type).contains("lock_guard") ||
             llvm::StringRef(Type).contains("unique_lock") ||
             llvm::StringRef(Type).contains("scoped_lock")))
          Locks.push_back({Var->getLocation(), Compounds.back()->getSourceRange()});
        if (Var->getInit() && isTensorType(Var->getType())) {
          AliasValue Value = Analysis.evaluate(Var->getInit(), Environment);
          if (!Value.Root && !Value.isView())
            Value.Root = Var;
          Environment[Var] = Value;
        }
      }
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S))
    for (const LambdaCapture &Capture : Lambda->captures())
      if (Capture.capturesVariable())
        if (const auto *Var = dyn_cast<VarDecl>(Capture.getCapturedVar());
            Var && Var->isInitCapture() && Var->getInit() &&
            isTensorType(Var->getType()))
          Environment[Var] = Analysis.evaluate(Var->getInit(), Environment);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl())) {
      auto It = Environment.find(Var);
      References.push_back(
          {It != Environment.end() && It->second.Root ? It->second.Root : Var,
           Ref});
    }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S))
    if (const CXXMethodDecl *Method = Member->getMethodDecl();
        Method && Method->getIdentifier() &&
        llvm::is_contained(JoinMethods, Method->getName()) &&
        !isTensorType(Member->getImplicitObjectArgument()->getType()))
      Joins.push_back(Member);
  if (isa<CallExpr, CXXConstructExpr>(S))
    if (std::optional<WorkerSpawn> Spawn = Workers.match(cast<Expr>(S)))
      Spawns.push_back(std::make_unique<WorkerSpawn>(std::move(*Spawn)));
  for (const Stmt *Child : S->children())
    collect(Child);
  if (isa<CompoundStmt>(S))
    Compounds.pop_back();
}

std::vector<SharedTensor>
WorkerRaceFinder::sharedTensors(const WorkerSpawn &Spawn) const {
  std::vector<SharedTensor> Shared;
  auto RootOf = [&](const Expr *E) {
    AliasValue Value = Analysis.evaluate(E, Environment);
    return Value.Root;
  };
  for (unsigned I = 0; I < Spawn.BoundArgs.size(); ++I) {
    const Expr *Arg = Spawn.BoundArgs[I];
    if (!isTensorType(Arg->getType()))
      continue;
    SharedTensor T;
    T.Root = RootOf(Arg);
    T.Argument = Arg;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(skipHandleCopies(Arg)))
      T.Name = Ref->getDecl()->getName().str();
    if (Spawn.Bound && Spawn.Bound->getDefinition() &&
        I < Spawn.Bound->getDefinition()->getNumParams())
      T.BoundParam = Spawn.Bound->getDefinition()->getParamDecl(I);
    if (T.Root)
      Shared.push_back(T);
  }
  if (Spawn.Lambda)
    for (const LambdaCapture &Capture : Spawn.Lambda->captures()) {
      if (!Capture.capturesVariable())
        continue;
      const auto *Var = dyn_cast<VarDecl>(Capture.getCapturedVar());
      if (!Var || !isTensorType(Var->getType()))
        continue;
      SharedTensor T;
      auto It = Environment.find(Var);
      T.Root = It != Environment.end() && It->second.Root ? It->second.Root
                                                          : Var;
      T.Capture = &Capture;
      T.Name = Var->getName().str();
      Shared.push_back(T);
    }
  return Shared;
}

bool WorkerRaceFinder::isPartitioned(const WriteEvent &Write,
                                     const LambdaExpr *Body) const {
  // Note [Partitioned chunks]: a view whose indices come from the chunk's
  // range (`out.select(0, i)` for `i` in `[begin, end)`) is written by one
  // chunk only. Any variable declared in the body counts as such an index.
  const Expr *Site = Write.Value.AliasSite;
  if (!Write.Value.isView() || !Site ||
      !within(*SM, Site->getBeginLoc(), Body->getSourceRange()))
    return false;
  bool UsesLocal = false;
  std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
    if (!S || UsesLocal)
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (isa<VarDecl>(Ref->getDecl()) &&
          within(*SM, Ref->getDecl()->getLocation(), Body->getSourceRange()) &&
          !isTensorType(Ref->getType()))
        UsesLocal = true;
    for (const Stmt *Child : S->children())
      Visit(Child);
  };
  Visit(Site);
  return UsesLocal;
}

bool WorkerRaceFinder::isLocked(const Stmt *S) const {
  return llvm::any_of(Locks, [&](const auto &Lock) {
    return SM->isBeforeInTranslationUnit(Lock.first, S->getBeginLoc()) &&
           within(*SM, S->getBeginLoc(), Lock.second);
  });
}

bool WorkerRaceFinder::joinedBetween(SourceLocation From,
                                     SourceLocation To) const {
  return llvm::any_of(Joins, [&](const CallExpr *Join) {
    return SM->isBeforeInTranslationUnit(From, Join->getBeginLoc()) &&
           SM->isBeforeInTranslationUnit(Join->getBeginLoc(), To);
  });
}

const Stmt *WorkerRaceFinder::useAfter(const WorkerSpawn &Spawn,
                                       const ValueDecl *Root) const {
  SourceRange Own = Spawn.Site->getSourceRange();
  for (const auto &[Referenced, Ref] : References) {
    if (Referenced != Root || within(*SM, Ref->getLocation(), Own) ||
        !SM->isBeforeInTranslationUnit(Own.getEnd(), Ref->getLocation()))
      continue;
    if (joinedBetween(Own.getEnd(), Ref->getLocation()))
      return nullptr;
    return Ref;
  }
  return nullptr;
}

void WorkerRaceFinder::run(const FunctionDecl *Function) {
  SM = &Function->getASTContext().getSourceManager();
  collect(Function->getBody());
  for (const auto &Spawn : Spawns) {
    SourceRange Range = Spawn->Site->getSourceRange();
    for (const SharedTensor &Shared : sharedTensors(*Spawn)) {
      // The worker writes the shared tensor.
      std::vector<const WriteEvent *> WorkerWrites;
      if (Spawn->Lambda) {
        for (const WriteEvent &Write : Analysis.writes())
          if (Write.Value.Root == Shared.Root &&
              within(*SM, Write.Call->getBeginLoc(),
                     Spawn->Lambda->getSourceRange()))
            WorkerWrites.push_back(&Write);
      } else if (Shared.BoundParam) {
        if (const FunctionAliasAnalysis *Callee = AnalyzeCallee(
                cast<FunctionDecl>(Shared.BoundParam->getDeclContext())))
          for (const WriteEvent &Write : Callee->writes())
            if (Write.Value.Root == Shared.BoundParam)
              WorkerWrites.push_back(&Write);
      }
      bool Reported = false;
      for (const WriteEvent *Write : WorkerWrites) {
        if (isLocked(Write->Call))
          continue;
        if (Spawn->Kind == WorkerKind::Partitioned) {
          if (!Spawn->Lambda || isPartitioned(*Write, Spawn->Lambda))
            continue;
          Races.push_back({Spawn.get(), Shared, Race::ChunksWrite, Write});
          Reported = true;
          break;
        }
        if (const Stmt *Use = useAfter(*Spawn, Shared.Root)) {
          Races.push_back(
              {Spawn.get(), Shared, Race::WorkerWrites, Write, Use});
          Reported = true;
          break;
        }
      }
      if (Reported || Spawn->Kind == WorkerKind::Partitioned)
        continue;
      // The spawner writes the shared tensor before joining.
      for (const WriteEvent &Write : Analysis.writes()) {
        if (Write.Value.Root != Shared.Root ||
            !SM->isBeforeInTranslationUnit(Range.getEnd(),
                                           Write.Call->getBeginLoc()) ||
            llvm::any_of(Spawns, [&](const auto &Other) {
              return Other->Lambda &&
                     within(*SM, Write.Call->getBeginLoc(),
                            Other->Lambda->getSourceRange());
            }) ||
            isLocked(Write.Call) ||
            joinedBetween(Range.getEnd(), Write.Call->getBeginLoc()))
          continue;
        Races.push_back({Spawn.get(), Shared, Race::SpawnerWrites, &Write});
        break;
      }
    }
  }
}

} // namespace

WorkerMissingCloneCheck::WorkerMissingCloneCheck(StringRef Name,
                                                 ClangTidyContext *Context)
    : AliasCheckBase(Name, Context),
      RawWorkerEntryPoints(
          Options.get("WorkerEntryPoints", DefaultWorkerEntryPoints)),
      Workers(utils::options::parseStringList(RawWorkerEntryPoints)),
      IsolationHelper(Options.get("IsolationHelper", "clone")),
      Inserter(Options.getLocalOrGlobal("IncludeStyle",
                                        utils::IncludeSorter::IS_LLVM),
               areDiagsSelfContained()) {}

void WorkerMissingCloneCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  AliasCheckBase::storeOptions(Opts);
  Options.store(Opts, "WorkerEntryPoints", RawWorkerEntryPoints);
  Options.store(Opts, "IsolationHelper", IsolationHelper);
  Options.store(Opts, "IncludeStyle", Inserter.getStyle());
}

void WorkerMissingCloneCheck::registerPPCallbacks(
    const SourceManager &, Preprocessor *PP, Preprocessor *) {
  Inserter.registerPreprocessor(PP);
}

void WorkerMissingCloneCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(analyzableFunction().bind(FunctionId), this);
}

// Note [Isolating fix-it]
// The fix-it isolates the tensor where it is handed over: `.clone()` on a
// by-value argument or an init-capture's initializer, `[x = x.clone()]` for an
// explicit by-value capture. A by-reference capture gets none: the author may
// want the worker's result. With IsolationHelper=torchalias the copy is
// `torchalias::isolate(x)` from the runtime, and its header is included.
void WorkerMissingCloneCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  const FunctionAliasAnalysis *Analysis =
      analyze(Function, *Result.Context, /*RequireWrites=*/false);
  if (!Analysis)
    return;
  auto AnalyzeCallee = [&](const FunctionDecl *Callee) {
    return analyze(Callee, *Result.Context, /*RequireWrites=*/false);
  };
  WorkerRaceFinder Finder(*Analysis, Workers, AnalyzeCallee);
  Finder.run(Function);

  const SourceManager &SM = *Result.SourceManager;
  bool Isolate = IsolationHelper == "torchalias";
  auto Text = [&](const Expr *E) {
    return Lexer::getSourceText(
               CharSourceRange::getTokenRange(E->getSourceRange()), SM,
               getLangOpts())
        .str();
  };
  for (const WorkerRace &R : Finder.Races) {
    const SharedTensor &S = R.Shared;
    const Expr *Copied = S.Argument;
    if (S.Capture && S.Capture->capturesVariable())
      if (const auto *Var = dyn_cast<VarDecl>(S.Capture->getCapturedVar());
          Var && Var->isInitCapture())
        Copied = Var->getInit();
    SourceLocation Loc = S.Capture ? S.Capture->getLocation()
                                   : S.Argument->getBeginLoc();
    llvm::SmallVector<FixItHint, 2> Fixes;
    if (Copied && !Copied->getBeginLoc().isMacroID() &&
        !Copied->getEndLoc().isMacroID()) {
      if (Isolate)
        Fixes.push_back(FixItHint::CreateReplacement(
            Copied->getSourceRange(),
            "torchalias::isolate(" + Text(Copied) + ")"));
      else
        Fixes.push_back(FixItHint::CreateInsertion(
            Lexer::getLocForEndOfToken(Copied->getEndLoc(), 0, SM,
                                       getLangOpts()),
            ".clone()"));
    } else if (S.Capture && S.Capture->getCaptureKind() == LCK_ByCopy &&
               S.Capture->isExplicit() && !Loc.isMacroID()) {
      std::string Copy = Isolate ? "torchalias::isolate(" + S.Name + ")"
                                 : S.Name + ".clone()";
      Fixes.push_back(FixItHint::CreateReplacement(
          CharSourceRange::getTokenRange(Loc, Loc), S.Name + " = " + Copy));
    }
    if (Isolate && !Fixes.empty())
      if (std::optional<FixItHint> Include = Inserter.createIncludeInsertion(
              SM.getFileID(Loc), IsolateHeader))
        Fixes.push_back(*Include);

    unsigned How = S.Capture ? (S.Capture->getCaptureKind() == LCK_ByRef ? 2 : 1)
                             : 0;
    diag(Loc, "%select{|by-value |by-reference }0%select{argument|capture|"
              "capture}0 '%1' shares its storage with worker entry point '%2' "
              "and %select{the worker writes it in place while the spawner "
              "still uses it|the spawner writes it in place before the worker "
              "is joined|every chunk writes it in place, not only its "
              "[begin, end) part}3")
        << How << S.Name << R.Spawn->EntryPoint
        << static_cast<unsigned>(R.Kind) << Fixes;
    diag(R.Write->Call->getExprLoc(), "'%0' writes '%1' in place here",
         DiagnosticIDs::Note)
        << R.Write->Operator << S.Root->getName();
    if (R.Use)
      diag(R.Use->getBeginLoc(), "the spawner uses '%0' here, before any join",
           DiagnosticIDs::Note)
          << S.Root->getName();
  }
}

} // namespace clang::tidy::libtorch
