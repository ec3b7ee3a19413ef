//===- WorkerEntryPoints.cpp - calls that hand work to other threads ------===//

#include "WorkerEntryPoints.h"

#include "TensorModel.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <functional>

namespace clang::tidy::libtorch {

const char DefaultWorkerEntryPoints[] =
    "std::thread;std::jthread;std::async;std::packaged_task;at::launch;"
    "at::parallel_for;at::parallel_reduce;c10::ThreadPool::run;"
    "c10::TaskThreadPoolBase::run;torch::jit::fork;pthread_create;"
    "c10::ivalue::Future::addCallback";

namespace {

const FunctionDecl *boundFunction(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Address = dyn_cast<UnaryOperator>(E);
      Address && Address->getOpcode() == UO_AddrOf)
    E = Address->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<FunctionDecl>(Ref->getDecl());
  return nullptr;
}

// Note [Function objects as callables]
// `std::async(std::launch::async, HoldoutEval{model->weight, x_val})`: an
// object of a class of the user's with an `operator()` is a callable too.
// The worker runs a copy of it, and copying it copies the handles it holds,
// so what it was built from is shared as an argument would be. Its
// `operator()` takes the arguments after it.
const CXXMethodDecl *functorCall(const Expr *E) {
  QualType Type = E->getType().getNonReferenceType();
  const CXXRecordDecl *Class = Type->getAsCXXRecordDecl();
  if (!Class || !Class->hasDefinition() || Class->isLambda() ||
      Class->isInStdNamespace())
    return nullptr;
  for (const CXXMethodDecl *Method : Class->getDefinition()->methods())
    if (Method->getOverloadedOperator() == OO_Call && Method->hasBody())
      return Method;
  return nullptr;
}

bool isPartitioned(llvm::StringRef Name) {
  return Name == "at::parallel_for" || Name == "at::parallel_reduce";
}

/// `threads.emplace_back(f, x)` constructs a std::thread inside the library;
/// the element type is what spawns.
const CXXRecordDecl *emplacedElement(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  if (!Method || !Method->getIdentifier())
    return nullptr;
  llvm::StringRef Name = Method->getName();
  if (Name != "emplace_back" && Name != "emplace" && Name != "emplace_front")
    return nullptr;
  const auto *Container = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Method->getParent());
  if (!Container || Container->getTemplateArgs().size() == 0 ||
      Container->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return nullptr;
  return Container->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
}

} // namespace

const FieldDecl *memberOfThis(const Expr *E) {
  const auto *Access =
      E ? dyn_cast<MemberExpr>(E->IgnoreParenImpCasts()) : nullptr;
  if (!Access || !isa<CXXThisExpr>(Access->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  return dyn_cast<FieldDecl>(Access->getMemberDecl());
}

namespace {

/// Whether S reads the member Field of `this`, or calls a method of `this`
/// that does (`[this] { loop(); }`), two calls deep.
bool readsMember(const Stmt *S, const FieldDecl *Field, unsigned Depth = 0) {
  if (!S)
    return false;
  if (const auto *Access = dyn_cast<MemberExpr>(S);
      Access && Access->getMemberDecl() == Field)
    return true;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
      Call && Depth < 2 &&
      isa<CXXThisExpr>(
          Call->getImplicitObjectArgument()->IgnoreParenImpCasts()))
    if (const CXXMethodDecl *Method = Call->getMethodDecl())
      if (const FunctionDecl *Definition = Method->getDefinition();
          Definition && readsMember(Definition->getBody(), Field, Depth + 1))
        return true;
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return readsMember(Child, Field, Depth);
  });
}

/// Whether S names one of Names.
bool mentions(const Stmt *S, const llvm::DenseSet<const ValueDecl *> &Names) {
  if (!S)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S);
      Ref && Names.contains(Ref->getDecl()))
    return true;
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return mentions(Child, Names);
  });
}

/// Whether S waits for a worker: `join()`, `wait()`, or `get()` on a future.
bool waitsForWorker(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S))
    if (const CXXMethodDecl *Method = Call->getMethodDecl();
        Method && Method->getIdentifier()) {
      llvm::StringRef Name = Method->getName();
      std::string Object = Call->getImplicitObjectArgument()
                               ->getType()
                               .getCanonicalType()
                               .getAsString();
      if (Name == "join" || Name == "wait" ||
          (Name == "get" && llvm::StringRef(Object).contains("future")))
        return true;
    }
  if (const auto *Call = dyn_cast<CallExpr>(S); Call && isPosixJoin(Call))
    return true;
  return llvm::any_of(S->children(),
                      [](const Stmt *Child) { return waitsForWorker(Child); });
}

/// Whether the worker Spawn starts in Body outlives the call of Body's
/// function: a thread of a detached or stored handle, a future returned or
/// stored. A std::async future or a jthread that dies in the function waits
/// for its worker.
bool outlivesCall(const Expr *Spawn, llvm::StringRef EntryPoint,
                  const Stmt *Body) {
  if (EntryPoint != "std::async" && EntryPoint != "std::jthread")
    return true;
  ParentMap Parents(const_cast<Stmt *>(Body));
  const Stmt *Handle = Spawn;
  for (const Stmt *Parent = Parents.getParent(Spawn); Parent;
       Handle = Parent, Parent = Parents.getParent(Parent)) {
    if (isa<ReturnStmt>(Parent))
      return true;
    // An argument of a call: `futures_.push_back(std::async(...))`.
    if (isa<CallExpr>(Parent) && Handle != cast<CallExpr>(Parent)->getCallee())
      return true;
    if (const auto *Decl = dyn_cast<DeclStmt>(Parent)) {
      // `auto fut = std::async(...)`: returned or handed on later.
      const auto *Var = Decl->isSingleDecl()
                            ? dyn_cast<VarDecl>(Decl->getSingleDecl())
                            : nullptr;
      if (!Var)
        return false;
      llvm::DenseSet<const ValueDecl *> Names = {Var};
      std::function<bool(const Stmt *)> HandedOn = [&](const Stmt *S) {
        if (!S)
          return false;
        if (isa<ReturnStmt>(S) && mentions(S, Names))
          return true;
        if (const auto *Call = dyn_cast<CallExpr>(S))
          for (const Expr *Arg : Call->arguments())
            if (mentions(Arg, Names))
              return true;
        return llvm::any_of(S->children(), HandedOn);
      };
      return HandedOn(Body);
    }
    if (isa<CompoundStmt>(Parent))
      return false; // Discarded: the temporary's destructor waits.
  }
  return false;
}

/// The index of Call's first argument: 1 for a member operator, whose
/// argument 0 is the object.
unsigned firstArgument(const CallExpr *Call) {
  return isa<CXXOperatorCallExpr>(Call) &&
                 isa_and_nonnull<CXXMethodDecl>(Call->getDirectCallee())
             ? 1
             : 0;
}

} // namespace

// Note [Callbacks of a future]
// `fut->addCallback(f)` on a c10::ivalue::Future runs f when the future is
// completed: on whichever thread calls `markCompleted` (a completion thread,
// an RPC agent), or at once when it already is. So it is an entry point,
// and its captures are shared with that thread. `markCompleted` itself runs
// the callbacks before it returns, so in the function that calls it, it is
// a join, as `wait()` is.

// Note [POSIX threads]
// `pthread_create(&tid, attr, meter_main, &job)` runs meter_main(&job) on a
// new thread: an entry point whose callable is its third argument and whose
// fourth is bound to the callable's parameter, so `&job` hands over what
// job holds or points to. `pthread_join(tid, ...)` waits for it. Which
// thread a join waits for is not followed, as for `join()`.
bool isPosixJoin(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  return Callee && Callee->getIdentifier() && Callee->getName() == "pthread_join" &&
         Callee->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

bool isQueueStore(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  if (!Method || !Method->getIdentifier())
    return false;
  // A promise's set_value hands its value to whoever waits on the future,
  // as a push hands it to a queue's reader.
  static constexpr llvm::StringLiteral StoreMethods[] = {
      "push",          "push_back", "push_front", "emplace", "emplace_back",
      "emplace_front", "insert",    "enqueue",    "add",     "post",
      "set_value"};
  return llvm::is_contained(StoreMethods, Method->getName());
}

const Expr *referencedObject(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (!Callee || !Callee->isInStdNamespace() || !Callee->getIdentifier() ||
          (Callee->getName() != "ref" && Callee->getName() != "cref") ||
          Call->getNumArgs() != 1)
        return nullptr;
      return Call->getArg(0)->IgnoreImplicit();
    }
    // The copy of the reference_wrapper into the callee's parameter.
    const auto *Construct = dyn_cast<CXXConstructExpr>(E);
    if (!Construct || Construct->getNumArgs() != 1)
      return nullptr;
    E = Construct->getArg(0);
  }
  return nullptr;
}

const LambdaExpr *lambdaArgument(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Lambda = dyn_cast<LambdaExpr>(E))
      return Lambda;
    // A local callable initialised with a lambda and never assigned
    // (`auto job = [buf] { ... }; std::thread t(job);`).
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (!Var || !Var->hasLocalStorage() || isa<ParmVarDecl>(Var) || !Var->getInit() ||
          !neverAssigned(Var))
        return nullptr;
      E = Var->getInit();
      continue;
    }
    // std::function<void()>(lambda), at::launch's parameter.
    const auto *Construct = dyn_cast<CXXConstructExpr>(E);
    if (!Construct || Construct->getNumArgs() != 1)
      return nullptr;
    E = Construct->getArg(0);
  }
  return nullptr;
}

WorkerEntryPoints::WorkerEntryPoints(const std::vector<llvm::StringRef> &Names) {
  for (llvm::StringRef Name : Names)
    this->Names.push_back(Name.ltrim(':').str());
}

std::optional<std::string>
WorkerEntryPoints::matchedName(const FunctionDecl *Callee) const {
  if (!Callee)
    return std::nullopt;
  llvm::SmallVector<const FunctionDecl *, 4> Candidates = {Callee};
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Callee))
    for (const CXXMethodDecl *Overridden : Method->overridden_methods())
      Candidates.push_back(Overridden);
  for (const FunctionDecl *Candidate : Candidates) {
    std::string Qualified = Candidate->getQualifiedNameAsString();
    if (llvm::is_contained(Names, Qualified))
      return Qualified;
  }
  return std::nullopt;
}

std::optional<WorkerSpawn> WorkerEntryPoints::match(const Expr *E) const {
  if (std::optional<WorkerSpawn> Spawn = matchEntryPoint(E))
    return Spawn;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return matchExecutor(Call);
  return std::nullopt;
}

std::optional<WorkerSpawn>
WorkerEntryPoints::matchEntryPoint(const Expr *E) const {
  WorkerSpawn Spawn;
  Spawn.Site = E;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const CXXRecordDecl *Class = Construct->getConstructor()->getParent();
    std::string Qualified = Class->getQualifiedNameAsString();
    if (Construct->getNumArgs() == 0 || !llvm::is_contained(Names, Qualified))
      return std::nullopt;
    Spawn.EntryPoint = Qualified;
    Spawn.Args.append(Construct->arg_begin(), Construct->arg_end());
  } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
    std::optional<std::string> Name = matchedName(Call->getDirectCallee());
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
    if (!Name && Member)
      if (const CXXRecordDecl *Element = emplacedElement(Member);
          Element && llvm::is_contained(Names, Element->getQualifiedNameAsString()))
        Name = Element->getQualifiedNameAsString();
    if (!Name)
      return std::nullopt;
    Spawn.EntryPoint = *Name;
    for (unsigned I = firstArgument(Call); I < Call->getNumArgs(); ++I)
      Spawn.Args.push_back(Call->getArg(I));
  } else {
    return std::nullopt;
  }
  Spawn.Kind = isPartitioned(Spawn.EntryPoint) ? WorkerKind::Partitioned
                                               : WorkerKind::Thread;
  for (unsigned I = 0; I < Spawn.Args.size(); ++I) {
    const Expr *Arg = Spawn.Args[I];
    Spawn.Lambda = lambdaArgument(Arg);
    Spawn.Bound = Spawn.Lambda ? nullptr : boundFunction(Arg);
    if (!Spawn.Lambda && !Spawn.Bound) {
      const CXXMethodDecl *Call = functorCall(Arg);
      if (!Call)
        continue;
      Spawn.Functor = Arg;
      Spawn.Bound = Call->getDefinition();
    }
    Spawn.BoundArgs.append(Spawn.Args.begin() + I + 1, Spawn.Args.end());
    break;
  }
  return Spawn;
}

// Note [Executors]
// A thread pool, a task group or a helper that runs a callable "later" is an
// executor: a function of this translation unit that hands its callable
// parameter on to an entry point. A lambda passed to it reaches another
// thread just as if it were passed to std::thread. The callable is followed
// through the executor's body, into the locals made from it (a
// packaged_task, a lambda that captures it) and
// - into the arguments of an entry point: `std::thread(std::move(f))`;
// - into the callable parameter of another executor, three calls deep;
// - into a member container of `this` (`tasks_.push(task)`) that a worker of
//   the same class reads: a lambda or member function, spawned by one of the
//   class's methods, that names the member. That is the queue of a thread
//   pool.
// An executor whose body is not in the translation unit is not seen; name it
// in the WorkerEntryPoints option.
std::optional<WorkerSpawn>
WorkerEntryPoints::matchExecutor(const CallExpr *Call) const {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || Callee->isInStdNamespace() || !Callee->getDefinition())
    return std::nullopt;
  const FunctionDecl *Definition = Callee->getDefinition();
  unsigned First = firstArgument(Call);
  for (unsigned I = First; I < Call->getNumArgs(); ++I) {
    const LambdaExpr *Lambda = lambdaArgument(Call->getArg(I));
    const FunctionDecl *Bound = Lambda ? nullptr : boundFunction(Call->getArg(I));
    const CXXMethodDecl *FunctorCall =
        Lambda || Bound ? nullptr : functorCall(Call->getArg(I));
    if ((!Lambda && !Bound && !FunctorCall) ||
        I - First >= Definition->getNumParams())
      continue;
    const Expr *Via =
        forwardedSpawn(Definition, Definition->getParamDecl(I - First), 0);
    if (!Via)
      continue;
    WorkerSpawn Spawn;
    Spawn.Site = Call;
    Spawn.EntryPoint = Callee->getQualifiedNameAsString();
    Spawn.Lambda = Lambda;
    Spawn.Via = Via;
    for (unsigned J = First; J < Call->getNumArgs(); ++J)
      Spawn.Args.push_back(Call->getArg(J));
    if (Lambda)
      return Spawn;
    // Note [Arguments an executor forwards]
    // `pool.enqueue(compress, bucket, k)`, where `enqueue(F &&f, Args
    // &&...args)` packs the arguments with the callable (`std::bind`, a
    // tuple captured by the task it queues): each argument after the
    // callable whose parameter the executor uses goes to the callable's
    // parameters, as `std::thread`'s do. An argument the executor does not
    // use is not handed over.
    Spawn.Bound = Bound ? Bound->getDefinition() : FunctorCall->getDefinition();
    if (FunctorCall)
      Spawn.Functor = Call->getArg(I);
    for (unsigned J = I + 1; J < Call->getNumArgs(); ++J) {
      const ParmVarDecl *Param = J - First < Definition->getNumParams()
                                     ? Definition->getParamDecl(J - First)
                                     : nullptr;
      if (!Param || !mentions(Definition->getBody(), {Param}))
        break;
      Spawn.BoundArgs.push_back(Call->getArg(J));
    }
    return Spawn;
  }
  return std::nullopt;
}

const Expr *WorkerEntryPoints::forwardedSpawn(const FunctionDecl *Function,
                                              const ParmVarDecl *Param,
                                              unsigned Depth) const {
  const Stmt *Body = Function->getBody();
  if (!Body || Depth > 3)
    return nullptr;
  // The parameter and the locals made from it.
  llvm::DenseSet<const ValueDecl *> Callable = {Param};
  std::function<void(const Stmt *)> Derive = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Decl = dyn_cast<DeclStmt>(S))
      for (const auto *D : Decl->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D);
            Var && Var->getInit() && mentions(Var->getInit(), Callable))
          Callable.insert(Var);
    for (const Stmt *Child : S->children())
      Derive(Child);
  };
  Derive(Body);
  const auto *Class = dyn_cast<CXXMethodDecl>(Function)
                          ? cast<CXXMethodDecl>(Function)->getParent()
                          : nullptr;
  std::function<const Expr *(const Stmt *)> Find =
      [&](const Stmt *S) -> const Expr * {
    if (!S)
      return nullptr;
    if (isa<CallExpr, CXXConstructExpr>(S)) {
      const auto *E = cast<Expr>(S);
      if (std::optional<WorkerSpawn> Spawn = matchEntryPoint(E))
        if (llvm::any_of(Spawn->Args, [&](const Expr *Arg) {
              return mentions(Arg, Callable);
            }))
          // A helper that waits for its worker (at::parallel_for, a join,
          // a future that dies in it) runs the callable synchronously.
          return Spawn->Kind == WorkerKind::Thread && !waitsForWorker(Body) &&
                         outlivesCall(E, Spawn->EntryPoint, Body)
                     ? E
                     : nullptr;
    }
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
      if (Member && Class && isQueueStore(Member))
        if (const FieldDecl *Queue =
                memberOfThis(Member->getImplicitObjectArgument()))
          if (llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
                return mentions(Arg, Callable);
              }))
            if (const Expr *Worker = workerReading(Class, Queue))
              return Worker;
      const FunctionDecl *Callee = Call->getDirectCallee();
      const FunctionDecl *Next = Callee ? Callee->getDefinition() : nullptr;
      if (Next && Next != Function && !Next->isInStdNamespace()) {
        unsigned First = firstArgument(Call);
        for (unsigned I = First; I < Call->getNumArgs(); ++I)
          if (I - First < Next->getNumParams() &&
              mentions(Call->getArg(I), Callable))
            if (const Expr *Inner = forwardedSpawn(
                    Next, Next->getParamDecl(I - First), Depth + 1))
              return Inner;
      }
    }
    for (const Stmt *Child : S->children())
      if (const Expr *Found = Find(Child))
        return Found;
    return nullptr;
  };
  return Find(Body);
}

/// The body of the callable a spawn runs, when it is here.
static const Stmt *workerBody(const WorkerSpawn &Spawn) {
  if (Spawn.Lambda)
    return Spawn.Lambda->getBody();
  if (Spawn.Bound && Spawn.Bound->getDefinition())
    return Spawn.Bound->getDefinition()->getBody();
  return nullptr;
}

/// Whether E spawns a worker whose callable reads Field.
const FieldDecl *keeperOf(const Expr *Object) {
  for (unsigned Depth = 0; Object && Depth < 4; ++Depth) {
    Object = Object->IgnoreParenImpCasts();
    if (const FieldDecl *Field = memberOfThis(Object))
      return Field;
    if (const auto *Index = dyn_cast<CXXOperatorCallExpr>(Object);
        Index && Index->getOperator() == OO_Subscript) {
      Object = Index->getArg(0);
    } else if (const auto *Element = dyn_cast<CXXMemberCallExpr>(Object);
               Element && Element->getMethodDecl() &&
               Element->getMethodDecl()->getIdentifier() &&
               llvm::is_contained({llvm::StringRef("at"), llvm::StringRef("front"),
                                   llvm::StringRef("back")},
                                  Element->getMethodDecl()->getName())) {
      Object = Element->getImplicitObjectArgument();
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(Object)) {
      // The variable of a range-for: its range.
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      const auto *Function = Var ? dyn_cast_or_null<FunctionDecl>(
                                       Var->getParentFunctionOrMethod())
                                 : nullptr;
      if (!Function || !Function->getBody())
        return nullptr;
      Object = rangeForInits(Function->getBody()).lookup(Var);
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

/// Whether E is a handle to the member Field of `this`: `logits_`, or a
/// local never assigned that was initialised with one (`auto logits =
/// logits_;`), which shares the member's storage.
static bool isMemberHandle(const Expr *E, const FieldDecl *Field,
                           unsigned Depth = 0) {
  E = skipHandleCopies(E);
  if (memberOfThis(E) == Field)
    return true;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Depth < 4 && Var->isLocalVarDecl() && Var->getInit() &&
         isTensorType(Var->getType().getNonReferenceType()) &&
         neverAssigned(Var) && isMemberHandle(Var->getInit(), Field, Depth + 1);
}

bool WorkerEntryPoints::spawnReads(const Expr *E,
                                   const FieldDecl *Field) const {
  if (!isa<CallExpr, CXXConstructExpr>(E))
    return false;
  std::optional<WorkerSpawn> Spawn = matchEntryPoint(E);
  if (!Spawn)
    return false;
  if (readsMember(workerBody(*Spawn), Field))
    return true;
  // A handle to the member captured or passed by value shares its storage.
  if (Spawn->Lambda)
    for (const Expr *Init : Spawn->Lambda->capture_inits())
      if (Init && isMemberHandle(Init, Field))
        return true;
  return llvm::any_of(Spawn->BoundArgs, [&](const Expr *Arg) {
    return isMemberHandle(Arg, Field);
  });
}

/// E without the temporaries a std::thread or future is moved through.
static const Expr *spawnOf(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      E = Cast->getSubExpr();
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
             Construct && Construct->getNumArgs() == 1 &&
             Construct->getConstructor()->isMoveConstructor())
      E = Construct->getArg(0);
    else
      return E;
  }
  return E;
}

bool WorkerEntryPoints::workerRuns(const Expr *Spawn,
                                   const FunctionDecl *Method) const {
  std::optional<WorkerSpawn> Worker = matchEntryPoint(Spawn);
  if (!Worker)
    return false;
  const Stmt *Body = workerBody(*Worker);
  if (Worker->Bound &&
      Worker->Bound->getCanonicalDecl() == Method->getCanonicalDecl())
    return true;
  std::function<bool(const Stmt *, unsigned)> Calls = [&](const Stmt *S,
                                                          unsigned Depth) {
    if (!S)
      return false;
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S))
      if (const CXXMethodDecl *Callee = Call->getMethodDecl();
          Callee && isa<CXXThisExpr>(Call->getImplicitObjectArgument()
                                         ->IgnoreParenImpCasts())) {
        if (Callee->getCanonicalDecl() == Method->getCanonicalDecl())
          return true;
        if (const FunctionDecl *Next = Callee->getDefinition();
            Next && Depth < 2 && Calls(Next->getBody(), Depth + 1))
          return true;
      }
    return llvm::any_of(S->children(), [&](const Stmt *Child) {
      return Calls(Child, Depth);
    });
  };
  return Calls(Body, 0);
}

// Note [Workers that outlive their method]
// `logger_ = std::thread([this] { ... obs_ ... });` in one method starts a
// worker that keeps running after the method returns, until another method
// joins `logger_`. Any method of the class may run meanwhile, so an in-place
// write of `obs_` in another method, not under a lock and not after joining
// `logger_`, races the worker's read. The worker outlives its method when
// its std::thread or future is assigned to a member, pushed into a member
// container or initialised as a member, and that method does not join it
// itself; when it is detached; or when the call that starts it is a
// statement of its own whose result is dropped (`fut->addCallback(f)`,
// `pool_.enqueue(task)`; not `std::async`, whose dropped future waits) and
// the method calls no join after it. The worker reads the member through
// `this`, or through a handle to it that it captures or is given
// (`auto logits = logits_; fut->addCallback([logits] { ... })`).
// A worker started by a dropped call is a unit of work of that call (a
// reply's callback, a task per batch), so it also races the method that
// starts it, on its next call: a write of the member before the start may
// run while the previous call's worker reads. A thread kept in a member or
// detached is more often started once (`start()` initialises the buffers,
// then starts the loop), and is not taken to race its own method.
std::optional<WorkerEntryPoints::LastingWorker>
WorkerEntryPoints::lastingWorkerReading(const CXXRecordDecl *Class,
                                        const FieldDecl *Field) const {
  const FunctionDecl *Spawner = nullptr;
  std::optional<LastingWorker> Found;
  auto Record = [&](const Expr *Spawn, const FieldDecl *Keeper) {
    if (!Found && spawnReads(spawnOf(Spawn), Field))
      Found = LastingWorker{spawnOf(Spawn), Spawner, Keeper};
  };
  // Whether Body calls a join (`join`, `wait`, `get`, ...) after Spawn.
  auto WaitsAfter = [](const Stmt *Body, const Expr *Spawn,
                       const SourceManager &SM) {
    bool Waits = false;
    forEachStmt(Body, [&](const Stmt *S) {
      const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
      const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
      if (Method && Method->getIdentifier() &&
          llvm::is_contained(JoinMethods, Method->getName()) &&
          SM.isBeforeInTranslationUnit(Spawn->getEndLoc(), Call->getBeginLoc()))
        Waits = true;
    });
    return Waits;
  };
  std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
    if (!S || Found)
      return;
    // A start whose result is dropped.
    if (isa<CompoundStmt>(S))
      for (const Stmt *Child : S->children()) {
        const auto *Statement = dyn_cast<Expr>(Child);
        const auto *Call =
            Statement ? dyn_cast<CallExpr>(Statement->IgnoreImplicit()) : nullptr;
        std::optional<WorkerSpawn> Spawn =
            Call ? matchEntryPoint(Call) : std::nullopt;
        if (!Found && Spawn && Spawn->Kind == WorkerKind::Thread &&
            Spawn->EntryPoint != "std::async" && spawnReads(Call, Field) &&
            !WaitsAfter(Spawner->getBody(), Call,
                        Spawner->getASTContext().getSourceManager()))
          Found = LastingWorker{Call, Spawner, nullptr, /*Unwaited=*/true};
      }
    if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
        Assign && Assign->getOperator() == OO_Equal &&
        Assign->getNumArgs() == 2)
      if (const FieldDecl *Keeper = memberOfThis(Assign->getArg(0)))
        Record(Assign->getArg(1), Keeper);
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *Method = Call->getMethodDecl();
      llvm::StringRef Name =
          Method && Method->getIdentifier() ? Method->getName() : "";
      if ((Name == "push_back" || Name == "emplace_back") &&
          Call->getNumArgs() == 1)
        if (const FieldDecl *Keeper =
                memberOfThis(Call->getImplicitObjectArgument()))
          Record(Call->getArg(0), Keeper);
      if (Name == "detach")
        Record(Call->getImplicitObjectArgument(), nullptr);
    }
    for (const Stmt *Child : S->children())
      Find(Child);
  };
  // Whether Body joins the thread kept in Keeper after Spawn.
  auto JoinsAfter = [](const Stmt *Body, const FieldDecl *Keeper,
                       const Expr *Spawn, const SourceManager &SM) {
    bool Joined = false;
    std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
      if (!S || Joined)
        return;
      if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
        const CXXMethodDecl *Method = Call->getMethodDecl();
        if (Method && Method->getIdentifier() &&
            llvm::is_contained(JoinMethods, Method->getName()) &&
            keeperOf(Call->getImplicitObjectArgument()) == Keeper &&
            SM.isBeforeInTranslationUnit(Spawn->getBeginLoc(),
                                         Call->getBeginLoc()))
          Joined = true;
      }
      for (const Stmt *Child : S->children())
        Visit(Child);
    };
    Visit(Body);
    return Joined;
  };
  for (const CXXMethodDecl *Method : Class->methods()) {
    const FunctionDecl *Definition = Method->getDefinition();
    if (!Definition || isa<CXXDestructorDecl>(Definition))
      continue;
    Spawner = Definition;
    Found.reset();
    if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(Definition))
      for (const CXXCtorInitializer *Init : Constructor->inits())
        if (Init->getMember() && !Found)
          Record(Init->getInit(), Init->getMember());
    Find(Definition->getBody());
    if (Found &&
        !(Found->Keeper &&
          JoinsAfter(Definition->getBody(), Found->Keeper, Found->Spawn,
                     Definition->getASTContext().getSourceManager())))
      return Found;
  }
  return std::nullopt;
}

const Expr *WorkerEntryPoints::workerReading(const CXXRecordDecl *Class,
                                             const FieldDecl *Field) const {
  std::function<const Expr *(const Stmt *)> Find =
      [&](const Stmt *S) -> const Expr * {
    if (!S)
      return nullptr;
    if (isa<CallExpr, CXXConstructExpr>(S) && spawnReads(cast<Expr>(S), Field))
      return cast<Expr>(S);
    for (const Stmt *Child : S->children())
      if (const Expr *Found = Find(Child))
        return Found;
    return nullptr;
  };
  for (const CXXMethodDecl *Method : Class->methods()) {
    const FunctionDecl *Definition = Method->getDefinition();
    if (!Definition)
      continue;
    // `Loop() : thread_(&Loop::run, this) {}`
    if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(Definition))
      for (const CXXCtorInitializer *Init : Constructor->inits())
        if (const Expr *Found = Find(Init->getInit()))
          return Found;
    if (const Expr *Found = Find(Definition->getBody()))
      return Found;
  }
  return nullptr;
}

} // namespace clang::tidy::libtorch
