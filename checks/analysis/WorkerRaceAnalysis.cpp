//===- WorkerRaceAnalysis.cpp - races between a spawner and its workers --===//

#include "WorkerRaceAnalysis.h"

#include "ParameterSharing.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <functional>

namespace clang::tidy::libtorch {

namespace {

bool within(const SourceManager &SM, SourceLocation L, SourceRange R) {
  return R.isValid() && !SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
         !SM.isBeforeInTranslationUnit(R.getEnd(), L);
}

/// The statement a CapturedStmt (an OpenMP region, with -fopenmp) runs,
/// which its children() leave out; null for any other statement.
const Stmt *capturedBody(const Stmt *S) {
  const auto *Captured = dyn_cast<CapturedStmt>(S);
  return Captured ? Captured->getCapturedStmt() : nullptr;
}

const CXXRecordDecl *recordOf(QualType Type) {
  return Type.isNull() ? nullptr
                       : Type.getNonReferenceType()->getAsCXXRecordDecl();
}

/// `torch::OrderedDict<std::string, Tensor>`, what named_parameters()
/// returns: a container of the module's tensor handles.
bool isTensorDictType(QualType Type) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Type.isNull() ? nullptr : Type.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec || !Spec->getIdentifier() || Spec->getName() != "OrderedDict" ||
      !isLibtorchDecl(Spec))
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  return Args.size() == 2 && Args[1].getKind() == TemplateArgument::Type &&
         isTensorType(Args[1].getAsType());
}

/// The object a smart pointer (`std::shared_ptr<const Batch>`) or a raw
/// pointer points to.
QualType pointee(QualType Type) {
  Type = Type.getNonReferenceType();
  if (Type->isPointerType())
    return Type->getPointeeType();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Type->getAsCXXRecordDecl());
  if (Spec && Spec->isInStdNamespace() && Spec->getIdentifier() &&
      (Spec->getName() == "shared_ptr" || Spec->getName() == "unique_ptr") &&
      Spec->getTemplateArgs().size() >= 1 &&
      Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
    return Spec->getTemplateArgs()[0].getAsType();
  return QualType();
}

/// Whether Type is a std::variant, std::optional, std::pair or std::tuple
/// one of whose alternatives or elements holds tensors (Note [Records built
/// for the worker]).
bool isStdWrapperOfTensors(QualType Type, unsigned Depth = 0) {
  static constexpr llvm::StringLiteral Wrappers[] = {"variant", "optional",
                                                     "pair", "tuple"};
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Type.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier() || Depth > 3 ||
      !llvm::is_contained(Wrappers, Spec->getName()))
    return false;
  auto Holds = [&](QualType Arg) {
    return isTensorType(Arg) || isTensorContainerType(Arg) ||
           isTensorRecordType(Arg) || isStdWrapperOfTensors(Arg, Depth + 1);
  };
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray()) {
    if (Arg.getKind() == TemplateArgument::Type && Holds(Arg.getAsType()))
      return true;
    if (Arg.getKind() == TemplateArgument::Pack)
      for (const TemplateArgument &Element : Arg.pack_elements())
        if (Element.getKind() == TemplateArgument::Type &&
            Holds(Element.getAsType()))
          return true;
  }
  return false;
}

// Note [Records that point to tensors]
// `struct MeterJob { const torch::Tensor *block; int64_t channel; }`: a
// record whose member points to a tensor refers to that tensor as one that
// holds its handle does, and so does each copy of the record. A standard
// container of such records (`std::vector<MeterJob> jobs`) holds what its
// elements hold. A worker handed `&jobs[c]` (a `pthread_create` argument,
// say) reads the tensor `jobs[c] = MeterJob{&block, c}` put there.
/// Whether Type is a record of the user's with a member that points to a
/// tensor: a raw or smart pointer.
bool pointsToTensors(QualType Type) {
  const CXXRecordDecl *Record = recordOf(Type);
  if (!Record || !Record->hasDefinition() || Record->isInStdNamespace() ||
      isLibtorchDecl(Record) || moduleImplOf(Type))
    return false;
  return llvm::any_of(Record->getDefinition()->fields(),
                      [](const FieldDecl *Field) {
                        QualType Pointee = pointee(Field->getType());
                        return !Pointee.isNull() && isTensorType(Pointee);
                      });
}

/// A record that holds tensors, or points to them.
bool isRecordOfTensors(QualType Type) {
  return isTensorRecordType(Type) || pointsToTensors(Type);
}

/// Whether Type is a standard sequence or map whose elements are records
/// of tensors (`std::vector<MeterJob>`).
bool isContainerOfRecords(QualType Type) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(Type));
  static constexpr llvm::StringLiteral Containers[] = {
      "vector", "deque", "list", "array", "map", "unordered_map"};
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier() ||
      !llvm::is_contained(Containers, Spec->getName()))
    return false;
  return llvm::any_of(Spec->getTemplateArgs().asArray(),
                      [](const TemplateArgument &Arg) {
                        return Arg.getKind() == TemplateArgument::Type &&
                               isRecordOfTensors(Arg.getAsType());
                      });
}

std::optional<SharedKind> sharedKind(QualType Type) {
  // A pointer to a struct or container of tensors shares the object: Note
  // [Holders built from tensors]. So does a smart pointer to a tensor, which
  // holds a copy of a handle (`std::make_unique<torch::Tensor>(frame)`).
  if (QualType Pointee = pointee(Type);
      !Pointee.isNull() && !moduleImplOf(Type) &&
      (isTensorContainerType(Pointee) || isContainerOfRecords(Pointee) ||
       isRecordOfTensors(Pointee) ||
       (isTensorType(Pointee) && !Type->isPointerType())))
    return isRecordOfTensors(Pointee) ? SharedKind::Struct
                                      : SharedKind::Container;
  if (isTensorType(Type))
    return SharedKind::Tensor;
  if (isTensorContainerType(Type) || isTensorDictType(Type) ||
      isContainerOfRecords(Type))
    return SharedKind::Container;
  if (moduleImplOf(Type))
    return SharedKind::Module;
  if (isRecordOfTensors(Type) || isStdWrapperOfTensors(Type))
    return SharedKind::Struct;
  return std::nullopt;
}

/// Whether Call runs a method the translation unit defines (not a standard
/// container's or libtorch's).
bool definedByUser(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  return Method && Method->hasBody() && !Method->isInStdNamespace() &&
         !isLibtorchDecl(Method) &&
         Call->getMethodDecl()->getASTContext().getSourceManager().isInMainFile(
             Method->getDefinition()->getLocation());
}

/// `m->zero_grad(true)`: the gradients are reset to undefined, not written.
bool setsToNone(const CXXMemberCallExpr *Call) {
  if (Call->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(Call->getArg(0)))
    return false;
  const auto *Literal =
      dyn_cast<CXXBoolLiteralExpr>(Call->getArg(0)->IgnoreParenImpCasts());
  return !Literal || Literal->getValue();
}

/// `opt.step()` (or, with Name, another method) on a torch::optim optimizer.
bool isOptimizerStep(const CXXMemberCallExpr *Call,
                     llvm::StringRef Name = "step") {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  if (!Method || !Method->getIdentifier() || Method->getName() != Name)
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

/// `m->parameters()`, `m->buffers()`: a list of the module's own tensors.
bool isModuleTensorList(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  return Method && Method->getIdentifier() &&
         (Method->getName() == "parameters" ||
          Method->getName() == "buffers" ||
          Method->getName() == "named_parameters" ||
          Method->getName() == "named_buffers") &&
         moduleImplOf(
             skipModuleHandleCopies(Call->getImplicitObjectArgument())
                 ->getType());
}

} // namespace

/// The arguments of Call bound to the parameters of Definition, the
/// function it calls, that Keep accepts; a member operator's call passes its
/// object first, bound to no parameter.
static llvm::SmallVector<const Expr *, 2>
boundArguments(const CallExpr *Call, const FunctionDecl &Definition,
               llvm::function_ref<bool(const ParmVarDecl *)> Keep) {
  unsigned Skip = isa<CXXOperatorCallExpr>(Call) &&
                          isa_and_nonnull<CXXMethodDecl>(Call->getDirectCallee())
                      ? 1
                      : 0;
  llvm::SmallVector<const Expr *, 2> Bound;
  for (unsigned I = 0;
       I < Definition.getNumParams() && I + Skip < Call->getNumArgs(); ++I)
    if (Keep(Definition.getParamDecl(I)))
      Bound.push_back(Call->getArg(I + Skip));
  return Bound;
}

/// Whether a method of the translation unit waits for something a member
/// of its object holds (`cv_.wait(lock, ...)`, `thread_.join()`,
/// `done_.get()`): `writer.flush()` orders what follows after the work the
/// object's worker was handed (Note [Methods that queue their arguments]).
/// Definition is one the call may run (Note [Calls that run code chosen at
/// run time]): through a base class, an override that waits is enough.
static bool waitsOnMember(const FunctionDecl &Definition) {
  bool Waits = false;
  forEachStmt(
      Definition.getBody(),
      [&](const Stmt *S) {
        const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
        const CXXMethodDecl *Callee = Call ? Call->getMethodDecl() : nullptr;
        if (!Callee || !Callee->getIdentifier() ||
            isTensorType(Call->getImplicitObjectArgument()->getType()))
          return;
        llvm::StringRef Name = Callee->getName();
        Waits |= (llvm::is_contained(JoinMethods, Name) ||
                  Name == "wait_for" || Name == "wait_until") &&
                 memberOfThis(Call->getImplicitObjectArgument());
      },
      /*IntoLambdas=*/false);
  return Waits;
}

/// A `std::lock_guard`, `std::unique_lock` or `std::scoped_lock`.
static bool isLockGuard(const VarDecl *Var) {
  std::string Type = Var->getType().getAsString();
  return llvm::StringRef(Type).contains("lock_guard") ||
         llvm::StringRef(Type).contains("unique_lock") ||
         llvm::StringRef(Type).contains("scoped_lock");
}

static const ValueDecl *reboundVariable(const Stmt *S);

/// A container or struct of tensors (or a pointer to one).
static bool isHolderType(QualType Type) {
  std::optional<SharedKind> Kind = sharedKind(Type);
  return Kind == SharedKind::Container || Kind == SharedKind::Struct;
}

/// A local holder variable of its own (no reference), which Note [Holders
/// built from tensors] follows.
static bool isLocalHolder(const VarDecl *Var) {
  return Var && Var->hasLocalStorage() && !Var->getType()->isReferenceType() &&
         isHolderType(Var->getType());
}

// Note [Holders built from tensors]
// Copying a tensor into a container, a struct or an optional copies its
// handle, so the holder shares the tensor's storage: a worker handed
// `Batch b{obs, act}`, `std::optional<Tensor> held = x` or a map filled with
// `m["x"] = x` reads what the spawner's `x.mul_(2)` writes, and a spawner
// that reads `obs` sees what the worker writes through `b.obs`. A local
// holder holds the tensors of its initializer (the elements of a braced
// list, by member for a struct; the arguments of a constructor, by member
// where the constructor's initializers show which; those of `make_pair`,
// `make_tuple` and `make_optional`) and those its storing methods (`push_back`,
// `emplace`, `insert`, ...) and assignments (`m[k] = x`, `b.obs = x`,
// `opt = x`) put in it, and the holders put in it in turn. A tensor is
// followed by the root the alias analysis gives it, so `x.clone()` puts in
// no tensor of the spawner's. A holding lasts until the tensor's variable is
// assigned another tensor (`x = next()`), in source order.
void WorkerRaceAnalysis::noteHeld(const VarDecl *Holder, const Expr *E,
                                  const FieldDecl *Member, const Stmt *Site) {
  if (!E)
    return;
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) // `Batch{obs, act}`
    E = Cast->getSubExpr()->IgnoreImplicit();
  // `MeterJob{&block, c}`: a pointer refers to what it points to (Note
  // [Records that point to tensors]).
  if (const auto *Address = dyn_cast<UnaryOperator>(E);
      Address && Address->getOpcode() == UO_AddrOf &&
      sharedKind(Address->getSubExpr()->getType()))
    E = Address->getSubExpr()->IgnoreImplicit()->IgnoreParens();
  if (isTensorType(E->getType())) {
    const ValueDecl *Root = Analysis.evaluate(E, Environment).Root;
    if (!Root)
      Root = placeOf(E).Base;
    if (Root && Root != Holder)
      HeldIn[Root].push_back({Holder, Member, Site});
    return;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && Var != Holder && isHolderType(Var->getType()))
      HeldIn[Var].push_back({Holder, Member, Site});
    return;
  }
  if (const auto *List = dyn_cast<InitListExpr>(E)) {
    const auto *Record = List->getType()->getAsCXXRecordDecl();
    if (Record && !Record->isInStdNamespace() && !List->isTransparent()) {
      unsigned I = Record->getNumBases();
      for (const FieldDecl *Field : Record->fields()) {
        if (Field->isBitField() && !Field->getIdentifier())
          continue;
        if (I >= List->getNumInits())
          break;
        noteHeld(Holder, List->getInit(I++), Field, Site);
      }
      return;
    }
    for (const Expr *Init : List->inits())
      noteHeld(Holder, Init, Member, Site);
    return;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    // A constructor of the user's that initialises a member from a
    // parameter puts that argument in that member.
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    const FunctionDecl *Definition = nullptr;
    if (Ctor && !Ctor->getParent()->isInStdNamespace() &&
        Ctor->hasBody(Definition)) {
      for (const CXXCtorInitializer *Init :
           cast<CXXConstructorDecl>(Definition)->inits()) {
        const FieldDecl *Field = Init->getMember();
        const auto *Ref = Field ? dyn_cast<DeclRefExpr>(skipHandleCopies(
                                      Init->getInit()->IgnoreImplicit()))
                                : nullptr;
        const auto *Param =
            Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
        if (Param && Param->getFunctionScopeIndex() < Construct->getNumArgs())
          noteHeld(Holder, Construct->getArg(Param->getFunctionScopeIndex()),
                   Field, Site);
      }
      return;
    }
    for (const Expr *Arg : Construct->arguments())
      noteHeld(Holder, Arg, Member, Site);
    return;
  }
  if (const auto *Init = dyn_cast<CXXStdInitializerListExpr>(E)) {
    noteHeld(Holder, Init->getSubExpr(), Member, Site);
    return;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    static constexpr llvm::StringLiteral Makers[] = {
        "make_pair", "make_tuple",  "make_optional",   "make_shared",
        "move",      "make_unique", "forward_as_tuple"};
    if (Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
        llvm::is_contained(Makers, Callee->getName()))
      for (const Expr *Arg : Call->arguments())
        noteHeld(Holder, Arg, Member, Site);
  }
}

/// The holders a statement puts a tensor in: a storing method of a local
/// container (`v.push_back(x)`, `m.emplace("x", x)`), or an assignment to an
/// element or member of a local holder, or to a local optional.
void WorkerRaceAnalysis::noteStore(const Stmt *S) {
  auto LocalHolder = [](const Expr *E) -> const VarDecl * {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreImplicit()->IgnoreParens());
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return isLocalHolder(Var) ? Var : nullptr;
  };
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    if (!Method || !Method->getParent()->isInStdNamespace() ||
        !(isStoringMethod(Method) ||
          (Method->getIdentifier() && Method->getName() == "emplace")))
      return;
    if (const VarDecl *Holder = LocalHolder(Call->getImplicitObjectArgument()))
      for (const Expr *Arg : Call->arguments())
        noteHeld(Holder, Arg, nullptr, S);
    return;
  }
  const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
  if (!Assign || Assign->getOperator() != OO_Equal || Assign->getNumArgs() != 2)
    return;
  // `opt = x` of a local optional.
  if (const VarDecl *Holder = LocalHolder(Assign->getArg(0))) {
    noteHeld(Holder, Assign->getArg(1), nullptr, S);
    return;
  }
  // `m["x"] = x`, `b.obs = x`, and `jobs[c] = MeterJob{&block, c}` of an
  // element that is a record of tensors itself.
  if (!isTensorType(Assign->getArg(0)->getType()) &&
      !isHolderType(Assign->getArg(0)->getType()))
    return;
  TensorPlace Place = placeOf(Assign->getArg(0));
  if (const auto *Var = dyn_cast_or_null<VarDecl>(Place.Base);
      Var && !Place.OfModule && isLocalHolder(Var))
    noteHeld(Var, Assign->getArg(1), Place.Member, S);
}

/// The holders that hold Root at statement At, and those that hold them.
llvm::SmallVector<std::pair<const ValueDecl *, WorkerRaceAnalysis::Holding>, 4>
WorkerRaceAnalysis::holdersOf(const ValueDecl *Root, const Stmt *At) const {
  llvm::SmallVector<std::pair<const ValueDecl *, Holding>, 4> Result;
  llvm::SmallVector<const ValueDecl *, 4> Work = {Root};
  while (!Work.empty()) {
    const ValueDecl *Held = Work.pop_back_val();
    auto It = HeldIn.find(Held);
    if (It == HeldIn.end())
      continue;
    for (const Holding &H : It->second) {
      // A holding ends where the tensor's variable is assigned another one.
      SourceLocation From = H.Site->getBeginLoc(), To = At->getBeginLoc();
      if (SM->isBeforeInTranslationUnit(To, From))
        std::swap(From, To);
      bool Rebound = llvm::any_of(Reassignments.lookup(Held), [&](const Stmt *S) {
        return SM->isBeforeInTranslationUnit(From, S->getBeginLoc()) &&
               SM->isBeforeInTranslationUnit(S->getBeginLoc(), To);
      });
      if (Rebound || H.Holder == Root ||
          llvm::any_of(Result, [&](const auto &Seen) {
            return Seen.second.Holder == H.Holder;
          }))
        continue;
      Result.push_back({Held, H});
      Work.push_back(H.Holder);
    }
  }
  return Result;
}

void WorkerRaceAnalysis::collect(const Stmt *S) {
  if (!S)
    return;
  if (const auto *Compound = dyn_cast<CompoundStmt>(S))
    Compounds.push_back(Compound);
  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    for (const auto *D : Decl->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D)) {
        if (!Compounds.empty() && isLockGuard(Var))
          Locks.push_back({Var->getLocation(), Compounds.back()->getSourceRange()});
        if (Var->getInit() && isLocalHolder(Var))
          noteHeld(Var, Var->getInit(), nullptr, Decl);
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
  noteStore(S);
  if (!isa<DeclStmt>(S))
    if (const ValueDecl *Rebound = reboundVariable(S))
      Reassignments[Rebound].push_back(S);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (isa<VarDecl>(Ref->getDecl()))
      References.push_back({rootOfReference(Ref), Ref});
  if (const auto *Member = dyn_cast<MemberExpr>(S)) {
    // `b.obs`, `batch->obs` through a pointer.
    const Expr *Base = Member->getBase()->IgnoreImplicit();
    if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Base);
        Arrow && Arrow->getOperator() == OO_Arrow)
      Base = Arrow->getArg(0)->IgnoreImplicit();
    if (const auto *Object = dyn_cast<DeclRefExpr>(Base))
      if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
        MemberOf[Object] = Field;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S))
    if (const CXXMethodDecl *Method = Member->getMethodDecl();
        Method && Method->getIdentifier() &&
        ((llvm::is_contained(JoinMethods, Method->getName()) &&
          !isTensorType(Member->getImplicitObjectArgument()->getType()) &&
          // `frames.get(0)` of a c10::List reads an element.
          !(Method->getName() == "get" && Member->getNumArgs() > 0)) ||
         llvm::any_of(definitionsRunBy(Member), [](const FunctionDecl *Definition) {
           return isa<CXXMethodDecl>(Definition) && waitsOnMember(*Definition);
         })))
      Joins.push_back(Member);
  if (const auto *Call = dyn_cast<CallExpr>(S); Call && isPosixJoin(Call))
    Joins.push_back(Call);
  if (isa<CallExpr, CXXConstructExpr>(S)) {
    const auto *Store = dyn_cast<CXXMemberCallExpr>(S);
    if (std::optional<WorkerSpawn> Spawn = Workers.match(cast<Expr>(S)))
      Spawns.push_back(std::make_unique<WorkerSpawn>(std::move(*Spawn)));
    else if (Store && isQueueStore(Store) && !definedByUser(Store))
      Stores.push_back(Store);
    else if (const auto *Call = dyn_cast<CallExpr>(S);
             Call && llvm::any_of(Call->arguments(), [](const Expr *Arg) {
               return sharedKind(Arg->getType()).has_value();
             })) {
      // A method of the user's named like a store (`vis.post(message)`,
      // `queue.push(frame)`) is a store into its object, if a worker reads
      // the object, and otherwise read for what it does with its arguments.
      if (Store && isQueueStore(Store))
        Stores.push_back(Store);
      HelperCalls.push_back(Call);
    }
  }
  for (const Stmt *Child : S->children())
    collect(Child);
  if (const Stmt *Body = capturedBody(S))
    collect(Body);
  if (isa<CompoundStmt>(S))
    Compounds.pop_back();
}

const ValueDecl *
WorkerRaceAnalysis::rootOfReference(const DeclRefExpr *Ref) const {
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
/// or ModuleHolder: a reference, a copy of a named object, or a list of a
/// module's parameters (`auto params = model->parameters();`), whose
/// tensors are the module's.
static const Expr *copiedFrom(const VarDecl *Var) {
  if (isa<ParmVarDecl>(Var) || !Var->getInit() ||
      (!Var->hasLocalStorage() && !Var->isInitCapture()))
    return nullptr;
  if (Var->getType()->isReferenceType())
    return Var->getInit();
  if (isTensorType(Var->getType()))
    return nullptr;
  const Expr *Init = skipModuleHandleCopies(Var->getInit());
  // `[batch = std::move(batch)]` moves the handle: the same object.
  if (const auto *Move = dyn_cast<CallExpr>(Init);
      Move && Move->getNumArgs() == 1 && Move->getDirectCallee() &&
      Move->getDirectCallee()->isInStdNamespace() &&
      Move->getDirectCallee()->getIdentifier() &&
      Move->getDirectCallee()->getName() == "move")
    Init = Move->getArg(0)->IgnoreImplicit();
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Init);
      Call && isTensorListType(Var->getType()) && isModuleTensorList(Call))
    return Init;
  return isa<DeclRefExpr, MemberExpr>(Init) ? Init : nullptr;
}

WorkerRaceAnalysis::TensorPlace
WorkerRaceAnalysis::placeOfVariable(const VarDecl *Var, unsigned Depth) const {
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

WorkerRaceAnalysis::TensorPlace
WorkerRaceAnalysis::placeOf(const Expr *E, unsigned Depth) const {
  TensorPlace Place;
  const FieldDecl *Member = nullptr;
  const Expr *Index = nullptr;
  bool OfModule = false;
  for (; E && Depth < 16; ++Depth) {
    E = OfModule ? skipModuleHandleCopies(E) : skipHandleCopies(E);
    // A copy or conversion of a pointer (`shared_ptr<const Batch>` from a
    // `shared_ptr<Batch>`) points to the same object.
    if (const auto *Copy = dyn_cast<CXXConstructExpr>(E);
        Copy && Copy->getNumArgs() == 1 && !pointee(Copy->getType()).isNull()) {
      E = Copy->getArg(0);
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table)) {
        E = Tensor->aliasedArgument();
        if (!E)
          return Place;
        continue;
      }
      // `std::get<1>(entry)`: an element of a pair or tuple of tensors.
      if (const FunctionDecl *Callee = Call->getDirectCallee();
          Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
          Callee->getName() == "get" && Call->getNumArgs() == 1 &&
          isTensorContainerType(Call->getArg(0)->getType())) {
        E = Call->getArg(0);
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
      // `v[i]`, `v.at(i)`, `features["mel"]`: an element of a container of
      // tensors.
      if (isTensorContainerType(Object->getType()) ||
          isContainerOfRecords(Object->getType())) {
        unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
        if (!Index && Call->getNumArgs() > First)
          Index = Call->getArg(First);
        E = Object;
        continue;
      }
      // `m->parameters()`: the module's own tensors.
      if (const auto *MemberCall = dyn_cast<CXXMemberCallExpr>(Call);
          MemberCall && isModuleTensorList(MemberCall)) {
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
      if (Access->isArrow()) {
        // `batch->images` through a pointer to a struct of tensors: the
        // pointer variable stands for the struct.
        const Expr *Pointer = Object->IgnoreImplicit();
        if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Pointer);
            Arrow && Arrow->getOperator() == OO_Arrow)
          Pointer = Arrow->getArg(0)->IgnoreImplicit();
        if (pointee(Pointer->getType()).isNull() ||
            !isTensorRecordType(pointee(Pointer->getType())))
          return Place;
        Member = Field;
        E = Pointer;
        continue;
      }
      // `kv.second` of a std::pair: the element, not a member of a struct.
      if (!Field->getParent()->isInStdNamespace())
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

// Note [A member handed out and refilled]
// `const Tensor &read(int i) { staging_.copy_(decode(i)); return staging_; }`
// hands out the object's own buffer, not a copy: every handle the caller
// keeps, `torch::Tensor chunk = reader.read(i);`, is the buffer, and the next
// call of a method that writes `staging_` in place (the next `read`)
// refills it under a worker that was given the last chunk. A method returns
// a member when each of its returns is the member, or a view of it, reached
// through `this`.
static const FieldDecl *returnedMember(const CXXMethodDecl *Method) {
  const FunctionDecl *Definition = nullptr;
  if (!Method || !Method->hasBody(Definition) ||
      !isTensorType(Method->getReturnType()))
    return nullptr;
  const FieldDecl *Member = nullptr;
  bool Other = false;
  forEachStmt(
      Definition->getBody(),
      [&](const Stmt *S) {
        const auto *Return = dyn_cast<ReturnStmt>(S);
        if (!Return)
          return;
        const auto *Access = dyn_cast_or_null<MemberExpr>(
            skipHandleCopies(Return->getRetValue()));
        const auto *Field =
            Access && isa<CXXThisExpr>(Access->getBase()->IgnoreImplicit())
                ? dyn_cast<FieldDecl>(Access->getMemberDecl())
                : nullptr;
        if (!Field || (Member && Member != Field))
          Other = true;
        Member = Field;
      },
      /*IntoLambdas=*/false);
  return Other ? nullptr : Member;
}

// Note [Gradients handed to a worker]
// `p.grad()` is the gradient tensor itself, not a copy: a worker handed
// `grads` (filled with `p.grad()` for each `p` of `model->parameters()`, or a
// local `auto g = w.grad();`) reads the tensors that the spawner's
// `opt.zero_grad()` (an optimizer built from `model->parameters()`) or
// `model->zero_grad()` zeroes in place, as libtorch 1.13 does unless
// `zero_grad(true)` sets them to none. Such a zero_grad() is a write of the
// gradients of the module's parameters: it reaches a shared value only when
// that value holds those gradients, never the parameters themselves.
WorkerRaceAnalysis::Updates
WorkerRaceAnalysis::updatesOf(const FunctionAliasAnalysis &Owner,
                            const Stmt *Body) {
  Updates Result;
  auto Add = [&](const Expr *Call, llvm::StringRef Operator,
                 const WriteEvent *Write, const Expr *Target) {
    auto U = std::make_unique<StorageUpdate>();
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
    // Note [Holders built from tensors]: the write reaches the holders of
    // what it writes, and a write of a holder's member the tensor put there.
    for (const ValueDecl *Root : llvm::SmallVector<const ValueDecl *, 2>(U->Roots))
      for (const auto &[Held, H] : holdersOf(Root, Call))
        if (!llvm::is_contained(U->Roots, H.Holder)) {
          U->Roots.push_back(H.Holder);
          U->ThroughHolders.push_back({H.Holder, Held, H.Member, H.Site});
          if (!U->Member)
            U->Member = H.Member;
        }
    if (Place.Base && Place.Member && !Place.OfModule)
      for (const auto &[Held, Holdings] : HeldIn)
        for (const Holding &H : Holdings)
          if (H.Holder == Place.Base && H.Member == Place.Member &&
              isTensorType(Held->getType()) &&
              !llvm::is_contained(U->Roots, Held) &&
              llvm::any_of(holdersOf(Held, Call), [&](const auto &Reached) {
                return Reached.second.Site == H.Site;
              }))
            U->Roots.push_back(Held);
    if (!U->Roots.empty())
      Result.push_back(std::move(U));
  };
  // Range-for variables first: placeOf follows them.
  llvm::DenseMap<const VarDecl *, const Expr *> Ranges = rangeForInits(Body);
  RangeInits.insert(Ranges.begin(), Ranges.end());
  for (const WriteEvent &Write : Owner.writes())
    Add(Write.Call, Write.Operator, &Write, Write.Target);
  // Note [A member handed out and refilled]: a method call that writes a
  // member in place writes each local that holds the member's handle, as
  // another method of the same object returned it.
  struct Holder {
    const VarDecl *Var;
    const CXXMemberCallExpr *Call; ///< The method call it holds the result of.
    const ValueDecl *Object;
    const FieldDecl *Member; ///< The member that method returns.
  };
  llvm::SmallVector<Holder, 4> Holders;
  // An object declared in a loop is a new one on each pass: the call that
  // defines the holder refills only the buffer of its own pass.
  llvm::SmallVector<SourceRange, 4> Loops;
  auto AddHolder = [&](const VarDecl *Var, const Expr *Value) {
    const auto *Call = dyn_cast<CXXMemberCallExpr>(skipHandleCopies(Value));
    const ValueDecl *Object =
        Call ? namedDecl(Call->getImplicitObjectArgument()) : nullptr;
    if (const FieldDecl *Member =
            Object ? returnedMember(Call->getMethodDecl()) : nullptr)
      Holders.push_back({Var, Call, Object, Member});
  };
  if (!Owner.memberWrites().empty())
    forEachStmt(Body, [&](const Stmt *S) {
      if (isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S))
        Loops.push_back(S->getSourceRange());
      if (const auto *Decls = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : Decls->decls())
          if (const auto *Var = dyn_cast<VarDecl>(D);
              Var && Var->getInit() && isTensorType(Var->getType()))
            AddHolder(Var, Var->getInit());
      } else if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
                 Assign && Assign->getOperator() == OO_Equal &&
                 Assign->getNumArgs() == 2) {
        if (const auto *Ref =
                dyn_cast<DeclRefExpr>(Assign->getArg(0)->IgnoreImplicit()))
          if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
              Var && isTensorType(Var->getType()))
            AddHolder(Var, Assign->getArg(1));
      }
    });
  auto FreshEachPass = [&](const ValueDecl *Object, const Expr *Call) {
    return llvm::any_of(Loops, [&](SourceRange Loop) {
      return within(*SM, Object->getLocation(), Loop) &&
             within(*SM, Call->getBeginLoc(), Loop);
    });
  };
  for (const WriteEvent &Write : Owner.memberWrites()) {
    const auto *Member = dyn_cast<FieldDecl>(Write.Value.Root);
    const ValueDecl *Object = namedDecl(Write.Target);
    if (!Member || !Object)
      continue;
    for (const Holder &H : Holders) {
      if (H.Object != Object || H.Member != Member ||
          (H.Call == Write.Call && FreshEachPass(Object, H.Call)))
        continue;
      auto U = std::make_unique<StorageUpdate>();
      U->Call = Write.Call;
      U->Operator = Write.Operator;
      U->Write = &Write;
      U->Roots.push_back(H.Var);
      U->RefilledMember = Member;
      Result.push_back(std::move(U));
    }
  }
  std::function<void(const Stmt *)> FindSteps = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
      if (isOptimizerStep(Call))
        if (const Expr *Parameters = optimizerParameters(Call))
          Add(Call, "step", nullptr, Parameters);
      // Note [Gradients handed to a worker]: zero_grad() of an optimizer,
      // or of a module unless it sets them to none, zeroes the gradients.
      const Expr *Owner = nullptr;
      if (isOptimizerStep(Call, "zero_grad"))
        Owner = optimizerParameters(Call);
      else if (const CXXMethodDecl *Method = Call->getMethodDecl();
               Method && Method->getIdentifier() &&
               Method->getName() == "zero_grad" &&
               isModuleClass(Method->getParent()) && !setsToNone(Call))
        Owner = skipModuleHandleCopies(Call->getImplicitObjectArgument());
      if (Owner) {
        size_t Before = Result.size();
        Add(Call, "zero_grad", nullptr, Owner);
        if (Result.size() > Before)
          Result.back()->Gradients = true;
      }
    }
    for (const Stmt *Child : S->children())
      FindSteps(Child);
  };
  FindSteps(Body);
  // The locals that hold the gradients of a module's parameters: `auto g =
  // p.grad();`, `grads.push_back(p.grad())` for `p` of `m->parameters()`.
  auto GradientOwner = [&](const Expr *E) -> const ValueDecl * {
    const auto *Grad = dyn_cast_or_null<CXXMemberCallExpr>(
        E ? skipHandleCopies(E) : nullptr);
    const CXXMethodDecl *Method = Grad ? Grad->getMethodDecl() : nullptr;
    if (!Method || !Method->getIdentifier() || Method->getName() != "grad" ||
        Grad->getNumArgs() != 0 || !isTensorType(Grad->getType()))
      return nullptr;
    TensorPlace Place = placeOf(Grad->getImplicitObjectArgument());
    return Place.OfModule ? Place.Base : nullptr;
  };
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *Decls = dyn_cast<DeclStmt>(S))
      for (const Decl *D : Decls->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D))
          if (const ValueDecl *Owner = GradientOwner(Var->getInit()))
            GradientsOf[Var] = Owner;
    const auto *Push = dyn_cast<CXXMemberCallExpr>(S);
    const CXXMethodDecl *Method = Push ? Push->getMethodDecl() : nullptr;
    const auto *Ref = Push ? dyn_cast<DeclRefExpr>(
                                 Push->getImplicitObjectArgument()->IgnoreParenImpCasts())
                           : nullptr;
    if (Method && Method->getIdentifier() && Ref && Push->getNumArgs() == 1 &&
        (Method->getName() == "push_back" || Method->getName() == "emplace_back"))
      if (const ValueDecl *Owner = GradientOwner(Push->getArg(0)))
        GradientsOf[Ref->getDecl()] = Owner;
  });
  llvm::sort(Result, [&](const auto &A, const auto &B) {
    return SM->isBeforeInTranslationUnit(A->Call->getBeginLoc(),
                                         B->Call->getBeginLoc());
  });
  return Result;
}

// Note [Members reached through this]
// A worker that captures `this` (`std::thread([this] { ... obs_ ... })`), or
// that runs a member function on it (`std::thread(&Actor::loop, this)`),
// reads the members it names through the spawner's object: they are shared
// as a by-reference capture is. Each member of a shared kind that the
// lambda's body, or the member function's, names through `this` is a shared
// value whose root is the member, which the spawner's writes of its own
// member reach. (A member written by another method while such a worker runs
// is Note [Workers that outlive their method].)
void WorkerRaceAnalysis::membersThroughThis(const Stmt *Body, const LambdaCapture *Capture,
                                            const Expr *Argument,
                                            std::vector<SharedValue> &Shared) const {
  llvm::DenseSet<const FieldDecl *> Seen;
  std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Member = dyn_cast<MemberExpr>(S))
      if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
          Field && isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()) &&
          Seen.insert(Field).second)
        if (std::optional<SharedKind> Kind = sharedKind(Field->getType())) {
          SharedValue V;
          V.Kind = *Kind;
          V.Root = Field;
          V.Capture = Capture;
          V.Argument = Argument;
          V.ByReference = true;
          V.Name = ("this->" + Field->getName()).str();
          Shared.push_back(V);
        }
    for (const Stmt *Child : S->children())
      Visit(Child);
  };
  Visit(Body);
}

/// The root of a variable a worker shares: what it was made from, the
/// variable itself for a tensor, or the variable holding it.
const ValueDecl *WorkerRaceAnalysis::sharedRoot(const VarDecl *Var, SharedKind Kind) const {
  auto It = Environment.find(Var);
  if (It != Environment.end() && It->second.Root)
    return It->second.Root;
  if (Kind == SharedKind::Tensor)
    return Var;
  return placeOfVariable(Var, 0).Base;
}

/// The root of what a worker is handed: the tensor's, or the holder's. A
/// parameter of a module (`model->weight`) is reached through the module,
/// whose parameters() an update loop writes.
const ValueDecl *WorkerRaceAnalysis::sharedTensorOrHolder(const Expr *E,
                                                          SharedKind Kind) const {
  // An at::TensorList variable hands over the list it was made from
  // (Note [Lists that refer to their tensors]).
  if (Kind == SharedKind::Container)
    if (const auto *Ref = dyn_cast<DeclRefExpr>(skipHandleCopies(E)))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && isTensorListRef(Var->getType()))
        return sharedRoot(Var, Kind);
  TensorPlace Place = placeOf(E);
  if (Kind != SharedKind::Tensor || Place.OfModule)
    return Place.Base;
  return Analysis.evaluate(E, Environment).Root;
}

/// What a function object handed to a worker shares (Note [Function objects
/// as callables]): the tensors and holders it is built from, or the local
/// object itself.
void WorkerRaceAnalysis::functorValues(const Expr *Functor,
                                       std::vector<SharedValue> &Shared) const {
  const Expr *E = Functor->IgnoreImplicit();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = Cast->getSubExpr()->IgnoreImplicit();
  llvm::ArrayRef<const Expr *> Parts;
  if (const auto *Init = dyn_cast<InitListExpr>(E))
    Parts = llvm::ArrayRef(Init->getInits(), Init->getNumInits());
  else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
           Construct && !Construct->getConstructor()->isCopyOrMoveConstructor())
    Parts = llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs());
  else
    Parts = llvm::ArrayRef(&Functor, 1); // a local object, copied
  for (const Expr *Part : Parts)
    handedValues(Part, Shared);
}

// Note [Records built for the worker]
// `vis.post(AttentionMap{0, probs})`, `jobs.push(std::make_pair(step,
// grads))`, a `std::variant` message made from such a struct: a record built
// in place for a worker (an aggregate or a construction, a pair or tuple,
// a variant, optional or smart pointer made from one) holds the handles it
// is built from, so each part that holds tensors is handed over as an
// argument would be, with its own fix-it. A pointer to a tensor (`&w`)
// hands over the tensor itself, as `std::ref(w)` does.
/// The parts of a record E builds in place; empty for anything else.
static llvm::SmallVector<const Expr *, 4> builtParts(const Expr *E) {
  static constexpr llvm::StringLiteral Makers[] = {
      "make_pair",   "make_tuple",  "make_optional",
      "make_shared", "make_unique", "forward_as_tuple"};
  llvm::SmallVector<const Expr *, 4> Parts;
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = Cast->getSubExpr()->IgnoreImplicit();
  if (const auto *Init = dyn_cast<InitListExpr>(E)) {
    Parts.append(Init->inits().begin(), Init->inits().end());
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    // A copy or move of a temporary is of what the temporary is built from.
    bool Copy = Construct->getConstructor()->isCopyOrMoveConstructor();
    if (!Copy || (Construct->getNumArgs() == 1 &&
                  !isa<DeclRefExpr, MemberExpr>(
                      Construct->getArg(0)->IgnoreImplicit()->IgnoreParens())))
      Parts.append(Construct->arg_begin(), Construct->arg_end());
  } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
        llvm::is_contained(Makers, Callee->getName()))
      Parts.append(Call->arg_begin(), Call->arg_end());
  }
  return Parts;
}

void WorkerRaceAnalysis::handedValues(const Expr *Arg,
                                      std::vector<SharedValue> &Shared,
                                      unsigned Depth) const {
  if (std::optional<SharedValue> V = handedValue(Arg)) {
    Shared.push_back(*V);
    return;
  }
  if (Depth > 3)
    return;
  for (const Expr *Part : builtParts(Arg))
    handedValues(Part, Shared, Depth + 1);
}

/// What Arg, an argument of a spawn or a part of a function object, hands
/// over, if it holds tensors.
std::optional<SharedValue> WorkerRaceAnalysis::handedValue(const Expr *Arg) const {
  // `std::ref(x)` hands over x itself.
  const Expr *Object = referencedObject(Arg);
  // `&job` hands over the object it points to (Note [Records that point to
  // tensors]).
  if (const auto *Address = dyn_cast<UnaryOperator>(Arg->IgnoreImplicit()->IgnoreParens());
      !Object && Address && Address->getOpcode() == UO_AddrOf &&
      sharedKind(Address->getSubExpr()->getType()))
    Object = Address->getSubExpr();
  bool ByReference = Object != nullptr;
  if (!Object)
    Object = Arg;
  std::optional<SharedKind> Kind = sharedKind(Object->getType());
  if (!Kind)
    return std::nullopt;
  SharedValue V;
  V.Kind = *Kind;
  V.Root = sharedTensorOrHolder(Object, *Kind);
  V.Argument = Arg;
  V.ByReference = ByReference;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(
          *Kind == SharedKind::Module ? skipModuleHandleCopies(Object)
                                      : skipHandleCopies(Object)))
    V.Name = Ref->getDecl()->getName().str();
  else // `model->named_parameters()`
    V.Name = Lexer::getSourceText(
                 CharSourceRange::getTokenRange(Object->getSourceRange()),
                 *SM, *LangOpts)
                 .str();
  if (!V.Root)
    return std::nullopt;
  return V;
}

std::vector<SharedValue>
WorkerRaceAnalysis::sharedValues(const WorkerSpawn &Spawn) const {
  std::vector<SharedValue> Shared;
  // `std::thread(&Actor::loop, this)`: the member function's reads.
  if (const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Spawn.Bound);
      Method && !Spawn.BoundArgs.empty() &&
      isa<CXXThisExpr>(Spawn.BoundArgs.front()->IgnoreParenImpCasts()))
    if (const FunctionDecl *Definition = Method->getDefinition())
      membersThroughThis(Definition->getBody(), nullptr, Spawn.BoundArgs.front(), Shared);
  // The function or lambda whose parameters the arguments are bound to.
  const FunctionDecl *Callee = nullptr;
  if (Spawn.Bound)
    Callee = Spawn.Bound->getDefinition();
  else if (Spawn.Lambda)
    Callee = Spawn.Lambda->getCallOperator();
  for (unsigned I = 0; I < Spawn.BoundArgs.size(); ++I) {
    size_t First = Shared.size();
    handedValues(Spawn.BoundArgs[I], Shared);
    if (Callee && I < Callee->getNumParams())
      for (size_t J = First; J < Shared.size(); ++J)
        Shared[J].BoundParam = Callee->getParamDecl(I);
  }
  if (Spawn.Functor)
    functorValues(Spawn.Functor, Shared);
  if (Spawn.Lambda)
    for (const LambdaCapture &Capture : Spawn.Lambda->captures()) {
      if (Capture.capturesThis()) {
        membersThroughThis(Spawn.Lambda->getBody(), &Capture, nullptr, Shared);
        continue;
      }
      if (!Capture.capturesVariable())
        continue;
      const auto *Var = dyn_cast<VarDecl>(Capture.getCapturedVar());
      std::optional<SharedKind> Kind =
          Var ? sharedKind(Var->getType()) : std::nullopt;
      if (!Kind)
        continue;
      SharedValue V;
      V.Kind = *Kind;
      V.Root = sharedRoot(Var, *Kind);
      V.Capture = &Capture;
      V.Name = Var->getName().str();
      if (V.Root)
        Shared.push_back(V);
    }
  return Shared;
}

/// The view (`out.select(0, i)`) or element index (`outs[i]`) in Body that
/// Write goes through; null when it writes the whole tensor or its view is
/// made outside the chunk.
const Expr *WorkerRaceAnalysis::partitionSite(const StorageUpdate &Write,
                                              const Stmt *Body) const {
  const Expr *Site = Write.ElementIndex;
  if (!Site && Write.Write && Write.Write->Value.isView())
    Site = Write.Write->Value.AliasSite;
  if (!Site || !within(*SM, Site->getBeginLoc(), Body->getSourceRange()))
    return nullptr;
  return Site;
}

bool WorkerRaceAnalysis::isPartitioned(const StorageUpdate &Write,
                                     const Stmt *Body) const {
  // Note [Partitioned chunks]: a view or element whose indices come from the
  // chunk's range (`out.select(0, i)`, `outs[i]` for `i` in `[begin, end)`)
  // is written by one chunk only. Any variable declared in the body counts
  // as such an index.
  const Expr *Site = partitionSite(Write, Body);
  if (!Site)
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

// Note [Reads of other chunks]
// A chunk that writes only its own part still races the other chunks when it
// reads theirs: `out.select(0, i).div_(out.max())` reads rows that other
// chunks are dividing, `out[i] += out[i - 1]` reads a neighbour's. A read is
// a tensor method call or subscript on the written tensor in the chunk's
// body. It is of the chunk's own part when it is the partition site itself
// (the same view call, or the same element index, spelled the same way), and
// of nothing when it asks only metadata (sizes, strides, dtype, the data
// pointer). Anything else is taken to read other chunks' parts; an accessor
// or data pointer whose elements are read is not followed.
const Stmt *
WorkerRaceAnalysis::readOfOtherChunks(const StorageUpdate &Write,
                                      const SharedValue &Shared,
                                      const Stmt *Body) const {
  const Expr *Site = partitionSite(Write, Body);
  if (!Site || !Write.Write || !Parents)
    return nullptr;
  const ASTContext &Context = Analysis.function()->getASTContext();
  auto SameAsSite = [&](const Expr *E) {
    llvm::FoldingSetNodeID A, B;
    E->IgnoreImplicit()->Profile(A, Context, /*Canonical=*/true);
    Site->IgnoreImplicit()->Profile(B, Context, /*Canonical=*/true);
    return A == B;
  };
  for (const auto &[Referenced, Ref] : References) {
    SourceLocation Loc = Ref->getLocation();
    if (Referenced != Shared.Root ||
        !within(*SM, Loc, Body->getSourceRange()) ||
        within(*SM, Loc, Site->getSourceRange()) ||
        (Write.Write->Target &&
         within(*SM, Loc, Write.Write->Target->getSourceRange())))
      continue;
    const Stmt *Parent =
        Parents->getParentIgnoreParenImpCasts(const_cast<DeclRefExpr *>(Ref));
    if (isa_and_nonnull<MemberExpr>(Parent))
      Parent =
          Parents->getParentIgnoreParenImpCasts(const_cast<Stmt *>(Parent));
    const auto *Call = dyn_cast_or_null<CallExpr>(Parent);
    const auto *Method =
        Call ? dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee())
             : nullptr;
    if (!Method)
      continue;
    const Expr *Object =
        isa<CXXMemberCallExpr>(Call)
            ? cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument()
            : Call->getArg(0);
    if (Object->IgnoreParenImpCasts() != Ref)
      continue;
    if (isTensorListType(Object->getType())) {
      // An element: `outs[j]`, `outs.at(j)`.
      unsigned IndexArg = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
      if (Write.ElementIndex && Call->getNumArgs() > IndexArg &&
          !SameAsSite(Call->getArg(IndexArg)))
        return Call;
      continue;
    }
    if (!isTensorType(Object->getType()) || Write.ElementIndex ||
        asksOnlyMetadata(Method) ||
        SameAsSite(Call))
      continue;
    return Call;
  }
  return nullptr;
}

bool WorkerRaceAnalysis::isLocked(const Stmt *S) const {
  return llvm::any_of(Locks, [&](const auto &Lock) {
    return SM->isBeforeInTranslationUnit(Lock.first, S->getBeginLoc()) &&
           within(*SM, S->getBeginLoc(), Lock.second);
  });
}

bool WorkerRaceAnalysis::joinedBetween(SourceLocation From,
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
void WorkerRaceAnalysis::buildPaths(const FunctionDecl *Function) {
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

std::optional<WorkerRaceAnalysis::CFGPosition>
WorkerRaceAnalysis::positionOf(const Stmt *S) const {
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

// Note [Objects that join when they go out of scope]
// `{ JoiningThread painter(std::thread(paint, frame, boxes)); }`, where the
// class's destructor joins a member thread (or waits on a member's future or
// condition variable), waits for the worker at the end of the object's
// scope, as a std::jthread does. Such a destructor is found as a method that
// waits on a member is (waitsOnMember); the object need not be the one that
// holds the worker, which can only make the check quieter.
// isJoin runs for every element of every path scanned, so each class's
// destructor is read once per analysis.
bool WorkerRaceAnalysis::destructorWaits(QualType Type) const {
  const CXXRecordDecl *Class = Type->getAsCXXRecordDecl();
  if (!Class)
    return false;
  auto [Known, New] = JoiningClasses.try_emplace(Class, false);
  if (!New)
    return Known->second;
  const CXXDestructorDecl *Dtor = Class->getDestructor();
  const FunctionDecl *Definition = nullptr;
  return Known->second = Dtor && Dtor->hasBody(Definition) &&
                         !isLibtorchDecl(Dtor) && !Dtor->isInStdNamespace() &&
                         waitsOnMember(*Definition);
}

bool WorkerRaceAnalysis::isJoin(const CFGElement &Element) const {
  if (auto S = Element.getAs<CFGStmt>())
    return llvm::is_contained(Joins, S->getStmt());
  if (auto Dtor = Element.getAs<CFGAutomaticObjDtor>())
    return joinsOnDestruction(Dtor->getVarDecl()->getType()) ||
           destructorWaits(Dtor->getVarDecl()->getType());
  return false;
}

/// Whether Later can run after Spawn before the worker is joined, and while
/// Root still holds the value the worker was handed.
bool WorkerRaceAnalysis::runsUnjoined(const Stmt *Spawn, const Stmt *Later,
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

const Stmt *WorkerRaceAnalysis::useAfter(const WorkerSpawn &Spawn,
                                       const ValueDecl *Root,
                                       const FieldDecl *Member) const {
  SourceRange Own = Spawn.Site->getSourceRange();
  for (const auto &[Referenced, Ref] : References) {
    if ((Referenced != Root && !usesHolder(Referenced, Ref, Root, Member)) ||
        within(*SM, Ref->getLocation(), Own))
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

/// Whether Ref, a reference to Referenced, reads the member Member of
/// Holder (any of it when null), because Holder holds Referenced there (Note
/// [Holders built from tensors]).
bool WorkerRaceAnalysis::usesHolder(const ValueDecl *Referenced,
                                    const DeclRefExpr *Ref,
                                    const ValueDecl *Holder,
                                    const FieldDecl *Member) const {
  return Referenced &&
         llvm::any_of(holdersOf(Referenced, Ref), [&](const auto &Reached) {
           const Holding &H = Reached.second;
           return H.Holder == Holder &&
                  (!Member || !H.Member || H.Member == Member);
         });
}

bool WorkerRaceAnalysis::workerUses(const WorkerSpawn &Spawn,
                                    const SharedValue &Shared,
                                    const FieldDecl *Member) const {
  // A lambda's parameter is a copy of the whole object.
  if (!Member || !Spawn.Lambda || Shared.BoundParam)
    return true;
  // The capture's own initializer copies the whole object; the body shows
  // which members the worker reads.
  llvm::SmallPtrSet<const Expr *, 4> CaptureInits;
  for (const Expr *Init : Spawn.Lambda->capture_inits()) {
    if (const auto *Copy = dyn_cast_or_null<CXXConstructExpr>(
            Init ? Init->IgnoreImplicit() : nullptr);
        Copy && Copy->getNumArgs() == 1)
      Init = Copy->getArg(0);
    if (Init)
      CaptureInits.insert(Init->IgnoreImplicit());
  }
  return llvm::any_of(References, [&](const auto &Reference) {
    const auto &[Referenced, Ref] = Reference;
    const FieldDecl *Used = MemberOf.lookup(Ref);
    return Referenced == Shared.Root && (!Used || Used == Member) &&
           !CaptureInits.contains(Ref) &&
           within(*SM, Ref->getLocation(), Spawn.Lambda->getSourceRange());
  });
}

bool WorkerRaceAnalysis::reaches(const StorageUpdate &U,
                                 const ValueDecl *Root) const {
  // A zero_grad() reaches the gradients of its module's parameters, not the
  // parameters.
  if (U.Gradients) {
    const ValueDecl *Owner = GradientsOf.lookup(Root);
    return Owner && llvm::is_contained(U.Roots, Owner);
  }
  return llvm::is_contained(U.Roots, Root);
}

/// The writes of Shared by the worker of Spawn: in the lambda's body, of
/// what it captures or of its parameter, or in the bound function through
/// the parameter Shared is bound to.
std::vector<const StorageUpdate *>
WorkerRaceAnalysis::workerWrites(const WorkerSpawn &Spawn,
                                 const SharedValue &Shared) {
  std::vector<const StorageUpdate *> Writes;
  if (Spawn.Lambda) {
    for (const auto &U : FunctionUpdates)
      if ((reaches(*U, Shared.Root) ||
           (Shared.BoundParam && reaches(*U, Shared.BoundParam))) &&
          within(*SM, U->Call->getBeginLoc(), Spawn.Lambda->getSourceRange()))
        Writes.push_back(U.get());
  } else if (Shared.BoundParam) {
    const auto *Callee =
        cast<FunctionDecl>(Shared.BoundParam->getDeclContext());
    if (const FunctionAliasAnalysis *CalleeAnalysis = AnalyzeCallee(Callee)) {
      auto &Callees = CalleeUpdates[Callee];
      if (Callees.empty())
        Callees = updatesOf(*CalleeAnalysis, Callee->getBody());
      for (const auto &U : Callees)
        if (reaches(*U, Shared.BoundParam))
          Writes.push_back(U.get());
    }
  }
  return Writes;
}

/// Whether S follows a lock guard (`lock_guard`, `unique_lock`,
/// `scoped_lock`) declared in a block of Body that encloses it.
static bool lockedIn(const Stmt *S, const Stmt *Body, const SourceManager &SM) {
  if (!Body)
    return false;
  SourceLocation Loc = S->getBeginLoc();
  auto Contains = [&](const Stmt *Child) {
    return Child && !SM.isBeforeInTranslationUnit(Loc, Child->getBeginLoc()) &&
           !SM.isBeforeInTranslationUnit(Child->getEndLoc(), Loc);
  };
  for (const Stmt *Child : Body->children()) {
    if (Contains(Child))
      return lockedIn(S, Child, SM);
    // A guard declared earlier in the same block holds from here on.
    if (const auto *Decl = dyn_cast_or_null<DeclStmt>(Child);
        Decl && isa<CompoundStmt>(Body))
      for (const auto *D : Decl->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D); Var && isLockGuard(Var))
          return true;
  }
  return false;
}

/// Records the first race of a worker's write of Shared, if there is one.
bool WorkerRaceAnalysis::findWorkerRace(const WorkerSpawn &Spawn,
                                        const SharedValue &Shared) {
  // A bound function's locks are its own.
  const Stmt *WorkerBody =
      !Spawn.Lambda && Shared.BoundParam
          ? cast<FunctionDecl>(Shared.BoundParam->getDeclContext())->getBody()
          : nullptr;
  for (const StorageUpdate *Write : workerWrites(Spawn, Shared)) {
    if (isLocked(Write->Call) ||
        (WorkerBody && lockedIn(Write->Call, WorkerBody, *SM)))
      continue;
    if (Spawn.Kind == WorkerKind::Partitioned) {
      if (!Spawn.Lambda)
        continue;
      if (!isPartitioned(*Write, Spawn.Lambda)) {
        Races.push_back({&Spawn, Shared, RaceKind::ChunksWrite, Write});
        return true;
      }
      if (const Stmt *Read = readOfOtherChunks(*Write, Shared, Spawn.Lambda)) {
        Races.push_back(
            {&Spawn, Shared, RaceKind::ChunksReadOthers, Write, Read});
        return true;
      }
      continue;
    }
    if (const Stmt *Use = useAfter(Spawn, Shared.Root, Write->Member)) {
      Races.push_back({&Spawn, Shared, RaceKind::WorkerWrites, Write, Use});
      if (const auto *Ref = dyn_cast<DeclRefExpr>(Use))
        for (const auto &[Held, H] : holdersOf(Ref->getDecl(), Use))
          if (H.Holder == Shared.Root) {
            Races.back().UseHeldSite = H.Site;
            Races.back().UseHeldMember = H.Member;
          }
      return true;
    }
    // Note [Workers of a loop]
    // A spawn in a loop that reaches itself again before a join, with the
    // same value (not one declared or assigned afresh in each iteration),
    // starts several workers on one tensor or module: each one's write
    // races the others' reads and writes (A3C workers handed the global
    // model, each stepping it without a lock).
    if (runsUnjoined(Spawn.Site, Spawn.Site, Shared.Root)) {
      Races.push_back({&Spawn, Shared, RaceKind::WorkersWrite, Write});
      return true;
    }
  }
  return false;
}

/// Records the first write of Shared by the spawner before it joins.
void WorkerRaceAnalysis::findSpawnerRace(const WorkerSpawn &Spawn,
                                         const SharedValue &Shared) {
  auto InOtherWorker = [&](const StorageUpdate &Write) {
    return llvm::any_of(Spawns, [&](const auto &Other) {
      return Other->Lambda && within(*SM, Write.Call->getBeginLoc(),
                                     Other->Lambda->getSourceRange());
    });
  };
  for (const auto &Write : FunctionUpdates) {
    if (!reaches(*Write, Shared.Root) || InOtherWorker(*Write) ||
        isLocked(Write->Call) ||
        !runsUnjoined(Spawn.Site, Write->Call, Shared.Root) ||
        !workerUses(Spawn, Shared, Write->Member))
      continue;
    Races.push_back({&Spawn, Shared, RaceKind::SpawnerWrites, Write.get()});
    return;
  }
}

// Note [Queues]
// A producer that stores a tensor in a queue a worker reads hands the
// tensor's storage to that worker as surely as std::thread does: the
// consumer reads it whenever it pops it. Refilling the same buffer in place
// for the next item (`staging.copy_(next)`, `mul_out(staging, ...)`) then
// races the consumer's read of the previous one. A store is a `push`,
// `emplace`, `insert`, `enqueue`, ... of a tensor (a container or struct of
// them) into
// - a variable that a worker spawned in the same function names (captures
//   it, or is handed it by std::ref), or a member of such a variable
//   (`chan.items`), or
// - a member of `this` that a worker spawned by a method or constructor of
//   the class reads (see Note [Executors]).
// The store is then a spawn of that worker, with the stored values as its
// arguments, and the spawner's later writes race it as for any other spawn
// (Note [Spawner paths]): a write in the next iteration of the loop that
// pushes is reached, a fresh tensor per iteration is not.
std::optional<WorkerSpawn>
WorkerRaceAnalysis::queueHandoff(const CXXMemberCallExpr *Store,
                                 const FunctionDecl *Function) const {
  const Expr *Object =
      Store->getImplicitObjectArgument()->IgnoreParenImpCasts();
  // `acc.add(x)` computes, `seq->push_back(layer)` builds a module, and
  // `buffer.add(obs)` on a struct with tensor members may copy into them:
  // only a container of tensors, or a class whose tensors are all held in
  // containers (a `std::deque<Tensor>` of frames), is taken for a queue.
  std::optional<SharedKind> Kind = sharedKind(Object->getType());
  const CXXRecordDecl *Record = recordOf(Object->getType());
  bool CopiesIn =
      Kind == SharedKind::Struct && Record && Record->hasDefinition() &&
      llvm::any_of(Record->getDefinition()->fields(), [](const FieldDecl *F) {
        return isTensorType(F->getType());
      });
  if ((Kind && *Kind != SharedKind::Container && *Kind != SharedKind::Struct) ||
      CopiesIn ||
      llvm::none_of(Store->arguments(), [](const Expr *Arg) {
        return sharedKind(Arg->getType()).has_value();
      }))
    return std::nullopt;
  const Expr *Reader = nullptr;
  const ValueDecl *Queue = nullptr;
  // An element of a container of channels (`handoff[k].set_value(x)`) is
  // reached through the container.
  if (const auto *Index = dyn_cast<CXXOperatorCallExpr>(Object);
      Index && Index->getOperator() == OO_Subscript && Index->getNumArgs() == 2)
    Object = Index->getArg(0)->IgnoreParenImpCasts();
  // A queue that is a member of a local object (`chan.items`) is reached
  // through that object.
  if (const auto *Access = dyn_cast<MemberExpr>(Object))
    if (const auto *Base =
            dyn_cast<DeclRefExpr>(Access->getBase()->IgnoreParenImpCasts()))
      Object = Base;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Object)) {
    Queue = Ref->getDecl();
    for (const auto &Spawn : Spawns) {
      // A worker storing into its own queue is no handoff to it.
      if (Spawn->Lambda &&
          within(*SM, Store->getBeginLoc(), Spawn->Lambda->getSourceRange()))
        continue;
      if (llvm::any_of(Spawn->Args,
                       [&](const Expr *Arg) { return mentions(Arg, Queue); })) {
        Reader = Spawn->Site;
        break;
      }
    }
    // A local holder filled before its worker starts is handed over by the
    // spawn itself (Note [Holders built from tensors]), which reports it.
    if (Reader && isLocalHolder(dyn_cast<VarDecl>(Queue)) &&
        Store->getImplicitObjectArgument()->IgnoreParenImpCasts() == Ref &&
        SM->isBeforeInTranslationUnit(Store->getEndLoc(), Reader->getBeginLoc()))
      return std::nullopt;
  } else if (const auto *Access = dyn_cast<MemberExpr>(Object);
             Access &&
             isa<CXXThisExpr>(Access->getBase()->IgnoreParenImpCasts())) {
    const auto *Method = dyn_cast<CXXMethodDecl>(Function);
    const auto *Field = dyn_cast<FieldDecl>(Access->getMemberDecl());
    if (Method && Field) {
      Queue = Field;
      Reader = Workers.workerReading(Method->getParent(), Field);
    }
  }
  if (!Reader)
    return std::nullopt;
  std::optional<WorkerSpawn> Consumer = Workers.match(Reader);
  if (!Consumer)
    return std::nullopt;
  WorkerSpawn Handoff;
  Handoff.Site = Store;
  Handoff.EntryPoint = Consumer->EntryPoint;
  Handoff.Args.append(Store->arg_begin(), Store->arg_end());
  Handoff.BoundArgs = Handoff.Args;
  Handoff.Via = Reader;
  Handoff.Queue = Queue;
  return Handoff;
}

// Note [Methods that queue their arguments]
// `writer.request(step, model->named_parameters())`, where request() stores
// its parameter in a member queue of the object (`pending_.emplace_back(step,
// std::move(params))`) that a worker the class starts reads, hands the
// argument to that worker as a store into the queue does (Note [Queues]):
// the call is a spawn of that worker with the arguments the method stores,
// and the caller's later writes of them (the next `opt.step()` before the
// writer has run) race it. The same holds for a function given the object
// (`recorder << block`, where a friend `operator<<(AsyncRecorder &rec, const
// Tensor &block)` pushes into `rec.pending_`). Only stores in the function's
// own body are followed, and only of a parameter it was given by value or
// reference.
/// The member a queue store's object names, `pending_` or `rec.pending_`,
/// and its class: a member of `this` in a method, or of an object parameter
/// of Function.
static std::pair<const FieldDecl *, const CXXRecordDecl *>
queueMemberOf(const Expr *Object, const FunctionDecl &Function) {
  if (const FieldDecl *Field = memberOfThis(Object))
    if (const auto *Method = dyn_cast<CXXMethodDecl>(&Function))
      return {Field, Method->getParent()};
  const auto *Member = dyn_cast<MemberExpr>(Object->IgnoreParenImpCasts());
  const auto *Base = Member ? dyn_cast<DeclRefExpr>(
                                  Member->getBase()->IgnoreParenImpCasts())
                            : nullptr;
  const auto *Param = Base ? dyn_cast<ParmVarDecl>(Base->getDecl()) : nullptr;
  const auto *Field =
      Param && Param->getDeclContext() == &Function
          ? dyn_cast<FieldDecl>(Member->getMemberDecl())
          : nullptr;
  if (!Field)
    return {nullptr, nullptr};
  return {Field, dyn_cast<CXXRecordDecl>(Field->getParent())};
}


llvm::SmallVector<const FunctionDecl *, 2>
WorkerRaceAnalysis::definitionsRunBy(const CallExpr *Call) const {
  return Analysis.context().callTargets().definitionsRunBy(Call);
}

std::optional<WorkerSpawn>
WorkerRaceAnalysis::methodHandoff(const CallExpr *Call) const {
  for (const FunctionDecl *Definition : definitionsRunBy(Call))
    if (std::optional<WorkerSpawn> Handoff = methodHandoff(Call, *Definition))
      return Handoff;
  return std::nullopt;
}

std::optional<WorkerSpawn>
WorkerRaceAnalysis::methodHandoff(const CallExpr *Call,
                                  const FunctionDecl &Definition) const {
  WorkerSpawn Handoff;
  forEachStmt(
      Definition.getBody(),
      [&](const Stmt *S) {
        const auto *Store = dyn_cast<CXXMemberCallExpr>(S);
        if (Handoff.Via || !Store || !isQueueStore(Store))
          return;
        auto [Field, Class] =
            queueMemberOf(Store->getImplicitObjectArgument(), Definition);
        if (!Field || !Class)
          return;
        llvm::SmallVector<const Expr *, 2> Stored =
            boundArguments(Call, Definition, [&](const ParmVarDecl *Param) {
              return sharedKind(Param->getType()) &&
                     llvm::any_of(Store->arguments(), [&](const Expr *Arg) {
                       return mentions(Arg, Param);
                     });
            });
        const Expr *Reader =
            Stored.empty() ? nullptr : Workers.workerReading(Class, Field);
        std::optional<WorkerSpawn> Consumer =
            Reader ? Workers.match(Reader) : std::nullopt;
        if (!Consumer)
          return;
        Handoff.Site = Call;
        Handoff.EntryPoint = Consumer->EntryPoint;
        Handoff.Args.append(Stored.begin(), Stored.end());
        Handoff.BoundArgs = Handoff.Args;
        Handoff.Via = Reader;
        Handoff.Queue = Field;
        Handoff.MethodStore = Store;
      },
      /*IntoLambdas=*/false);
  if (!Handoff.Via)
    return std::nullopt;
  return Handoff;
}

// Note [Functions that start a worker with their arguments]
// `evaluator.submit(update, policy)`, where submit() starts a thread whose
// lambda captures its parameter (`jobs_.emplace_back([this, policy] {...})`),
// or `auto answer = serving::answer_async(table, q)`, which returns the
// future of a `std::async` given its parameter, hands the argument to a
// worker that outlives the call: the call is a spawn of that worker with
// the arguments its parameters are bound to, and the caller's later writes
// of them (the next `opt.step()`, an `index_copy_` into the table) race it
// until a join, get() or wait() of the caller. Only the function's own body
// is read; one that joins, gets or waits on anything (outside the worker's
// lambda) is taken to finish its worker before it returns.
std::optional<WorkerSpawn>
WorkerRaceAnalysis::helperSpawn(const CallExpr *Call) const {
  for (const FunctionDecl *Definition : definitionsRunBy(Call))
    if (std::optional<WorkerSpawn> Spawn = helperSpawn(Call, *Definition))
      return Spawn;
  return std::nullopt;
}

std::optional<WorkerSpawn>
WorkerRaceAnalysis::helperSpawn(const CallExpr *Call,
                                const FunctionDecl &Definition) const {
  bool Finishes = false;
  std::optional<WorkerSpawn> Inner;
  forEachStmt(
      Definition.getBody(),
      [&](const Stmt *S) {
        if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S);
            Member && Member->getMethodDecl() &&
            Member->getMethodDecl()->getIdentifier())
          Finishes |= llvm::is_contained(JoinMethods,
                                         Member->getMethodDecl()->getName());
        if (!Inner && isa<CallExpr, CXXConstructExpr>(S))
          Inner = Workers.match(cast<Expr>(S));
      },
      /*IntoLambdas=*/false);
  if (!Inner || Finishes || Inner->Kind != WorkerKind::Thread)
    return std::nullopt;
  auto Captures = [&](const ParmVarDecl *Param) {
    return Inner->Lambda &&
           llvm::any_of(Inner->Lambda->captures(), [&](const LambdaCapture &C) {
             if (!C.capturesVariable())
               return false;
             const auto *Var = dyn_cast<VarDecl>(C.getCapturedVar());
             return Var == Param ||
                    (Var && Var->isInitCapture() && mentions(Var->getInit(), Param));
           });
  };
  WorkerSpawn Spawn;
  Spawn.Args = boundArguments(Call, Definition, [&](const ParmVarDecl *Param) {
    return sharedKind(Param->getType()) &&
           (Captures(Param) || llvm::any_of(Inner->Args, [&](const Expr *Arg) {
              return mentions(Arg, Param);
            }));
  });
  if (Spawn.Args.empty())
    return std::nullopt;
  Spawn.Site = Call;
  Spawn.EntryPoint = Inner->EntryPoint;
  Spawn.BoundArgs = Spawn.Args;
  Spawn.Via = Inner->Site;
  Spawn.StartedBy = &Definition;
  return Spawn;
}

void WorkerRaceAnalysis::run(const FunctionDecl *Function) {
  SM = &Function->getASTContext().getSourceManager();
  LangOpts = &Function->getASTContext().getLangOpts();
  collect(Function->getBody());
  llvm::DenseSet<const CallExpr *> Handed;
  for (const CXXMemberCallExpr *Store : Stores)
    if (std::optional<WorkerSpawn> Handoff = queueHandoff(Store, Function)) {
      Spawns.push_back(std::make_unique<WorkerSpawn>(std::move(*Handoff)));
      Handed.insert(Store);
    }
  for (const CallExpr *Call : HelperCalls) {
    if (Handed.count(Call))
      continue;
    std::optional<WorkerSpawn> Handoff = methodHandoff(Call);
    if (!Handoff)
      Handoff = helperSpawn(Call);
    if (Handoff)
      Spawns.push_back(std::make_unique<WorkerSpawn>(std::move(*Handoff)));
  }
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Function))
    findMemberRaces(Method);
  findParallelLoopRaces(Function);
  if (Spawns.empty())
    return;
  buildPaths(Function);
  if (FunctionUpdates.empty())
    FunctionUpdates = updatesOf(Analysis, Function->getBody());
  for (const auto &Spawn : Spawns)
    for (const SharedValue &Shared : sharedValues(*Spawn))
      if (!findWorkerRace(*Spawn, Shared) &&
          Spawn->Kind != WorkerKind::Partitioned)
        findSpawnerRace(*Spawn, Shared);
}

// Note [OpenMP loops]
// The iterations of a loop under `#pragma omp parallel for` (or `omp for`)
// run on the threads of a team, as the chunks of at::parallel_for do, and
// the loop ends at a barrier, so only the iterations race each other: an
// in-place write, in the loop, of a tensor declared outside it (or of a
// member) that is not confined to the iteration's own part (a view or element
// indexed by the loop variable or a local of the body), or one that is while
// the body reads other parts (Note [Reads of other chunks]). The pragmas are
// recorded by the preprocessor, so this holds whether or not the unit is
// compiled with -fopenmp; a loop is the statement whose first line follows
// the pragma's. A loop that holds an `omp critical` or `omp atomic` block,
// or a lock guard, is taken to order its writes.
void WorkerRaceAnalysis::findParallelLoopRaces(const FunctionDecl *Function) {
  if (ParallelPragmas.empty() || !Function->getBody())
    return;
  auto LineOf = [&](SourceLocation Loc) {
    return std::make_pair(SM->getFileID(SM->getSpellingLoc(Loc)),
                          SM->getSpellingLineNumber(Loc));
  };
  auto FollowsPragma = [&](const Stmt *Loop) {
    const auto LoopLine = LineOf(Loop->getBeginLoc());
    return llvm::any_of(ParallelPragmas, [&](SourceLocation Pragma) {
      auto [PragmaFile, PragmaLine] = LineOf(Pragma);
      return PragmaFile == LoopLine.first && PragmaLine + 1 == LoopLine.second;
    });
  };
  std::vector<const Stmt *> Loops, Regions;
  std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
    if (!S)
      return;
    if (isa<ForStmt, CXXForRangeStmt>(S) && FollowsPragma(S))
      Loops.push_back(S);
    for (const Stmt *Child : S->children())
      Find(Child);
    if (const Stmt *Body = capturedBody(S)) {
      Regions.push_back(Body);
      Find(Body);
    }
  };
  Find(Function->getBody());
  if (Loops.empty())
    return;
  if (!Parents)
    Parents = std::make_unique<ParentMap>(Function->getBody());
  for (const Stmt *Region : Regions)
    Parents->addStmt(const_cast<Stmt *>(Region));
  if (FunctionUpdates.empty())
    FunctionUpdates = updatesOf(Analysis, Function->getBody());
  for (const Stmt *Loop : Loops) {
    SourceRange Range = Loop->getSourceRange();
    if (llvm::any_of(SerialisingPragmas,
                     [&](SourceLocation Pragma) { return within(*SM, Pragma, Range); }))
      continue;
    auto Spawn = std::make_unique<WorkerSpawn>();
    Spawn->EntryPoint = "#pragma omp parallel for";
    Spawn->Kind = WorkerKind::Partitioned;
    Spawn->Loop = Loop;
    // What the iterations share: the variables declared outside the loop,
    // and the members, that the loop names.
    std::vector<SharedValue> Shared;
    llvm::DenseSet<const ValueDecl *> Seen;
    for (const auto &[Referenced, Ref] : References) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (!Var || !within(*SM, Ref->getLocation(), Range) ||
          within(*SM, Var->getLocation(), Range))
        continue;
      std::optional<SharedKind> Kind = sharedKind(Var->getType());
      if (!Kind || *Kind == SharedKind::Module || !Seen.insert(Var).second)
        continue;
      SharedValue V;
      V.Kind = *Kind;
      V.Root = sharedRoot(Var, *Kind);
      V.Argument = Ref;
      V.ByReference = true;
      V.Name = Var->getName().str();
      if (V.Root)
        Shared.push_back(V);
    }
    membersThroughThis(Loop, nullptr, nullptr, Shared);
    for (SharedValue &V : Shared) {
      for (const auto &U : FunctionUpdates) {
        if (!reaches(*U, V.Root) || !within(*SM, U->Call->getBeginLoc(), Range) ||
            isLocked(U->Call))
          continue;
        if (!V.Argument)
          V.Argument = U->Call;
        if (!isPartitioned(*U, Loop)) {
          Races.push_back({Spawn.get(), V, RaceKind::ChunksWrite, U.get()});
          break;
        }
        if (const Stmt *Read = readOfOtherChunks(*U, V, Loop)) {
          Races.push_back({Spawn.get(), V, RaceKind::ChunksReadOthers, U.get(), Read});
          break;
        }
      }
    }
    ParallelLoops.push_back(std::move(Spawn));
  }
}

// See Note [Workers that outlive their method]. A method that joins the
// worker's thread before the write, constructors and destructors, and writes
// under a lock guard are left alone.
// Note [Methods the program calls before the worker starts]
// A member race of Note [Workers that outlive their method] needs the
// writing method to run while the worker does. When the translation unit
// calls the writing method, and every call of it, and of the method that
// starts the worker, is in one function, outside any loop, on one object,
// with each call of the writer before each call of the starter (`reset()`
// then `request_action()` in main), the write happens before the worker
// exists. A writer the unit never calls stays reported: another unit may.
static bool calledOnlyBeforeStart(const CXXMethodDecl *Writer, const FunctionDecl *Starter) {
  ASTContext &Context = Writer->getASTContext();
  const SourceManager &SM = Context.getSourceManager();
  struct Call {
    const CXXMemberCallExpr *Expr;
    const FunctionDecl *In;
    bool InLoop;
  };
  std::vector<Call> Writes, Starts;
  std::function<void(const Stmt *, const FunctionDecl *, bool)> Visit =
      [&](const Stmt *S, const FunctionDecl *In, bool InLoop) {
        if (!S)
          return;
        if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S))
          if (const CXXMethodDecl *Callee = Member->getMethodDecl()) {
            if (Callee->getCanonicalDecl() == Writer->getCanonicalDecl())
              Writes.push_back({Member, In, InLoop});
            else if (Callee->getCanonicalDecl() == Starter->getCanonicalDecl())
              Starts.push_back({Member, In, InLoop});
          }
        InLoop |= isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S);
        for (const Stmt *Child : S->children())
          Visit(Child, In, InLoop);
      };
  forEachMainFileFunction(Context, [&](const FunctionDecl &Function) {
    Visit(Function.getBody(), &Function, false);
  });
  if (Writes.empty() || Starts.empty())
    return false;
  auto ObjectOf = [](const CXXMemberCallExpr *Call) -> const Decl * {
    const auto *Ref =
        dyn_cast<DeclRefExpr>(Call->getImplicitObjectArgument()->IgnoreParenImpCasts());
    return Ref ? Ref->getDecl() : nullptr;
  };
  const FunctionDecl *In = Writes.front().In;
  const Decl *Object = ObjectOf(Writes.front().Expr);
  for (const auto *List : {&Writes, &Starts})
    for (const Call &C : *List)
      if (C.In != In || C.InLoop || !Object || ObjectOf(C.Expr) != Object)
        return false;
  for (const Call &W : Writes)
    for (const Call &Start : Starts)
      if (!SM.isBeforeInTranslationUnit(W.Expr->getEndLoc(), Start.Expr->getBeginLoc()))
        return false;
  return true;
}

// Note [Handles published atomically]
// `std::atomic_store(&published_, std::make_shared<const Tensor>(weights_))`
// publishes a snapshot for readers on other threads: an atomic store says
// that another thread loads the pointer. The snapshot is a copy of the
// handle, so it shares weights_'s storage, and an in-place write of the
// member in any method of the class, before or after the next publication,
// changes what a reader of an earlier snapshot is reading. Publications are
// `std::atomic_store`/`std::atomic_exchange` (and their `_explicit` forms)
// and `store`/`exchange` of a `std::atomic`, of a `make_shared` or
// `allocate_shared` (directly, or through a local initialised with one)
// whose argument is the member or a view of it, in the alias analysis of
// the publishing method. A clone publishes a tensor of its own.
std::optional<MemberWorkerRace>
WorkerRaceAnalysis::publicationOf(const CXXRecordDecl *Class,
                                  const FieldDecl *Member) const {
  auto IsNamed = [](const NamedDecl *D, llvm::ArrayRef<llvm::StringRef> Names) {
    return D && D->getIdentifier() && llvm::is_contained(Names, D->getName());
  };
  static constexpr llvm::StringRef Stores[] = {
      "atomic_store", "atomic_store_explicit", "atomic_exchange",
      "atomic_exchange_explicit"};
  static constexpr llvm::StringRef AtomicMethods[] = {"store", "exchange"};
  static constexpr llvm::StringRef Makers[] = {"make_shared", "allocate_shared"};
  // The stored pointer, and the member that holds it, of an atomic store.
  auto StoredPointer = [&](const CallExpr *Call)
      -> std::pair<const Expr *, const ValueDecl *> {
    const auto *Callee = Call->getDirectCallee();
    if (!Callee)
      return {};
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      const CXXRecordDecl *Atomic = Member->getRecordDecl();
      if (!IsNamed(Callee, AtomicMethods) || !IsNamed(Atomic, {"atomic"}) ||
          !Atomic->isInStdNamespace() || Call->getNumArgs() == 0)
        return {};
      const auto *Object = dyn_cast<MemberExpr>(
          Member->getImplicitObjectArgument()->IgnoreParenImpCasts());
      return {Call->getArg(0), Object ? Object->getMemberDecl() : nullptr};
    }
    if (!Callee->isInStdNamespace() || !IsNamed(Callee, Stores) ||
        Call->getNumArgs() < 2)
      return {};
    const auto *Address =
        dyn_cast<UnaryOperator>(Call->getArg(0)->IgnoreParenImpCasts());
    const auto *Object =
        Address && Address->getOpcode() == UO_AddrOf
            ? dyn_cast<MemberExpr>(Address->getSubExpr()->IgnoreParenImpCasts())
            : nullptr;
    return {Call->getArg(1), Object ? Object->getMemberDecl() : nullptr};
  };
  // The handle a `make_shared<Tensor>(...)` copies, through a local.
  // Through copies and moves of the pointer.
  auto Copied = [](const Expr *E) {
    E = E->IgnoreImplicit();
    while (const auto *Copy = dyn_cast<CXXConstructExpr>(E)) {
      if (Copy->getNumArgs() != 1 ||
          !Copy->getConstructor()->isCopyOrMoveConstructor())
        break;
      E = Copy->getArg(0)->IgnoreImplicit();
    }
    if (const auto *Move = dyn_cast<CallExpr>(E);
        Move && Move->getNumArgs() == 1 && Move->getDirectCallee() &&
        Move->getDirectCallee()->isInStdNamespace() &&
        Move->getDirectCallee()->getIdentifier() &&
        Move->getDirectCallee()->getName() == "move")
      E = Move->getArg(0)->IgnoreImplicit();
    return E;
  };
  auto Pointee = [&](const Expr *Pointer) -> const Expr * {
    const Expr *E = Copied(Pointer);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      if (const auto *Local = dyn_cast<VarDecl>(Ref->getDecl());
          Local && Local->isLocalVarDecl() && Local->getInit())
        E = Copied(Local->getInit());
    const auto *Make = dyn_cast<CallExpr>(E);
    const FunctionDecl *Maker = Make ? Make->getDirectCallee() : nullptr;
    if (!Maker || !Maker->isInStdNamespace() || !IsNamed(Maker, Makers) ||
        Make->getNumArgs() == 0)
      return nullptr;
    const Expr *Handle = Make->getArg(Make->getNumArgs() - 1);
    return isTensorType(Handle->getType()) ? Handle : nullptr;
  };
  for (const CXXMethodDecl *Declared : Class->methods()) {
    const FunctionDecl *Definition = Declared->getDefinition();
    if (!Definition || !Definition->getBody())
      continue;
    std::optional<MemberWorkerRace> Found;
    forEachStmt(Definition->getBody(), [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      if (Found || !Call)
        return;
      auto [Pointer, Snapshot] = StoredPointer(Call);
      const Expr *Handle = Pointer ? Pointee(Pointer) : nullptr;
      const FunctionAliasAnalysis *Publisher =
          Handle ? AnalyzeCallee(Definition) : nullptr;
      if (!Publisher)
        return;
      AliasValue Value = Publisher->evaluate(Handle, AliasEnvironment());
      if (Value.Root != Member || !Value.OwnMember)
        return;
      Found = MemberWorkerRace{nullptr, Member, {Call, Definition, nullptr},
                               Handle, Snapshot};
    });
    if (Found)
      return Found;
  }
  return std::nullopt;
}

void WorkerRaceAnalysis::findMemberRaces(const CXXMethodDecl *Method) {
  if (isa<CXXConstructorDecl, CXXDestructorDecl>(Method) || Method->isStatic())
    return;
  llvm::DenseSet<const FieldDecl *> Reported;
  llvm::DenseMap<const FieldDecl *, MemberWorkerRace> PublicationOf;
  // The worker of each member written, looked up once per member.
  llvm::DenseMap<const FieldDecl *,
                 std::optional<WorkerEntryPoints::LastingWorker>>
      WorkerOf;
  for (const WriteEvent &Write : Analysis.writes()) {
    const auto *Member = dyn_cast_or_null<FieldDecl>(Write.Value.Root);
    if (!Member || !Write.Value.OwnMember || Write.Owner != &Analysis ||
        Reported.count(Member) || isLocked(Write.Call))
      continue;
    auto [Known, Inserted] = WorkerOf.try_emplace(Member);
    if (Inserted) {
      Known->second = Workers.lastingWorkerReading(Method->getParent(), Member);
      if (!Known->second)
        if (std::optional<MemberWorkerRace> Published =
                publicationOf(Method->getParent(), Member)) {
          PublicationOf[Member] = *Published;
          Known->second = Published->Worker;
        }
    }
    const std::optional<WorkerEntryPoints::LastingWorker> &Worker =
        Known->second;
    // A published snapshot is read by whoever loaded it, whichever method
    // wrote the member: the publishing method's own writes race the
    // readers of its earlier snapshots.
    if (auto Published = PublicationOf.find(Member);
        Published != PublicationOf.end()) {
      if (calledOnlyBeforeStart(Method, Worker->Spawner))
        continue;
      Reported.insert(Member);
      MemberWorkerRace Race = Published->second;
      Race.Write = &Write;
      MemberRaces.push_back(Race);
      continue;
    }
    // The worker's own writes are not the other side, and the method that
    // starts it races it only through a write before the start, on its
    // next call (Note [Workers that outlive their method]).
    if (!Worker || Workers.workerRuns(Worker->Spawn, Method))
      continue;
    bool PreviousCall =
        Worker->Spawner->getCanonicalDecl() == Method->getCanonicalDecl();
    if (PreviousCall &&
        (!Worker->Unwaited || !SM->isBeforeInTranslationUnit(
                                  Write.Call->getEndLoc(),
                                  Worker->Spawn->getBeginLoc())))
      continue;
    bool JoinedBefore = llvm::any_of(Joins, [&](const CallExpr *Join) {
      const auto *Call = dyn_cast<CXXMemberCallExpr>(Join);
      return Worker->Keeper && Call &&
             keeperOf(Call->getImplicitObjectArgument()) == Worker->Keeper &&
             SM->isBeforeInTranslationUnit(Join->getBeginLoc(),
                                           Write.Call->getBeginLoc());
    });
    if (JoinedBefore || calledOnlyBeforeStart(Method, Worker->Spawner))
      continue;
    Reported.insert(Member);
    MemberWorkerRace Race{&Write, Member, *Worker};
    Race.PreviousCall = PreviousCall;
    MemberRaces.push_back(Race);
  }
}

const WorkerRace *
WorkerRaceAnalysis::raceThroughHolderCopy(const VarDecl *Copy,
                                          const Expr *Sink) const {
  for (const WorkerRace &R : Races) {
    if (R.Kind != RaceKind::WorkerWrites || R.Write->HolderCopy != Copy ||
        !R.Spawn->Lambda)
      continue;
    SourceRange Body = R.Spawn->Lambda->getSourceRange();
    if (!SM->isBeforeInTranslationUnit(Sink->getBeginLoc(), Body.getBegin()) &&
        !SM->isBeforeInTranslationUnit(Body.getEnd(), Sink->getBeginLoc()))
      return &R;
  }
  return nullptr;
}

} // namespace clang::tidy::libtorch
