//===- TensorModel.cpp - C++ spellings of libtorch tensor operations ------===//

#include "TensorModel.h"
#include "ApiEffects.h"
#include "Compat.h"
#include "ModuleState.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::libtorch {

namespace {

const NamespaceDecl *outermostNamespace(const DeclContext *Context) {
  const NamespaceDecl *Outermost = nullptr;
  for (; Context; Context = Context->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(Context))
      if (!NS->isInline() && !NS->isAnonymousNamespace())
        Outermost = NS;
  return Outermost;
}

bool isInNamespace(const Decl *D, llvm::StringRef Name) {
  const NamespaceDecl *NS = outermostNamespace(D->getDeclContext());
  return NS && NS->getName() == Name;
}

const CXXRecordDecl *recordOf(QualType Type) {
  if (Type.isNull())
    return nullptr;
  return Type.getNonReferenceType()->getAsCXXRecordDecl();
}

bool isTensorRecord(const CXXRecordDecl *Record) {
  if (!Record || !Record->getIdentifier())
    return false;
  llvm::StringRef Name = Record->getName();
  return (Name == "Tensor" || Name == "TensorBase") && isInNamespace(Record, "at");
}

/// The compound assignments are spelled as operators but are the in-place
/// operators of the table.
llvm::StringRef compoundAssignmentOperator(OverloadedOperatorKind Kind) {
  switch (Kind) {
  case OO_PlusEqual:
    return "add_";
  case OO_MinusEqual:
    return "sub_";
  case OO_StarEqual:
    return "mul_";
  case OO_SlashEqual:
    return "div_";
  case OO_AmpEqual:
    return "bitwise_and_";
  case OO_PipeEqual:
    return "bitwise_or_";
  case OO_CaretEqual:
    return "bitwise_xor_";
  default:
    return "";
  }
}

/// `t.index({...})` is a view when every index is basic (integers, slices,
/// None, Ellipsis) and a copy when any index is a tensor (advanced indexing).
bool hasTensorIndex(const Expr *IndexList) {
  IndexList = IndexList->IgnoreImplicit();
  if (const auto *Construct = dyn_cast<CXXStdInitializerListExpr>(IndexList))
    IndexList = Construct->getSubExpr()->IgnoreImplicit();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(IndexList))
    if (Construct->getNumArgs() == 1)
      return hasTensorIndex(Construct->getArg(0));
  if (const auto *Init = dyn_cast<InitListExpr>(IndexList)) {
    for (const Expr *Element : Init->inits()) {
      const Expr *Inner = Element->IgnoreImplicit();
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(Inner))
        if (Construct->getNumArgs() >= 1)
          Inner = Construct->getArg(0)->IgnoreImplicit();
      if (isTensorType(Inner->getType()))
        return true;
    }
    return false;
  }
  // An ArrayRef built elsewhere: we cannot see the indices.
  return true;
}

/// A view of argument 0, as `select` or a basic `index` produces.
CallEffect viewOfObject(llvm::StringRef Operator) {
  CallEffect Effect;
  Effect.Operator = Operator.str();
  Effect.ResultAliases = 0;
  Effect.View = ViewKind::Definite;
  return Effect;
}

std::optional<TensorCall> resolveMethodCall(const CallExpr *Call,
                                            const CXXMethodDecl *Method,
                                            const Expr *Object,
                                            llvm::ArrayRef<const Expr *> Rest,
                                            const OperatorTable &Table) {
  TensorCall Result;
  Result.Call = Call;
  Result.Spelling = Method->getNameAsString();
  Result.Args.push_back(Object);
  Result.Args.append(Rest.begin(), Rest.end());
  unsigned NumArgs = Result.Args.size();

  if (Method->getOverloadedOperator() == OO_Equal) {
    // Only the rvalue-qualified assignment writes; `t = u` rebinds a handle.
    if (Method->getRefQualifier() != RQ_RValue)
      return std::nullopt;
    Result.IsIndexAssignment = true;
    Result.Effect.Operator = "operator=";
    Result.Effect.WrittenArgs.push_back(0);
    Result.Effect.ResultAliases = 0;
    return Result;
  }
  if (Method->getOverloadedOperator() == OO_Subscript) {
    Result.Effect = viewOfObject("select");
    return Result;
  }
  llvm::StringRef Compound =
      compoundAssignmentOperator(Method->getOverloadedOperator());
  if (!Compound.empty()) {
    if (std::optional<CallEffect> Effect = Table.resolveMethod(Compound, 2)) {
      Result.Effect = *Effect;
      return Result;
    }
    return std::nullopt;
  }
  if (!Method->getIdentifier())
    return std::nullopt;
  llvm::StringRef Name = Method->getName();
  if (Name == "index" && NumArgs == 2) {
    if (hasTensorIndex(Result.Args[1]))
      Result.Effect.Operator = "index";
    else
      Result.Effect = viewOfObject("index");
    return Result;
  }
  if (isDetachingMethod(Name) && NumArgs == 1) {
    Result.Special =
        Name == "detach" ? SpecialOperation::Detach : SpecialOperation::Data;
    Result.Effect = viewOfObject(Name);
    return Result;
  }
  if (std::optional<CallEffect> Effect = Table.resolveMethod(Name, NumArgs)) {
    Result.Effect = *Effect;
    return Result;
  }
  return std::nullopt;
}

/// ATen/TensorOperators.h spells the out-of-place arithmetic as free
/// operators over tensors and scalars; they call the operators of the table.
llvm::StringRef arithmeticOperator(OverloadedOperatorKind Kind) {
  switch (Kind) {
  case OO_Plus:
    return "add";
  case OO_Minus:
    return "sub";
  case OO_Star:
    return "mul";
  case OO_Slash:
    return "div";
  default:
    return "";
  }
}

/// `a * b`, `x / 2`, `2 * x`: schema order, so `2 * x` reads as `mul` with a
/// Scalar `self` (libtorch calls `x.mul(2)`, which saves and aliases the
/// same).
std::optional<TensorCall> resolveFreeOperator(const CXXOperatorCallExpr *Call,
                                              const OperatorTable &Table) {
  llvm::StringRef Name = arithmeticOperator(Call->getOperator());
  if (Name.empty() || Call->getNumArgs() != 2 ||
      !isLibtorchDecl(Call->getDirectCallee()) ||
      !isTensorType(Call->getType()))
    return std::nullopt;
  TensorCall Result;
  Result.Call = Call;
  Result.Spelling =
      std::string("operator") + getOperatorSpelling(Call->getOperator());
  Result.Args.append(Call->arg_begin(), Call->arg_end());
  if (std::optional<CallEffect> Effect = Table.resolveFunction(Name, 2)) {
    Result.Effect = *Effect;
    return Result;
  }
  Result.Effect.Operator = Name.str();
  return Result;
}

// Note [Calls of the C++ API]
// What `at::batch_norm`, `torch::nn::functional::relu` or
// `torch::nn::init::normal_` do to their tensors is measured
// (ApiEffectTable), under each setting of the options that decide it. A call
// names those options in one of three ways, and each is read here:
// - a parameter of the function (`at::batch_norm(..., training, ...)`);
// - a setter of an options argument (`F::ReLUFuncOptions().inplace(true)`),
//   also when the options are a local variable initialised with the chain;
// - nothing, where the option keeps its default.
// A value that is not a constant, or options the call builds elsewhere, may
// be anything: every case it allows applies. A tensor handed to a setter
// (`.weight(w)`, `.running_mean(m)`) is an operand of the call after its
// arguments, named by the setter.

/// The setters of an options argument, by name, with their argument: the
/// chain of member calls and the constructor's arguments, followed through a
/// local variable's initializer.
void collectOptionSetters(const Expr *E,
                          llvm::StringMap<const Expr *> &Setters,
                          unsigned Depth = 0) {
  if (!E || Depth > 8)
    return;
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      if (Var->isLocalVarDecl() && Var->getInit())
        collectOptionSetters(Var->getInit(), Setters, Depth + 1);
    return;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    if (Method && Method->getIdentifier() && Member->getNumArgs() == 1)
      Setters.try_emplace(Method->getName(), Member->getArg(0));
    collectOptionSetters(Member->getImplicitObjectArgument(), Setters,
                         Depth + 1);
    return;
  }
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
    collectOptionSetters(Cast->getSubExpr(), Setters, Depth + 1);
    return;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (Ctor->isCopyOrMoveConstructor() && Construct->getNumArgs() == 1) {
      collectOptionSetters(Construct->getArg(0), Setters, Depth + 1);
      return;
    }
    for (unsigned I = 0; I < Construct->getNumArgs() && I < Ctor->getNumParams();
         ++I)
      if (Ctor->getParamDecl(I)->getIdentifier() &&
          !isa<CXXDefaultArgExpr>(Construct->getArg(I)))
        Setters.try_emplace(Ctor->getParamDecl(I)->getName(),
                            Construct->getArg(I));
  }
}

/// The value an option's argument gives it: a constant bool, or for an
/// optional option (`max_norm`) whether it is set. std::nullopt when the
/// argument is not a constant.
std::optional<bool> optionValue(const Expr *Arg, const ASTContext &AST) {
  const Expr *Bare = Arg->IgnoreImplicit()->IgnoreParens();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Bare))
    if (Construct->getNumArgs() == 1)
      Bare = Construct->getArg(0)->IgnoreImplicit()->IgnoreParens();
  if (const CXXRecordDecl *Record = recordOf(Bare->getType()))
    if (Record->getIdentifier() && Record->getName() == "nullopt_t")
      return false;
  if (!Bare->getType()->isBooleanType())
    // An optional option given a number (`max_norm(1.0)`) is set.
    return Bare->getType()->isArithmeticType() ? std::optional<bool>(true)
                                               : std::nullopt;
  if (Bare->isValueDependent())
    return std::nullopt;
  bool Value = false;
  if (!Bare->EvaluateAsBooleanCondition(Value, AST))
    return std::nullopt;
  return Value;
}

bool isOptionsArgument(const Expr *Arg) {
  const CXXRecordDecl *Record = recordOf(Arg->getType());
  return Record && Record->getIdentifier() && isLibtorchDecl(Record) &&
         compat::endsWith(Record->getName(), "Options");
}

/// Turns what a measured call does, by operand name, into positions of
/// Result's operands (named by Result.OperandNames; an argument the call
/// leaves to its default is none).
void applyMeasuredEffect(const ApiEffect &Effect, TensorCall &Result) {
  auto PositionOf = [&](llvm::StringRef Name) -> std::optional<unsigned> {
    for (unsigned I = 0; I < Result.OperandNames.size(); ++I)
      if (Result.OperandNames[I] == Name &&
          !isa<CXXDefaultArgExpr>(Result.Args[I]))
        return I;
    return std::nullopt;
  };
  TensorCall::Saves Saves;
  for (const std::string &Name : Effect.Writes)
    if (std::optional<unsigned> Position = PositionOf(Name))
      Result.Effect.WrittenArgs.push_back(*Position);
  for (const std::string &Name : Effect.WritesGradLeaves)
    if (std::optional<unsigned> Position = PositionOf(Name))
      Result.WritesGradLeaves.push_back(*Position);
  for (const std::string &Name : Effect.Saves)
    if (std::optional<unsigned> Position = PositionOf(Name))
      Saves.Inputs.push_back(*Position);
  Saves.Result = Effect.SavesResult;
  Result.MeasuredSaves = Saves;
  if (!Effect.Returns.empty())
    Result.Effect.ResultAliases = PositionOf(Effect.Returns);
}

std::optional<TensorCall> resolveApiCall(const CallExpr *Call,
                                         const FunctionDecl *Callee) {
  const ApiEntry *Entry =
      ApiEffectTable::builtin()->lookup(Callee->getQualifiedNameAsString());
  if (!Entry || Entry->IsModule)
    return std::nullopt;
  const ASTContext &AST = Callee->getASTContext();
  TensorCall Result;
  Result.Call = Call;
  Result.Spelling = Callee->getNameAsString();
  Result.Effect.Operator = Entry->Api;
  unsigned NumArgs = std::min<unsigned>(Call->getNumArgs(),
                                        Callee->getNumParams());
  llvm::StringMap<const Expr *> Setters;
  for (unsigned I = 0; I < NumArgs; ++I) {
    Result.Args.push_back(Call->getArg(I));
    const ParmVarDecl *Param = Callee->getParamDecl(I);
    Result.OperandNames.push_back(
        Param->getIdentifier() ? Param->getName().str() : "");
    if (isOptionsArgument(Call->getArg(I)))
      collectOptionSetters(Call->getArg(I), Setters);
  }
  // The tensors handed to setters are operands too.
  for (const std::string &Tensor : Entry->Tensors) {
    const Expr *Arg = Setters.lookup(Tensor);
    if (!Arg || llvm::is_contained(Result.OperandNames, Tensor) ||
        !isTensorType(Arg->getType()))
      continue;
    Result.Args.push_back(Arg);
    Result.OperandNames.push_back(Tensor);
  }
  ApiEffect Effect = Entry->under(
      [&](llvm::StringRef Option,
          std::optional<bool> Default) -> std::optional<bool> {
        for (unsigned I = 0; I < NumArgs; ++I)
          if (Result.OperandNames[I] == Option)
            return isa<CXXDefaultArgExpr>(Call->getArg(I))
                       ? Default
                       : optionValue(Call->getArg(I), AST);
        if (const Expr *Arg = Setters.lookup(Option))
          return optionValue(Arg, AST);
        return Default;
      });
  applyMeasuredEffect(Effect, Result);
  return Result;
}

// Note [Module calls]
// A library module's forward (`act(x)`, `drop->forward(x)`) is measured like
// a function (ApiEffectTable, `kind: module`), and what decides it is the
// options the module was built with: `ReLU(ReLUOptions().inplace(true))`,
// `Dropout(DropoutOptions(0.2).inplace(true))`, `ReLU(true)`. They are read
// from the module's constructions (moduleConstructions: a variable's
// initializer, a member's initializers and the assignments in its class's
// constructors) as an options argument's setters, or as the arguments of the
// options constructor a plain argument converts through. Where the
// constructions disagree, or set an option to a value that is not a
// constant, every case applies; where no construction is found (a module
// handed in as a parameter), the defaults do: a module is far more often
// built with them, and a finding on every unknown activation would be
// noise. `training` is a module's state, not an option: the default
// (training, as a new module is) applies.

/// The options a module construction sets: the setters of an options
/// argument, or the options constructor's parameters that plain arguments
/// bind (`ReLU(true)` is `ReLUOptions(/*inplace=*/true)`).
void collectConstructionOptions(const Expr *Construction,
                                const CXXRecordDecl *Impl,
                                llvm::StringMap<const Expr *> &Setters) {
  const Expr *E = Construction->IgnoreImplicit()->IgnoreParens();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = Cast->getSubExpr()->IgnoreImplicit();
  llvm::SmallVector<const Expr *, 4> Args;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    Args.append(Construct->arg_begin(), Construct->arg_end());
  else if (const auto *Call = dyn_cast<CallExpr>(E))
    Args.append(Call->arg_begin(), Call->arg_end()); // std::make_shared
  llvm::erase_if(Args,
                 [](const Expr *Arg) { return isa<CXXDefaultArgExpr>(Arg); });
  if (Args.empty())
    return;
  if (llvm::any_of(Args, isOptionsArgument)) {
    for (const Expr *Arg : Args)
      if (isOptionsArgument(Arg))
        collectOptionSetters(Arg, Setters);
    return;
  }
  // The options type the module's constructor takes, and its constructor
  // that the arguments convert through.
  for (const CXXConstructorDecl *Ctor : Impl->ctors()) {
    if (Ctor->getNumParams() != 1)
      continue;
    const CXXRecordDecl *Options = recordOf(Ctor->getParamDecl(0)->getType());
    if (!Options || !Options->hasDefinition() || !Options->getIdentifier() ||
        !compat::endsWith(Options->getName(), "Options"))
      continue;
    for (const CXXConstructorDecl *OptionsCtor :
         Options->getDefinition()->ctors()) {
      if (OptionsCtor->isCopyOrMoveConstructor() ||
          OptionsCtor->getNumParams() < Args.size() ||
          OptionsCtor->getMinRequiredArguments() > Args.size())
        continue;
      bool Fits = true;
      for (unsigned I = 0; I < Args.size(); ++I)
        Fits &=
            Args[I]->getType()->isBooleanType() == OptionsCtor->getParamDecl(I)
                                                       ->getType()
                                                       .getNonReferenceType()
                                                       ->isBooleanType();
      if (!Fits)
        continue;
      for (unsigned I = 0; I < Args.size(); ++I)
        if (OptionsCtor->getParamDecl(I)->getIdentifier())
          Setters.try_emplace(OptionsCtor->getParamDecl(I)->getName(), Args[I]);
      return;
    }
  }
}

/// The name a module call is spelled with: the variable or member holding
/// the module (`act`), else its class (`ReLU`).
std::string moduleCallSpelling(const ModuleCall &Module) {
  const Expr *E = Module.Module->IgnoreImplicit();
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
      Operator && Operator->getOperator() == OO_Arrow)
    E = Operator->getArg(0)->IgnoreImplicit();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return Ref->getDecl()->getNameAsString();
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return Member->getMemberDecl()->getNameAsString();
  llvm::StringRef Class = Module.Impl->getName();
  return (compat::endsWith(Class, "Impl") ? Class.drop_back(4) : Class).str();
}

/// The API effect table's entry for a library module class.
const ApiEntry *moduleEntry(const CXXRecordDecl *Impl) {
  if (!Impl || !isLibtorchDecl(Impl))
    return nullptr;
  std::string Name = Impl->getQualifiedNameAsString();
  if (!compat::endsWith(Name, "Impl"))
    return nullptr;
  const ApiEntry *Entry =
      ApiEffectTable::builtin()->lookup(llvm::StringRef(Name).drop_back(4));
  return Entry && Entry->IsModule ? Entry : nullptr;
}

std::optional<TensorCall> resolveModuleCall(const CallExpr *Call) {
  std::optional<ModuleCall> Module = moduleCallOf(Call);
  if (!Module || !moduleEntry(Module->Impl))
    return std::nullopt;
  TensorCall Result;
  Result.Call = Call;
  Result.Spelling = moduleCallSpelling(*Module);
  Result.Effect.Operator = moduleEntry(Module->Impl)->Api;
  bool Named = false;
  for (unsigned I = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
       I < Call->getNumArgs(); ++I) {
    const Expr *Arg = Call->getArg(I);
    bool Input = !Named && isTensorType(Arg->getType());
    Named |= Input;
    Result.Args.push_back(Arg);
    Result.OperandNames.push_back(Input ? "input" : "");
  }
  applyMeasuredEffect(
      *moduleForwardEffect(Module->Impl, moduleConstructions(Module->Module)),
      Result);
  return Result;
}

} // namespace

std::optional<ApiEffect>
moduleForwardEffect(const CXXRecordDecl *Impl,
                    llvm::ArrayRef<const Expr *> Constructions) {
  const ApiEntry *Entry = moduleEntry(Impl);
  if (!Entry)
    return std::nullopt;
  const ASTContext &AST = Impl->getASTContext();
  std::vector<llvm::StringMap<const Expr *>> Options;
  for (const Expr *Construction : Constructions) {
    Options.emplace_back();
    collectConstructionOptions(Construction, Impl, Options.back());
  }
  return Entry->under([&](llvm::StringRef Option,
                          std::optional<bool> Default) -> std::optional<bool> {
    std::optional<std::optional<bool>> Agreed;
    for (const llvm::StringMap<const Expr *> &Setters : Options) {
      const Expr *Arg = Setters.lookup(Option);
      std::optional<bool> Value = Arg ? optionValue(Arg, AST) : Default;
      if (Agreed && *Agreed != Value)
        return std::nullopt;
      Agreed = Value;
    }
    return Agreed ? *Agreed : Default;
  });
}

bool isTensorType(QualType Type) { return isTensorRecord(recordOf(Type)); }

llvm::StringRef operandName(const TensorCall &Call, unsigned Position) {
  if (Position < Call.OperandNames.size())
    return Call.OperandNames[Position];
  const FunctionDecl *Callee = Call.Call->getDirectCallee();
  if (!Callee)
    return "";
  bool HasObject =
      isa<CXXMemberCallExpr>(Call.Call) ||
      (isa<CXXOperatorCallExpr>(Call.Call) && isa<CXXMethodDecl>(Callee));
  if (HasObject) {
    if (Position == 0)
      return "self";
    --Position;
  }
  if (Position >= Callee->getNumParams() ||
      !Callee->getParamDecl(Position)->getIdentifier())
    return "";
  return Callee->getParamDecl(Position)->getName();
}

// Note [Lists that refer to their tensors]
// `at::TensorList` is `c10::ArrayRef<at::Tensor>`: it points at the handles
// of the vector (or braced list) it was made from, without copying them. A
// function given one reaches the caller's tensors as one given the vector
// does, and an operation that writes its list in place (`_foreach_mul_`,
// `_foreach_add_`) writes each of them.
bool isTensorListType(QualType Type) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(Type));
  if (!Spec || !Spec->getIdentifier() ||
      !(Spec->isInStdNamespace() ? Spec->getName() == "vector"
                                 : Spec->getName() == "ArrayRef" &&
                                       isLibtorchDecl(Spec)))
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  return Args.size() >= 1 && Args[0].getKind() == TemplateArgument::Type &&
         (isTensorType(Args[0].getAsType()) ||
          isTensorReferenceWrapper(Args[0].getAsType()));
}

// Note [References to tensors]
// `std::reference_wrapper<torch::Tensor>` refers to a tensor variable (a
// module's member, an element): a vector of them is a list of those
// tensors, and the `torch::Tensor &` it converts to is the tensor itself.
bool isTensorReferenceWrapper(QualType Type) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(Type));
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier() ||
      Spec->getName() != "reference_wrapper")
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  return Args.size() == 1 && Args[0].getKind() == TemplateArgument::Type &&
         isTensorType(Args[0].getAsType());
}

bool isTensorListRef(QualType Type) {
  const CXXRecordDecl *Record = recordOf(Type);
  return isTensorListType(Type) && !Record->isInStdNamespace();
}

bool isTensorContainerType(QualType Type) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(Type));
  static constexpr llvm::StringLiteral Holders[] = {
      "vector", "deque",         "list",          "forward_list",
      "array",  "map",           "multimap",      "unordered_map",
      "unordered_multimap",      "pair",          "tuple",
      "optional"};
  // Note [libtorch's own containers]: `c10::List<Tensor>` and
  // `c10::Dict<std::string, Tensor>` hold handles as the standard ones do, and
  // a copy of either shares even the container itself. An `at::TensorList`
  // refers to the handles of another list (Note [Lists that refer to their
  // tensors]).
  static constexpr llvm::StringLiteral LibtorchHolders[] = {"List", "Dict",
                                                            "ArrayRef"};
  if (!Spec || !Spec->getIdentifier() ||
      !(Spec->isInStdNamespace()
            ? llvm::is_contained(Holders, Spec->getName())
            : isLibtorchDecl(Spec) &&
                  llvm::is_contained(LibtorchHolders, Spec->getName())))
    return false;
  auto Holds = [](const TemplateArgument &Arg) {
    return Arg.getKind() == TemplateArgument::Type &&
           (isTensorType(Arg.getAsType()) ||
            isTensorContainerType(Arg.getAsType()));
  };
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray()) {
    if (Arg.getKind() == TemplateArgument::Pack) {
      if (llvm::any_of(Arg.pack_elements(), Holds))
        return true;
    } else if (Holds(Arg)) {
      return true;
    }
  }
  return false;
}

bool isTensorRecordType(QualType Type) {
  const CXXRecordDecl *Record = recordOf(Type);
  if (!Record || !Record->hasDefinition() || Record->isInStdNamespace() ||
      isTensorType(Type))
    return false;
  Record = Record->getDefinition();
  // A module (or its holder) derives from a class of libtorch.
  bool LibtorchBase = !Record->forallBases([](const CXXRecordDecl *Base) {
    return !isLibtorchDecl(Base);
  });
  return !LibtorchBase &&
         llvm::any_of(Record->fields(), [](const FieldDecl *Field) {
           return isTensorType(Field->getType()) ||
                  isTensorContainerType(Field->getType());
         });
}

bool isLibtorchDecl(const Decl *D) {
  const NamespaceDecl *NS = outermostNamespace(D->getDeclContext());
  if (!NS)
    return false;
  llvm::StringRef Name = NS->getName();
  return Name == "at" || Name == "c10" || Name == "torch" || Name == "caffe2";
}

bool permutesStrides(llvm::StringRef Operator) {
  static constexpr llvm::StringLiteral Permuting[] = {
      "t",      "transpose", "permute", "swapaxes", "swapdims", "mT",
      "mH",     "adjoint",   "movedim", "moveaxis", "numpy_T"};
  return llvm::is_contained(Permuting, Operator);
}

namespace {

/// Whether E is the integer constant Value.
bool isIntegerConstant(const Expr *E, int64_t Value, const ASTContext &AST) {
  Expr::EvalResult Result;
  E = E->IgnoreImplicit();
  return !E->isValueDependent() && E->EvaluateAsInt(Result, AST) &&
         Result.Val.getInt().getExtValue() == Value;
}

/// A tensor, a container of tensors or a list of them (`ArrayRef<Tensor>`,
/// `std::initializer_list<Tensor>`, `std::vector<Tensor>`).
bool holdsTensors(QualType Type) {
  if (isTensorType(Type))
    return true;
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(Type));
  if (!Spec)
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  return Args.size() >= 1 && Args[0].getKind() == TemplateArgument::Type &&
         holdsTensors(Args[0].getAsType());
}

/// Views that reshape their input without reordering it.
bool isReshaping(llvm::StringRef Operator) {
  static constexpr llvm::StringLiteral Reshaping[] = {
      "view",      "view_as", "reshape",   "reshape_as", "flatten",
      "unflatten", "squeeze", "unsqueeze", "alias",      "contiguous"};
  return llvm::is_contained(Reshaping, Operator);
}

} // namespace

// Note [Contiguity of views]
// A view of a contiguous tensor along its first dimension, or one that only
// reshapes it, is contiguous again; so `reshape`, `flatten` and
// `contiguous()` of it do not copy. runtime/test/libtorch_facts_test.cpp
// checks each of these against the library.
bool keepsContiguity(const TensorCall &Call, const ASTContext &AST) {
  llvm::StringRef Name = Call.Spelling;
  if (isReshaping(Name) || Name == "operator[]" ||
      Call.Special == SpecialOperation::Detach ||
      Call.Special == SpecialOperation::Data)
    return true;
  llvm::ArrayRef<const Expr *> Args = Call.Args;
  bool AlongFirst = Args.size() >= 2 && isIntegerConstant(Args[1], 0, AST);
  if (Name == "select" || Name == "narrow")
    return AlongFirst;
  if (Name == "slice")
    return AlongFirst &&
           (Args.size() < 5 || isIntegerConstant(Args[4], 1, AST));
  return false;
}

// Note [Views outside the graph]
// `t.detach()` returns a tensor over t's storage that autograd does not
// record; it shares t's version counter, so an in-place write through it
// still makes a backward that needs t throw. `t.data()` and
// `t.variable_data()` are one operation under two names (TensorBody.h says
// so of `variable_data()`): a view that autograd does not record either,
// and with a version counter of its own, so a write through it corrupts
// the gradient without an error. runtime/test/autograd_facts_test.cpp
// checks both against the library.
bool isDetachingMethod(llvm::StringRef Name) {
  return Name == "detach" || isDataMethod(Name);
}

bool isDataMethod(llvm::StringRef Name) {
  return Name == "data" || Name == "variable_data";
}

bool asksOnlyMetadata(const CXXMethodDecl *Method) {
  static constexpr llvm::StringLiteral Metadata[] = {
      "size",          "sizes",           "dim",
      "ndimension",    "numel",           "stride",
      "strides",       "dtype",           "scalar_type",
      "options",       "device",          "defined",
      "is_contiguous", "accessor",        "data_ptr",
      "data",          "packed_accessor", "packed_accessor32",
      "variable_data",
      "packed_accessor64", "element_size", "nbytes",
      "is_cuda",       "layout",          "requires_grad"};
  return Method && Method->getIdentifier() &&
         llvm::is_contained(Metadata, Method->getName());
}

bool keepsEveryElement(const TensorCall &Call) {
  static constexpr llvm::StringLiteral Broadcasting[] = {"expand", "expand_as",
                                                         "broadcast_to"};
  llvm::StringRef Name = Call.Spelling;
  return isReshaping(Name) || permutesStrides(Name) ||
         llvm::is_contained(Broadcasting, Name) ||
         Call.Special == SpecialOperation::Detach ||
         Call.Special == SpecialOperation::Data;
}

bool keepsStrides(const TensorCall &Call) {
  static constexpr llvm::StringLiteral Keeping[] = {"unsqueeze", "squeeze",
                                                     "alias"};
  return Call.Special == SpecialOperation::Detach ||
         Call.Special == SpecialOperation::Data ||
         llvm::is_contained(Keeping, llvm::StringRef(Call.Spelling));
}

bool makesContiguousTensor(const TensorCall &Call) {
  llvm::StringRef Name = Call.Spelling;
  if (Call.Special == SpecialOperation::FromBlob) {
    // from_blob(data, sizes, strides, ...) states its own strides.
    const FunctionDecl *Callee = Call.Call->getDirectCallee();
    return Callee && llvm::none_of(Callee->parameters(), [](const ParmVarDecl *P) {
             return P->getIdentifier() && P->getName() == "strides";
           });
  }
  if (Call.Effect.ResultAliases || Call.Effect.writes() ||
      Name.contains("strided"))
    return false;
  if (isa<CXXMemberCallExpr>(Call.Call))
    return compat::startsWith(Name, "new_");
  return llvm::none_of(Call.Call->arguments(), [](const Expr *Arg) {
    return holdsTensors(Arg->getType());
  });
}

bool preservesFormat(const TensorCall &Call) {
  llvm::StringRef Name = Call.Spelling;
  if (Name != "clone" && !compat::endsWith(Name, "_like"))
    return false;
  return llvm::none_of(Call.Call->arguments(), [](const Expr *Arg) {
    if (isa<CXXDefaultArgExpr>(Arg))
      return false;
    std::string Type = Arg->getType().getAsString();
    return llvm::StringRef(Type).contains("MemoryFormat");
  });
}

const Expr *skipHandleCopies(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      // A TensorList made from a vector refers to the vector's handles
      // (Note [Lists that refer to their tensors]).
      if (Construct->getNumArgs() >= 1 &&
          (Construct->getConstructor()->isCopyOrMoveConstructor() ||
           isTensorType(Construct->getArg(0)->getType()) ||
           (Construct->getNumArgs() == 1 &&
            isTensorListType(Construct->getType()) &&
            isTensorListType(Construct->getArg(0)->getType())))) {
        E = Construct->getArg(0);
        continue;
      }
      return E;
    }
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E))
      if (Call->isCallToStdMove() && Call->getNumArgs() == 1) {
        E = Call->getArg(0);
        continue;
      }
    // `ref.get()` and the conversion of a reference_wrapper to the tensor it
    // refers to (Note [References to tensors]).
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *Method = Member->getMethodDecl();
      const Expr *Object = Member->getImplicitObjectArgument();
      if (Method && Object && isTensorReferenceWrapper(Object->getType()) &&
          (isa<CXXConversionDecl>(Method) ||
           (Method->getIdentifier() && Method->getName() == "get"))) {
        E = Object;
        continue;
      }
    }
    return E;
  }
  return E;
}

// Note [Conversions told to copy]
// `t.to(torch::kCPU, /*non_blocking=*/false, /*copy=*/true)` returns a new
// tensor even where t already has the device and dtype asked for; with
// `copy` false (the default) it returns t itself there. Every overload of
// `to` takes `copy`, so a call whose `copy` argument is a constant true
// aliases nothing.
static bool toldToCopy(const CallExpr *Call, const FunctionDecl *Callee) {
  for (unsigned I = 0; I < Callee->getNumParams() && I < Call->getNumArgs(); ++I) {
    const ParmVarDecl *Param = Callee->getParamDecl(I);
    bool Value = false;
    if (Param->getIdentifier() && Param->getName() == "copy" &&
        !isa<CXXDefaultArgExpr>(Call->getArg(I)) &&
        Call->getArg(I)->EvaluateAsBooleanCondition(Value, Callee->getASTContext()))
      return Value;
  }
  return false;
}

std::optional<TensorCall> resolveTensorCall(const CallExpr *Call,
                                            const OperatorTable &Table) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return std::nullopt;
  if (std::optional<TensorCall> Module = resolveModuleCall(Call))
    return Module;

  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
    if (!Method || !isTensorRecord(Method->getParent()))
      return std::nullopt;
    llvm::SmallVector<const Expr *, 4> Rest(Call->arguments());
    std::optional<TensorCall> Result = resolveMethodCall(
        Call, Method, Member->getImplicitObjectArgument(), Rest, Table);
    if (Result && toldToCopy(Call, Method))
      Result->Effect.ResultAliases.reset();
    return Result;
  }
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call)) {
    const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
    if (!Method)
      return resolveFreeOperator(Operator, Table);
    if (!isTensorRecord(Method->getParent()) || Operator->getNumArgs() == 0)
      return std::nullopt;
    llvm::SmallVector<const Expr *, 4> Rest(Call->arguments());
    Rest.erase(Rest.begin());
    return resolveMethodCall(Call, Method, Operator->getArg(0), Rest, Table);
  }

  if (!Callee->getIdentifier() || !isLibtorchDecl(Callee) ||
      isa<CXXMethodDecl>(Callee))
    return std::nullopt;
  if (std::optional<TensorCall> Api = resolveApiCall(Call, Callee))
    return Api;
  TensorCall Result;
  Result.Call = Call;
  Result.Args.append(Call->arg_begin(), Call->arg_end());
  llvm::StringRef Name = Callee->getName();
  Result.Spelling = Name.str();
  if (Name == "from_blob") {
    Result.Special = SpecialOperation::FromBlob;
    Result.Effect.Operator = "from_blob";
    return Result;
  }
  if (std::optional<CallEffect> Effect =
          Table.resolveFunction(Name, Result.Args.size())) {
    Result.Effect = *Effect;
    return Result;
  }
  // Other libtorch functions that return a tensor (factories such as
  // torch::tensor) return a new one.
  if (isTensorType(Call->getType())) {
    Result.Effect.Operator = Name.str();
    return Result;
  }
  return std::nullopt;
}

void forEachStmt(const Stmt *S, llvm::function_ref<void(const Stmt *)> Visit,
                 bool IntoLambdas) {
  if (!S || (!IntoLambdas && isa<LambdaExpr>(S)))
    return;
  Visit(S);
  for (const Stmt *Child : S->children())
    forEachStmt(Child, Visit, IntoLambdas);
}

bool neverAssigned(const VarDecl *Var) {
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
  if (!Function || !Function->getBody())
    return false;
  bool Assigned = false;
  forEachStmt(Function->getBody(), [&](const Stmt *S) {
    const Expr *Lhs = nullptr;
    if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
        Assign && Assign->isAssignmentOp())
      Lhs = Assign->getArg(0);
    else if (const auto *Builtin = dyn_cast<BinaryOperator>(S);
             Builtin && Builtin->isAssignmentOp())
      Lhs = Builtin->getLHS(); // a pointer or a number
    if (const auto *Ref =
            Lhs ? dyn_cast<DeclRefExpr>(Lhs->IgnoreParenImpCasts()) : nullptr)
      Assigned |= Ref->getDecl() == Var;
  });
  return !Assigned;
}

const ValueDecl *namedDecl(const Expr *E) {
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return Member->getMemberDecl();
  return nullptr;
}

llvm::DenseMap<const VarDecl *, const Expr *> rangeForInits(const Stmt *Body) {
  llvm::DenseMap<const VarDecl *, const Expr *> Inits;
  llvm::SmallVector<const Stmt *, 32> Work = {Body};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *RangeFor = dyn_cast<CXXForRangeStmt>(S))
      Inits[RangeFor->getLoopVariable()] = RangeFor->getRangeInit();
    llvm::append_range(Work, S->children());
  }
  return Inits;
}

void forEachMainFileFunction(
    ASTContext &AST, llvm::function_ref<void(const FunctionDecl &)> Visit) {
  const SourceManager &SM = AST.getSourceManager();
  llvm::SmallVector<const DeclContext *, 8> Work = {AST.getTranslationUnitDecl()};
  while (!Work.empty()) {
    for (const Decl *D : Work.pop_back_val()->decls()) {
      const auto *Function = dyn_cast<FunctionDecl>(D);
      if (const auto *Template = dyn_cast<FunctionTemplateDecl>(D))
        Function = Template->getTemplatedDecl();
      if (Function && Function->doesThisDeclarationHaveABody() &&
          SM.isInMainFile(Function->getLocation()))
        Visit(*Function);
      if (isa<NamespaceDecl, CXXRecordDecl, LinkageSpecDecl>(D) &&
          SM.isInMainFile(D->getLocation()))
        Work.push_back(cast<DeclContext>(D));
    }
  }
}

} // namespace clang::tidy::libtorch
