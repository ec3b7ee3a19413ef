//===- WorkerRaceAnalysis.h - races of a spawner and its workers -*- C++ -*-===//
//
// Finds, in one function, the tensors (and containers, structs and
// ModuleHolders of tensors) that a worker entry point hands to another
// thread, and the in-place write on either side that races the other side's
// use of them. libtorch-worker-missing-clone words and fixes what it finds.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_WORKERRACEANALYSIS_H
#define TORCHALIAS_ANALYSIS_WORKERRACEANALYSIS_H

#include "AliasAnalysis.h"
#include "WorkerEntryPoints.h"

#include "clang/AST/ParentMap.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang::tidy::libtorch {

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
  /// The parameter of the worker's function or lambda it is bound to.
  const ParmVarDecl *BoundParam = nullptr;
  /// The argument is `std::ref(x)`: the worker holds the spawner's object.
  bool ByReference = false;
};

/// An in-place write, or an optimizer step, and the storage it reaches.
struct StorageUpdate {
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
  /// A zero_grad(): it writes the gradients of the parameters of the module
  /// Roots name, not the parameters (Note [Gradients handed to a worker]).
  bool Gradients = false;
  /// A method call that refills this member of its object, which Roots
  /// hold (Note [A member handed out and refilled]).
  const FieldDecl *RefilledMember = nullptr;
  /// A holder the update reaches because it holds what the update writes
  /// (Note [Holders built from tensors]), with that tensor or holder and
  /// the statement that put it there.
  struct ThroughHolder {
    const ValueDecl *Holder;
    const ValueDecl *Held;
    const FieldDecl *Member;
    const Stmt *Site;
  };
  llvm::SmallVector<ThroughHolder, 1> ThroughHolders;
};

/// How a shared value races.
enum class RaceKind {
  WorkerWrites,
  SpawnerWrites,
  ChunksWrite,      ///< Every chunk writes the whole tensor.
  ChunksReadOthers, ///< Each chunk writes its part and reads the others'.
  /// The spawn runs again, in a loop, before its worker is joined: several
  /// workers share the value and each writes it (Note [Workers of a loop]).
  WorkersWrite,
};

/// A shared value, the spawn that shares it and the write that races.
struct WorkerRace {
  const WorkerSpawn *Spawn;
  SharedValue Shared;
  RaceKind Kind;
  const StorageUpdate *Write;
  /// The spawner's later use, for WorkerWrites; a chunk's read outside its
  /// part, for ChunksReadOthers.
  const Stmt *Use = nullptr;
  /// Where the shared holder got the tensor Use reads (Note [Holders built
  /// from tensors]), and the member that holds it.
  const Stmt *UseHeldSite = nullptr;
  const FieldDecl *UseHeldMember = nullptr;
};

/// An in-place write, in a method, of a member that a worker started by
/// another method of the class reads while it may still run (Note [Workers
/// that outlive their method]).
struct MemberWorkerRace {
  const WriteEvent *Write = nullptr;
  const FieldDecl *Member = nullptr;
  WorkerEntryPoints::LastingWorker Worker;
  /// For a member published to other threads (Note [Handles published
  /// atomically]): Worker.Spawn is the atomic store, Worker.Spawner the
  /// method that makes it, Published the handle it stores a pointer to, and
  /// Snapshot the member that holds the pointer (null for a local).
  const Expr *Published = nullptr;
  const ValueDecl *Snapshot = nullptr;
  /// The write is in the method that starts the worker, before the start:
  /// it races the worker that method's previous call started.
  bool PreviousCall = false;
};

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
/// not followed back to the struct. A local container, struct or optional
/// built from tensors holds them (Note [Holders built from tensors]).
///
/// Limitation: joins in other functions, condition variables and atomics are
/// not seen; a loop around a join counts as joining even when it may skip it;
/// statements in lambda bodies other than the worker's, and every statement
/// when the CFG cannot be built, are ordered by source position.
class WorkerRaceAnalysis {
public:
  using Analyzer =
      llvm::function_ref<const FunctionAliasAnalysis *(const FunctionDecl *)>;

  /// Analysis is the alias analysis of the spawning function; AnalyzeCallee
  /// gives that of a function a worker runs, or null.
  WorkerRaceAnalysis(const FunctionAliasAnalysis &Analysis,
                     const WorkerEntryPoints &Workers,
                     const OperatorTable &Table, Analyzer AnalyzeCallee)
      : Analysis(Analysis), Workers(Workers), Table(Table),
        AnalyzeCallee(AnalyzeCallee) {}

  void run(const FunctionDecl *Function);

  /// The `#pragma omp` lines of the translation unit that make the loop
  /// after them parallel (`parallel for`, `for`), and those that serialise
  /// a block (`critical`, `atomic`): Note [OpenMP loops].
  void setOpenMPPragmas(llvm::ArrayRef<SourceLocation> Loops,
                        llvm::ArrayRef<SourceLocation> Serialising) {
    ParallelPragmas = Loops;
    SerialisingPragmas = Serialising;
  }

  /// At most one race per shared value of each spawn, in spawn order. They
  /// point into this analysis, which must outlive them.
  const std::vector<WorkerRace> &races() const { return Races; }
  /// The writes of a method's members that race a worker another method of
  /// the class started, one per member.
  const std::vector<MemberWorkerRace> &memberRaces() const {
    return MemberRaces;
  }

  /// The race in which a worker updates a module through the ModuleHolder
  /// copy Copy (`auto local = global;`) at Sink, a statement of the worker's
  /// callable; null when there is none.
  const WorkerRace *raceThroughHolderCopy(const VarDecl *Copy,
                                          const Expr *Sink) const;

private:
  /// Where a tensor lives: the variable at the bottom of its member, element,
  /// view and ModuleHolder accesses.
  struct TensorPlace {
    const ValueDecl *Base = nullptr;
    const FieldDecl *Member = nullptr; ///< The member of Base reached.
    bool OfModule = false; ///< Base is a module, the tensor its parameter.
    const VarDecl *HolderCopy = nullptr;
    const Expr *ElementIndex = nullptr;
  };
  /// Where a statement of the spawning function runs: its CFG block and the
  /// index of its element there.
  using CFGPosition = std::pair<const CFGBlock *, unsigned>;
  using Updates = std::vector<std::unique_ptr<StorageUpdate>>;

  void collect(const Stmt *S);
  std::optional<WorkerSpawn> queueHandoff(const CXXMemberCallExpr *Store,
                                          const FunctionDecl *Function) const;
  std::optional<WorkerSpawn>
  methodHandoff(const CallExpr *Call) const;
  std::optional<WorkerSpawn> helperSpawn(const CallExpr *Call) const;
  std::optional<WorkerSpawn> methodHandoff(const CallExpr *Call,
                                           const FunctionDecl &Definition) const;
  std::optional<WorkerSpawn> helperSpawn(const CallExpr *Call,
                                         const FunctionDecl &Definition) const;
  /// The definitions Call may run (Note [Calls that run code chosen at run
  /// time]).
  llvm::SmallVector<const FunctionDecl *, 2> definitionsRunBy(const CallExpr *Call) const;
  std::vector<SharedValue> sharedValues(const WorkerSpawn &Spawn) const;
  void functorValues(const Expr *Functor, std::vector<SharedValue> &Shared) const;
  const ValueDecl *sharedTensorOrHolder(const Expr *E, SharedKind Kind) const;
  std::optional<SharedValue> handedValue(const Expr *Arg) const;
  /// What Arg hands over, a record built in place decomposed into its parts
  /// (Note [Records built for the worker]).
  void handedValues(const Expr *Arg, std::vector<SharedValue> &Shared,
                    unsigned Depth = 0) const;
  const ValueDecl *sharedRoot(const VarDecl *Var, SharedKind Kind) const;
  void membersThroughThis(const Stmt *Body, const LambdaCapture *Capture,
                          const Expr *Argument, std::vector<SharedValue> &Shared) const;
  Updates updatesOf(const FunctionAliasAnalysis &Owner, const Stmt *Body);
  std::vector<const StorageUpdate *> workerWrites(const WorkerSpawn &Spawn,
                                                  const SharedValue &Shared);
  bool findWorkerRace(const WorkerSpawn &Spawn, const SharedValue &Shared);
  void findSpawnerRace(const WorkerSpawn &Spawn, const SharedValue &Shared);
  TensorPlace placeOf(const Expr *E, unsigned Depth = 0) const;
  TensorPlace placeOfVariable(const VarDecl *Var, unsigned Depth) const;
  const ValueDecl *rootOfReference(const DeclRefExpr *Ref) const;
  const Expr *partitionSite(const StorageUpdate &Write, const Stmt *Body) const;
  bool isPartitioned(const StorageUpdate &Write, const Stmt *Body) const;
  const Stmt *readOfOtherChunks(const StorageUpdate &Write,
                                const SharedValue &Shared,
                                const Stmt *Body) const;
  void findParallelLoopRaces(const FunctionDecl *Function);
  bool isLocked(const Stmt *S) const;
  void findMemberRaces(const CXXMethodDecl *Method);
  /// An atomic store, in a method of Class, of a pointer to a handle of
  /// its member Member (Note [Handles published atomically]).
  std::optional<MemberWorkerRace> publicationOf(const CXXRecordDecl *Class,
                                                const FieldDecl *Member) const;
  bool joinedBetween(SourceLocation From, SourceLocation To) const;
  void buildPaths(const FunctionDecl *Function);
  std::optional<CFGPosition> positionOf(const Stmt *S) const;
  bool isJoin(const CFGElement &Element) const;
  /// Whether Type's destructor joins or waits on a member (Note [Objects
  /// that join when they go out of scope]), memoised in JoiningClasses.
  bool destructorWaits(QualType Type) const;
  bool runsUnjoined(const Stmt *Spawn, const Stmt *Later,
                    const ValueDecl *Root) const;
  const Stmt *useAfter(const WorkerSpawn &Spawn, const ValueDecl *Root,
                       const FieldDecl *Member) const;
  bool usesHolder(const ValueDecl *Referenced, const DeclRefExpr *Ref,
                  const ValueDecl *Holder, const FieldDecl *Member) const;
  bool workerUses(const WorkerSpawn &Spawn, const SharedValue &Shared,
                  const FieldDecl *Member) const;

  const FunctionAliasAnalysis &Analysis;
  const WorkerEntryPoints &Workers;
  const OperatorTable &Table;
  Analyzer AnalyzeCallee;
  const SourceManager *SM = nullptr;
  const LangOptions *LangOpts = nullptr;
  std::vector<std::unique_ptr<WorkerSpawn>> Spawns;
  /// The OpenMP loops of the function, as spawns (Note [OpenMP loops]).
  std::vector<std::unique_ptr<WorkerSpawn>> ParallelLoops;
  llvm::ArrayRef<SourceLocation> ParallelPragmas, SerialisingPragmas;
  std::vector<WorkerRace> Races;
  std::vector<MemberWorkerRace> MemberRaces;
  AliasEnvironment Environment;
  std::vector<const CompoundStmt *> Compounds;
  /// Lock guards and the scope they hold the lock for.
  std::vector<std::pair<SourceLocation, SourceRange>> Locks;
  std::vector<const CallExpr *> Joins;
  /// Calls that store a value in a container: Note [Queues].
  std::vector<const CXXMemberCallExpr *> Stores;
  /// Method calls given a tensor, or a holder of tensors: Note [Methods that
  /// queue their arguments].
  /// Calls of the translation unit's functions given a tensor, a holder of
  /// tensors or a module.
  std::vector<const CallExpr *> HelperCalls;
  /// A local container, struct or optional that holds a tensor or another
  /// holder, from the statement that put it there (Note [Holders built from
  /// tensors]).
  struct Holding {
    const VarDecl *Holder = nullptr;
    const FieldDecl *Member = nullptr; ///< The member of a struct holding it.
    const Stmt *Site = nullptr;
  };
  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<Holding, 2>> HeldIn;
  /// The assignments (`x = ...`) of each variable, in source order.
  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<const Stmt *, 2>>
      Reassignments;
  void noteHeld(const VarDecl *Holder, const Expr *E, const FieldDecl *Member,
                const Stmt *Site);
  void noteStore(const Stmt *S);
  /// The holders of Root at At, and those of the holders, each with what
  /// it holds.
  llvm::SmallVector<std::pair<const ValueDecl *, Holding>, 4>
  holdersOf(const ValueDecl *Root, const Stmt *At) const;
  /// The spawning function's CFG; null when it cannot be built.
  std::unique_ptr<CFG> Graph;
  std::unique_ptr<ParentMap> Parents;
  mutable llvm::DenseMap<const CXXRecordDecl *, bool> JoiningClasses;
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
  Updates FunctionUpdates;
  /// The locals that hold gradients of a module's parameters, with the
  /// module (Note [Gradients handed to a worker]).
  llvm::DenseMap<const ValueDecl *, const ValueDecl *> GradientsOf;
  bool reaches(const StorageUpdate &U, const ValueDecl *Root) const;
  llvm::DenseMap<const FunctionDecl *, Updates> CalleeUpdates;
};

} // namespace clang::tidy::libtorch

#endif
