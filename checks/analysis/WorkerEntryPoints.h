//===- WorkerEntryPoints.h - calls that hand work to other threads *- C++ -*-===//
//
// Recognises the calls that run a callable on another thread (std::thread,
// std::async, at::parallel_for, c10::ThreadPool::run, ...) and says what they
// hand over: the callable and the arguments bound to its parameters. Used by
// libtorch-worker-missing-clone and libtorch-from-blob-escape.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_WORKERENTRYPOINTS_H
#define TORCHALIAS_ANALYSIS_WORKERENTRYPOINTS_H

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// The calls that wait for a worker: on its std::thread, future or task.
/// `markCompleted` runs a c10::ivalue::Future's callbacks before it returns
/// (Note [Callbacks of a future]).
inline constexpr llvm::StringLiteral JoinMethods[] = {"join", "get", "wait",
                                                      "markCompleted"};

/// The default of the checks' `WorkerEntryPoints` option.
extern const char DefaultWorkerEntryPoints[];

/// How a worker entry point runs its callable.
enum class WorkerKind {
  Thread,      ///< Runs concurrently with the spawner until a join or get().
  Partitioned, ///< at::parallel_for / parallel_reduce: chunks run
               ///< concurrently with each other, the spawner waits.
};

/// One call or construction that hands a callable to another thread.
struct WorkerSpawn {
  const Expr *Site = nullptr;
  std::string EntryPoint; ///< The matched name, e.g. "std::thread".
  WorkerKind Kind = WorkerKind::Thread;
  /// The callable, if it is a lambda.
  const LambdaExpr *Lambda = nullptr;
  /// For an OpenMP loop (Note [OpenMP loops]): the loop, whose iterations
  /// are the chunks. Site is null.
  const Stmt *Loop = nullptr;
  /// The callable, if it names a function with a body here, or the
  /// `operator()` of Functor.
  const FunctionDecl *Bound = nullptr;
  /// The callable, if it is an object of a class with an `operator()` (Note
  /// [Function objects as callables]).
  const Expr *Functor = nullptr;
  /// Arguments after the callable, bound to Bound's parameters in order.
  llvm::SmallVector<const Expr *, 4> BoundArgs;
  /// Every argument of the call (the object of a method call excluded).
  llvm::SmallVector<const Expr *, 4> Args;
  /// For a call to an executor (see Note [Executors]), the entry point
  /// inside it that runs the callable; for a store into a queue (Note
  /// [Queues]), the spawn of the worker that reads it. Null otherwise.
  const Expr *Via = nullptr;
  /// For a store into a queue: the queue, a variable or a member.
  const ValueDecl *Queue = nullptr;
  /// For a call of a method that stores its arguments in its object's
  /// queue (Note [Methods that queue their arguments]): that store.
  const CXXMemberCallExpr *MethodStore = nullptr;
  /// For a call of a function that starts a worker with its arguments and
  /// returns without joining it (Note [Functions that start a worker with
  /// their arguments]): that function; Via is the spawn inside it.
  const FunctionDecl *StartedBy = nullptr;
};

/// Matches calls and constructions against fully qualified names: a class
/// (its constructors spawn), a function or `Class::method`.
class WorkerEntryPoints {
public:
  explicit WorkerEntryPoints(const std::vector<llvm::StringRef> &Names);

  /// The spawn E performs, if E is a call to, or construction of, an entry
  /// point, or a call that hands a lambda to an executor.
  std::optional<WorkerSpawn> match(const Expr *E) const;

  /// The spawn, in one of Class's methods or constructors, of a worker that
  /// reads the member Field (`tasks_`), directly or through methods of
  /// `this`; null when there is none.
  const Expr *workerReading(const CXXRecordDecl *Class,
                            const FieldDecl *Field) const;

  /// A worker that reads a member and outlives the call that starts it.
  struct LastingWorker {
    const Expr *Spawn = nullptr;
    const FunctionDecl *Spawner = nullptr; ///< The method that starts it.
    /// The member that keeps its std::thread or future; null when detached
    /// or not kept.
    const FieldDecl *Keeper = nullptr;
    /// Started by a call whose result is not kept (a callback, a task
    /// submitted to a pool), and not waited for in its method.
    bool Unwaited = false;
  };
  /// A worker started by one of Class's methods or constructors that reads
  /// the member Field and still runs when that method returns: its thread
  /// is kept in a member (not joined in the same method), detached, or
  /// started by a call whose result is dropped and not waited for (Note
  /// [Workers that outlive their method]).
  std::optional<LastingWorker>
  lastingWorkerReading(const CXXRecordDecl *Class,
                       const FieldDecl *Field) const;

  /// Whether the worker Spawn starts runs Method: as its callable, or
  /// through calls of methods of `this`, two calls deep.
  bool workerRuns(const Expr *Spawn, const FunctionDecl *Method) const;

private:
  std::optional<WorkerSpawn> matchEntryPoint(const Expr *E) const;
  bool spawnReads(const Expr *E, const FieldDecl *Field) const;
  std::optional<WorkerSpawn> matchExecutor(const CallExpr *Call) const;
  const Expr *forwardedSpawn(const FunctionDecl *Function,
                             const ParmVarDecl *Param, unsigned Depth) const;
  std::optional<std::string> matchedName(const FunctionDecl *Callee) const;
  std::vector<std::string> Names;
};

/// The lambda an argument holds, through temporaries and std::function.
const LambdaExpr *lambdaArgument(const Expr *E);

/// `pthread_join(tid, ...)`: waits for a thread pthread_create started.
bool isPosixJoin(const CallExpr *Call);

/// A call that stores a value in a container or queue: `push`,
/// `push_back`, `emplace`, `insert`, `enqueue`, `add`, `post`, ...
bool isQueueStore(const CXXMemberCallExpr *Call);

/// The member of `this` that E names (`tasks_`, `this->tasks_`), or null.
const FieldDecl *memberOfThis(const Expr *E);

/// The member of `this` whose thread or future Object names: the member
/// itself (`worker_`), an element of it (`pending_[i]`, `pending_.back()`),
/// or the variable of a range-for over it (`for (auto &f : pending_)
/// f.wait();`); null for anything else. Note [Workers that outlive their
/// method].
const FieldDecl *keeperOf(const Expr *Object);

/// The object that `std::ref(x)` or `std::cref(x)` refers to: x. Null for
/// any other expression.
const Expr *referencedObject(const Expr *E);

} // namespace clang::tidy::libtorch

#endif
