//===- WorkerMissingCloneCheck.cpp - libtorch-worker-missing-clone --------===//

#include "WorkerMissingCloneCheck.h"

#include "ParameterSharing.h"

#include "clang-tidy/utils/OptionsUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

#include <functional>

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

/// Calls after which a worker has finished.
static constexpr llvm::StringLiteral JoinMethods[] = {"join", "get", "wait"};

static constexpr llvm::StringRef IsolateHeader = "<torchalias/isolate.h>";

namespace {

/// What a worker is handed.
enum class SharedKind {
  Tensor,    ///< A tensor or a view of one.
  Container, ///< A std::vector of tensors.
  Struct,    ///< An object with tensor members (`struct Batch { Tensor x; }`).
  Module,    ///< A ModuleHolder, or a shared_ptr to a module.
};

/// A tensor, or a holder of tensors, that the spawner hands to a worker.
struct SharedValue {
  const ValueDecl *Root = nullptr;
  std::string Name;
  SharedKind Kind = SharedKind::Tensor;
  const Expr *Argument = nullptr;          ///< a by-value argument
  const LambdaCapture *Capture = nullptr;  ///< or a capture
  const ParmVarDecl *BoundParam = nullptr; ///< the bound function's parameter
};

/// An in-place write, or an optimizer step, and the storage it reaches.
struct Update {
  const Expr *Call = nullptr;
  llvm::StringRef Operator;
  /// The write the alias analysis recorded; null for an optimizer step.
  const WriteEvent *Write = nullptr;
  /// What it writes: the written tensor's root, the container or struct
  /// variable that holds it, or the module whose parameters it updates.
  llvm::SmallVector<const ValueDecl *, 2> Roots;
  const FieldDecl *Member = nullptr; ///< The member of a struct written.
  /// The copy of a ModuleHolder (`auto local = global;`) it goes through.
  const VarDecl *HolderCopy = nullptr;
  /// The index of the container element written (`outs[i]`).
  const Expr *ElementIndex = nullptr;
};

/// Where a statement of the spawning function runs: its CFG block and the
/// index of its element there.
using CFGPosition = std::pair<const CFGBlock *, unsigned>;

/// How a shared value races.
enum class Race { WorkerWrites, SpawnerWrites, ChunksWrite };

struct WorkerRace {
  const WorkerSpawn *Spawn;
  SharedValue Shared;
  Race Kind;
  const Update *Write;
  const Stmt *Use = nullptr; ///< the spawner's later use, for WorkerWrites
};

/// Where a tensor lives: the variable at the bottom of its member, element,
/// view and ModuleHolder accesses.
struct TensorPlace {
  const ValueDecl *Base = nullptr;
  const FieldDecl *Member = nullptr; ///< The member of Base reached.
  bool OfModule = false;             ///< Base is a module, the tensor its
                                     ///< parameter.
  const VarDecl *HolderCopy = nullptr;
  const Expr *ElementIndex = nullptr;
};

bool within(const SourceManager &SM, SourceLocation L, SourceRange R) {
  return R.isValid() && !SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
         !SM.isBeforeInTranslationUnit(R.getEnd(), L);
}

const CXXRecordDecl *recordOf(QualType Type) {
  return Type.isNull() ? nullptr
                       : Type.getNonReferenceType()->getAsCXXRecordDecl();
}

/// A user's object whose members are tensors or lists of tensors, or a
/// torch::data::Example. Copying it copies the handles.
bool holdsTensors(QualType Type) {
  const CXXRecordDecl *Record = recordOf(Type);
  if (!Record || !Record->hasDefinition() || Record->isInStdNamespace() ||
      isTensorType(Type) || moduleImplOf(Type))
    return false;
  return llvm::any_of(Record->getDefinition()->fields(),
                      [](const FieldDecl *Field) {
                        return isTensorType(Field->getType()) ||
                               isTensorListType(Field->getType());
                      });
}

std::optional<SharedKind> sharedKind(QualType Type) {
  if (isTensorType(Type))
    return SharedKind::Tensor;
  if (isTensorListType(Type))
    return SharedKind::Container;
  if (moduleImplOf(Type))
    return SharedKind::Module;
  if (holdsTensors(Type))
    return SharedKind::Struct;
  return std::nullopt;
}

/// `opt.step()` on a torch::optim optimizer.
bool isOptimizerStep(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  if (!Method || !Method->getIdentifier() || Method->getName() != "step")
    return false;
  const CXXRecordDecl *Class = Method->getParent();
  bool Optimizer = false;
  auto IsOptimizer = [](const CXXRecordDecl *R) {
    return R->getQualifiedNameAsString() == "torch::optim::Optimizer";
  };
  if (IsOptimizer(Class))
    return true;
  if (Class->hasDefinition())
    Class->forallBases([&](const CXXRecordDecl *Base) {
      Optimizer |= IsOptimizer(Base);
      return true;
    });
  return Optimizer;
}

/// The module parameter list an optimizer variable was built from:
/// `torch::optim::SGD opt(local->parameters(), ...)`.
const Expr *optimizerParameters(const CXXMemberCallExpr *Step) {
  const auto *Ref = dyn_cast<DeclRefExpr>(
      Step->getImplicitObjectArgument()->IgnoreImplicit());
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->getInit())
    return nullptr;
  const auto *Construct =
      dyn_cast<CXXConstructExpr>(Var->getInit()->IgnoreImplicit());
  if (!Construct || Construct->getNumArgs() == 0)
    return nullptr;
  return Construct->getArg(0);
}

/// Finds the races between a spawner and its workers in one function.
///
/// Problem: a tensor passed to a thread shares its storage with the spawner's
/// handle; an in-place write on either side is seen, unordered, by the other.
/// So does a container or struct of tensors (copying it copies handles) and
/// a ModuleHolder (copying it copies a shared_ptr to the module).
///
/// Simplification: a spawner's use or write races the spawn when some path
/// of the spawning function's CFG runs from the spawn to it without passing a
/// join (see Note [Spawner paths]), unless a `lock_guard`, `unique_lock` or
/// `scoped_lock` is declared earlier in a scope enclosing the write. Tensor
/// values are those of the alias analysis at their declaration, so a variable
/// reassigned after the spawn keeps its first value, except that a path
/// through the reassignment does not count. A write reaches a
/// container, struct or module through the syntax of its target: element
/// (`v[i]`), member (`b.images`) and view accesses, range-for variables,
/// references, copies of the holder (`auto local = global;`) and
/// `parameters()`; a tensor taken out of a struct into a variable by value is
/// not followed back to the struct.
///
/// Limitation: joins in other functions, condition variables and atomics are
/// not seen; a loop around a join counts as joining even when it may skip it;
/// statements in lambda bodies other than the worker's, and every statement
/// when the CFG cannot be built, are ordered by source position.
class WorkerRaceFinder {
public:
  WorkerRaceFinder(const FunctionAliasAnalysis &Analysis,
                   const WorkerEntryPoints &Workers, const OperatorTable &Table,
                   llvm::function_ref<const FunctionAliasAnalysis *(
                       const FunctionDecl *)>
                       AnalyzeCallee)
      : Analysis(Analysis), Workers(Workers), Table(Table),
        AnalyzeCallee(AnalyzeCallee) {}

  void run(const FunctionDecl *Function);

  std::vector<std::unique_ptr<WorkerSpawn>> Spawns;
  std::vector<WorkerRace> Races;

private:
  void collect(const Stmt *S);
  std::vector<SharedValue> sharedValues(const WorkerSpawn &Spawn) const;
  std::vector<std::unique_ptr<Update>>
  updatesOf(const FunctionAliasAnalysis &Owner, const Stmt *Body);
  TensorPlace placeOf(const Expr *E, unsigned Depth = 0) const;
  TensorPlace placeOfVariable(const VarDecl *Var, unsigned Depth) const;
  const ValueDecl *rootOfReference(const DeclRefExpr *Ref) const;
  bool isPartitioned(const Update &Write, const LambdaExpr *Body) const;
  bool isLocked(const Stmt *S) const;
  bool joinedBetween(SourceLocation From, SourceLocation To) const;
  void buildPaths(const FunctionDecl *Function);
  std::optional<CFGPosition> positionOf(const Stmt *S) const;
  bool isJoin(const CFGElement &Element) const;
  bool runsUnjoined(const Stmt *Spawn, const Stmt *Later,
                    const ValueDecl *Root) const;
  const Stmt *useAfter(const WorkerSpawn &Spawn, const ValueDecl *Root,
                       const FieldDecl *Member) const;
  bool workerUses(const WorkerSpawn &Spawn, const ValueDecl *Root,
                  const FieldDecl *Member) const;

  const FunctionAliasAnalysis &Analysis;
  const WorkerEntryPoints &Workers;
  const OperatorTable &Table;
  llvm::function_ref<const FunctionAliasAnalysis *(const FunctionDecl *)>
      AnalyzeCallee;
  const SourceManager *SM = nullptr;
  AliasEnvironment Environment;
  std::vector<const CompoundStmt *> Compounds;
  /// Lock guards and the scope they hold the lock for.
  std::vector<std::pair<SourceLocation, SourceRange>> Locks;
  std::vector<const CallExpr *> Joins;
  /// The spawning function's CFG; null when it cannot be built.
  std::unique_ptr<CFG> Graph;
  std::unique_ptr<ParentMap> Parents;
  /// The block and element index of each statement of the CFG.
  llvm::DenseMap<const Stmt *, CFGPosition> Positions;
  /// The declarations and assignments of each variable, as Positions.
  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<CFGPosition, 2>> Rebinds;
  /// Loop headers that a path does not pass unjoined: Note [Join loops].
  llvm::DenseSet<const CFGBlock *> JoinLoopHeaders;
  std::vector<std::pair<const ValueDecl *, const DeclRefExpr *>> References;
  /// References that are the object of a member access (`b.images`).
  llvm::DenseMap<const DeclRefExpr *, const FieldDecl *> MemberOf;
  /// Range-for variables, of this function and of the bound callees, and
  /// their ranges.
  llvm::DenseMap<const VarDecl *, const Expr *> RangeInits;
  /// The updates of this function, lambda bodies included, in source order.
  std::vector<std::unique_ptr<Update>> Updates;
  llvm::DenseMap<const FunctionDecl *, std::vector<std::unique_ptr<Update>>>
      CalleeUpdates;
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
        if (Var->getInit() && (isTensorType(Var->getType()) ||
                               isTensorListType(Var->getType()))) {
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
    if (isa<VarDecl>(Ref->getDecl()))
      References.push_back({rootOfReference(Ref), Ref});
  if (const auto *Member = dyn_cast<MemberExpr>(S))
    if (const auto *Object =
            dyn_cast<DeclRefExpr>(Member->getBase()->IgnoreImplicit()))
      if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
        MemberOf[Object] = Field;
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

const ValueDecl *
WorkerRaceFinder::rootOfReference(const DeclRefExpr *Ref) const {
  const auto *Var = cast<VarDecl>(Ref->getDecl());
  auto It = Environment.find(Var);
  if (It != Environment.end() && It->second.Root)
    return It->second.Root;
  if (isTensorType(Var->getType()))
    return Var;
  TensorPlace Place = placeOfVariable(Var, 0);
  return Place.Base ? Place.Base : Var;
}

/// A variable whose value is another variable's handle, container, struct
/// or ModuleHolder: a reference, or a copy of a named object.
static const Expr *copiedFrom(const VarDecl *Var) {
  if (isa<ParmVarDecl>(Var) || !Var->getInit() ||
      (!Var->hasLocalStorage() && !Var->isInitCapture()))
    return nullptr;
  if (Var->getType()->isReferenceType())
    return Var->getInit();
  if (isTensorType(Var->getType()))
    return nullptr;
  const Expr *Init = skipModuleHandleCopies(Var->getInit());
  return isa<DeclRefExpr, MemberExpr>(Init) ? Init : nullptr;
}

TensorPlace WorkerRaceFinder::placeOfVariable(const VarDecl *Var,
                                              unsigned Depth) const {
  if (Depth < 16) {
    if (auto It = RangeInits.find(Var); It != RangeInits.end())
      return placeOf(It->second, Depth + 1);
    if (const Expr *Source = copiedFrom(Var)) {
      TensorPlace Place = placeOf(Source, Depth + 1);
      if (!Place.HolderCopy && moduleImplOf(Var->getType()) &&
          !Var->getType()->isReferenceType())
        Place.HolderCopy = Var;
      return Place;
    }
  }
  TensorPlace Place;
  Place.Base = Var;
  Place.OfModule = moduleImplOf(Var->getType()) != nullptr;
  return Place;
}

TensorPlace WorkerRaceFinder::placeOf(const Expr *E, unsigned Depth) const {
  TensorPlace Place;
  const FieldDecl *Member = nullptr;
  const Expr *Index = nullptr;
  bool OfModule = false;
  for (; E && Depth < 16; ++Depth) {
    E = OfModule ? skipModuleHandleCopies(E) : skipHandleCopies(E);
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table)) {
        E = Tensor->aliasedArgument();
        if (!E)
          return Place;
        continue;
      }
      const auto *Method =
          dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
      const Expr *Object = nullptr;
      if (const auto *MemberCall = dyn_cast<CXXMemberCallExpr>(Call))
        Object = MemberCall->getImplicitObjectArgument();
      else if (isa<CXXOperatorCallExpr>(Call) && Method)
        Object = Call->getArg(0);
      if (!Method || !Object)
        return Place;
      // `v[i]`, `v.at(i)`: an element of a container of tensors.
      if (isTensorListType(Object->getType())) {
        unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
        if (!Index && Call->getNumArgs() > First)
          Index = Call->getArg(First);
        E = Object;
        continue;
      }
      // `m->parameters()`: the module's own tensors.
      if (Method->getIdentifier() &&
          (Method->getName() == "parameters" ||
           Method->getName() == "buffers") &&
          moduleImplOf(skipModuleHandleCopies(Object)->getType())) {
        OfModule = true;
        Member = nullptr;
        E = Object;
        continue;
      }
      return Place;
    }
    if (const auto *Access = dyn_cast<MemberExpr>(E)) {
      const auto *Field = dyn_cast<FieldDecl>(Access->getMemberDecl());
      if (!Field)
        return Place;
      const Expr *Object = Access->getBase();
      QualType ObjectType = Object->getType();
      if (Access->isArrow() && ObjectType->isPointerType())
        ObjectType = ObjectType->getPointeeType();
      // `local->weight`: a parameter of the module.
      if (moduleImplOf(ObjectType) && !OfModule) {
        OfModule = true;
        Member = nullptr;
        E = Object;
        continue;
      }
      if (Access->isArrow())
        return Place;
      Member = Field;
      E = Object;
      continue;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (!Var)
        return Place;
      Place = placeOfVariable(Var, Depth + 1);
      if (!Place.Member)
        Place.Member = Member;
      if (!Place.ElementIndex)
        Place.ElementIndex = Index;
      Place.OfModule |= OfModule;
      return Place;
    }
    return Place;
  }
  return Place;
}

std::vector<std::unique_ptr<Update>>
WorkerRaceFinder::updatesOf(const FunctionAliasAnalysis &Owner,
                            const Stmt *Body) {
  std::vector<std::unique_ptr<Update>> Result;
  auto Add = [&](const Expr *Call, llvm::StringRef Operator,
                 const WriteEvent *Write, const Expr *Target) {
    auto U = std::make_unique<Update>();
    U->Call = Call;
    U->Operator = Operator;
    U->Write = Write;
    if (Write && Write->Value.Root)
      U->Roots.push_back(Write->Value.Root);
    TensorPlace Place = placeOf(Target);
    if (Place.Base && !llvm::is_contained(U->Roots, Place.Base))
      U->Roots.push_back(Place.Base);
    U->Member = Place.OfModule ? nullptr : Place.Member;
    U->HolderCopy = Place.HolderCopy;
    U->ElementIndex = Place.ElementIndex;
    if (!U->Roots.empty())
      Result.push_back(std::move(U));
  };
  // Range-for variables first: placeOf follows them.
  llvm::DenseMap<const VarDecl *, const Expr *> Ranges = rangeForInits(Body);
  RangeInits.insert(Ranges.begin(), Ranges.end());
  for (const WriteEvent &Write : Owner.writes())
    Add(Write.Call, Write.Operator, &Write, Write.Target);
  std::function<void(const Stmt *)> FindSteps = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
        Call && isOptimizerStep(Call))
      if (const Expr *Parameters = optimizerParameters(Call))
        Add(Call, "step", nullptr, Parameters);
    for (const Stmt *Child : S->children())
      FindSteps(Child);
  };
  FindSteps(Body);
  llvm::sort(Result, [&](const auto &A, const auto &B) {
    return SM->isBeforeInTranslationUnit(A->Call->getBeginLoc(),
                                         B->Call->getBeginLoc());
  });
  return Result;
}

std::vector<SharedValue>
WorkerRaceFinder::sharedValues(const WorkerSpawn &Spawn) const {
  std::vector<SharedValue> Shared;
  for (unsigned I = 0; I < Spawn.BoundArgs.size(); ++I) {
    const Expr *Arg = Spawn.BoundArgs[I];
    std::optional<SharedKind> Kind = sharedKind(Arg->getType());
    if (!Kind)
      continue;
    SharedValue V;
    V.Kind = *Kind;
    V.Root = *Kind == SharedKind::Tensor
                 ? Analysis.evaluate(Arg, Environment).Root
                 : placeOf(Arg).Base;
    V.Argument = Arg;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(
            *Kind == SharedKind::Module ? skipModuleHandleCopies(Arg)
                                        : skipHandleCopies(Arg)))
      V.Name = Ref->getDecl()->getName().str();
    if (Spawn.Bound && Spawn.Bound->getDefinition() &&
        I < Spawn.Bound->getDefinition()->getNumParams())
      V.BoundParam = Spawn.Bound->getDefinition()->getParamDecl(I);
    if (V.Root)
      Shared.push_back(V);
  }
  if (Spawn.Lambda)
    for (const LambdaCapture &Capture : Spawn.Lambda->captures()) {
      if (!Capture.capturesVariable())
        continue;
      const auto *Var = dyn_cast<VarDecl>(Capture.getCapturedVar());
      std::optional<SharedKind> Kind =
          Var ? sharedKind(Var->getType()) : std::nullopt;
      if (!Kind)
        continue;
      SharedValue V;
      V.Kind = *Kind;
      auto It = Environment.find(Var);
      if (It != Environment.end() && It->second.Root)
        V.Root = It->second.Root;
      else if (*Kind == SharedKind::Tensor)
        V.Root = Var;
      else
        V.Root = placeOfVariable(Var, 0).Base;
      V.Capture = &Capture;
      V.Name = Var->getName().str();
      if (V.Root)
        Shared.push_back(V);
    }
  return Shared;
}

bool WorkerRaceFinder::isPartitioned(const Update &Write,
                                     const LambdaExpr *Body) const {
  // Note [Partitioned chunks]: a view or element whose indices come from the
  // chunk's range (`out.select(0, i)`, `outs[i]` for `i` in `[begin, end)`)
  // is written by one chunk only. Any variable declared in the body counts
  // as such an index.
  const Expr *Site = Write.ElementIndex;
  if (!Site && Write.Write && Write.Write->Value.isView())
    Site = Write.Write->Value.AliasSite;
  if (!Site || !within(*SM, Site->getBeginLoc(), Body->getSourceRange()))
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

/// The variable that S gives a fresh value: its declaration, or an assignment
/// to it (a tensor's `=` rebinds the handle).
static const ValueDecl *reboundVariable(const Stmt *S) {
  if (const auto *Decl = dyn_cast<DeclStmt>(S))
    return Decl->isSingleDecl() ? dyn_cast<VarDecl>(Decl->getSingleDecl())
                                : nullptr;
  const Expr *Target = nullptr;
  if (const auto *Assign = dyn_cast<BinaryOperator>(S);
      Assign && Assign->getOpcode() == BO_Assign)
    Target = Assign->getLHS();
  if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
      Assign && Assign->getOperator() == OO_Equal && Assign->getNumArgs() == 2)
    Target = Assign->getArg(0);
  const auto *Ref =
      Target ? dyn_cast<DeclRefExpr>(Target->IgnoreImplicit()) : nullptr;
  return Ref ? Ref->getDecl() : nullptr;
}

/// A thread or future whose destructor may wait for its worker. Only a
/// jthread and a future from std::async do; a future of a packaged_task does
/// not, but is taken to, which can only make the check quieter.
static bool joinsOnDestruction(QualType Type) {
  std::string Name = Type.getCanonicalType().getAsString();
  return llvm::StringRef(Name).contains("jthread") ||
         llvm::StringRef(Name).contains("future<");
}

// Note [Spawner paths]
// A spawner's write or use races a worker when it can run after the spawn
// with no join between. Source order misses loops: a write early in a loop
// body that spawns runs while the previous iteration's worker is still
// running. So ordering follows the paths of the spawning function's CFG, built
// with the options of the alias analysis, plus implicit destructors (a
// jthread's or std::async future's destructor waits, Note [Join loops] for
// loops).
// A path through a declaration or assignment of the shared variable does not
// count: from there the spawner holds a fresh tensor (one per iteration).
// Statements map to their CFG element; a sub-statement without one to its
// nearest ancestor that has one. Statements in a lambda body run when the
// lambda is called, not where it is written: they, and every statement when
// the CFG cannot be built, fall back to source order.
//
// Note [Join loops]
// `for (auto &t : threads) t.join();` joins every worker, but its CFG also
// has the path that skips the body (no threads). A path that reaches the
// header of the innermost loop around a join is taken to have joined.
void WorkerRaceFinder::buildPaths(const FunctionDecl *Function) {
  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  Options.AddImplicitDtors = true;
  Graph = CFG::buildCFG(Function, Function->getBody(),
                        &Function->getASTContext(), Options);
  if (!Graph)
    return;
  Parents = std::make_unique<ParentMap>(Function->getBody());
  for (const CFGBlock *Block : *Graph) {
    unsigned Index = 0;
    for (const CFGElement &Element : *Block) {
      if (auto S = Element.getAs<CFGStmt>()) {
        Positions.try_emplace(S->getStmt(), Block, Index);
        if (const ValueDecl *Var = reboundVariable(S->getStmt()))
          Rebinds[Var].push_back({Block, Index});
      }
      ++Index;
    }
  }
  llvm::DenseSet<const Stmt *> JoinLoops;
  for (const CallExpr *Join : Joins) {
    if (!positionOf(Join))
      continue;
    for (const Stmt *S = Parents->getParent(Join); S; S = Parents->getParent(S))
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S)) {
        JoinLoops.insert(S);
        break;
      }
  }
  for (const CFGBlock *Block : *Graph)
    if (JoinLoops.contains(Block->getTerminatorStmt()))
      JoinLoopHeaders.insert(Block);
}

std::optional<CFGPosition> WorkerRaceFinder::positionOf(const Stmt *S) const {
  if (auto It = Positions.find(S); It != Positions.end())
    return It->second;
  for (const Stmt *Parent = Parents->getParent(S); Parent;
       Parent = Parents->getParent(Parent)) {
    if (isa<LambdaExpr>(Parent))
      return std::nullopt;
    if (auto It = Positions.find(Parent); It != Positions.end())
      return It->second;
  }
  return std::nullopt;
}

bool WorkerRaceFinder::isJoin(const CFGElement &Element) const {
  if (auto S = Element.getAs<CFGStmt>())
    return llvm::is_contained(Joins, S->getStmt());
  if (auto Dtor = Element.getAs<CFGAutomaticObjDtor>())
    return joinsOnDestruction(Dtor->getVarDecl()->getType());
  return false;
}

/// Whether Later can run after Spawn before the worker is joined, and while
/// Root still holds the value the worker was handed.
bool WorkerRaceFinder::runsUnjoined(const Stmt *Spawn, const Stmt *Later,
                                    const ValueDecl *Root) const {
  auto From = Graph ? positionOf(Spawn) : std::nullopt;
  auto To = From ? positionOf(Later) : std::nullopt;
  if (!To)
    return SM->isBeforeInTranslationUnit(Spawn->getEndLoc(),
                                         Later->getBeginLoc()) &&
           !joinedBetween(Spawn->getEndLoc(), Later->getBeginLoc());
  const auto &Rebound = Rebinds.lookup(Root);
  // Scans Block from Index: true at Later, false at a join or a rebinding
  // of Root, nullopt past the end.
  auto Scan = [&](const CFGBlock *Block,
                  unsigned Index) -> std::optional<bool> {
    for (; Index < Block->size(); ++Index) {
      if (CFGPosition(Block, Index) == *To)
        return true;
      if (isJoin((*Block)[Index]) ||
          llvm::is_contained(Rebound, CFGPosition(Block, Index)))
        return false;
    }
    return std::nullopt;
  };
  llvm::SmallVector<const CFGBlock *, 8> Worklist;
  llvm::DenseSet<const CFGBlock *> Seen;
  auto Push = [&](const CFGBlock *Block) {
    for (const CFGBlock::AdjacentBlock &Succ : Block->succs())
      if (const CFGBlock *Next = Succ.getReachableBlock();
          Next && !JoinLoopHeaders.contains(Next) && Seen.insert(Next).second)
        Worklist.push_back(Next);
  };
  if (std::optional<bool> Reached = Scan(From->first, From->second + 1))
    return *Reached;
  Push(From->first);
  while (!Worklist.empty()) {
    const CFGBlock *Block = Worklist.pop_back_val();
    if (std::optional<bool> Reached = Scan(Block, 0)) {
      if (*Reached)
        return true;
      continue;
    }
    Push(Block);
  }
  return false;
}

const Stmt *WorkerRaceFinder::useAfter(const WorkerSpawn &Spawn,
                                       const ValueDecl *Root,
                                       const FieldDecl *Member) const {
  SourceRange Own = Spawn.Site->getSourceRange();
  for (const auto &[Referenced, Ref] : References) {
    if (Referenced != Root || within(*SM, Ref->getLocation(), Own))
      continue;
    // Another member of the struct is not this use.
    if (const FieldDecl *Used = MemberOf.lookup(Ref);
        Member && Used && Used != Member)
      continue;
    if (runsUnjoined(Spawn.Site, Ref, Root))
      return Ref;
  }
  return nullptr;
}

bool WorkerRaceFinder::workerUses(const WorkerSpawn &Spawn,
                                  const ValueDecl *Root,
                                  const FieldDecl *Member) const {
  if (!Member || !Spawn.Lambda)
    return true;
  return llvm::any_of(References, [&](const auto &Reference) {
    const auto &[Referenced, Ref] = Reference;
    const FieldDecl *Used = MemberOf.lookup(Ref);
    return Referenced == Root && (!Used || Used == Member) &&
           within(*SM, Ref->getLocation(), Spawn.Lambda->getSourceRange());
  });
}

void WorkerRaceFinder::run(const FunctionDecl *Function) {
  SM = &Function->getASTContext().getSourceManager();
  collect(Function->getBody());
  if (Spawns.empty())
    return;
  buildPaths(Function);
  Updates = updatesOf(Analysis, Function->getBody());
  auto Reaches = [](const Update &U, const ValueDecl *Root) {
    return llvm::is_contained(U.Roots, Root);
  };
  for (const auto &Spawn : Spawns) {
    for (const SharedValue &Shared : sharedValues(*Spawn)) {
      // The worker writes the shared value.
      std::vector<const Update *> WorkerWrites;
      if (Spawn->Lambda) {
        for (const auto &U : Updates)
          if (Reaches(*U, Shared.Root) &&
              within(*SM, U->Call->getBeginLoc(),
                     Spawn->Lambda->getSourceRange()))
            WorkerWrites.push_back(U.get());
      } else if (Shared.BoundParam) {
        const auto *Callee =
            cast<FunctionDecl>(Shared.BoundParam->getDeclContext());
        if (const FunctionAliasAnalysis *CalleeAnalysis =
                AnalyzeCallee(Callee)) {
          auto &Callees = CalleeUpdates[Callee];
          if (Callees.empty())
            Callees = updatesOf(*CalleeAnalysis, Callee->getBody());
          for (const auto &U : Callees)
            if (Reaches(*U, Shared.BoundParam))
              WorkerWrites.push_back(U.get());
        }
      }
      bool Reported = false;
      for (const Update *Write : WorkerWrites) {
        if (isLocked(Write->Call))
          continue;
        if (Spawn->Kind == WorkerKind::Partitioned) {
          if (!Spawn->Lambda || isPartitioned(*Write, Spawn->Lambda))
            continue;
          Races.push_back({Spawn.get(), Shared, Race::ChunksWrite, Write});
          Reported = true;
          break;
        }
        if (const Stmt *Use = useAfter(*Spawn, Shared.Root, Write->Member)) {
          Races.push_back(
              {Spawn.get(), Shared, Race::WorkerWrites, Write, Use});
          Reported = true;
          break;
        }
      }
      if (Reported || Spawn->Kind == WorkerKind::Partitioned)
        continue;
      // The spawner writes the shared value before joining.
      for (const auto &Write : Updates) {
        if (!Reaches(*Write, Shared.Root) ||
            llvm::any_of(Spawns, [&](const auto &Other) {
              return Other->Lambda &&
                     within(*SM, Write->Call->getBeginLoc(),
                            Other->Lambda->getSourceRange());
            }) ||
            isLocked(Write->Call) ||
            !runsUnjoined(Spawn->Site, Write->Call, Shared.Root) ||
            !workerUses(*Spawn, Shared.Root, Write->Member))
          continue;
        Races.push_back(
            {Spawn.get(), Shared, Race::SpawnerWrites, Write.get()});
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
      Workers(compat::parseStringList(RawWorkerEntryPoints)),
      Isolation(Options.get("IsolationHelper", IsolationHelper::Clone)),
      Inserter(Options.getLocalOrGlobal("IncludeStyle",
                                        utils::IncludeSorter::IS_LLVM)
               TORCHALIAS_SELF_CONTAINED_DIAGS) {}

void WorkerMissingCloneCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  AliasCheckBase::storeOptions(Opts);
  Options.store(Opts, "WorkerEntryPoints", RawWorkerEntryPoints);
  Options.store(Opts, "IsolationHelper", Isolation);
  Options.store(Opts, "IncludeStyle", Inserter.getStyle());
}

void WorkerMissingCloneCheck::registerPPCallbacks(
    const SourceManager &, Preprocessor *PP, Preprocessor *) {
  Inserter.registerPreprocessor(PP);
}

// Note [Isolating fix-it]
// The fix-it isolates the tensor where it is handed over: `.clone()` on a
// by-value argument or an init-capture's initializer, `[x = x.clone()]` for an
// explicit by-value capture. A by-reference capture gets none: the author may
// want the worker's result. With IsolationHelper=torchalias the copy is
// `torchalias::isolate(x)` from the runtime, and its header is included.
// Containers and structs get no fix-it (their elements would each need a
// clone). A worker's copy of a ModuleHolder (`auto local = global;`) becomes
// a deep copy of the module, `Holder(std::dynamic_pointer_cast<Impl>(
// global->clone()))`, when the module is Cloneable.
namespace {

std::string sourceText(const Expr *E, const SourceManager &SM,
                       const LangOptions &LangOpts) {
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(E->getSourceRange()), SM, LangOpts)
      .str();
}

std::optional<FixItHint> isolateTensor(const SharedValue &S, bool Isolate,
                                       const SourceManager &SM,
                                       const LangOptions &LangOpts) {
  const Expr *Copied = S.Argument;
  if (S.Capture && S.Capture->capturesVariable())
    if (const auto *Var = dyn_cast<VarDecl>(S.Capture->getCapturedVar());
        Var && Var->isInitCapture())
      Copied = Var->getInit();
  SourceLocation Loc =
      S.Capture ? S.Capture->getLocation() : S.Argument->getBeginLoc();
  if (Copied && !Copied->getBeginLoc().isMacroID() &&
      !Copied->getEndLoc().isMacroID()) {
    if (Isolate)
      return FixItHint::CreateReplacement(
          Copied->getSourceRange(),
          "torchalias::isolate(" + sourceText(Copied, SM, LangOpts) + ")");
    return appendClone(Copied, SM, LangOpts);
  }
  if (S.Capture && S.Capture->getCaptureKind() == LCK_ByCopy &&
      S.Capture->isExplicit() && !Loc.isMacroID()) {
    std::string Copy = Isolate ? "torchalias::isolate(" + S.Name + ")"
                               : S.Name + ".clone()";
    return FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Loc, Loc), S.Name + " = " + Copy);
  }
  return std::nullopt;
}

std::optional<FixItHint> deepCopyModule(const VarDecl *Copy,
                                        const SourceManager &SM,
                                        const LangOptions &LangOpts) {
  const Expr *Init = Copy->getInit()->IgnoreImplicit();
  const CXXRecordDecl *Impl = moduleImplOf(Copy->getType());
  const CXXRecordDecl *Holder = recordOf(Copy->getType());
  if (Copy->getInitStyle() != VarDecl::CInit || !Impl || !Holder ||
      !isModuleHolderType(Copy->getType()) ||
      isa<ClassTemplateSpecializationDecl>(Holder) ||
      Init->getBeginLoc().isMacroID() || Init->getEndLoc().isMacroID())
    return std::nullopt;
  bool Cloneable = llvm::any_of(Impl->bases(), [](const CXXBaseSpecifier &B) {
    const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl();
    return Base && Base->getIdentifier() && Base->getName() == "Cloneable" &&
           isLibtorchDecl(Base);
  });
  std::string Source = sourceText(Init, SM, LangOpts);
  if (!Cloneable || Source.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Init->getSourceRange()),
      Holder->getQualifiedNameAsString() + "(std::dynamic_pointer_cast<" +
          Impl->getQualifiedNameAsString() + ">(" + Source + "->clone()))");
}

/// The warning, at the argument or capture, and its notes: the holder copy,
/// the write, the spawner's use.
void reportRace(ClangTidyCheck &Check, const WorkerRace &R,
                llvm::ArrayRef<FixItHint> Fixes) {
  const SharedValue &S = R.Shared;
  SourceLocation Loc =
      S.Capture ? S.Capture->getLocation() : S.Argument->getBeginLoc();
  bool Module = S.Kind == SharedKind::Module;
  bool Holder = S.Kind == SharedKind::Container || S.Kind == SharedKind::Struct;
  unsigned How =
      S.Capture ? (S.Capture->getCaptureKind() == LCK_ByRef ? 2 : 1) : 0;
  llvm::StringRef Shares = Module   ? "shares its module"
                           : Holder ? "holds tensors that share their storage"
                                    : "shares its storage";
  llvm::StringRef Writes = Module   ? "updates its parameters"
                           : Holder ? "writes them"
                                    : "writes it";
  Check.diag(Loc, "%select{|by-value |by-reference }0%select{argument|capture|"
                  "capture}0 '%1' %2 with worker entry point '%3' and "
                  "%select{the worker %4 in place while the spawner still uses "
                  "%5|the spawner %4 in place before the worker is joined|"
                  "every chunk %4 in place, not only its [begin, end) part}6")
      << How << S.Name << Shares << R.Spawn->EntryPoint << Writes
      << (Holder ? "them" : "it") << static_cast<unsigned>(R.Kind) << Fixes;
  if (R.Write->HolderCopy)
    Check.diag(R.Write->HolderCopy->getLocation(),
               "'%0' is a copy of the ModuleHolder '%1', not of the module",
               DiagnosticIDs::Note)
        << R.Write->HolderCopy->getName() << S.Root->getName();
  std::string Root = "'" + S.Root->getName().str() + "'";
  std::string Written = Root;
  if (S.Kind == SharedKind::Struct && R.Write->Member)
    Written = "'" + S.Root->getName().str() + "." +
              R.Write->Member->getName().str() + "'";
  else if (Holder)
    Written = "a tensor of " + Root;
  Check.diag(R.Write->Call->getExprLoc(),
             Module ? "'%0' updates the parameters of %1 in place here"
                    : "'%0' writes %1 in place here",
             DiagnosticIDs::Note)
      << R.Write->Operator << Written;
  if (R.Use)
    Check.diag(R.Use->getBeginLoc(),
               "the spawner uses '%0' here, before any join",
               DiagnosticIDs::Note)
        << S.Root->getName();
}

} // namespace

void WorkerMissingCloneCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = matchedFunction(Result);
  const FunctionAliasAnalysis *Analysis =
      analyze(Function, *Result.Context, /*RequireWrites=*/false);
  if (!Analysis)
    return;
  auto AnalyzeCallee = [&](const FunctionDecl *Callee) {
    return analyze(Callee, *Result.Context, /*RequireWrites=*/false);
  };
  WorkerRaceFinder Finder(*Analysis, Workers, table(), AnalyzeCallee);
  Finder.run(Function);

  const SourceManager &SM = *Result.SourceManager;
  bool Isolate = Isolation == IsolationHelper::Torchalias;
  for (const WorkerRace &R : Finder.Races) {
    llvm::SmallVector<FixItHint, 2> Fixes;
    if (R.Shared.Kind == SharedKind::Tensor) {
      if (std::optional<FixItHint> Fix =
              isolateTensor(R.Shared, Isolate, SM, getLangOpts())) {
        Fixes.push_back(*Fix);
        if (Isolate)
          if (auto Include =
                  Inserter.createIncludeInsertion(
                      SM.getFileID(Fix->RemoveRange.getBegin()),
                      IsolateHeader))
            Fixes.push_back(*Include);
      }
    } else if (R.Write->HolderCopy && R.Kind == Race::WorkerWrites) {
      if (std::optional<FixItHint> Fix =
              deepCopyModule(R.Write->HolderCopy, SM, getLangOpts()))
        Fixes.push_back(*Fix);
    }
    reportRace(*this, R, Fixes);
  }
  checkDatasetWrites(*Analysis, Function, *Result.Context);
}

void WorkerMissingCloneCheck::checkDatasetWrites(
    const FunctionAliasAnalysis &Analysis, const FunctionDecl *Function,
    ASTContext &AST) {
  auto Analyze = [&](const FunctionDecl *F) {
    return analyze(F, AST, /*RequireWrites=*/false);
  };
  DatasetViewFinder Finder(table(), Analyze);
  WriteChains Chains;
  for (const DatasetWrite &W : Finder.find(Analysis, Function->getBody())) {
    if (Chains.continuesReported(*W.Write))
      continue;
    diag(W.Write->Call->getExprLoc(),
         "'%0' writes example '%1' in place, but dataset '%2' returns views "
         "of its own storage from 'get()': every epoch sees the data already "
         "written")
        << W.Write->Operator << W.Example->getName()
        << W.View.Dataset->getName();
    // Note [Clone in get()]: the fix-it clones the view where get() returns
    // it, once per translation unit, on the note: the write's author may not
    // own the dataset. It is applied with --fix-notes.
    const Expr *Returned = W.View.Returned;
    auto Note = diag(Returned->getBeginLoc(),
                     "'get()' returns a view of member '%0' here",
                     DiagnosticIDs::Note)
                << W.View.Member->getName();
    if (FixedViews.insert(Returned).second)
      Note << appendClone(Returned, AST.getSourceManager(), getLangOpts());
  }
}

void WorkerMissingCloneCheck::onEndOfTranslationUnit() {
  AliasCheckBase::onEndOfTranslationUnit();
  FixedViews.clear();
}

} // namespace clang::tidy::libtorch
