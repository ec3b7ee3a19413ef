//===- WorkerEntryPoints.cpp - calls that hand work to other threads ------===//

#include "WorkerEntryPoints.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::libtorch {

const char DefaultWorkerEntryPoints[] =
    "std::thread;std::jthread;std::async;std::packaged_task;at::launch;"
    "at::parallel_for;at::parallel_reduce;c10::ThreadPool::run;"
    "c10::TaskThreadPoolBase::run;torch::jit::fork";

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

const LambdaExpr *lambdaArgument(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Lambda = dyn_cast<LambdaExpr>(E))
      return Lambda;
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
    unsigned First = isa<CXXOperatorCallExpr>(Call) &&
                             isa<CXXMethodDecl>(Call->getDirectCallee())
                         ? 1
                         : 0;
    for (unsigned I = First; I < Call->getNumArgs(); ++I)
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
    if (!Spawn.Lambda && !Spawn.Bound)
      continue;
    Spawn.BoundArgs.append(Spawn.Args.begin() + I + 1, Spawn.Args.end());
    break;
  }
  return Spawn;
}

} // namespace clang::tidy::libtorch
