//===- ModuleState.cpp - what a module's forward saves, what writes it ---===//

#include "ModuleState.h"
#include "AliasAnalysis.h"
#include "ApiEffects.h"
#include "AutogradAnalysis.h"
#include "Compat.h"
#include "ConstructionTies.h"
#include "ParameterSharing.h"
#include "SavedTensors.h"
#include "TensorModel.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::libtorch {

namespace {

/// Calls every function of S in source order, not looking into lambdas
/// (they run when called, which this does not follow).
void forEachCall(const Stmt *S,
                 llvm::function_ref<void(const CallExpr *)> Visit) {
  forEachStmt(
      S,
      [&](const Stmt *Child) {
        if (const auto *Call = dyn_cast<CallExpr>(Child))
          Visit(Call);
      },
      /*IntoLambdas=*/false);
}

/// `X->parameters()`, `X.named_parameters()`, `X->buffers()`, also through
/// a local list initialised with one: the module X whose every parameter
/// the range visits.
const Expr *moduleOfParameterRange(const Expr *Range, unsigned Depth = 0) {
  if (!Range || Depth > 4)
    return nullptr;
  Range = Range->IgnoreImplicit()->IgnoreParens();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Range)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && Var->isLocalVarDecl() && Var->getInit())
      return moduleOfParameterRange(Var->getInit(), Depth + 1);
    return nullptr;
  }
  // Note [Lists that hold a module's parameters]
  // `params_(model_->parameters())` in a constructor makes the member list
  // the module's parameters, as a local list initialised with them is: a
  // write of its elements in a method of the class, or in a function it is
  // passed to (`sync_.maybe_average(step, params_)` writing
  // `params[i].data().copy_(mean)`), writes every parameter of the member
  // module. Every binding of the member in the class's constructors must be
  // such a list; the module is named relative to `this`, as in the method.
  if (const auto *Member = dyn_cast<MemberExpr>(Range)) {
    const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    if (!Field || !isTensorListType(Field->getType()) ||
        !isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()))
      return nullptr;
    const Expr *Module = nullptr;
    for (const MemberBinding &Binding : memberBindings(Field)) {
      Module = moduleOfParameterRange(Binding.Value, Depth + 1);
      if (!Module)
        return nullptr;
    }
    return Module;
  }
  const auto *Call = dyn_cast<CXXMemberCallExpr>(Range);
  if (!Call || !Call->getMethodDecl() ||
      !Call->getMethodDecl()->getIdentifier())
    return nullptr;
  llvm::StringRef Name = Call->getMethodDecl()->getName();
  if (Name != "parameters" && Name != "named_parameters" && Name != "buffers")
    return nullptr;
  // The module as written, not converted to torch::nn::Module.
  const Expr *Module = Call->getImplicitObjectArgument();
  Module = Module ? Module->IgnoreParenImpCasts() : nullptr;
  return Module && moduleImplOf(Module->getType()) ? Module : nullptr;
}

/// The ranges of Body after a guard that disables grad mode, to the end of
/// the guard's block.
std::vector<SourceRange> noGradRanges(const Stmt *Body) {
  std::vector<SourceRange> Ranges;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *Block = dyn_cast<CompoundStmt>(S))
      for (const Stmt *Child : Block->body())
        if (declaresNoGradGuard(Child)) {
          Ranges.push_back({Child->getEndLoc(), Block->getEndLoc()});
          break;
        }
  });
  return Ranges;
}

/// The tensor member Name of Impl or of one of its bases.
const FieldDecl *tensorMember(const CXXRecordDecl *Impl, llvm::StringRef Name) {
  if (!Impl || !Impl->hasDefinition())
    return nullptr;
  Impl = Impl->getDefinition();
  for (const FieldDecl *Field : Impl->fields())
    if (Field->getIdentifier() && Field->getName() == Name &&
        isTensorType(Field->getType()))
      return Field;
  for (const CXXBaseSpecifier &Base : Impl->bases())
    if (const FieldDecl *Found =
            tensorMember(Base.getType()->getAsCXXRecordDecl(), Name))
      return Found;
  return nullptr;
}

} // namespace

std::optional<ModuleCall> moduleCallOf(const CallExpr *Call) {
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
  if (!Method)
    return std::nullopt;
  const Expr *Object = nullptr;
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if (Operator->getOperator() != OO_Call || Operator->getNumArgs() < 1)
      return std::nullopt;
    Object = Operator->getArg(0);
  } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    if (!Method->getIdentifier() || Method->getName() != "forward")
      return std::nullopt;
    Object = Member->getImplicitObjectArgument();
  }
  const CXXRecordDecl *Impl =
      Object ? moduleImplOf(Object->getType()) : nullptr;
  if (!Impl)
    return std::nullopt;
  return ModuleCall{Call, Impl, Object};
}

// Note [Methods that build a graph]
// A module's graph is not built by `forward` alone: a recurrent policy's
// `step(obs)`, an encoder's `encode(x)` or an actor's `act(obs)` run
// operations on the module's state and return their result, and what they
// saved is needed by the backward that later starts from that result. So a
// call of such a method is a module call for Note [Module state written
// before backward], saving what the method's own operations and module
// calls save (ModuleStateAnalysis::savedBy). Taken: methods of the
// translation unit's module classes, other than `forward` (a module call
// already), that return tensors and never disable grad mode.
std::optional<ModuleCall> graphMethodCallOf(const CallExpr *Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
  const FunctionDecl *Definition = Method ? Method->getDefinition() : nullptr;
  if (!Definition || !Definition->hasBody() || !Method->getIdentifier() ||
      Method->getName() == "forward" || isLibtorchDecl(Method) ||
      Method->isInStdNamespace() || !isModuleClass(Method->getParent()) ||
      !carriesTensors(Method->getReturnType()))
    return std::nullopt;
  if (disablesGradMode(*Definition))
    return std::nullopt;
  return ModuleCall{Call, Method->getParent(),
                    Member->getImplicitObjectArgument(), Method};
}

ModuleInstance moduleInstanceOf(const Expr *E) {
  llvm::SmallVector<const ValueDecl *, 2> Members; // innermost first
  auto Root = [&](ModuleInstance Instance) {
    if (Instance.known())
      Instance.Path.assign(Members.rbegin(), Members.rend());
    return Instance;
  };
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = skipModuleHandleCopies(E);
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
        Operator && Operator->getNumArgs() >= 1 &&
        (Operator->getOperator() == OO_Arrow ||
         Operator->getOperator() == OO_Star)) {
      E = Operator->getArg(0);
      continue;
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(E);
        Unary && Unary->getOpcode() == UO_Deref) {
      E = Unary->getSubExpr();
      continue;
    }
    if (isa<CXXThisExpr>(E))
      return isModuleClass(E->getType()->getPointeeCXXRecordDecl())
                 ? Root({ModuleInstance::Kind::This, nullptr, {}})
                 : ModuleInstance();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return moduleImplOf(Ref->getType())
                 ? Root({ModuleInstance::Kind::Variable, Ref->getDecl(), {}})
                 : ModuleInstance();
    // A submodule member continues the path to its owner; any other member
    // (a struct holding a module handle) leaves modules.
    const auto *Member = dyn_cast<MemberExpr>(E);
    if (!Member || !moduleImplOf(Member->getType()))
      return ModuleInstance();
    Members.push_back(Member->getMemberDecl());
    E = Member->getBase();
  }
  return ModuleInstance();
}

/// A holder made from `nullptr`, to be assigned its module later.
static bool isEmptyHolder(const Expr *E) {
  E = E->IgnoreImplicit();
  if (const auto *List = dyn_cast<InitListExpr>(E))
    return List->getNumInits() == 1 && isEmptyHolder(List->getInit(0));
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 1 &&
           Construct->getArg(0)->getType()->isNullPtrType();
  return E->getType()->isNullPtrType();
}

/// The module a registration or assignment hands over:
/// `register_module("act", ReLU(...))` gives `ReLU(...)`.
static const Expr *registeredModule(const Expr *E) {
  E = skipModuleHandleCopies(E);
  const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  if (Method && Method->getIdentifier() &&
      Method->getName() == "register_module" && Call->getNumArgs() == 2)
    return skipModuleHandleCopies(Call->getArg(1));
  return E;
}

static bool isCallTo(const Expr *E, llvm::StringRef Method) {
  const auto *Call =
      dyn_cast_or_null<CXXMemberCallExpr>(E ? skipHandleCopies(E) : nullptr);
  const CXXMethodDecl *Callee = Call ? Call->getMethodDecl() : nullptr;
  return Callee && Callee->getIdentifier() && Callee->getName() == Method;
}

/// Whether Field is given the result of Registrar (`register_buffer`), or
/// handed to it after it was given a tensor, in its class's constructors.
static bool isRegisteredWith(const FieldDecl *Field, llvm::StringRef Registrar) {
  if (llvm::any_of(memberBindings(Field), [&](const MemberBinding &Binding) {
        return isCallTo(Binding.Value, Registrar);
      }))
    return true;
  // `register_buffer("scale", scale_)` after the member was given a tensor.
  const auto *Owner = dyn_cast<CXXRecordDecl>(Field->getParent());
  bool Registered = false;
  if (!Owner)
    return false;
  for (const CXXConstructorDecl *Ctor : Owner->ctors())
    if (const FunctionDecl *Defined = Ctor->getDefinition())
      forEachCall(Defined->getBody(), [&](const CallExpr *Call) {
        const auto *Member = dyn_cast<MemberExpr>(
            Call->getNumArgs() >= 2 ? skipHandleCopies(Call->getArg(1))
                                    : nullptr);
        Registered |= isCallTo(Call, Registrar) && Member &&
                      Member->getMemberDecl() == Field;
      });
  return Registered;
}

bool isRegisteredBuffer(const FieldDecl *Field) {
  return isRegisteredWith(Field, "register_buffer");
}

bool isRegisteredParameter(const FieldDecl *Field) {
  const auto *Owner = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (Owner && isLibtorchDecl(Owner))
    return Field->getAccess() == AS_public;
  return isRegisteredWith(Field, "register_parameter");
}

llvm::SmallVector<const Expr *, 2> moduleConstructions(const Expr *Module) {
  llvm::SmallVector<const Expr *, 2> Found;
  auto Add = [&](const Expr *E) {
    if (E && !isEmptyHolder(E))
      Found.push_back(registeredModule(E));
  };
  for (unsigned Depth = 0; Module && Depth < 4; ++Depth) {
    Module = skipModuleHandleCopies(Module);
    const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Module);
    if (!Operator || Operator->getNumArgs() != 1 ||
        (Operator->getOperator() != OO_Arrow &&
         Operator->getOperator() != OO_Star))
      break;
    Module = Operator->getArg(0);
  }
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Module)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && !isa<ParmVarDecl>(Var) && Var->getInit())
      Add(Var->getInit());
    return Found;
  }
  const auto *Member = dyn_cast_or_null<MemberExpr>(Module);
  if (const auto *Field =
          Member ? dyn_cast<FieldDecl>(Member->getMemberDecl()) : nullptr)
    for (const MemberBinding &Binding : memberBindings(Field))
      Add(Binding.Value);
  return Found;
}

/// torch::optim::Optimizer or a class derived from it.
static bool isOptimizerClass(const CXXRecordDecl *Record) {
  if (!Record || !Record->hasDefinition())
    return false;
  if (Record->getIdentifier() && Record->getName() == "Optimizer" &&
      isLibtorchDecl(Record))
    return true;
  return llvm::any_of(
      Record->getDefinition()->bases(), [](const CXXBaseSpecifier &Base) {
        return isOptimizerClass(Base.getType()->getAsCXXRecordDecl());
      });
}

/// The module whose `parameters()` an optimizer variable was built from:
/// `torch::optim::Adam optD(D->parameters(), ...)`.
static const Expr *optimizedModule(const Expr *Optimizer) {
  const auto *Ref = dyn_cast<DeclRefExpr>(Optimizer->IgnoreImplicit());
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(
      Var && Var->getInit() ? Var->getInit()->IgnoreImplicit() : nullptr);
  if (!Construct || Construct->getNumArgs() == 0)
    return nullptr;
  return moduleOfParameterRange(Construct->getArg(0));
}

// Note [Optimizer steps]
// `opt.step()` writes every parameter of its list in place, under its own
// NoGradGuard. Where the list is one module's `parameters()` at the
// optimizer's construction, the step is a write of every parameter of that
// module: a backward after it of a loss computed through the module before
// it throws (the GAN loops that build both losses, step the discriminator,
// then run the generator's backward through it).
std::optional<ModuleStateWrite>
ModuleStateAnalysis::optimizerStep(const CallExpr *Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
  if (!Method || !Method->getIdentifier() || Method->getName() != "step" ||
      !isLibtorchDecl(Method) || !isOptimizerClass(Method->getParent()))
    return std::nullopt;
  const Expr *Module = optimizedModule(Member->getImplicitObjectArgument());
  if (!Module)
    return std::nullopt;
  ModuleStateWrite Write;
  Write.Module = moduleImplOf(Module->getType());
  Write.Instance = moduleInstanceOf(Module);
  Write.Site = Call;
  Write.Call = Call;
  Write.InNoGradScope = true;
  return Write;
}

// Note [A module call writes its own state]
// Some library modules write their own tensors in forward: an `Embedding`
// built with `max_norm` renormalises the rows of its `weight` it looks up,
// under its own NoGradGuard (so also on a parameter). The API effect table
// measures which (`writes_members`), under the options of the module's
// construction (Note [Module calls]). A BatchNorm in training updates its
// running statistics through the data pointer (`writes_without_version`):
// autograd cannot see that, and its backward does not use them, so those
// writes are left out.
std::vector<ModuleStateWrite>
ModuleStateAnalysis::ownStateWrites(const CallExpr *Call) {
  std::optional<ModuleCall> Module = moduleCallOf(Call);
  std::optional<ApiEffect> Effect =
      Module ? moduleForwardEffect(Module->Impl,
                                   moduleConstructions(Module->Module))
             : std::nullopt;
  std::vector<ModuleStateWrite> Writes;
  if (!Effect)
    return Writes;
  for (const std::string &Name : Effect->WritesMembers)
    if (const FieldDecl *Field = tensorMember(Module->Impl, Name);
        Field && !llvm::is_contained(Effect->WritesWithoutVersion, Name)) {
      ModuleStateWrite Write;
      Write.Member = Field;
      Write.Instance = moduleInstanceOf(Module->Module);
      Write.Site = Call;
      Write.Call = Call;
      Write.InNoGradScope = true;
      Writes.push_back(Write);
    }
  return Writes;
}

/// Whether Site lies in a no-grad scope of Function.
static bool inNoGradScope(const Expr *Site, const FunctionDecl *Function) {
  SourceLocation Loc = Site->getBeginLoc();
  const SourceManager &SM = Function->getASTContext().getSourceManager();
  return llvm::any_of(noGradRanges(Function->getBody()), [&](SourceRange R) {
    return SM.isBeforeInTranslationUnit(R.getBegin(), Loc) &&
           SM.isBeforeInTranslationUnit(Loc, R.getEnd());
  });
}

// Note [Members handed out by an accessor]
// `torch::Tensor centres() const { return weight_.detach(); }` hands out the
// module's own parameter: `auto c = head->centres(); c.div_(...)` writes
// `weight_` of `head` as `head->weight_.detach().div_(...)` does. A method of
// a module class of the translation unit whose body is one `return` is
// followed into, with its `this` standing for the object it is called on;
// a method that returns a clone or a computed tensor reaches no member.
static const Expr *returnedByAccessor(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  const FunctionDecl *Definition = Method ? Method->getDefinition() : nullptr;
  const auto *Body =
      Definition ? dyn_cast_or_null<CompoundStmt>(Definition->getBody()) : nullptr;
  if (!Body || Body->size() != 1 || isLibtorchDecl(Method) ||
      !isModuleClass(Method->getParent()) || !isTensorType(Method->getReturnType()))
    return nullptr;
  const auto *Return = dyn_cast<ReturnStmt>(Body->body_front());
  return Return ? Return->getRetValue() : nullptr;
}

std::optional<ModuleStateWrite>
ModuleStateAnalysis::follow(const Expr *Target, const Expr *Site,
                            const FunctionDecl *Function,
                            std::optional<unsigned> *Parameter) {
  ModuleStateWrite Write;
  Write.Site = Site;
  llvm::DenseMap<const VarDecl *, const Expr *> Ranges =
      rangeForInits(Function->getBody());
  auto EveryParameterOf = [&](const Expr *Module) {
    Write.Module = moduleImplOf(Module->getType());
    Write.Instance = moduleInstanceOf(Module);
  };
  const Expr *E = Target;
  // The object of an accessor followed into its body.
  const Expr *ThisObject = nullptr;
  for (unsigned Depth = 0; E && Depth < 12; ++Depth) {
    E = skipHandleCopies(E)->IgnoreParens();
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Ops)) {
        // A view, `detach()`, `data()` or an in-place result: the same
        // storage. A possible alias may be a copy.
        if (Tensor->Effect.View == ViewKind::MayAlias)
          return std::nullopt;
        if (Tensor->Special == SpecialOperation::Data)
          Write.ThroughData = Tensor->Effect.Operator;
        Write.ThroughDetach |= Tensor->Special == SpecialOperation::Detach;
        E = Tensor->aliasedArgument();
        continue;
      }
      // `item.value()` of a named_parameters() loop, `params[i]`.
      static constexpr llvm::StringLiteral Accessors[] = {"value", "at"};
      const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
      const auto *Index = dyn_cast<CXXOperatorCallExpr>(Call);
      if (Member && Member->getMethodDecl() &&
          Member->getMethodDecl()->getIdentifier() &&
          llvm::is_contained(Accessors, Member->getMethodDecl()->getName())) {
        E = Member->getImplicitObjectArgument();
        continue;
      }
      if (Index && Index->getOperator() == OO_Subscript) {
        E = Index->getArg(0);
        continue;
      }
      if (const Expr *Returned = Member && !ThisObject
                                     ? returnedByAccessor(Member)
                                     : nullptr) {
        ThisObject = Member->getImplicitObjectArgument();
        E = Returned;
        continue;
      }
      return std::nullopt;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (!Var)
        return std::nullopt;
      if (auto Range = Ranges.find(Var); Range != Ranges.end()) {
        const Expr *Module = moduleOfParameterRange(Range->second);
        if (Module) {
          EveryParameterOf(Module);
          break;
        }
        // A loop over a list the function is given, or a member list.
        E = Range->second;
        continue;
      }
      if (const Expr *Module = moduleOfParameterRange(E)) {
        EveryParameterOf(Module);
        break;
      }
      if (const auto *Param = dyn_cast<ParmVarDecl>(Var);
          Param && Parameter && Param->getDeclContext() == Function &&
          (isTensorType(Param->getType()) || isTensorListType(Param->getType()))) {
        *Parameter = Param->getFunctionScopeIndex();
        Write.InNoGradScope = inNoGradScope(Site, Function);
        return Write;
      }
      if (!Var->isLocalVarDecl() || !Var->getInit())
        return std::nullopt;
      E = Var->getInit();
      continue;
    }
    if (const Expr *Module = moduleOfParameterRange(E)) {
      EveryParameterOf(Module);
      break;
    }
    const auto *Member = dyn_cast<MemberExpr>(E);
    const auto *Field =
        Member ? dyn_cast<FieldDecl>(Member->getMemberDecl()) : nullptr;
    if (!Field || !isTensorType(Field->getType()) ||
        !isModuleClass(dyn_cast<CXXRecordDecl>(Field->getParent())))
      return std::nullopt;
    Write.Member = Field;
    Write.Instance = moduleInstanceOf(
        ThisObject && isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit())
            ? ThisObject
            : Member->getBase());
    break;
  }
  if (!Write.Member && !Write.Module)
    return std::nullopt;
  Write.InNoGradScope = inNoGradScope(Site, Function);
  return Write;
}

bool ModuleStateAnalysis::reachesSavedState(const ModuleStateWrite &Write,
                                            const ModuleCall &Call) {
  const SavedModuleState &Saved = savedBy(Call);
  bool Saves =
      Write.Member ? Saved.Members.count(Write.Member) > 0 : Saved.savesAny();
  if (!Saves)
    return false;
  ModuleInstance Called = moduleInstanceOf(Call.Module);
  if (Called.known() && Write.Instance.known())
    return Called.mayOverlap(Write.Instance);
  if (Write.Member)
    return true;
  const CXXRecordDecl *Module =
      Write.Module ? Write.Module->getCanonicalDecl() : nullptr;
  return Module && (Module == Call.Impl->getCanonicalDecl() ||
                    Call.Impl->isDerivedFrom(Module));
}

const ModuleStateAnalysis::FunctionWrites &
ModuleStateAnalysis::writesOf(const FunctionDecl *Function) {
  static const FunctionWrites None;
  if (auto It = Writes.find(Function); It != Writes.end())
    return *It->second;
  if (!InProgress.insert(Function).second)
    return None;
  auto Result = std::make_unique<FunctionWrites>();
  forEachCall(Function->getBody(), [&](const CallExpr *Call) {
    if (std::optional<ModuleStateWrite> Step = optimizerStep(Call)) {
      Result->State.push_back(*Step);
      return;
    }
    for (const ModuleStateWrite &Write : ownStateWrites(Call))
      Result->State.push_back(Write);
    if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Ops)) {
      if (!Tensor->Effect.writes())
        return;
      for (unsigned Position : Tensor->Effect.WrittenArgs) {
        if (Position >= Tensor->Args.size())
          continue;
        std::optional<unsigned> Parameter;
        std::optional<ModuleStateWrite> Write =
            follow(Tensor->Args[Position], Call, Function, &Parameter);
        if (Write && Parameter) {
          Result->Parameters.push_back({*Parameter, *Write});
        } else if (Write) {
          Write->Call = Call;
          Result->State.push_back(*Write);
        }
      }
      return;
    }
    for (ModuleStateWrite &Write : writesAt(Call, Function))
      Result->State.push_back(std::move(Write));
  });
  InProgress.erase(Function);
  return *(Writes[Function] = std::move(Result));
}

std::vector<ModuleStateWrite>
ModuleStateAnalysis::writesAt(const CallExpr *Call,
                              const FunctionDecl *Caller) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !isSummarizable(Callee, Callee->getASTContext()))
    return {};
  Callee = Callee->getDefinition();
  const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
  unsigned Offset = isa<CXXOperatorCallExpr>(Call) && Method ? 1 : 0;
  const Expr *Object = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Object = Member->getImplicitObjectArgument();
  else if (Offset && Call->getNumArgs() > 0)
    Object = Call->getArg(0);
  auto ArgumentOf = [&](unsigned Index) -> const Expr * {
    return Index + Offset < Call->getNumArgs() ? Call->getArg(Index + Offset)
                                               : nullptr;
  };
  const FunctionWrites &Inner = writesOf(Callee);
  // Grad mode is dynamic: a guard around the call holds inside it too.
  bool CallInNoGradScope =
      (!Inner.State.empty() || !Inner.Parameters.empty()) &&
      inNoGradScope(Call, Caller);
  std::vector<ModuleStateWrite> Result;
  for (ModuleStateWrite Write : Inner.State) {
    ModuleInstance Instance;
    if (Write.Instance.Of == ModuleInstance::Kind::This && Object) {
      Instance = moduleInstanceOf(Object).then(Write.Instance);
    } else if (const auto *Param =
                   dyn_cast_or_null<ParmVarDecl>(Write.Instance.Variable);
               Param && Param->getDeclContext() == Callee) {
      if (const Expr *Arg = ArgumentOf(Param->getFunctionScopeIndex()))
        Instance = moduleInstanceOf(Arg).then(Write.Instance);
    }
    Write.Instance = Instance;
    Write.InNoGradScope |= CallInNoGradScope;
    Write.Call = Call;
    Result.push_back(Write);
  }
  for (const ParameterWrite &Param : Inner.Parameters) {
    const Expr *Arg = ArgumentOf(Param.Index);
    std::optional<ModuleStateWrite> Write =
        Arg ? follow(Arg, Call, Caller, nullptr) : std::nullopt;
    if (!Write)
      continue;
    Write->Site = Param.Write.Site;
    Write->Call = Call;
    if (!Param.Write.ThroughData.empty())
      Write->ThroughData = Param.Write.ThroughData;
    Write->ThroughDetach |= Param.Write.ThroughDetach;
    Write->InNoGradScope |= Param.Write.InNoGradScope;
    Result.push_back(*Write);
  }
  return Result;
}

/// What a module whose saves cannot be read saves.
static const SavedModuleState &unknownSaves() {
  static const SavedModuleState Unknown = [] {
    SavedModuleState State;
    State.Unknown = true;
    return State;
  }();
  return Unknown;
}

const SavedModuleState &
ModuleStateAnalysis::savedBy(const CXXRecordDecl *Impl) {
  if (!Impl || !Impl->hasDefinition())
    return unknownSaves();
  Impl = Impl->getDefinition();
  if (auto It = Saved.find(Impl); It != Saved.end())
    return *It->second;
  if (!InProgress.insert(Impl).second)
    return unknownSaves();
  auto State = std::make_unique<SavedModuleState>();
  if (isLibtorchDecl(Impl)) {
    // The table names a library module by its handle: torch::nn::Linear.
    std::string Name = Impl->getQualifiedNameAsString();
    const ApiEntry *Entry = compat::endsWith(Name, "Impl")
                                ? ApiEffectTable::builtin()->lookup(
                                      llvm::StringRef(Name).drop_back(4))
                                : nullptr;
    if (!Entry || !Entry->IsModule)
      State->Unknown = true;
    else
      for (const ApiCase &Case : Entry->Cases)
        for (const std::string &Member : Case.SavesMembers)
          if (const FieldDecl *Field = tensorMember(Impl, Member))
            State->Members.insert(Field);
  } else {
    bool HasForward = false;
    for (const CXXMethodDecl *Method : Impl->methods()) {
      const FunctionDecl *Forward =
          Method->getIdentifier() && Method->getName() == "forward"
              ? Method->getDefinition()
              : nullptr;
      if (!Forward || !Forward->hasBody())
        continue;
      HasForward = true;
      addSaves(*Forward, *State);
    }
    State->Unknown |= !HasForward;
  }
  InProgress.erase(Impl);
  return *(Saved[Impl] = std::move(State));
}

void ModuleStateAnalysis::addSaves(const FunctionDecl &Body,
                                   SavedModuleState &State) {
  AutogradAnalysis Autograd(Body, Body.getASTContext(), &Ops,
                            SavedTensorTable::builtin().get(),
                            /*Caller=*/nullptr, /*ReturnsGraph=*/true);
  for (const FieldDecl *Field : Autograd.savedMembers())
    State.Members.insert(Field);
  forEachCall(Body.getBody(), [&](const CallExpr *Call) {
    if (std::optional<ModuleCall> Inner = moduleCallOf(Call)) {
      const SavedModuleState &Sub = savedBy(Inner->Impl);
      State.Members.insert(Sub.Members.begin(), Sub.Members.end());
      State.Unknown |= Sub.Unknown;
    }
  });
}

const SavedModuleState &ModuleStateAnalysis::savedBy(const ModuleCall &Call) {
  if (!Call.Method)
    return savedBy(Call.Impl);
  const CXXMethodDecl *Method = Call.Method->getCanonicalDecl();
  if (auto It = SavedByMethod.find(Method); It != SavedByMethod.end())
    return *It->second;
  if (!InProgress.insert(Method).second)
    return unknownSaves();
  auto State = std::make_unique<SavedModuleState>();
  if (const FunctionDecl *Definition = Call.Method->getDefinition())
    addSaves(*Definition, *State);
  InProgress.erase(Method);
  return *(SavedByMethod[Method] = std::move(State));
}

} // namespace clang::tidy::libtorch
