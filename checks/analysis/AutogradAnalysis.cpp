//===- AutogradAnalysis.cpp - what autograd still needs in one function ---===//

#include "AutogradAnalysis.h"
#include "AliasAnalysis.h"
#include "ModuleState.h"
#include "ParameterSharing.h"
#include "SavedTensors.h"
#include "TensorModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::libtorch {

namespace {

llvm::StringRef calleeName(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  return Callee && Callee->getIdentifier() ? Callee->getName() : "";
}

/// A call to `backward` or `torch::autograd::backward`/`grad`.
bool isBackwardCall(const CallExpr *Call) {
  llvm::StringRef Name = calleeName(Call);
  const FunctionDecl *Callee = Call->getDirectCallee();
  bool IsMethod = isa<CXXMemberCallExpr>(Call);
  return (Name == "backward" &&
          (IsMethod || (Callee && isLibtorchDecl(Callee)))) ||
         (Name == "grad" && !IsMethod && Callee && isLibtorchDecl(Callee));
}

/// `requires_grad(true)`, `requires_grad_()`, `set_requires_grad(true)`:
/// anything but an explicit `false`.
bool turnsOnGrad(const CallExpr *Call) {
  llvm::StringRef Name = calleeName(Call);
  if (Name != "requires_grad" && Name != "requires_grad_" &&
      Name != "set_requires_grad")
    return false;
  if (Call->getNumArgs() == 0)
    return true;
  const Expr *Flag = Call->getArg(0)->IgnoreImplicit();
  if (isa<CXXDefaultArgExpr>(Flag))
    return true;
  const auto *Literal = dyn_cast<CXXBoolLiteralExpr>(Flag);
  return !Literal || Literal->getValue();
}

bool containsGradRequest(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S); Call && turnsOnGrad(Call))
    return true;
  for (const Stmt *Child : S->children())
    if (containsGradRequest(Child))
      return true;
  return false;
}

const ValueDecl *referencedDecl(const Expr *E) {
  E = skipHandleCopies(E);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(E))
    return Member->getMemberDecl();
  return nullptr;
}

/// `for (auto &p : model->parameters())`, also through a variable holding
/// the list.
bool isParameterRange(const Expr *Range) {
  Range = Range->IgnoreImplicit();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Range))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      if (Var->getInit() && Var->getInit()->IgnoreImplicit() != Range)
        return isParameterRange(Var->getInit());
  const auto *Call = dyn_cast<CallExpr>(Range);
  if (!Call)
    return false;
  llvm::StringRef Name = calleeName(Call);
  return Name == "parameters" || Name == "named_parameters" || Name == "params";
}

bool derivesFromLibtorch(const CXXRecordDecl *Class, llvm::StringRef Name) {
  if (!Class || !Class->hasDefinition())
    return false;
  auto Is = [&](const CXXRecordDecl *Record) {
    return Record->getIdentifier() && Record->getName() == Name &&
           isLibtorchDecl(Record);
  };
  return Is(Class) || !Class->forallBases([&](const CXXRecordDecl *Base) {
    return !Is(Base);
  });
}

/// `net->forward(x)`, `net(x)`, `fc->forward(x)`: a module's output, which
/// requires grad through the module's parameters.
bool isModuleCall(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const auto *Method =
            dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee()))
      if ((Method->getOverloadedOperator() == OO_Call ||
           calleeName(Call) == "forward") &&
          (derivesFromLibtorch(Method->getParent(), "Module") ||
           derivesFromLibtorch(Method->getParent(), "ModuleHolder")))
        return true;
  for (const Stmt *Child : S->children())
    if (isModuleCall(Child))
      return true;
  return false;
}

// Note [Guards that disable grad]
// `NoGradGuard` always disables grad mode; `AutoGradMode(enabled)` and
// `InferenceMode(enabled = true)` only when their argument says so, so
// `torch::AutoGradMode enable_grad(true);` opens no no-grad scope. An
// argument whose value is not known counts as disabling: the scope is then
// quiet, which favours precision.
bool disablesGrad(const VarDecl *Guard, llvm::StringRef Name) {
  if (Name == "NoGradGuard")
    return true;
  if (Name != "AutoGradMode" && Name != "InferenceMode")
    return false;
  bool EnabledByDefault = Name == "InferenceMode";
  const auto *Construct =
      dyn_cast_or_null<CXXConstructExpr>(Guard->getInit()
                                             ? Guard->getInit()->IgnoreImplicit()
                                             : nullptr);
  if (!Construct || Construct->getNumArgs() == 0 ||
      isa<CXXDefaultArgExpr>(Construct->getArg(0)))
    return EnabledByDefault;
  bool Enabled = false;
  if (!Construct->getArg(0)->EvaluateAsBooleanCondition(
          Enabled, Guard->getASTContext()))
    return true;
  // AutoGradMode(false) and InferenceMode(true) disable grad.
  return Name == "AutoGradMode" ? !Enabled : Enabled;
}

} // namespace

bool declaresNoGradGuard(const Stmt *S) {
  const auto *Decl = dyn_cast<DeclStmt>(S);
  if (!Decl)
    return false;
  for (const auto *D : Decl->decls())
    if (const auto *Var = dyn_cast<VarDecl>(D))
      if (const auto *Record = Var->getType()->getAsCXXRecordDecl();
          Record && Record->getIdentifier() && isLibtorchDecl(Record) &&
          disablesGrad(Var, Record->getName()))
        return true;
  return false;
}

namespace {

/// Whether an argument of this type can be a tensor: anything but a number
/// or a c10::Scalar (`x * 2`, `x.pow(2)`).
bool mayHoldTensor(QualType Type) {
  Type = Type.getNonReferenceType();
  if (Type->isArithmeticType())
    return false;
  const auto *Record = Type->getAsCXXRecordDecl();
  if (!Record || !Record->getIdentifier() || !isLibtorchDecl(Record))
    return true;
  // `c10::optional<Scalar>` (`clamp(min, max)`) holds what its argument does.
  if (const auto *Optional = dyn_cast<ClassTemplateSpecializationDecl>(Record);
      Optional && Optional->getName() == "optional" &&
      Optional->getTemplateArgs().size() == 1 &&
      Optional->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
    return mayHoldTensor(Optional->getTemplateArgs()[0].getAsType());
  return Record->getName() != "Scalar";
}

bool isMethodCall(const CallExpr *Call) {
  return isa<CXXMemberCallExpr>(Call) ||
         (isa<CXXOperatorCallExpr>(Call) &&
          isa_and_nonnull<CXXMethodDecl>(Call->getDirectCallee()));
}

/// The tensors `std::tie(a, b) = ...` assigns.
llvm::SmallVector<const ValueDecl *, 2>
tiedTensors(const CXXOperatorCallExpr *Assign) {
  llvm::SmallVector<const ValueDecl *, 2> Tied;
  const auto *Tie = dyn_cast<CallExpr>(Assign->getArg(0)->IgnoreImplicit());
  const FunctionDecl *Callee = Tie ? Tie->getDirectCallee() : nullptr;
  if (!Callee || !Callee->isInStdNamespace() || !Callee->getIdentifier() ||
      Callee->getName() != "tie")
    return Tied;
  for (const Expr *Arg : Tie->arguments())
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreImplicit());
        Ref && isTensorType(Ref->getType()))
      Tied.push_back(Ref->getDecl());
  return Tied;
}

} // namespace

bool memberRequestsGrad(const FieldDecl *Field) {
  if (Field->hasInClassInitializer() &&
      containsGradRequest(Field->getInClassInitializer()))
    return true;
  const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!Class || !Class->hasDefinition())
    return false;
  auto NamesField = [&](const Expr *E) {
    const auto *Member = dyn_cast<MemberExpr>(E->IgnoreImplicit());
    return Member && Member->getMemberDecl() == Field;
  };
  for (const CXXConstructorDecl *Ctor : Class->getDefinition()->ctors()) {
    const auto *Definition =
        dyn_cast_or_null<CXXConstructorDecl>(Ctor->getDefinition());
    if (!Definition)
      continue;
    for (const CXXCtorInitializer *Init : Definition->inits())
      if (Init->getMember() == Field && containsGradRequest(Init->getInit()))
        return true;
    bool Requested = false;
    forEachStmt(Definition->getBody(), [&](const Stmt *S) {
      if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S))
        Requested |= turnsOnGrad(Call) &&
                     NamesField(Call->getImplicitObjectArgument());
      if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
          Assign && Assign->getOperator() == OO_Equal &&
          Assign->getNumArgs() == 2)
        Requested |= NamesField(Assign->getArg(0)) &&
                     containsGradRequest(Assign->getArg(1));
    });
    if (Requested)
      return true;
  }
  return false;
}

bool carriesTensors(QualType Type) {
  return isTensorType(Type) || isTensorListType(Type) ||
         isTensorContainerType(Type) || isTensorRecordType(Type);
}

namespace {

/// The tensor variables S reads: for a backward call, the tensors it starts
/// from; for an operand, with SkipDetached, those it takes part of a graph
/// from (not through `detach()` or `data()`).
void collectTensorReads(const Stmt *S,
                        llvm::SmallVectorImpl<const ValueDecl *> &Reads,
                        bool SkipDetached = false) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S); Call && SkipDetached)
    if (isDetachingMethod(calleeName(Call)))
      return;
  if (const auto *E = dyn_cast<Expr>(S))
    if (const ValueDecl *Read = referencedDecl(E);
        Read && carriesTensors(E->getType()))
      Reads.push_back(Read);
  for (const Stmt *Child : S->children())
    collectTensorReads(Child, Reads, SkipDetached);
}

} // namespace

AutogradAnalysis::AutogradAnalysis(const FunctionDecl &Function,
                                   ASTContext &AST, const OperatorTable *Ops,
                                   const SavedTensorTable *Saved,
                                   const CallerBackward *Caller,
                                   bool Differentiated, bool RunsWithoutGrad)
    : AST(AST), Parents(const_cast<Stmt *>(Function.getBody())), Ops(Ops),
      Saved(Saved) {
  if (Caller)
    this->Caller = *Caller;
  // Note [A module's forward is differentiated]
  // A module's `forward` builds the graph that its caller's backward
  // differentiates: what it returns is where that backward starts. So a
  // return from `forward` counts as a backward call from the returned
  // tensors, and a write in `forward` into a tensor that an earlier
  // operation of `forward` saved makes that backward throw, wherever it is
  // called (`F::embedding` with max_norm after a matmul saved its weight).
  const auto *Method = dyn_cast<CXXMethodDecl>(&Function);
  ReturnsGraph = Differentiated ||
                 (Method && Method->getIdentifier() &&
                  Method->getName() == "forward" &&
                  isModuleClass(Method->getParent()) && !RunsWithoutGrad) ||
                 Caller;
  if (Caller)
    CallerGraph.insert(Caller->GraphParams.begin(), Caller->GraphParams.end());
  collect(Function.getBody());
  if (Ops && Saved && !BackwardCalls.empty())
    collectSaves(Function.getBody());
}

bool AutogradAnalysis::isBefore(SourceLocation A, SourceLocation B) const {
  return AST.getSourceManager().isBeforeInTranslationUnit(A, B);
}

void AutogradAnalysis::collectReads(const Stmt *S, const ValueDecl *Result,
                                    SourceLocation Where) {
  if (!S || isa<LambdaExpr>(S))
    return;
  // What is read through `detach()` or `data()` is not part of the graph.
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
    llvm::StringRef Name = calleeName(Call);
    if (isDetachingMethod(Name))
      return;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    if (const ValueDecl *Read = referencedDecl(E);
        Read && Read != Result && carriesTensors(E->getType())) {
      Edges.push_back({Result, Read, Where});
      if (isa<DeclRefExpr>(E))
        return;
    }
  }
  for (const Stmt *Child : S->children())
    collectReads(Child, Result, Where);
}

/// The local container of tensors that Call puts its arguments into
/// (`logps.push_back(x)`), or null.
static const ValueDecl *containerPutInto(const CXXMemberCallExpr *Call) {
  const ValueDecl *Container = referencedDecl(Call->getImplicitObjectArgument());
  return Container && carriesTensors(Container->getType()) &&
                 isStoringMethod(Call->getMethodDecl())
             ? Container
             : nullptr;
}

void AutogradAnalysis::collect(const Stmt *S) {
  if (!S)
    return;
  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    for (const auto *D : Decl->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D);
          Var && Var->getInit() && carriesTensors(Var->getType())) {
        collectReads(Var->getInit(), Var, Var->getLocation());
        // `auto [h, c] = cell(x);`: each name reads the hidden object.
        if (const auto *Bindings = dyn_cast<DecompositionDecl>(Var))
          for (const BindingDecl *Binding : Bindings->bindings())
            Edges.push_back({Binding, Var, Var->getLocation()});
        if (containsGradRequest(Var->getInit()))
          RequiresGrad.insert(Var);
        if (isModuleCall(Var->getInit()))
          ModuleOutputs.insert(Var);
      }
  } else if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
             Assign && Assign->getOperator() == OO_Equal &&
             Assign->getNumArgs() == 2) {
    const auto *Lhs = dyn_cast<DeclRefExpr>(Assign->getArg(0)->IgnoreImplicit());
    if (Lhs && isTensorType(Lhs->getType())) {
      collectReads(Assign->getArg(1), Lhs->getDecl(), Assign->getExprLoc());
      Rebinds.push_back({Lhs->getDecl(), Assign->getSourceRange()});
      if (!mentions(Assign->getArg(1), Lhs->getDecl()))
        FreshRebinds.push_back({Lhs->getDecl(), Assign->getSourceRange()});
    }
    // `std::tie(h, c) = cell(x, h, c);` assigns each tied tensor.
    for (const ValueDecl *Tied : tiedTensors(Assign)) {
      collectReads(Assign->getArg(1), Tied, Assign->getExprLoc());
      Rebinds.push_back({Tied, Assign->getSourceRange()});
    }
  } else if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
    if (turnsOnGrad(Call))
      if (const ValueDecl *Object = referencedDecl(Call->getImplicitObjectArgument()))
        RequiresGrad.insert(Object);
    // `logps.push_back(logp)`: the container holds what is put into it, and
    // a backward from `torch::stack(logps)` starts from it.
    if (const ValueDecl *Container = containerPutInto(Call))
      for (const Expr *Arg : Call->arguments())
        collectReads(Arg, Container, Call->getExprLoc());
  } else if (const auto *For = dyn_cast<CXXForRangeStmt>(S)) {
    if (isParameterRange(For->getRangeInit())) {
      ParameterLoops.push_back(For->getSourceRange());
      RequiresGrad.insert(For->getLoopVariable());
    }
  }
  if (const auto *Return = dyn_cast<ReturnStmt>(S);
      Return && ReturnsGraph && Return->getRetValue()) {
    llvm::SmallVector<const ValueDecl *, 2> Roots;
    collectTensorReads(Return->getRetValue(), Roots);
    BackwardCalls.push_back(Return->getBeginLoc());
    BackwardRoots.push_back({Return->getBeginLoc(), std::move(Roots)});
    if (Caller)
      GraphReturns.push_back(Return->getBeginLoc());
  }
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    if (isBackwardCall(Call)) {
      BackwardCalls.push_back(Call->getBeginLoc());
      llvm::SmallVector<const ValueDecl *, 2> Roots;
      if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
        collectTensorReads(Member->getImplicitObjectArgument(), Roots);
      else if (Call->getNumArgs() > 0)
        collectTensorReads(Call->getArg(0), Roots);
      BackwardRoots.push_back({Call->getBeginLoc(), std::move(Roots)});
    }
  }
  for (const Stmt *Child : S->children())
    collect(Child);
}

bool AutogradAnalysis::requiresGrad(const ValueDecl *Root) const {
  if (RequiresGrad.count(Root))
    return true;
  const auto *Field = dyn_cast_or_null<FieldDecl>(Root);
  if (!Field || !isTensorType(Field->getType()))
    return false;
  if (derivesFromLibtorch(dyn_cast<CXXRecordDecl>(Field->getParent()),
                          "Module"))
    return true;
  auto [It, New] = MemberGrad.try_emplace(Field, false);
  if (New)
    It->second = memberRequestsGrad(Field);
  return It->second;
}

bool AutogradAnalysis::isGraphResult(
    const ValueDecl *Root, SourceLocation Before,
    llvm::DenseSet<const ValueDecl *> &Seen) const {
  if (ModuleOutputs.count(Root) || CallerGraph.count(Root))
    return true;
  if (!Seen.insert(Root).second)
    return false;
  for (const GraphEdge &Edge : Edges)
    if (Edge.Result == Root && isBefore(Edge.Where, Before) &&
        (requiresGrad(Edge.Input) || isGraphResult(Edge.Input, Edge.Where, Seen)))
      return true;
  return false;
}

bool AutogradAnalysis::isGraphResult(const ValueDecl *Root,
                                     const Expr *Write) const {
  llvm::DenseSet<const ValueDecl *> Seen;
  return isGraphResult(Root, Write->getBeginLoc(), Seen);
}

bool AutogradAnalysis::isUsedInGraphBefore(const ValueDecl *Root,
                                           const Expr *Write) const {
  return llvm::any_of(Edges, [&](const GraphEdge &Edge) {
    return Edge.Input == Root && isBefore(Edge.Where, Write->getBeginLoc());
  });
}

bool AutogradAnalysis::isBackwardAfter(const Expr *Write) const {
  return llvm::any_of(BackwardCalls, [&](SourceLocation Call) {
    return isBefore(Write->getEndLoc(), Call);
  });
}

bool AutogradAnalysis::isParameterUpdate(const Expr *Write) const {
  SourceLocation Loc = Write->getBeginLoc();
  for (SourceRange Loop : ParameterLoops)
    if (!isBefore(Loc, Loop.getBegin()) && isBefore(Loc, Loop.getEnd()))
      return true;
  return isInNoGradScope(Write);
}

/// Whether an earlier statement of a block around S, inside the same
/// lambda if any, declares a guard that disables grad.
static bool inNoGradScope(const Stmt *S, const ParentMap &Parents) {
  const Stmt *Current = S;
  while (const Stmt *Parent = Parents.getParent(Current)) {
    if (isa<LambdaExpr>(Parent))
      return false;
    if (const auto *Block = dyn_cast<CompoundStmt>(Parent))
      for (const Stmt *Child : Block->body()) {
        if (Child == Current)
          break;
        if (declaresNoGradGuard(Child))
          return true;
      }
    Current = Parent;
  }
  return false;
}

bool AutogradAnalysis::isInNoGradScope(const Expr *Write) const {
  return inNoGradScope(Write, Parents);
}

// Note [Saved tensors]
// Autograd saves some operands of an operation, or its result, with their
// version; backward refuses a saved tensor whose version changed ("one of the
// variables needed for gradient computation has been modified by an inplace
// operation"), and cannot see a write through `.data()`, which does not bump
// the version, so it silently uses the new values. Which tensors each operator
// saves is measured (checks/data/aten-saved-tensors.json); C++ calls map onto
// the table as every other operator fact does (TensorModel, SavedTensorTable).
// A save is recorded where grad mode is on and an operand is part of a graph,
// for a named tensor: an operand variable (or a view of one, which shares its
// version counter), or the variable that the whole result (or a view of it)
// initialises or is assigned to. The table lists what an operator saves when
// every input requires grad; an input is only known to be saved when another
// operand is part of the graph, or it is the call's only tensor operand
// (Definite): `x.mul(w)` saves `w` only if `x` requires grad.
void AutogradAnalysis::collectSaves(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    recordSave(Call);
  for (const Stmt *Child : S->children())
    collectSaves(Child);
}

bool disablesGradMode(const FunctionDecl &Function) {
  bool Disables = false;
  forEachStmt(Function.getBody(), [&](const Stmt *S) {
    Disables |= declaresNoGradGuard(S);
  });
  return Disables;
}

// Note [A forward inside a helper]
// `auto loss = critic_loss(critic, real, fake);`, where the function of the
// translation unit runs `critic->forward(...)` on its module parameter and
// returns a tensor, runs the caller's module's forward as `critic(x)` would:
// the call is a module call of the argument for the rules that need one
// (Note [Module state written before backward]). Only a helper that never
// disables grad mode, and one level of call, are followed.
std::optional<ModuleCall> helperForward(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Callee || isa<CXXMethodDecl>(Callee) || isLibtorchDecl(Callee) ||
      Callee->isInStdNamespace() || !Callee->hasBody(Definition) ||
      !isTensorType(Definition->getReturnType()))
    return std::nullopt;
  if (disablesGradMode(*Definition))
    return std::nullopt;
  std::optional<ModuleCall> Found;
  forEachStmt(Definition->getBody(), [&](const Stmt *S) {
    const auto *Inner = dyn_cast<CallExpr>(S);
    std::optional<ModuleCall> Forward =
        Inner && !Found ? moduleCallOf(Inner) : std::nullopt;
    if (!Forward)
      return;
    ModuleInstance Called = moduleInstanceOf(Forward->Module);
    const auto *Param = Called.Of == ModuleInstance::Kind::Variable &&
                                Called.Path.empty()
                            ? dyn_cast<ParmVarDecl>(Called.Variable)
                            : nullptr;
    unsigned Index = Param ? Param->getFunctionScopeIndex() : 0;
    if (!Param || Param->getDeclContext() != Definition ||
        Index >= Call->getNumArgs())
      return;
    Found = ModuleCall{Call, Forward->Impl, Call->getArg(Index)};
  });
  return Found;
}

/// What the measured or generated table says a tensor call saves for
/// backward; nothing for a special operation or an out= variant.
static SavedOperands savedOperands(const TensorCall &Tensor,
                                   const SavedTensorTable &Saved,
                                   const OperatorTable &Ops) {
  SavedOperands What;
  if (Tensor.Special != SpecialOperation::None || !Tensor.Effect.OutArgs.empty())
    return What;
  if (Tensor.MeasuredSaves) {
    What.Inputs = Tensor.MeasuredSaves->Inputs;
    What.Result = Tensor.MeasuredSaves->Result;
    return What;
  }
  llvm::SmallVector<bool, 4> MayHold;
  for (const Expr *Arg : Tensor.Args)
    MayHold.push_back(mayHoldTensor(Arg->getType()));
  return Saved.savedBy(Tensor.Effect.Operator, isMethodCall(Tensor.Call),
                       MayHold, Ops);
}

/// The result, or a view of it, of an operation that saves its result:
/// `torch::sigmoid(z)`, `s.narrow(1, 0, h)` where `s` was initialised by one.
static const CallExpr *savingCallOf(const Expr *E, const OperatorTable &Ops,
                                    const SavedTensorTable &Saved,
                                    bool ThroughVariable = true) {
  while (true) {
    E = skipHandleCopies(E);
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (!ThroughVariable || !Var || !Var->hasLocalStorage() ||
          isa<ParmVarDecl>(Var) || !Var->getInit())
        return nullptr;
      return savingCallOf(Var->getInit(), Ops, Saved, false);
    }
    const auto *Call = dyn_cast_or_null<CallExpr>(E);
    std::optional<TensorCall> Tensor =
        Call ? resolveTensorCall(Call, Ops) : std::nullopt;
    if (!Tensor)
      return nullptr;
    if (savedOperands(*Tensor, Saved, Ops).Result)
      return Call;
    if (Tensor->Special != SpecialOperation::None ||
        Tensor->Effect.View != ViewKind::Definite || Tensor->Effect.Expands ||
        !Tensor->aliasedArgument())
      return nullptr;
    E = Tensor->aliasedArgument();
  }
}

// Note [Saved by a function that returns it]
// `Gates g = compute_gates(x, h, w, b);`, where the function of the
// translation unit returns `torch::sigmoid(z)`, or a struct whose members
// are views of it, hands the caller tensors that sigmoid saved for backward:
// an in-place write into `g.forget` makes the backward through the gates
// throw, as a write into the sigmoid's result would in the function itself.
// The save is the caller's, at the call, when grad mode is on there and an
// argument of the call is part of the graph (a parameter, a member made to
// require grad); a function that disables grad mode saves nothing. The
// variable the call initialises holds the saved tensor, or, for a struct,
// each member that holds one; for a std::tuple or std::pair (`return
// {torch::softmax(logits, -1), value};` from an actor-critic's forward)
// unpacked by a structured binding, the name bound to the element.
static llvm::SmallVector<ReturnedSave, 2>
returnedSaves(const FunctionDecl &Function, const OperatorTable &Ops,
              const SavedTensorTable &Saved) {
  llvm::SmallVector<ReturnedSave, 2> Found;
  if (disablesGradMode(Function))
    return Found;
  forEachStmt(Function.getBody(), [&](const Stmt *S) {
    const auto *Return = dyn_cast<ReturnStmt>(S);
    const Expr *Value = Return ? Return->getRetValue() : nullptr;
    if (!Value)
      return;
    auto Add = [&](const Expr *E, const FieldDecl *Field,
                   std::optional<unsigned> Element = std::nullopt) {
      if (const CallExpr *Saver = savingCallOf(E, Ops, Saved)) {
        std::optional<TensorCall> Tensor = resolveTensorCall(Saver, Ops);
        Found.push_back({Saver,
                         Tensor->MeasuredSaves ? Tensor->Spelling
                                               : Tensor->Effect.Operator,
                         Field, Element});
      }
    };
    const auto *List = dyn_cast<InitListExpr>(Value->IgnoreImplicit());
    const RecordDecl *Record =
        List ? Value->getType()->getAsRecordDecl() : nullptr;
    const auto *Tuple = dyn_cast<CXXConstructExpr>(Value->IgnoreImplicit());
    const auto *TupleType = Function.getReturnType()->getAsCXXRecordDecl();
    if (Tuple && TupleType && TupleType->isInStdNamespace() &&
        TupleType->getIdentifier() &&
        (TupleType->getName() == "tuple" || TupleType->getName() == "pair")) {
      for (unsigned I = 0; I < Tuple->getNumArgs(); ++I)
        Add(Tuple->getArg(I)->IgnoreImplicit(), nullptr, I);
    } else if (Record && isTensorRecordType(Value->getType())) {
      unsigned I = 0;
      for (const FieldDecl *Field : Record->fields())
        if (I < List->getNumInits())
          Add(List->getInit(I++), Field);
    } else if (isTensorType(Function.getReturnType())) {
      Add(Value, nullptr);
    }
  });
  return Found;
}

// Note [Saved by a function of its arguments]
// `auto loss = residual(u, g).pow(2).mean();`, where the function of the
// translation unit computes `0.5 * u.pow(2)` from its parameter, saves the
// caller's `u` for the backward of `loss`, as `u.pow(2)` in the caller
// would: a write into `u` before that backward corrupts it. A parameter is
// saved when an operation of the function saves it (or a view of it) as an
// input; the save is definite when that operation has no other tensor
// operand, and possible otherwise (`u.mul(w)` saves `u` only if `w`
// requires grad). At the call, the argument must be a named tensor of the
// caller's graph, with grad mode on; a function that disables grad mode, or
// assigns the parameter another tensor, saves nothing of it.
static void
addParameterSaves(const FunctionDecl &Function, const OperatorTable &Ops,
                  const SavedTensorTable &Saved,
                  llvm::function_ref<const ValueDecl *(const Expr *)> ViewedDecl,
                  llvm::SmallVector<ReturnedSave, 2> &Found) {
  forEachStmt(
      Function.getBody(),
      [&](const Stmt *S) {
        const auto *Call = dyn_cast<CallExpr>(S);
        std::optional<TensorCall> Tensor =
            Call ? resolveTensorCall(Call, Ops) : std::nullopt;
        if (!Tensor)
          return;
        SavedOperands What = savedOperands(*Tensor, Saved, Ops);
        unsigned TensorOperands = llvm::count_if(Tensor->Args, [](const Expr *Arg) {
          return mayHoldTensor(Arg->getType());
        });
        for (unsigned Position : What.Inputs) {
          const auto *Param =
              dyn_cast_or_null<ParmVarDecl>(ViewedDecl(Tensor->Args[Position]));
          if (!Param || Param->getDeclContext() != &Function ||
              !neverAssigned(Param) ||
              llvm::any_of(Found, [&](const ReturnedSave &Known) {
                return Known.Parameter == Param->getFunctionScopeIndex();
              }))
            continue;
          ReturnedSave Save;
          Save.Saver = Call;
          Save.Operator =
              Tensor->MeasuredSaves ? Tensor->Spelling : Tensor->Effect.Operator;
          Save.Parameter = Param->getFunctionScopeIndex();
          Save.Definite = TensorOperands == 1;
          Found.push_back(Save);
        }
      },
      /*IntoLambdas=*/false);
}

void AutogradAnalysis::recordHelperSave(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Callee || isLibtorchDecl(Callee) || Callee->isInStdNamespace() ||
      !Callee->hasBody(Definition) || isInNoGradScope(Call) ||
      isDetachedOnItsWay(Call) ||
      !AST.getSourceManager().isInMainFile(Definition->getLocation()))
    return;
  // Each callee's body is read once per analysis.
  auto [Known, New] = HelperSaves.try_emplace(Definition);
  if (New) {
    Known->second = returnedSaves(*Definition, *Ops, *Saved);
    if (!disablesGradMode(*Definition))
      addParameterSaves(
          *Definition, *Ops, *Saved,
          [&](const Expr *E) { return viewedDecl(E); }, Known->second);
  }
  if (Known->second.empty())
    return;
  // A module's forward computes from the module's parameters.
  bool ArgumentInGraph =
      moduleCallOf(Call).has_value() ||
      llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
        return mayHoldTensor(Arg->getType()) &&
               isPartOfGraph(Arg, Call->getBeginLoc());
      });
  if (!ArgumentInGraph)
    return;
  const ValueDecl *Consumer = consumerOf(Call);
  if (!Consumer)
    return;
  const auto *Bound = dyn_cast<DecompositionDecl>(Consumer);
  for (const ReturnedSave &Save : Known->second) {
    if (Save.Parameter) {
      unsigned Index = *Save.Parameter + (isa<CXXOperatorCallExpr>(Call) &&
                                                  isa<CXXMethodDecl>(Callee)
                                              ? 1
                                              : 0);
      const ValueDecl *Input =
          Index < Call->getNumArgs() ? viewedDecl(Call->getArg(Index)) : nullptr;
      if (Input && isPartOfGraph(Call->getArg(Index), Call->getBeginLoc()))
        Saves.push_back({Call, Save.Operator, Input, /*IsResult=*/false,
                         Save.Definite, Consumer, Save.Saver});
      continue;
    }
    if (Save.Element) {
      if (Bound && *Save.Element < Bound->bindings().size())
        Saves.push_back({Call, Save.Operator, Bound->bindings()[*Save.Element],
                         /*IsResult=*/true, /*Definite=*/true, Consumer,
                         Save.Saver});
    } else if (Save.Field)
      Saves.push_back({Call, Save.Operator, Save.Field, /*IsResult=*/true,
                       /*Definite=*/true, Consumer, Save.Saver});
    else if (ResultHolders.lookup(Call) == Consumer)
      Saves.push_back({Call, Save.Operator, Consumer, /*IsResult=*/true,
                       /*Definite=*/true, Consumer, Save.Saver});
  }
}

// Note [Custom autograd functions]
// `QuantLinearFn::apply(x, weight)`, for a `torch::autograd::Function<F>`
// of the translation unit, runs `F::forward(ctx, x, w)`; what its
// `ctx->save_for_backward({x, w})` names among forward's parameters is
// saved from the arguments apply is given, as a libtorch operator saves its
// inputs. The backward unpacks them with a version check, so an in-place
// write of one between the call and the backward throws, and one through
// `.data()` silently changes the gradients.
/// The positions of apply's arguments that Call's forward saves, and the
/// Function's class; none when Call is no apply of a custom Function defined
/// here.
static std::optional<std::pair<llvm::SmallVector<unsigned, 2>, const CXXRecordDecl *>>
customFunctionSaves(const CallExpr *Call) {
  const auto *Apply = dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
  if (!Apply || !Apply->isStatic() || !Apply->getIdentifier() ||
      Apply->getName() != "apply")
    return std::nullopt;
  const CXXRecordDecl *Function = nullptr;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(Apply->getParent());
      Spec && Spec->getName() == "Function" && isLibtorchDecl(Spec) &&
      Spec->getTemplateArgs().size() == 1 &&
      Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
    Function = Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  if (!Function || !Function->hasDefinition())
    return std::nullopt;
  const FunctionDecl *Forward = nullptr;
  for (const CXXMethodDecl *Method : Function->getDefinition()->methods())
    if (Method->isStatic() && Method->getIdentifier() &&
        Method->getName() == "forward" && Method->getDefinition())
      Forward = Method->getDefinition();
  if (!Forward || Forward->getNumParams() != Call->getNumArgs() + 1)
    return std::nullopt;
  llvm::SmallVector<unsigned, 2> Positions;
  forEachStmt(Forward->getBody(), [&](const Stmt *S) {
    const auto *Save = dyn_cast<CXXMemberCallExpr>(S);
    if (!Save || calleeName(Save) != "save_for_backward")
      return;
    forEachStmt(Save, [&](const Stmt *Inner) {
      const auto *Ref = dyn_cast<DeclRefExpr>(Inner);
      const auto *Param = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
      if (Param && Param->getDeclContext() == Forward &&
          Param->getFunctionScopeIndex() >= 1 &&
          !llvm::is_contained(Positions, Param->getFunctionScopeIndex() - 1))
        Positions.push_back(Param->getFunctionScopeIndex() - 1);
    });
  });
  return std::make_pair(Positions, Function);
}

void AutogradAnalysis::recordCustomSave(const CallExpr *Call,
                                        llvm::ArrayRef<unsigned> Positions,
                                        llvm::StringRef Name) {
  if (isInNoGradScope(Call))
    return;
  bool InGraph = llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
    return mayHoldTensor(Arg->getType()) && isPartOfGraph(Arg, Call->getBeginLoc());
  });
  const ValueDecl *Consumer = consumerOf(Call);
  for (unsigned Position : Positions) {
    const ValueDecl *Input = viewedDecl(Call->getArg(Position));
    if (!Input)
      continue;
    if (const FieldDecl *Field = savedMember(Call->getArg(Position)))
      SavedMembers.insert(Field);
    if (Consumer)
      Saves.push_back({Call, Name.str(), Input, /*IsResult=*/false, InGraph,
                       Consumer});
  }
}

void AutogradAnalysis::recordSave(const CallExpr *Call) {
  if (auto Custom = customFunctionSaves(Call)) {
    recordCustomSave(Call, Custom->first, Custom->second->getName());
    return;
  }
  std::optional<ModuleCall> Module = moduleCallOf(Call);
  if (!Module)
    Module = helperForward(Call);
  if (!Module)
    Module = graphMethodCallOf(Call);
  if (Module && !isInNoGradScope(Call) && !isDetachedOnItsWay(Call))
    if (const ValueDecl *Consumer = consumerOf(Call))
      ModuleSaves.push_back({*Module, Consumer});
  recordHelperSave(Call);
  std::optional<TensorCall> Tensor = resolveTensorCall(Call, *Ops);
  if (!Tensor)
    return;
  llvm::SmallVector<bool, 4> MayHold;
  for (const Expr *Arg : Tensor->Args)
    MayHold.push_back(mayHoldTensor(Arg->getType()));
  SavedOperands What = savedOperands(*Tensor, *Saved, *Ops);
  if (What.empty() || isInNoGradScope(Call))
    return;
  llvm::SmallVector<bool, 4> InGraph;
  for (unsigned I = 0; I < Tensor->Args.size(); ++I)
    InGraph.push_back(MayHold[I] &&
                      isPartOfGraph(Tensor->Args[I], Call->getBeginLoc()));
  // Note [A library module saves its input]
  // `critic(obs)` on a torch::nn::Linear computes from the module's weight,
  // a parameter that requires grad, so the input is saved for the weight's
  // gradient whatever the input is (the measured table names what each
  // module saves; resolveTensorCall reads it for a library module's call).
  // A write of `obs` before the backward corrupts it.
  bool ModuleParameters = moduleCallOf(Call).has_value();
  if (!ModuleParameters && !llvm::is_contained(InGraph, true))
    return;
  for (unsigned Position : What.Inputs)
    if (const FieldDecl *Field = savedMember(Tensor->Args[Position]))
      SavedMembers.insert(Field);
  // `cache_ = proj(x).exp();`: a member holds the saved result.
  if (What.Result)
    if (const FieldDecl *Field = memberAssignedResult(Call))
      SavedMembers.insert(Field);
  const ValueDecl *Consumer = consumerOf(Call);
  if (!Consumer)
    if (const Expr *Self = Tensor->aliasedArgument())
      Consumer = viewedDecl(Self);
  if (!Consumer)
    return;

  unsigned TensorOperands = llvm::count(MayHold, true);
  // A measured call of the C++ API is named as it is spelled (`cls_head`,
  // `embedding`), an operator by the table.
  const std::string &Saver =
      Tensor->MeasuredSaves ? Tensor->Spelling : Tensor->Effect.Operator;
  for (unsigned Position : What.Inputs) {
    const ValueDecl *Input = viewedDecl(Tensor->Args[Position]);
    if (!Input)
      continue;
    bool OtherInGraph = ModuleParameters;
    for (unsigned I = 0; I < InGraph.size(); ++I)
      OtherInGraph |= I != Position && InGraph[I];
    Saves.push_back({Call, Saver, Input, /*IsResult=*/false,
                     OtherInGraph || TensorOperands == 1, Consumer});
  }
  if (What.Result && ResultHolders.lookup(Call) == Consumer)
    Saves.push_back({Call, Saver, Consumer, /*IsResult=*/true,
                     /*Definite=*/true, Consumer});
}

bool AutogradAnalysis::isDetachedOnItsWay(const CallExpr *Call) const {
  // `detach()` and `data()` take no argument: the call is in their object.
  for (const Stmt *Parent = Parents.getParent(Call);
       isa_and_nonnull<Expr>(Parent); Parent = Parents.getParent(Parent))
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Parent);
        Member &&
        isDetachingMethod(calleeName(Member)))
      return true;
  return false;
}

bool AutogradAnalysis::isPartOfGraph(const Expr *E,
                                     SourceLocation Before) const {
  if (isModuleCall(E) || containsGradRequest(E))
    return true;
  llvm::SmallVector<const ValueDecl *, 4> Reads;
  collectTensorReads(E, Reads, /*SkipDetached=*/true);
  llvm::DenseSet<const ValueDecl *> Seen;
  return llvm::any_of(Reads, [&](const ValueDecl *Read) {
    Seen.clear();
    return requiresGrad(Read) || isGraphResult(Read, Before, Seen);
  });
}

const Expr *AutogradAnalysis::stripViews(const Expr *E) const {
  while (true) {
    E = skipHandleCopies(E);
    const auto *Call = dyn_cast_or_null<CallExpr>(E);
    if (!Call)
      return E;
    std::optional<TensorCall> Tensor = resolveTensorCall(Call, *Ops);
    if (!Tensor || Tensor->Special != SpecialOperation::None ||
        Tensor->Effect.View != ViewKind::Definite || Tensor->Effect.Expands ||
        !Tensor->aliasedArgument())
      return E;
    E = Tensor->aliasedArgument();
  }
}

const ValueDecl *AutogradAnalysis::viewedDecl(const Expr *E) const {
  return referencedDecl(stripViews(E));
}

// Note [Members saved through a local view]
// `auto a = weight[u]; ... a.pow(2)` saves a view of the member `weight`,
// whose version counter is the member's: an in-place write of the member
// (through `detach()` or `data()` too) before the backward makes it throw.
// So a local initialised with a view of a member, and never assigned,
// stands for the member when it is saved, through further such locals.
const FieldDecl *AutogradAnalysis::savedMember(const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
    const ValueDecl *Decl = viewedDecl(E);
    if (const auto *Field = dyn_cast_or_null<FieldDecl>(Decl))
      return Field;
    const auto *Var = dyn_cast_or_null<VarDecl>(Decl);
    if (!Var || !Var->hasLocalStorage() || isa<ParmVarDecl>(Var) ||
        !Var->getInit() || !neverAssigned(Var))
      return nullptr;
    E = Var->getInit();
  }
  return nullptr;
}

const FieldDecl *AutogradAnalysis::memberAssignedResult(const CallExpr *Call) const {
  for (const Stmt *Parent = Parents.getParent(Call); isa_and_nonnull<Expr>(Parent);
       Parent = Parents.getParent(Parent)) {
    const auto *Assign = dyn_cast<CXXOperatorCallExpr>(Parent);
    if (!Assign || Assign->getOperator() != OO_Equal || Assign->getNumArgs() != 2)
      continue;
    const auto *Member = dyn_cast<MemberExpr>(Assign->getArg(0)->IgnoreImplicit());
    if (!Member || !isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()) ||
        stripViews(Assign->getArg(1)) != Call)
      return nullptr;
    return dyn_cast<FieldDecl>(Member->getMemberDecl());
  }
  return nullptr;
}

/// The variable the call's result flows into: the one whose initializer, or
/// the right-hand side of whose assignment, contains the call. Where the
/// whole value is the call (or a view of its result), the variable holds the
/// result, which ResultHolders records.
const ValueDecl *AutogradAnalysis::consumerOf(const CallExpr *Call) {
  const Stmt *Child = Call;
  for (const Stmt *Parent = Parents.getParent(Call); Parent;
       Child = Parent, Parent = Parents.getParent(Parent)) {
    if (isa<LambdaExpr>(Parent))
      return nullptr;
    if (const auto *Decl = dyn_cast<DeclStmt>(Parent)) {
      for (const auto *D : Decl->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D);
            Var && Var->getInit() == Child && carriesTensors(Var->getType())) {
          if (isTensorType(Var->getType()) && stripViews(Var->getInit()) == Call)
            ResultHolders[Call] = Var;
          return Var;
        }
      return nullptr;
    }
    if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(Parent);
        Assign && Assign->getOperator() == OO_Equal &&
        Assign->getNumArgs() == 2) {
      const auto *Lhs =
          dyn_cast<DeclRefExpr>(Assign->getArg(0)->IgnoreImplicit());
      if (Child != Assign->getArg(1) || !Lhs || !isTensorType(Lhs->getType()))
        return nullptr;
      if (stripViews(Assign->getArg(1)) == Call)
        ResultHolders[Call] = Lhs->getDecl();
      return Lhs->getDecl();
    }
    if (const auto *Put = dyn_cast<CXXMemberCallExpr>(Parent);
        Put && Child != Put->getImplicitObjectArgument())
      if (const ValueDecl *Container = containerPutInto(Put))
        return Container;
    if (!isa<Expr>(Parent))
      return nullptr;
  }
  return nullptr;
}

bool AutogradAnalysis::dependsOn(
    const ValueDecl *Tensor, const ValueDecl *On,
    llvm::DenseSet<const ValueDecl *> &Seen) const {
  if (Tensor == On)
    return true;
  if (!Seen.insert(Tensor).second)
    return false;
  return llvm::any_of(Edges, [&](const GraphEdge &Edge) {
    return Edge.Result == Tensor && dependsOn(Edge.Input, On, Seen);
  });
}

/// A save of an input ends where the variable is assigned a new tensor, its
/// own statement included (`x = x * w` saves the old `x`); a saved result
/// ends at an assignment after the one that defined it. A write inside the
/// assignment's right-hand side (`attn = drop(attn)`) runs before it.
bool AutogradAnalysis::isReboundBetween(const SavedTensor &Save,
                                        const Expr *Write) const {
  SourceLocation Saver = Save.Saver->getBeginLoc();
  return llvm::any_of(Rebinds, [&](const auto &Rebind) {
    const auto &[Tensor, Range] = Rebind;
    if (Tensor != Save.Tensor ||
        !isBefore(Range.getEnd(), Write->getBeginLoc()))
      return false;
    return Save.IsResult ? isBefore(Saver, Range.getBegin())
                         : isBefore(Saver, Range.getEnd());
  });
}

std::optional<SourceLocation>
AutogradAnalysis::backwardNeeding(const ModuleSave &Save,
                                  const Expr *After) const {
  // `outputs = D->forward(fresh)` after the write: a backward from it reads
  // the new forward's result.
  auto FreshlyRebound = [&](SourceLocation Backward) {
    return llvm::any_of(FreshRebinds, [&](const auto &Rebind) {
      return Rebind.first == Save.Consumer &&
             isBefore(After->getEndLoc(), Rebind.second.getBegin()) &&
             isBefore(Rebind.second.getEnd(), Backward);
    });
  };
  return backwardFrom(Save.Consumer, After, FreshlyRebound);
}

std::optional<SourceLocation> AutogradAnalysis::backwardFrom(
    const ValueDecl *Consumer, const Expr *After,
    llvm::function_ref<bool(SourceLocation)> Skip) const {
  for (const auto &[Where, Roots] : BackwardRoots) {
    if (!isBefore(After->getEndLoc(), Where) || Skip(Where))
      continue;
    for (const ValueDecl *From : Roots) {
      llvm::DenseSet<const ValueDecl *> Seen;
      if (dependsOn(From, Consumer, Seen))
        return Where;
    }
  }
  return std::nullopt;
}

const SavedTensor *AutogradAnalysis::savedFor(const ValueDecl *Root,
                                              const Expr *Write,
                                              bool DefiniteOnly) const {
  const SavedTensor *Latest = nullptr;
  for (const SavedTensor &Save : Saves) {
    if (Save.Tensor != Root || (DefiniteOnly && !Save.Definite) ||
        !isBefore(Save.Saver->getEndLoc(), Write->getBeginLoc()) ||
        isReboundBetween(Save, Write))
      continue;
    if (backwardNeeding(Save, Write))
      Latest = &Save;
  }
  return Latest;
}

std::optional<SourceLocation>
AutogradAnalysis::backwardNeeding(const SavedTensor &Save, const Expr *After) const {
  return backwardFrom(Save.Consumer, After, [](SourceLocation) { return false; });
}

std::optional<SourceLocation>
AutogradAnalysis::backwardFromResultOf(const CallExpr *Call) {
  if (isInNoGradScope(Call) || isDetachedOnItsWay(Call))
    return std::nullopt;
  // `cell(x).sum().backward()`: the backward is in the same expression;
  // `return loss(x) * 4;` of a function whose return is differentiated.
  const Stmt *Parent = Parents.getParent(Call);
  for (; isa_and_nonnull<Expr>(Parent); Parent = Parents.getParent(Parent))
    if (const auto *Outer = dyn_cast<CallExpr>(Parent); Outer && isBackwardCall(Outer))
      return Outer->getBeginLoc();
  if (isa_and_nonnull<ReturnStmt>(Parent) && ReturnsGraph)
    return Parent->getBeginLoc();
  llvm::SmallVector<const ValueDecl *, 2> Consumers;
  if (const ValueDecl *Consumer = consumerOf(Call))
    Consumers.push_back(Consumer);
  for (const Stmt *Parent = Parents.getParent(Call); isa_and_nonnull<Expr>(Parent);
       Parent = Parents.getParent(Parent))
    if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(Parent);
        Assign && Assign->getOperator() == OO_Equal && Assign->getNumArgs() == 2)
      llvm::append_range(Consumers, tiedTensors(Assign));
  for (const ValueDecl *Consumer : Consumers)
    if (std::optional<SourceLocation> Backward = backwardFrom(
            Consumer, Call, [](SourceLocation) { return false; }))
      return Backward;
  return std::nullopt;
}

// Note [A graph returned to the caller]
// A function that builds a graph and returns it, as a hand-written cell's
// `step(x, h, c)` does, is differentiated where its caller runs a backward
// from the result: a write in the function into a tensor that one of its
// operations saved makes that backward throw, as it would in a module's
// `forward` (Note [A module's forward is differentiated]). So a return of
// the function counts as a backward, from the tensors it returns (a tensor,
// a container or a struct of them), when a function of the main file calls
// it with grad mode on and runs a backward from what the call returns: the
// variable it initialises or is assigned to, a `std::tie` of tensors, a
// structured binding, or a backward in the same expression. The arguments
// that are part of the caller's graph make the parameters they bind part of
// the function's. A caller that returns the result on is followed too
// (Note [A graph returned through several callers]). A function object's
// `operator()` (`decode(z)` with `const InnerProductDecoder decode;`) is
// such a function; other operators, and lambdas (analysed with the function
// that holds them), are not.
static bool isFunctionObjectCall(const CallExpr *Call, const FunctionDecl *Callee) {
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Callee);
  return isa<CXXOperatorCallExpr>(Call) && Method &&
         Method->getOverloadedOperator() == OO_Call && !Method->getParent()->isLambda();
}

/// The `forward` a module class of the main file defines, if one.
static const FunctionDecl *forwardOf(const CXXRecordDecl *Impl) {
  if (!Impl || !Impl->hasDefinition() || isLibtorchDecl(Impl))
    return nullptr;
  for (const CXXMethodDecl *Method : Impl->getDefinition()->methods())
    if (Method->getIdentifier() && Method->getName() == "forward")
      return Method;
  return nullptr;
}

MainFileCalls::MainFileCalls(ASTContext &AST) {
  forEachMainFileFunction(AST, [&](const FunctionDecl &Caller) {
    forEachStmt(Caller.getBody(), [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
      if (Callee &&
          (!isa<CXXOperatorCallExpr>(Call) || isFunctionObjectCall(Call, Callee)) &&
          !Callee->isInStdNamespace() && !isLibtorchDecl(Callee))
        Calls[Callee->getCanonicalDecl()].push_back({Call, &Caller});
      // `net(x)` through the module's holder runs its forward.
      else if (std::optional<ModuleCall> Module = Call ? moduleCallOf(Call) : std::nullopt;
               Module && !Module->Method)
        if (const FunctionDecl *Forward = forwardOf(Module->Impl))
          Calls[Forward->getCanonicalDecl()].push_back({Call, &Caller});
    });
  });
}

// Note [Forwards run only without grad]
// A module's forward is differentiated by its caller (Note [A module's
// forward is differentiated]), unless the program never runs it with grad:
// grad mode is a thread's state, so a forward called only in no-grad scopes
// (`c10::InferenceMode`, `torch::NoGradGuard`, `AutoGradMode(false)`), or
// only from functions that are themselves called only so, records no graph,
// and the writes in it break no saved tensor (Monte-Carlo drop-path at
// serving time). A call the main file does not show (a module run as an
// element of a Sequential, or a library's module its users train) keeps the
// forward differentiated, so a forward the file never calls directly stays
// differentiated.
static bool runsOnlyWithoutGrad(const FunctionDecl &Function,
                                const MainFileCalls &Calls, unsigned Depth) {
  llvm::ArrayRef<std::pair<const CallExpr *, const FunctionDecl *>> Sites =
      Calls.of(Function);
  if (Sites.empty() || Depth > 4)
    return false;
  for (const auto &[Call, Caller] : Sites) {
    if (Caller == &Function || !Caller->getBody())
      return false;
    ParentMap Parents(const_cast<Stmt *>(Caller->getBody()));
    if (!inNoGradScope(Call, Parents) &&
        !runsOnlyWithoutGrad(*Caller, Calls, Depth + 1))
      return false;
  }
  return true;
}

bool forwardRunsOnlyWithoutGrad(const FunctionDecl &Function,
                                const MainFileCalls &Calls) {
  const auto *Method = dyn_cast<CXXMethodDecl>(&Function);
  return Method && Method->getIdentifier() && Method->getName() == "forward" &&
         isModuleClass(Method->getParent()) &&
         runsOnlyWithoutGrad(Function, Calls, 0);
}

llvm::ArrayRef<std::pair<const CallExpr *, const FunctionDecl *>>
MainFileCalls::of(const FunctionDecl &Callee) const {
  auto It = Calls.find(Callee.getCanonicalDecl());
  if (It == Calls.end())
    return {};
  return It->second;
}

// Note [A graph returned through several callers]
// A helper's graph often reaches the backward through more than one return:
// `tempered_probs` builds probabilities, `distillation_loss` returns a loss
// computed from them, and the training loop runs the backward from that
// loss. A caller with no backward of its own that returns what it computes
// from the call's result is itself a function whose graph is returned to
// its caller (Note [A graph returned to the caller]); so the caller's
// analysis is made with its own caller's backward, and the helper's return
// is differentiated where that backward runs. Its parameters whose
// arguments are part of its caller's graph make the helper's parameters
// part of the graph in turn. The chain is followed through
// MaxReturnedThrough callers, which also ends mutual recursion.
namespace {

constexpr unsigned MaxReturnedThrough = 3;

std::optional<CallerBackward> findCallerBackward(const FunctionDecl &Function,
                                                 const MainFileCalls &Calls,
                                                 ASTContext &AST,
                                                 const OperatorTable *Ops,
                                                 unsigned Depth) {
  const auto *Method = dyn_cast<CXXMethodDecl>(&Function);
  if (!carriesTensors(Function.getReturnType()) ||
      (Method && (isa<CXXConstructorDecl>(Method) ||
                  (Method->isOverloadedOperator() &&
                   Method->getOverloadedOperator() != OO_Call) ||
                  Method->getParent()->isLambda())))
    return std::nullopt;
  const FunctionDecl *Canonical = Function.getCanonicalDecl();
  // One analysis per caller; no saves are needed to find its backwards.
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<AutogradAnalysis>> Callers;
  for (const auto &[Call, In] : Calls.of(Function)) {
    if (In->getCanonicalDecl() == Canonical)
      continue;
    std::unique_ptr<AutogradAnalysis> &Facts = Callers[In];
    if (!Facts) {
      Facts = std::make_unique<AutogradAnalysis>(*In, AST, Ops);
      if (!Facts->hasBackward() && Depth < MaxReturnedThrough)
        if (std::optional<CallerBackward> Outer =
                findCallerBackward(*In, Calls, AST, Ops, Depth + 1))
          Facts = std::make_unique<AutogradAnalysis>(*In, AST, Ops, nullptr,
                                                     &*Outer);
    }
    if (!Facts->hasBackward())
      continue;
    std::optional<SourceLocation> Backward = Facts->backwardFromResultOf(Call);
    if (!Backward)
      continue;
    CallerBackward Found{Call, *Backward, {}, {}};
    if (Facts->isReturnOfGraph(*Backward)) {
      const CallerBackward &Outer = *Facts->caller();
      Found.Backward = Outer.Backward;
      Found.Through.push_back(Outer.Call);
      llvm::append_range(Found.Through, Outer.Through);
    }
    // A function object's call passes the object first.
    unsigned Skip = isFunctionObjectCall(Call, &Function) ? 1 : 0;
    for (unsigned I = 0; I + Skip < Call->getNumArgs() && I < Function.getNumParams(); ++I)
      if (Facts->carriesGraph(Call->getArg(I + Skip), Call))
        Found.GraphParams.push_back(Function.getParamDecl(I));
    return Found;
  }
  return std::nullopt;
}

} // namespace

std::optional<CallerBackward> callerBackward(const FunctionDecl &Function,
                                             const MainFileCalls &Calls,
                                             ASTContext &AST,
                                             const OperatorTable *Ops) {
  return findCallerBackward(Function, Calls, AST, Ops, 0);
}

} // namespace clang::tidy::libtorch
