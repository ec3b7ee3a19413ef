//===- ParameterSharing.cpp - which module parameters are the same tensor -===//

#include "ParameterSharing.h"

#include "ParameterLists.h"
#include "TensorModel.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"

#include <cstdlib>
#include <functional>

namespace clang::tidy::libtorch {

namespace {

using detail::boolArgument;
using detail::elementParameters;
using detail::insertedContainer;
using detail::isContainerMutation;
using detail::isStdContainer;
using detail::methodOf;
using detail::prefix;
using detail::rebase;

const CXXRecordDecl *recordOf(QualType Type) {
  if (Type.isNull())
    return nullptr;
  Type = Type.getNonReferenceType();
  if (Type->isPointerType())
    Type = Type->getPointeeType();
  const CXXRecordDecl *Record = Type->getAsCXXRecordDecl();
  if (Record && Record->hasDefinition())
    Record = Record->getDefinition();
  return Record;
}

/// Record, or its first base (transitively) named Name in a namespace that
/// satisfies InScope.
const CXXRecordDecl *findSelfOrBase(const CXXRecordDecl *Record,
                                    llvm::StringRef Name, bool Std) {
  if (!Record)
    return nullptr;
  if (Record->getIdentifier() && Record->getName() == Name &&
      (Std ? Record->isInStdNamespace() : isLibtorchDecl(Record)))
    return Record;
  if (!Record->hasDefinition())
    return nullptr;
  for (const CXXBaseSpecifier &Base : Record->getDefinition()->bases())
    if (const CXXRecordDecl *Found =
            findSelfOrBase(recordOf(Base.getType()), Name, Std))
      return Found;
  return nullptr;
}

/// The first template argument of a specialization, as a record.
const CXXRecordDecl *firstTemplateArgument(const CXXRecordDecl *Record) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(Record);
  if (!Spec || Spec->getTemplateArgs().size() == 0 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return nullptr;
  return recordOf(Spec->getTemplateArgs()[0].getAsType());
}

bool isLibtorchMethod(const CXXMethodDecl *Method, llvm::StringRef Name) {
  return Method && Method->getIdentifier() && Method->getName() == Name &&
         isLibtorchDecl(Method);
}


/// The object of a member call, through a module handle's `->`.
const Expr *objectOf(const CXXMemberCallExpr *Call) {
  const Expr *Object = Call->getImplicitObjectArgument();
  return Object ? skipModuleHandleCopies(Object) : nullptr;
}

bool isRegistration(const CXXMemberCallExpr *Call, llvm::StringRef Name) {
  return isLibtorchMethod(Call->getMethodDecl(), Name);
}


/// `ParameterDictImpl` or `ParameterListImpl`.
bool isParameterContainer(const CXXRecordDecl *Impl) {
  return Impl && Impl->getIdentifier() && isLibtorchDecl(Impl) &&
         (Impl->getName() == "ParameterDictImpl" ||
          Impl->getName() == "ParameterListImpl");
}

bool isContainerModule(const CXXRecordDecl *Impl) {
  return Impl && Impl->getIdentifier() && isLibtorchDecl(Impl) &&
         (Impl->getName() == "SequentialImpl" ||
          Impl->getName() == "ModuleListImpl");
}

/// The arguments of a module built by E: a construction, or
/// `std::make_shared<Impl>(...)`; std::nullopt for anything else.
std::optional<llvm::ArrayRef<const Expr *>> constructionArguments(const Expr *E) {
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs());
  const auto *Make = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Make ? Make->getDirectCallee() : nullptr;
  if (Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
      Callee->getName() == "make_shared")
    return llvm::ArrayRef(Make->getArgs(), Make->getNumArgs());
  return std::nullopt;
}

bool isModuleDict(const CXXRecordDecl *Impl) {
  return Impl && Impl->getIdentifier() && isLibtorchDecl(Impl) &&
         Impl->getName() == "ModuleDictImpl";
}

/// The key and the module of a (name, module) pair: the arguments of an
/// `emplace_back(key, module)`, of `std::make_pair(key, module)` or of a
/// brace pair `{key, module}`.
std::optional<std::pair<const Expr *, const Expr *>> keyAndModule(const Expr *E) {
  E = E->IgnoreImplicit();
  if (const auto *Temporary = dyn_cast<CXXFunctionalCastExpr>(E))
    E = Temporary->getSubExpr()->IgnoreImplicit();
  // A pair converted to the container's pair type.
  while (const auto *Convert = dyn_cast<CXXConstructExpr>(E)) {
    if (Convert->getNumArgs() != 1)
      break;
    E = Convert->getArg(0)->IgnoreImplicit();
  }
  if (const auto *Init = dyn_cast<InitListExpr>(E); Init && Init->getNumInits() == 2)
    return std::make_pair(Init->getInit(0), Init->getInit(1));
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() == 2)
    return std::make_pair(Construct->getArg(0), Construct->getArg(1));
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
        Callee->getName() == "make_pair" && Call->getNumArgs() == 2)
      return std::make_pair(Call->getArg(0), Call->getArg(1));
  return std::nullopt;
}

const CXXConstructorDecl *chooseConstructor(const CXXRecordDecl *Impl,
                                            std::optional<unsigned> NumArgs) {
  const CXXConstructorDecl *Only = nullptr;
  unsigned Candidates = 0;
  for (const CXXConstructorDecl *Ctor : Impl->ctors()) {
    const FunctionDecl *Definition = nullptr;
    if (Ctor->isImplicit() || Ctor->isCopyOrMoveConstructor() ||
        !Ctor->hasBody(Definition))
      continue;
    const auto *Defined = cast<CXXConstructorDecl>(Definition);
    if (NumArgs && *NumArgs >= Ctor->getMinRequiredArguments() &&
        *NumArgs <= Ctor->getNumParams())
      return Defined;
    Only = Defined;
    ++Candidates;
  }
  return !NumArgs && Candidates == 1 ? Only : nullptr;
}


ModuleValue rebase(const ModuleValue &Value,
                   const llvm::DenseMap<const void *, ObjectKey> &Substitution) {
  ModuleValue Result;
  Result.Identity = rebase(Value.Identity, Substitution);
  Result.Impl = Value.Impl;
  Result.FillSite = Value.FillSite;
  Result.RegisteredFields = Value.RegisteredFields;
  for (const ParameterEntry &Entry : Value.Parameters) {
    ParameterEntry Copy = Entry;
    for (RegistrationStep &Step : Copy.Route)
      Step.Object = rebase(Step.Object, Substitution);
    Result.Parameters.push_back(std::move(Copy));
  }
  for (const auto &[Field, Module] : Value.FieldModules)
    Result.FieldModules[Field] =
        std::make_shared<const ModuleValue>(rebase(*Module, Substitution));
  for (const auto &[Field, Key] : Value.FieldTensors)
    Result.FieldTensors[Field] = rebase(Key, Substitution);
  return Result;
}




} // namespace

namespace detail {

const CXXMethodDecl *methodOf(const CallExpr *Call) {
  return dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
}

bool isStdContainer(const CXXRecordDecl *Record) {
  return Record && Record->isInStdNamespace() && Record->getIdentifier() &&
         (Record->getName() == "vector" || Record->getName() == "deque" ||
          Record->getName() == "list");
}

ObjectKey rebase(const ObjectKey &Key,
                 const llvm::DenseMap<const void *, ObjectKey> &Substitution) {
  auto It = Substitution.find(Key.Root);
  if (It == Substitution.end() || !It->second.known())
    return Key;
  ObjectKey Result = It->second;
  Result.Path.append(Key.Path.begin(), Key.Path.end());
  return Result;
}

void prefix(std::vector<ParameterEntry> &Out,
            const std::vector<ParameterEntry> &Entries,
            const RegistrationStep &Step) {
  for (const ParameterEntry &Entry : Entries) {
    ParameterEntry Copy;
    Copy.Route.push_back(Step);
    Copy.Route.append(Entry.Route.begin(), Entry.Route.end());
    Out.push_back(std::move(Copy));
  }
}

std::vector<ParameterEntry> elementParameters(const ModuleElements &Elements,
                                              bool Recurse) {
  std::vector<ParameterEntry> Result;
  for (const auto &[Element, Step] : Elements) {
    std::vector<ParameterEntry> Own;
    for (const ParameterEntry &Entry : Element.Parameters)
      if (Recurse || Entry.Route.size() == 1)
        Own.push_back(Entry);
    prefix(Result, Own, Step);
  }
  return Result;
}

bool boolArgument(const CallExpr *Call, unsigned Index, bool Default) {
  if (Call->getNumArgs() <= Index ||
      isa<CXXDefaultArgExpr>(Call->getArg(Index)))
    return Default;
  if (const auto *Literal =
          dyn_cast<CXXBoolLiteralExpr>(Call->getArg(Index)->IgnoreImplicit()))
    return Literal->getValue();
  return Default;
}

/// The template argument Index of a std class template named one of Names.
static const Type *stdTemplateArgument(QualType Type, unsigned Index,
                                       llvm::ArrayRef<llvm::StringRef> Names) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Type.isNull() ? nullptr : Type.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier() ||
      !llvm::is_contained(Names, Spec->getName()) ||
      Spec->getTemplateArgs().size() <= Index ||
      Spec->getTemplateArgs()[Index].getKind() != TemplateArgument::Type)
    return nullptr;
  return Spec->getTemplateArgs()[Index].getAsType().getTypePtr();
}

// Note [Maps of module handles]
// `std::map<std::string, Tower> towers; towers.emplace("ctr", Tower(table));`
// holds handles as a vector does (Note [Containers of module handles]), one
// per distinct key: an emplace or try_emplace under a key already there
// inserts nothing. Keys must be literals for the map to be known. A loop
// over the map reaches each handle as `entry.second` or as the second name
// of `auto &[name, tower]`.
bool isHandleMap(QualType Type) {
  const clang::Type *Mapped =
      stdTemplateArgument(Type, 1, {"map", "unordered_map"});
  return Mapped && moduleImplOf(QualType(Mapped, 0));
}

const VarDecl *loopHandleVariable(const Expr *Module) {
  const Expr *E = skipModuleHandleCopies(Module);
  if (const auto *Member = dyn_cast<MemberExpr>(E);
      Member && Member->getMemberDecl()->getIdentifier() &&
      Member->getMemberDecl()->getName() == "second" &&
      stdTemplateArgument(Member->getBase()->getType(), 1, {"pair"}))
    E = Member->getBase()->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  if (!Ref)
    return nullptr;
  if (const auto *Binding = dyn_cast<BindingDecl>(Ref->getDecl())) {
    const auto *Decomposed =
        dyn_cast_or_null<DecompositionDecl>(Binding->getDecomposedDecl());
    if (!Decomposed || Decomposed->bindings().size() != 2 ||
        Decomposed->bindings()[1] != Binding)
      return nullptr;
    return Decomposed;
  }
  return dyn_cast<VarDecl>(Ref->getDecl());
}

const Expr *insertedContainer(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || isa<CXXMethodDecl>(Callee) || !Callee->isInStdNamespace())
    return nullptr;
  for (const Expr *Arg : Call->arguments()) {
    // The iterator is passed by value: a copy of the inserter's result.
    Arg = Arg->IgnoreImplicit();
    while (const auto *Copy = dyn_cast<CXXConstructExpr>(Arg)) {
      if (Copy->getNumArgs() != 1)
        break;
      Arg = Copy->getArg(0)->IgnoreImplicit();
    }
    const auto *Inserter = dyn_cast<CallExpr>(Arg->IgnoreParenImpCasts());
    static constexpr llvm::StringLiteral Inserters[] = {
        "back_inserter", "front_inserter", "inserter"};
    const FunctionDecl *Maker = Inserter ? Inserter->getDirectCallee() : nullptr;
    if (Maker && Maker->isInStdNamespace() && Maker->getIdentifier() &&
        llvm::is_contained(Inserters, Maker->getName()) &&
        Inserter->getNumArgs() >= 1)
      return Inserter->getArg(0);
  }
  return nullptr;
}

bool isContainerMutation(const CallExpr *Call) {
  if (insertedContainer(Call))
    return true;
  const CXXMethodDecl *Method = methodOf(Call);
  if (!Method || !Method->getIdentifier())
    return false;
  static constexpr llvm::StringLiteral Mutators[] = {
      "insert", "push_back", "emplace_back", "emplace", "erase",
      "clear",  "assign",    "resize",       "swap",    "pop_back"};
  return llvm::is_contained(Mutators, Method->getName());
}

} // namespace detail

// Note [Modules copied by their copy constructor]
// A module class's implicit copy constructor copies what the module holds:
// the handles of its parameters and buffers (Module's dictionaries of
// tensors) and the handles of its submodules (its ModuleHolder members and
// its dictionary of children). So `std::make_shared<CriticImpl>(*q1)`, like
// `CriticImpl q2 = *q1`, is another object over the same tensors: stepping
// q1's and q2's parameters steps each of them twice. `clone()` is what
// copies the tensors. A class that writes its own copy constructor may copy
// deeply, and is left alone. runtime/test/parameter_list_facts_test.cpp
// checks this against the library.
static bool deepCopies(const CXXRecordDecl *Record) {
  if (!Record || !Record->hasDefinition() || !isModuleClass(Record))
    return false;
  return llvm::any_of(Record->ctors(), [](const CXXConstructorDecl *Ctor) {
    return Ctor->isCopyOrMoveConstructor() && Ctor->isUserProvided();
  });
}

/// For `std::make_shared<Impl>(module)`, where module is an object of
/// Impl's class (or of a class derived from it) and Impl copies as the
/// compiler does: module (Note [Modules copied by their copy constructor]).
static const Expr *copiedByMakeShared(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->isInStdNamespace() || !Callee->getIdentifier() ||
      Callee->getName() != "make_shared" || Call->getNumArgs() != 1)
    return nullptr;
  const CXXRecordDecl *Made = moduleImplOf(Call->getType());
  const CXXRecordDecl *From = recordOf(Call->getArg(0)->getType());
  if (!Made || !From || !From->hasDefinition() || !isModuleClass(From) ||
      deepCopies(Made) ||
      !(From->getCanonicalDecl() == Made->getCanonicalDecl() ||
        From->isDerivedFrom(Made)))
    return nullptr;
  return Call->getArg(0);
}

bool copiesModuleObject(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreImplicit()->IgnoreParens()->IgnoreImplicit();
    if (const auto *Call = dyn_cast<CallExpr>(E))
      return copiedByMakeShared(Call) != nullptr;
    const auto *Construct = dyn_cast<CXXConstructExpr>(E);
    if (!Construct || Construct->getNumArgs() != 1)
      return false;
    const CXXRecordDecl *Made = recordOf(Construct->getType());
    if (Construct->getConstructor()->isCopyOrMoveConstructor() &&
        isModuleClass(Made))
      return !deepCopies(Made);
    // A handle made from the copy: `Net(std::make_shared<NetImpl>(*o))`.
    E = Construct->getArg(0);
  }
  return false;
}

const Expr *skipModuleHandleCopies(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens()->IgnoreImplicit();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      const CXXConstructorDecl *Ctor = Construct->getConstructor();
      // A handle made from a handle to its module (`Linear(ptr)`,
      // `std::shared_ptr<Module>(head.ptr())`) is the same module; a module
      // class constructed from one (`HeadImpl(shared)`), or a holder whose
      // module's constructor takes another module (`Head(trunk)`), is not.
      auto SameModule = [&] {
        const CXXRecordDecl *From =
            moduleImplOf(Construct->getArg(0)->getType());
        const CXXRecordDecl *Made = moduleImplOf(Construct->getType());
        return From && Made &&
               (From->getCanonicalDecl() == Made->getCanonicalDecl() ||
                (From->hasDefinition() && From->isDerivedFrom(Made)));
      };
      // `std::ref(t)`'s type, made from the tensor it refers to (Note
      // [References to tensors]).
      if (Construct->getNumArgs() == 1 &&
          isTensorReferenceWrapper(Construct->getType())) {
        E = Construct->getArg(0);
        continue;
      }
      if (Construct->getNumArgs() == 1 &&
          ((Ctor->isCopyOrMoveConstructor() &&
            !deepCopies(recordOf(Construct->getType()))) ||
           (SameModule() &&
            !isModuleClass(recordOf(Construct->getArg(0)->getType())) &&
            !isModuleClass(recordOf(Construct->getType()))))) {
        E = Construct->getArg(0);
        continue;
      }
      return E;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
          Callee->getName() == "move" && Call->getNumArgs() == 1) {
        E = Call->getArg(0);
        continue;
      }
      if (const Expr *Copied = copiedByMakeShared(Call)) {
        E = Copied;
        continue;
      }
      if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
        const CXXMethodDecl *Method = Member->getMethodDecl();
        const Expr *Object = Member->getImplicitObjectArgument();
        // `holder.ptr()`, not `sequential->ptr(0)`, an element.
        if (Method && Method->getIdentifier() && Object &&
            Member->getNumArgs() == 0 &&
            (Method->getName() == "ptr" || Method->getName() == "get") &&
            moduleImplOf(Object->IgnoreImplicit()->getType())) {
          E = Object;
          continue;
        }
      }
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
          Op && Op->getNumArgs() == 1 &&
          (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star) &&
          moduleImplOf(Op->getArg(0)->IgnoreImplicit()->getType())) {
        E = Op->getArg(0);
        continue;
      }
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(E);
        Unary && Unary->getOpcode() == UO_Deref) {
      E = Unary->getSubExpr();
      continue;
    }
    return E;
  }
  return E;
}

bool isModuleClass(const CXXRecordDecl *Record) {
  return findSelfOrBase(Record, "Module", /*Std=*/false) != nullptr;
}

bool isModuleHolderType(QualType Type) {
  return firstTemplateArgument(
             findSelfOrBase(recordOf(Type), "ModuleHolder", false)) != nullptr;
}

const CXXRecordDecl *moduleImplOf(QualType Type) {
  const CXXRecordDecl *Record = recordOf(Type);
  if (!Record)
    return nullptr;
  if (isModuleClass(Record))
    return Record;
  for (auto [Name, Std] : {std::pair<llvm::StringRef, bool>{"ModuleHolder", false},
                           {"shared_ptr", true}}) {
    const CXXRecordDecl *Impl =
        firstTemplateArgument(findSelfOrBase(Record, Name, Std));
    if (Impl && isModuleClass(Impl))
      return Impl;
  }
  return nullptr;
}

void ParameterSharingAnalysis::collectIndex(const Stmt *S,
                                            FunctionIndex &Index,
                                            CallPlace Place) {
  if (!S)
    return;
  auto VarOf = [](const Expr *E) -> const VarDecl * {
    if (!E)
      return nullptr;
    E = skipModuleHandleCopies(E);
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  };
  if (const auto *For = dyn_cast<CXXForRangeStmt>(S)) {
    Index.RangeInits[For->getLoopVariable()] = For->getRangeInit();
    Index.RangeLoops[For->getLoopVariable()] = For;
  }
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    Index.Places[Call] = Place;
    // Note [Lists filled by a helper]
    const FunctionDecl *Callee = Call->getDirectCallee();
    // Note [Lists appended to by standard algorithms]
    if (const Expr *Container = insertedContainer(Call))
      if (const VarDecl *Var = VarOf(Container))
        Index.Calls[Var].push_back(Call);
    if (Callee && !isLibtorchDecl(Callee) && !Callee->isInStdNamespace()) {
      unsigned Shift =
          isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee);
      for (unsigned I = Shift; I < Call->getNumArgs(); ++I) {
        if (I - Shift >= Callee->getNumParams())
          break;
        QualType Type = Callee->getParamDecl(I - Shift)->getType();
        if (Type->isLValueReferenceType() &&
            !Type.getNonReferenceType().isConstQualified())
          if (const VarDecl *Var = VarOf(Call->getArg(I)))
            Index.PassedByReference[Var].push_back({Call, I});
      }
    }
  }
  if (const auto *Apply = dyn_cast<CXXMemberCallExpr>(S);
      Apply && Apply->getNumArgs() >= 1 &&
      isLibtorchMethod(Apply->getMethodDecl(), "apply"))
    forEachStmt(Apply->getArg(0), [&](const Stmt *Inner) {
      if (const auto *Lambda = dyn_cast<LambdaExpr>(Inner))
        Index.Applies[Lambda->getLambdaClass()] = Apply;
    });
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
    if (const VarDecl *Var = VarOf(Member->getImplicitObjectArgument()))
      Index.Calls[Var].push_back(Member);
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
             Op && Op->getNumArgs() > 0) {
    if (const VarDecl *Var = VarOf(Op->getArg(0))) {
      if (Op->isAssignmentOp()) {
        Index.Reassigned.insert(Var);
        Index.Assignments[Var].push_back(Op);
      } else
        Index.Calls[Var].push_back(Op);
    }
  } else if (const auto *Binary = dyn_cast<BinaryOperator>(S);
             Binary && Binary->isAssignmentOp()) {
    if (const VarDecl *Var = VarOf(Binary->getLHS()))
      Index.Reassigned.insert(Var);
  }
  CallPlace Inner = Place;
  if (isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S)) {
    Inner = CallPlace{S, false};
    if (Place.Loop)
      Index.OuterLoops[S] = Place.Loop;
  }
  else if (isa<IfStmt, ConditionalOperator, SwitchStmt>(S) ||
           (isa<BinaryOperator>(S) && cast<BinaryOperator>(S)->isLogicalOp()))
    Inner.Conditional = true;
  for (const Stmt *Child : S->children())
    collectIndex(Child, Index, Inner);
}

std::string ParameterEntry::name() const {
  std::string Name;
  for (const RegistrationStep &Step : Route) {
    if (Step.Name.empty())
      continue;
    if (!Name.empty())
      Name += ".";
    Name += Step.Name;
  }
  return Name;
}

ObjectKey ParameterSharingAnalysis::freshKey(const void *Creator) const {
  ObjectKey Key;
  if (Building.empty()) {
    Key.Root = Creator;
  } else {
    Key.Root = Building.back().first;
    Key.Path.push_back(Creator);
  }
  return Key;
}

const ParameterSharingAnalysis::FunctionIndex &
ParameterSharingAnalysis::indexOf(const VarDecl *Var) {
  return indexOf(Var->getParentFunctionOrMethod());
}

const ParameterSharingAnalysis::FunctionIndex &
ParameterSharingAnalysis::indexOf(const DeclContext *Context) {
  auto &Index = Indexes[Context];
  if (!Index) {
    Index = std::make_unique<FunctionIndex>();
    if (const auto *Function = dyn_cast_or_null<FunctionDecl>(Context)) {
      collectIndex(Function->getBody(), *Index, CallPlace());
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Function))
        for (const CXXCtorInitializer *Init : Ctor->inits())
          collectIndex(Init->getInit(), *Index, CallPlace());
    }
  }
  return *Index;
}

std::string ParameterSharingAnalysis::nameArgument(const Expr *E,
                                                   bool *FromSource) const {
  const Expr *Inner = E->IgnoreImplicit();
  while (const auto *Construct = dyn_cast<CXXConstructExpr>(Inner)) {
    if (Construct->getNumArgs() == 0)
      break;
    Inner = Construct->getArg(0)->IgnoreImplicit();
  }
  const auto *Literal = dyn_cast<StringLiteral>(Inner);
  if (FromSource)
    *FromSource = !Literal;
  if (Literal)
    return Literal->getString().str();
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(E->getSourceRange()),
             AST.getSourceManager(), AST.getLangOpts())
      .str();
}

const ModuleValue *
ParameterSharingAnalysis::classModel(const CXXRecordDecl *Impl,
                                     std::optional<unsigned> NumArgs) {
  if (!Impl || isLibtorchDecl(Impl) || !Impl->hasDefinition())
    return nullptr;
  Impl = Impl->getDefinition();
  const CXXConstructorDecl *Ctor = chooseConstructor(Impl, NumArgs);
  if (!Ctor)
    return nullptr;
  if (auto It = Models.find(Ctor); It != Models.end())
    return It->second.get();
  if (llvm::any_of(Building, [&](const auto &B) { return B.first == Impl; }))
    return nullptr;

  auto Model = std::make_unique<ModuleValue>();
  Model->Identity.Root = Impl;
  Model->Impl = Impl;
  Building.push_back({Impl, Model.get()});
  readConstructor(Ctor, *Model, 0);
  Building.pop_back();
  return (Models[Ctor] = std::move(Model)).get();
}

// Note [Modules built by a base class]
// A module class derived from another module class of the user's
// (`ClassifierImpl : EncoderImpl`) is first built by the base's constructor:
// its registrations are the object's own, and a derived constructor that
// registers an inherited member again (`register_module("backbone_proj",
// proj)`) registers the module the base did.
void ParameterSharingAnalysis::readConstructor(const CXXConstructorDecl *Ctor,
                                               ModuleValue &Model,
                                               unsigned Level) {
  for (const CXXCtorInitializer *Init : Ctor->inits()) {
    const Expr *Value = Init->getInit();
    if (const auto *Default = dyn_cast_or_null<CXXDefaultInitExpr>(Value))
      Value = Default->getExpr();
    if (Init->isBaseInitializer() && Level < 4) {
      const auto *Construct =
          dyn_cast_or_null<CXXConstructExpr>(Value ? Value->IgnoreImplicit() : nullptr);
      const FunctionDecl *Definition = nullptr;
      if (Construct && Construct->getConstructor() &&
          !isLibtorchDecl(Construct->getConstructor()) &&
          Construct->getConstructor()->hasBody(Definition))
        readConstructor(cast<CXXConstructorDecl>(Definition), Model, Level + 1);
      continue;
    }
    if (Init->isMemberInitializer() && Value)
      bindField(Init->getMember(), Value, Model, nullptr);
  }
  readStatement(Ctor->getBody(), Model, nullptr);
}

const ModuleValue *
ParameterSharingAnalysis::modelOfThis(const CXXRecordDecl *Impl) {
  // A member of a base class is the object's own while the derived
  // class's constructor runs (Note [Modules built by a base class]).
  for (const auto &[Record, Model] : llvm::reverse(Building))
    if (Record == Impl || Record->isDerivedFrom(Impl))
      return Model;
  return classModel(Impl, std::nullopt);
}

void ParameterSharingAnalysis::readStatement(const Stmt *S, ModuleValue &Model,
                                             const Stmt *Loop) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S))
    Loop = S;
  // `steps->push_back(shared)` into a member ModuleList or Sequential.
  if (const auto *Push = dyn_cast<CXXMemberCallExpr>(S);
      Push && Push->getNumArgs() == 1 && methodOf(Push) &&
      methodOf(Push)->getIdentifier() && methodOf(Push)->getName() == "push_back")
    if (const auto *Member = dyn_cast<MemberExpr>(
            skipModuleHandleCopies(Push->getImplicitObjectArgument()));
        Member && isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()))
      if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
          Field && moduleImplOf(Field->getType()) &&
          isContainerModule(moduleImplOf(Field->getType()))) {
        pushIntoMember(Push, Field, Model, Loop);
        return;
      }
  // `prompts->insert("rte", t)` into a member ParameterDict,
  // `scales->append(t)` into a member ParameterList.
  if (const auto *Insert = dyn_cast<CXXMemberCallExpr>(S);
      Insert && methodOf(Insert) && methodOf(Insert)->getIdentifier() &&
      llvm::is_contained({llvm::StringRef("insert"), llvm::StringRef("append")},
                         methodOf(Insert)->getName()))
    if (const auto *Member = dyn_cast<MemberExpr>(
            skipModuleHandleCopies(Insert->getImplicitObjectArgument()));
        Member && isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()))
      if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
          Field && isParameterContainer(moduleImplOf(Field->getType()))) {
        insertParameter(Insert, Field, Model, Loop);
        return;
      }
  if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
      Assign && Assign->getOperator() == OO_Equal && Assign->getNumArgs() == 2) {
    const auto *Member =
        dyn_cast<MemberExpr>(Assign->getArg(0)->IgnoreImplicit());
    const auto *Field =
        Member ? dyn_cast<FieldDecl>(Member->getMemberDecl()) : nullptr;
    if (Field && isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit())) {
      bindField(Field, Assign->getArg(1), Model, Loop);
      return;
    }
  }
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
      Call && Call->getImplicitObjectArgument() &&
      isa<CXXThisExpr>(Call->getImplicitObjectArgument()->IgnoreImplicit())) {
    // Cloneable modules register in `reset()`, which the constructor calls.
    const CXXMethodDecl *Method = Call->getMethodDecl();
    const FunctionDecl *Definition = nullptr;
    if (Method && !isLibtorchDecl(Method) && Method->hasBody(Definition) &&
        Depth < 8) {
      ++Depth;
      readStatement(Definition->getBody(), Model, Loop);
      --Depth;
      return;
    }
    registerCall(Call, Model, nullptr, Loop);
    return;
  }
  for (const Stmt *Child : S->children())
    readStatement(Child, Model, Loop);
}

// Note [Dictionaries and lists of parameters]
// `ParameterDict::insert(key, t)` registers t as a parameter under key (a
// key given again throws), and `ParameterList::append(t)` under the next
// index. So a tensor inserted under two keys, or the element of one key
// inserted again under another (`prompts->insert("rte", prompts["mnli"])`),
// is registered twice, and parameters() holds it twice. `dict[key]` and
// `list[i]` with a literal key or index are the tensor inserted there. An
// insert in a range-for over a braced list of string literals, keyed by the
// loop variable, inserts once per literal: a tensor the loop does not
// change (sameEachIteration) is the same tensor each time, and any other is
// a new one each time, and so is a tensor the loop does not change in any
// other loop. Inserts are read where the constructor makes them, into a
// member registered before or after them (Note [Containers filled after
// their registration]).
/// What a member container module holds so far: Held, or an empty module
/// of the member's class.
static ModuleValue memberContainer(const std::shared_ptr<const ModuleValue> &Held,
                                   const ModuleValue &Model, const FieldDecl *Field) {
  if (Held)
    return *Held;
  ModuleValue Container;
  Container.Identity = Model.Identity.member(Field);
  Container.Impl = moduleImplOf(Field->getType());
  return Container;
}

void ParameterSharingAnalysis::insertParameter(const CXXMemberCallExpr *Insert,
                                               const FieldDecl *Field,
                                               ModuleValue &Model,
                                               const Stmt *Loop) {
  bool Dict = methodOf(Insert)->getName() == "insert";
  if (Insert->getNumArgs() != (Dict ? 2u : 1u))
    return;
  auto &Held = Model.FieldModules[Field];
  ModuleValue Container = memberContainer(Held, Model, Field);
  size_t Before = Container.Parameters.size();
  const Expr *Value = Insert->getArg(Dict ? 1 : 0);
  bool View = false;
  ObjectKey Object = tensorKey(Value, &View);
  auto Add = [&](std::string Name, ObjectKey Key, bool Repeated = false) {
    RegistrationStep Step;
    Step.Name = std::move(Name);
    Step.Site = Insert;
    Step.Object = std::move(Key);
    Step.View = View;
    if (Repeated) {
      Step.RepeatLoop = Loop;
      Step.Repeated = Value;
    }
    ParameterEntry Entry;
    Entry.Route.push_back(std::move(Step));
    Container.Parameters.push_back(std::move(Entry));
  };
  // The keys of a range-for over literals: `for (auto task : {"a", "b"})`.
  llvm::SmallVector<const StringLiteral *, 4> Keys;
  // The key and the range through std::string and std::initializer_list.
  auto Bare = [](const Expr *E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    while (true) {
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
          Construct && Construct->getNumArgs() >= 1 &&
          llvm::all_of(llvm::drop_begin(Construct->arguments()),
                       [](const Expr *Arg) { return isa<CXXDefaultArgExpr>(Arg); }))
        E = Construct->getArg(0)->IgnoreImplicit()->IgnoreParens();
      else if (const auto *Init = dyn_cast<CXXStdInitializerListExpr>(E))
        E = Init->getSubExpr()->IgnoreImplicit()->IgnoreParens();
      else
        return E;
    }
  };
  const auto *Range = dyn_cast_or_null<CXXForRangeStmt>(Loop);
  const auto *KeyRef = Dict ? dyn_cast<DeclRefExpr>(Bare(Insert->getArg(0))) : nullptr;
  if (Range && KeyRef && KeyRef->getDecl() == Range->getLoopVariable())
    if (const auto *List = dyn_cast<InitListExpr>(Bare(Range->getRangeInit())))
      for (const Expr *Init : List->inits()) {
        const auto *Literal =
            dyn_cast<StringLiteral>(Init->IgnoreImplicit()->IgnoreParens());
        if (!Literal) {
          Keys.clear();
          break;
        }
        Keys.push_back(Literal);
      }
  if (!Keys.empty()) {
    bool Same = sameEachIteration(Value, Loop);
    for (const StringLiteral *Key : Keys)
      Add(Key->getString().str(), Same ? Object : Object.member(Key), Same);
  } else {
    // Any other loop that inserts a tensor it does not change inserts it
    // once per pass: two entries stand for them.
    bool Repeated = Loop && sameEachIteration(Value, Loop);
    for (int Pass = 0; Pass < (Repeated ? 2 : 1); ++Pass) {
      bool FromSource = false;
      Add(Dict ? nameArgument(Insert->getArg(0), &FromSource)
               : std::to_string(Container.Parameters.size()),
          Object, Repeated);
    }
  }
  addToRegistered(Field, Container, Before, Model);
  Held = std::make_shared<const ModuleValue>(std::move(Container));
}

/// The tensor `dict["mnli"]` or `list[0]` names: the one inserted under
/// that literal key or index, or an unknown one.
ObjectKey
ParameterSharingAnalysis::parameterElement(const CXXOperatorCallExpr *Index) {
  if (Index->getOperator() != OO_Subscript || Index->getNumArgs() != 2)
    return {};
  std::optional<ModuleValue> Container = moduleValue(Index->getArg(0));
  if (!Container || !isParameterContainer(Container->Impl))
    return {};
  const Expr *Key = Index->getArg(1)->IgnoreImplicit();
  while (const auto *Construct = dyn_cast<CXXConstructExpr>(Key)) {
    if (Construct->getNumArgs() == 0)
      return {};
    Key = Construct->getArg(0)->IgnoreImplicit();
  }
  std::string Name;
  if (const auto *Literal = dyn_cast<StringLiteral>(Key))
    Name = Literal->getString().str();
  else if (const auto *Integer = dyn_cast<IntegerLiteral>(Key))
    Name = std::to_string(Integer->getValue().getZExtValue());
  else
    return {};
  for (const ParameterEntry &Entry : Container->Parameters)
    if (Entry.Route.size() == 1 && Entry.Route.front().Name == Name)
      return Entry.Route.front().Object;
  return {};
}

// Note [Members filled in the constructor]
// `for (int i = 0; i < n; ++i) steps->push_back(shared);` in a constructor,
// where `steps` is a member ModuleList or Sequential, appends to the module
// the member holds, which a `register_module("steps", steps)` before or
// after registers: the member's module is the elements pushed so far, numbered
// from 0, and a handle that each iteration pushes again stands for two (as
// Note [Containers of module handles] says for a local container).
void ParameterSharingAnalysis::pushIntoMember(const CXXMemberCallExpr *Push,
                                              const FieldDecl *Field,
                                              ModuleValue &Model,
                                              const Stmt *Loop) {
  std::optional<ModuleValue> Element = moduleValue(Push->getArg(0));
  if (!Element)
    return;
  auto &Held = Model.FieldModules[Field];
  ModuleValue Container = memberContainer(Held, Model, Field);
  size_t Before = Container.Parameters.size();
  unsigned Next = 0;
  for (const ParameterEntry &Entry : Container.Parameters)
    if (!Entry.Route.empty())
      Next = std::max(Next, (unsigned)std::atoi(Entry.Route[0].Name.c_str()) + 1);
  RegistrationStep Step{std::to_string(Next), Push, Element->Identity,
                        Element->FillSite};
  if (Loop && !Element->FillSite && sameEachIteration(Push->getArg(0), Loop)) {
    Step.RepeatLoop = Loop;
    Step.Repeated = Push->getArg(0);
    prefix(Container.Parameters, Element->Parameters, Step);
  }
  prefix(Container.Parameters, Element->Parameters, Step);
  addToRegistered(Field, Container, Before, Model);
  Held = std::make_shared<const ModuleValue>(std::move(Container));
}

void ParameterSharingAnalysis::bindField(const FieldDecl *Field,
                                         const Expr *Init, ModuleValue &Model,
                                         const Stmt *Loop) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(skipModuleHandleCopies(Init));
  if (Call && (isRegistration(Call, "register_parameter") ||
               isRegistration(Call, "register_module") ||
               isRegistration(Call, "register_buffer"))) {
    registerCall(Call, Model, Field, Loop);
    return;
  }
  if (moduleImplOf(Field->getType())) {
    if (std::optional<ModuleValue> Module = moduleValue(Init))
      Model.FieldModules[Field] =
          std::make_shared<const ModuleValue>(std::move(*Module));
  } else if (isTensorType(Field->getType())) {
    Model.FieldTensors[Field] = tensorKey(Init);
  }
}

void ParameterSharingAnalysis::registerCall(const CXXMemberCallExpr *Call,
                                            ModuleValue &Model,
                                            const FieldDecl *BoundTo,
                                            const Stmt *Loop) {
  if (Call->getNumArgs() < 2)
    return;
  bool IsParameter = isRegistration(Call, "register_parameter");
  bool IsModule = isRegistration(Call, "register_module");
  if (!IsParameter && !IsModule) {
    if (BoundTo && isRegistration(Call, "register_buffer"))
      Model.FieldTensors[BoundTo] = tensorKey(Call->getArg(1));
    return;
  }
  RegistrationStep Step;
  Step.Name = nameArgument(Call->getArg(0), &Step.NameFromSource);
  Step.Site = Call;
  if (IsParameter) {
    Step.Object = tensorKey(Call->getArg(1), &Step.View);
    ParameterEntry Entry;
    Entry.Route.push_back(Step);
    Model.Parameters.push_back(std::move(Entry));
    if (BoundTo) {
      Model.FieldTensors[BoundTo] = Step.Object;
      Model.RegisteredFields[BoundTo] = Step.Name;
    }
    return;
  }
  std::optional<ModuleValue> Module = moduleValue(Call->getArg(1));
  if (!Module)
    return;
  Step.Object = Module->Identity;
  Step.FillSite = Module->FillSite;
  prefix(Model.Parameters, Module->Parameters, Step);
  // Note [Registering a filled element in a loop]
  // A loop that registers the elements of a container filled with one handle
  // registers that module once per element; two registrations stand for n.
  if (Loop && Module->FillSite)
    prefix(Model.Parameters, Module->Parameters, Step);
  else if (Loop)
    repeatRegistration(Call, *Module, Step, Loop, Model);
  if (BoundTo) {
    Model.RegisteredModules[BoundTo] = Step;
    Model.FieldModules[BoundTo] =
        std::make_shared<const ModuleValue>(std::move(*Module));
  }
}

// Note [Containers filled after their registration]
// `steps = register_module("steps", ModuleList());` registers a handle to
// the module the member holds, so what the constructor appends to the
// member afterwards (`steps->push_back(block)`, `gains->append(h)`) is in
// the registered module too, and in parameters(). The entries a container
// member gains after its registration are added to the model under that
// registration, as they would have been had the member been filled first.
void ParameterSharingAnalysis::addToRegistered(const FieldDecl *Field,
                                               const ModuleValue &Container,
                                               size_t Before,
                                               ModuleValue &Model) {
  auto It = Model.RegisteredModules.find(Field);
  if (It == Model.RegisteredModules.end())
    return;
  std::vector<ParameterEntry> Added(Container.Parameters.begin() + Before,
                                    Container.Parameters.end());
  prefix(Model.Parameters, Added, It->second);
}

// Note [Registrations repeated by a loop]
// A loop in a constructor that registers one handle on every pass
// (`register_module("hop" + std::to_string(i), shared_)`) registers that
// module once per pass. So does a loop that registers a new module on every
// pass, built from a module or tensor the loop does not change
// (`register_module(name, SageLayer(dim, root_))`, where each layer
// registers its argument): the new modules are distinct, but each holds the
// shared one. What the loop does not change is what sameEachIteration says:
// a member of `this`, a parameter, or a local declared outside the loop and
// never reassigned. A second copy of the shared entries, behind a step that
// names the loop, stands for the n passes, as two registrations stand for
// the elements of a filled container.
void ParameterSharingAnalysis::repeatRegistration(const CXXMemberCallExpr *Call,
                                                  const ModuleValue &Module,
                                                  RegistrationStep Step,
                                                  const Stmt *Loop,
                                                  ModuleValue &Model) {
  Step.RepeatLoop = Loop;
  if (sameEachIteration(Call->getArg(1), Loop)) {
    Step.Repeated = Call->getArg(1);
    prefix(Model.Parameters, Module.Parameters, Step);
    return;
  }
  // The arguments of the construction, if the module is built here.
  for (const Expr *Arg :
       constructionArguments(skipModuleHandleCopies(Call->getArg(1)))
           .value_or(llvm::ArrayRef<const Expr *>())) {
    if (!sameEachIteration(Arg, Loop))
      continue;
    ObjectKey Shared;
    if (moduleImplOf(Arg->getType())) {
      if (std::optional<ModuleValue> Value = moduleValue(Arg))
        Shared = Value->Identity;
    } else if (isTensorType(Arg->getType())) {
      Shared = tensorKey(Arg);
    }
    if (!Shared.known())
      continue;
    std::vector<ParameterEntry> Held;
    for (const ParameterEntry &Entry : Module.Parameters) {
      const ObjectKey &Key = Entry.tensor();
      if (Key.Root == Shared.Root && Key.Path.size() >= Shared.Path.size() &&
          std::equal(Shared.Path.begin(), Shared.Path.end(), Key.Path.begin()))
        Held.push_back(Entry);
    }
    Step.Repeated = Arg;
    prefix(Model.Parameters, Held, Step);
  }
}

// Note [Modules built over a given tensor]
// An Embedding or EmbeddingBag given its weight (`EmbeddingOptions(n,
// d)._weight(t)`, or `Embedding::from_pretrained(t, options)`, which passes
// t that way) registers t itself as its weight, without a copy. Two such
// modules over one tensor both list it. `from_pretrained` freezes the
// weight unless its options say `freeze(false)`, and a frozen weight gets
// no gradient, so no optimizer or clipping steps it: only an unfrozen one
// is taken to be t. runtime/test/parameter_list_facts_test.cpp checks both
// against the library.
namespace {

/// The call of Name in a chain of option setters (`Options(n,
/// d)._weight(t).max_norm(1)`), also through a local the chain initialises.
const CXXMemberCallExpr *optionSetter(const Expr *Options,
                                      llvm::StringRef Name) {
  for (unsigned Depth = 0; Options && Depth < 16; ++Depth) {
    Options = Options->IgnoreImplicit()->IgnoreParens();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Options);
        Construct && Construct->getNumArgs() == 1) {
      Options = Construct->getArg(0);
      continue;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Options)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      Options = Var && Var->hasLocalStorage() && !isa<ParmVarDecl>(Var)
                    ? Var->getInit()
                    : nullptr;
      continue;
    }
    const auto *Call = dyn_cast<CXXMemberCallExpr>(Options);
    if (!Call)
      return nullptr;
    const CXXMethodDecl *Method = Call->getMethodDecl();
    if (Method && Method->getIdentifier() && Method->getName() == Name &&
        Call->getNumArgs() == 1)
      return Call;
    Options = Call->getImplicitObjectArgument();
  }
  return nullptr;
}

/// Whether the setter Call is given `false`.
bool setsFalse(const CXXMemberCallExpr *Call) {
  const auto *Flag =
      dyn_cast<CXXBoolLiteralExpr>(Call->getArg(0)->IgnoreImplicit());
  return Flag && !Flag->getValue();
}

} // namespace

/// The tensor a library module built by Site registers as its weight
/// without a copy (Note [Modules built over a given tensor]); null when it
/// makes its own.
static const Expr *givenWeight(const Expr *Site,
                               llvm::ArrayRef<const Expr *> Args) {
  if (const auto *Call = dyn_cast<CallExpr>(Site)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier() ||
        Callee->getName() != "from_pretrained" || !isLibtorchDecl(Callee) ||
        Call->getNumArgs() < 2 || !isTensorType(Call->getArg(0)->getType()))
      return nullptr;
    const CXXMemberCallExpr *Freeze = optionSetter(Call->getArg(1), "freeze");
    return Freeze && setsFalse(Freeze) ? Call->getArg(0) : nullptr;
  }
  for (const Expr *Arg : Args)
    if (const CXXMemberCallExpr *Weight = optionSetter(Arg, "_weight"))
      return Weight->getArg(0);
  return nullptr;
}

ModuleValue ParameterSharingAnalysis::construct(
    const Expr *Site, const CXXRecordDecl *Impl,
    llvm::ArrayRef<const Expr *> Args, ObjectKey Identity, bool ArgsKnown) {
  ModuleValue Value;
  Value.Identity = Identity;
  Value.Impl = Impl;
  if (isModuleDict(Impl)) {
    if (Args.size() == 1)
      if (std::optional<ModuleElements> Elements = dictElements(Args[0]))
        for (const auto &[Element, Step] : *Elements)
          prefix(Value.Parameters, Element.Parameters, Step);
    return Value;
  }
  if (isContainerModule(Impl)) {
    for (size_t Index = 0; Index < Args.size(); ++Index) {
      const Expr *Arg = Args[Index];
      std::optional<ModuleValue> Element = moduleValue(Arg);
      if (!Element)
        continue;
      RegistrationStep Step{std::to_string(Index), Arg, Element->Identity,
                            Element->FillSite};
      prefix(Value.Parameters, Element->Parameters, Step);
    }
    return Value;
  }
  if (isLibtorchDecl(Impl)) {
    // Library modules register their tensor members under the members' names.
    ObjectKey Given;
    if (const Expr *Weight = givenWeight(Site, Args))
      Given = tensorKey(Weight);
    for (const FieldDecl *Field : Impl->fields()) {
      if (!isTensorType(Field->getType()) || Field->getAccess() != AS_public)
        continue;
      ObjectKey Key = Identity.member(Field);
      if (Given.known() && Field->getName() == "weight")
        Key = Given;
      ParameterEntry Entry;
      Entry.Route.push_back({Field->getName().str(), Site, Key, nullptr});
      Value.Parameters.push_back(std::move(Entry));
      Value.FieldTensors[Field] = Key;
      Value.RegisteredFields[Field] = Field->getName().str();
    }
    return Value;
  }
  // A module not seen constructed: as a default construction, or else as
  // the class's only constructor builds it.
  std::optional<unsigned> NumArgs = Args.size();
  const ModuleValue *Model = classModel(Impl, NumArgs);
  if (!Model && !ArgsKnown) {
    NumArgs = std::nullopt;
    Model = classModel(Impl, NumArgs);
  }
  if (!Model)
    return Value;
  llvm::DenseMap<const void *, ObjectKey> Substitution;
  Substitution[Impl] = Identity;
  const CXXConstructorDecl *Ctor = chooseConstructor(Impl, NumArgs);
  for (const ParmVarDecl *Param : Ctor->parameters()) {
    unsigned Index = Param->getFunctionScopeIndex();
    ObjectKey Key;
    if (Index < Args.size()) {
      if (moduleImplOf(Param->getType())) {
        if (std::optional<ModuleValue> Arg = moduleValue(Args[Index]))
          Key = Arg->Identity;
      } else if (isTensorType(Param->getType())) {
        Key = tensorKey(Args[Index]);
      }
    }
    // An argument the analysis cannot name is distinct per instance.
    Substitution[Param] = Key.known() ? Key : Identity.member(Param);
  }
  ModuleValue Result = rebase(*Model, Substitution);
  Result.FillSite = nullptr;
  return Result;
}

// Note [Dictionaries of modules]
// `ModuleDict(pairs)` registers each pair's module under its key, in order;
// a key given again replaces the module before it rather than registering a
// second one. So one module under two keys (a relation and its inverse
// sharing a transform) is registered twice, and parameters() holds its
// tensors twice. The pairs are a brace list, or a local vector grown by
// `emplace_back(key, module)` or `push_back` of a pair. Two keys are known
// to differ when both are literals that differ, or when one is the other
// with a literal added before or after it (`rel` and `rel + "_inv"`); a
// dictionary with one module under two keys not known to differ is not
// followed, since the second may replace the first.
static bool keysDiffer(const Expr *A, const Expr *B, const ASTContext &AST) {
  auto Bare = [](const Expr *E) {
    E = E->IgnoreImplicit();
    while (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      if (Construct->getNumArgs() == 0)
        break;
      E = Construct->getArg(0)->IgnoreImplicit();
    }
    return E;
  };
  auto Text = [&](const Expr *E) {
    return Lexer::getSourceText(CharSourceRange::getTokenRange(E->getSourceRange()),
                                AST.getSourceManager(), AST.getLangOpts());
  };
  const auto *LiteralA = dyn_cast<StringLiteral>(Bare(A));
  const auto *LiteralB = dyn_cast<StringLiteral>(Bare(B));
  if (LiteralA && LiteralB)
    return LiteralA->getString() != LiteralB->getString();
  // `Other + "lit"` or `"lit" + Other`, against Other.
  auto Extends = [&](const Expr *Longer, const Expr *Shorter) {
    const auto *Plus = dyn_cast<CXXOperatorCallExpr>(Bare(Longer));
    if (!Plus || Plus->getOperator() != OO_Plus || Plus->getNumArgs() != 2)
      return false;
    for (unsigned Side = 0; Side < 2; ++Side) {
      const auto *Literal = dyn_cast<StringLiteral>(Bare(Plus->getArg(Side)));
      if (Literal && !Literal->getString().empty() &&
          Text(Plus->getArg(1 - Side)) == Text(Shorter))
        return true;
    }
    return false;
  };
  return Extends(A, B) || Extends(B, A);
}

std::optional<ModuleElements>
ParameterSharingAnalysis::dictElements(const Expr *Pairs) {
  std::vector<std::pair<const Expr *, const Expr *>> Items; // key, module
  llvm::SmallVector<const Expr *, 4> Sites;
  const Expr *E = Pairs->IgnoreImplicit();
  while (const auto *Copy = dyn_cast<CXXConstructExpr>(E)) {
    if (Copy->getNumArgs() != 1 || isa<CXXStdInitializerListExpr>(
                                        Copy->getArg(0)->IgnoreImplicit()))
      break;
    E = Copy->getArg(0)->IgnoreImplicit();
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() >= 1)
    E = Construct->getArg(0)->IgnoreImplicit();
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
    E = List->getSubExpr()->IgnoreImplicit();
  if (const auto *Init = dyn_cast<InitListExpr>(E)) {
    for (const Expr *Pair : Init->inits()) {
      std::optional<std::pair<const Expr *, const Expr *>> Item = keyAndModule(Pair);
      if (!Item)
        return std::nullopt;
      Items.push_back(*Item);
      Sites.push_back(Pair);
    }
  } else if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var || !Var->isLocalVarDecl())
      return std::nullopt;
    const FunctionIndex &Index = indexOf(Var);
    if (Index.Reassigned.count(Var) || Index.RangeInits.count(Var) ||
        !Index.PassedByReference.lookup(Var).empty())
      return std::nullopt;
    if (const Expr *VarInit = Var->getInit()) {
      const auto *Construct = dyn_cast<CXXConstructExpr>(VarInit->IgnoreImplicit());
      if (!Construct || Construct->getNumArgs() != 0)
        return std::nullopt;
    }
    for (const CallExpr *Call : Index.Calls.lookup(Var)) {
      if (!isContainerMutation(Call))
        continue;
      // A standard algorithm's appends are not followed here.
      if (!methodOf(Call))
        return std::nullopt;
      llvm::StringRef Name = methodOf(Call)->getName();
      std::optional<std::pair<const Expr *, const Expr *>> Item;
      if (Name == "emplace_back" && Call->getNumArgs() == 2)
        Item = std::make_pair(Call->getArg(0), Call->getArg(1));
      else if ((Name == "push_back" || Name == "emplace_back") &&
               Call->getNumArgs() == 1)
        Item = keyAndModule(Call->getArg(0));
      if (!Item || Index.Places.lookup(Call).Conditional)
        return std::nullopt;
      Items.push_back(*Item);
      Sites.push_back(Call);
    }
  } else {
    return std::nullopt;
  }
  ModuleElements Elements;
  for (size_t I = 0; I < Items.size(); ++I) {
    std::optional<ModuleValue> Element = moduleValue(Items[I].second);
    if (!Element)
      return std::nullopt;
    // One module under a key that may equal an earlier one's.
    for (size_t J = 0; J < I; ++J)
      if (Elements[J].first.Identity.known() &&
          Elements[J].first.Identity == Element->Identity &&
          !keysDiffer(Items[J].first, Items[I].first, AST))
        return std::nullopt;
    RegistrationStep Step{"", Sites[I], Element->Identity, Element->FillSite};
    Step.Name = nameArgument(Items[I].first, &Step.NameFromSource);
    Elements.emplace_back(std::move(*Element), Step);
  }
  return Elements;
}

// Note [Objects that hold modules]
// An agent that is not a module itself, `struct Agent { Linear encoder;
// Actor actor; Critic critic; }` with `actor(encoder), critic(encoder)` in
// its constructor, builds its members as a module's constructor would: the
// actor's and the critic's encoder are one module. Such an object is read
// like a module class whose members are its modules (what its constructor
// gives them), one per variable, so that `agent.actor->parameters()` and
// `agent.critic->parameters()` share the encoder's tensors.
static const CXXRecordDecl *moduleHolderClass(QualType Type) {
  if (Type->isPointerType())
    Type = Type->getPointeeType();
  const CXXRecordDecl *Record = Type.getNonReferenceType()->getAsCXXRecordDecl();
  if (!Record || !Record->hasDefinition() || isLibtorchDecl(Record) ||
      Record->isInStdNamespace() || moduleImplOf(Type.getNonReferenceType()))
    return nullptr;
  Record = Record->getDefinition();
  bool HoldsModules = llvm::any_of(Record->fields(), [](const FieldDecl *Field) {
    return moduleImplOf(Field->getType()) != nullptr;
  });
  return HoldsModules ? Record : nullptr;
}

std::optional<ModuleValue>
ParameterSharingAnalysis::moduleHolderValue(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  const CXXRecordDecl *Record = moduleHolderClass(E->getType());
  if (!Record)
    return std::nullopt;
  if (isa<CXXThisExpr>(E)) {
    if (const ModuleValue *Model = modelOfThis(Record))
      return *Model;
    return std::nullopt;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var)
    return std::nullopt;
  if (isa<ParmVarDecl>(Var) || Var->getType()->isReferenceType())
    return construct(E, Record, {}, ObjectKey{Var, {}});
  const auto *Construct =
      dyn_cast_or_null<CXXConstructExpr>(Var->getInit() ? Var->getInit()->IgnoreImplicit() : nullptr);
  if (!Construct)
    return std::nullopt;
  return construct(E, Record,
                   llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs()),
                   freshKey(Var));
}

static const VarDecl *returnedStatic(const CallExpr *Call);

std::optional<ModuleValue>
ParameterSharingAnalysis::moduleValue(const Expr *E) {
  if (!E || Depth > 24)
    return std::nullopt;
  const CXXRecordDecl *Impl = moduleImplOf(E->getType());
  E = skipModuleHandleCopies(E);
  if (!Impl)
    Impl = moduleImplOf(E->getType());
  if (!Impl)
    return std::nullopt;
  ++Depth;
  auto Done = llvm::make_scope_exit([&] { --Depth; });

  if (isa<CXXThisExpr>(E)) {
    if (const ModuleValue *Model = modelOfThis(Impl))
      return *Model;
    return construct(E, Impl, {}, ObjectKey{Impl, {}}, false);
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      return localModule(Var, E);
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    std::optional<ModuleValue> Base = moduleValue(Member->getBase());
    if (!Base)
      Base = moduleHolderValue(Member->getBase());
    if (Field && Base) {
      auto It = Base->FieldModules.find(Field);
      if (It != Base->FieldModules.end())
        return *It->second;
      return construct(E, Impl, {}, Base->Identity.member(Field), false);
    }
    return construct(E, Impl, {}, freshKey(E), false);
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
    if (std::optional<ModuleValue> Element = elementOf(Op->getArg(0)))
      return Element;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
      Call && isRegistration(Call, "register_module") && Call->getNumArgs() == 2)
    return moduleValue(Call->getArg(1));
  if (std::optional<ModuleValue> Element = indexedElement(E))
    return Element;
  if (std::optional<llvm::ArrayRef<const Expr *>> Args = constructionArguments(E)) {
    // `Linear(nullptr)` holds no module.
    if (isa<CXXConstructExpr>(E) && Args->size() == 1 &&
        Args->front()->getType()->isNullPtrType())
      return std::nullopt;
    return construct(E, Impl, *Args, freshKey(E));
  }
  // Note [Modules kept in a static]
  // A function that returns a static (`static Linear router(8, 1); return
  // router;`) or a global returns the same module at every call: one
  // identity, the variable's, wherever it is called.
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (const VarDecl *Kept = returnedStatic(Call))
      return construct(E, Impl, {}, ObjectKey{Kept, {}}, false);
  // Any other call (`m->clone()`, a factory): a module of its own.
  return construct(E, Impl, {}, freshKey(E), false);
}

// Note [Elements of a Sequential by index]
// `u_net->ptr<LinearImpl>(0)`, `seq->ptr(1)`, `seq[2]` and `list->at<T>(0)`
// name the module a Sequential or ModuleList registered under that index:
// built into another container (`Sequential(u_net->ptr<LinearImpl>(0),
// Tanh(), Linear(16, 1))`), it is the same module, whose parameters the two
// containers both hold. The element is what the container's own value has
// under that name, so an index the analysis did not see registered (an
// element pushed at run time) is no module it knows.
std::optional<ModuleValue>
ParameterSharingAnalysis::indexedElement(const Expr *E) {
  const Expr *Container = nullptr, *Index = nullptr;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    if (Method && Method->getIdentifier() && Call->getNumArgs() == 1 &&
        (Method->getName() == "ptr" || Method->getName() == "at") &&
        isLibtorchDecl(Method)) {
      Container = Call->getImplicitObjectArgument();
      Index = Call->getArg(0);
    }
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
             Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
             isLibtorchDecl(Op->getDirectCallee())) {
    Container = Op->getArg(0);
    Index = Op->getArg(1);
  }
  const CXXRecordDecl *Of =
      Container ? moduleImplOf(Container->IgnoreImplicit()->getType()) : nullptr;
  Expr::EvalResult Constant;
  if (!Of || !Of->getIdentifier() ||
      (Of->getName() != "SequentialImpl" && Of->getName() != "ModuleListImpl") ||
      Index->isValueDependent() || !Index->EvaluateAsInt(Constant, AST))
    return std::nullopt;
  std::optional<ModuleValue> Base = moduleValue(Container);
  if (!Base)
    return std::nullopt;
  std::string Name = std::to_string(Constant.Val.getInt().getExtValue());
  ModuleValue Element;
  Element.Impl = moduleImplOf(E->getType());
  for (const ParameterEntry &Entry : Base->Parameters) {
    if (Entry.Route.size() < 2 || Entry.Route.front().Name != Name)
      continue;
    Element.Identity = Entry.Route.front().Object;
    ParameterEntry Own;
    Own.Route.append(Entry.Route.begin() + 1, Entry.Route.end());
    Element.Parameters.push_back(std::move(Own));
  }
  if (!Element.Identity.known())
    return std::nullopt;
  return Element;
}

/// The static local or global that every `return` of Call's callee, a
/// function of the translation unit, returns; null if there is none.
static const VarDecl *returnedStatic(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Callee || isLibtorchDecl(Callee) || Callee->isInStdNamespace() ||
      !Callee->hasBody(Definition))
    return nullptr;
  const VarDecl *Kept = nullptr;
  bool Other = false;
  forEachStmt(Definition->getBody(), [&](const Stmt *S) {
    const auto *Return = dyn_cast<ReturnStmt>(S);
    if (!Return)
      return;
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(
        Return->getRetValue() ? skipModuleHandleCopies(Return->getRetValue())
                              : nullptr);
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Var || !(Var->isStaticLocal() || Var->hasGlobalStorage()) ||
        (Kept && Kept != Var))
      Other = true;
    else
      Kept = Var;
  });
  return Other ? nullptr : Kept;
}

std::optional<ParameterSharingAnalysis::ContainerFill>
ParameterSharingAnalysis::containerFill(const VarDecl *Var) {
  if (!Var || !Var->getParentFunctionOrMethod() ||
      !isStdContainer(recordOf(Var->getType())))
    return std::nullopt;
  // `std::vector<Linear> v(n, Linear(...))` and `v.assign(n, Linear(...))`:
  // every element is a handle to the one module.
  ContainerFill Fill;
  Fill.Container = Var;
  const auto *Init =
      Var->getInit() ? dyn_cast<CXXConstructExpr>(Var->getInit()->IgnoreImplicit())
                     : nullptr;
  if (Init && Init->getNumArgs() >= 2 &&
      moduleImplOf(Init->getArg(1)->getType()) &&
      Init->getArg(0)->getType()->isIntegerType()) {
    Fill.Site = Init;
    Fill.Count = Init->getArg(0);
    Fill.Value = Init->getArg(1);
  }
  for (const CallExpr *Call : indexOf(Var).Calls.lookup(Var)) {
    const CXXMethodDecl *Method = methodOf(Call);
    if (Method && Method->getIdentifier() && Method->getName() == "assign" &&
        Call->getNumArgs() == 2 && moduleImplOf(Call->getArg(1)->getType())) {
      Fill.Site = Call;
      Fill.Count = Call->getArg(0);
      Fill.Value = Call->getArg(1);
    }
  }
  // One element, or none, shares with nothing.
  std::optional<llvm::APSInt> Constant;
  if (Fill.Site)
    if (auto Value = Fill.Count->getIntegerConstantExpr(AST))
      Constant = *Value;
  if (!Fill.Site || (Constant && *Constant <= 1))
    return std::nullopt;
  Fills[Fill.Site] = Fill;
  return Fill;
}

const ParameterSharingAnalysis::ContainerFill *
ParameterSharingAnalysis::fillAt(const Expr *Site) const {
  auto It = Fills.find(Site);
  return It == Fills.end() ? nullptr : &It->second;
}

std::optional<ModuleValue>
ParameterSharingAnalysis::elementOf(const Expr *Container) {
  const auto *Ref = dyn_cast<DeclRefExpr>(skipModuleHandleCopies(Container));
  std::optional<ContainerFill> Fill =
      containerFill(Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr);
  if (!Fill)
    return std::nullopt;
  std::optional<ModuleValue> Element = moduleValue(Fill->Value);
  if (Element)
    Element->FillSite = Fill->Site;
  return Element;
}

std::optional<ModuleValue>
ParameterSharingAnalysis::localModule(const VarDecl *Var, const Expr *Ref) {
  const CXXRecordDecl *Impl = moduleImplOf(Var->getType());
  if (!Impl)
    return std::nullopt;
  if (auto It = Bound.find(Var); It != Bound.end())
    return *It->second;
  if (isa<ParmVarDecl>(Var) || !Var->getParentFunctionOrMethod()) {
    // A constructor's parameter stays a parameter, to be substituted when
    // the class is instantiated; elsewhere it is a module of its own.
    ModuleValue Value = construct(Ref, Impl, {}, ObjectKey{Var, {}}, false);
    if (Var->getParentFunctionOrMethod())
      applyModuleEdits(Var, Value);
    return Value;
  }
  const FunctionIndex &Index = indexOf(Var);
  if (auto Range = Index.RangeInits.find(Var); Range != Index.RangeInits.end()) {
    if (std::optional<ModuleValue> Element = elementOf(Range->second))
      return Element;
    return construct(Ref, Impl, {}, freshKey(Var), false);
  }
  const Expr *Init = Var->getInit();
  if (!Init || Index.Reassigned.count(Var))
    return construct(Ref, Impl, {}, freshKey(Var), false);
  const Expr *Stripped = skipModuleHandleCopies(Init);
  std::optional<ModuleValue> Value;
  if (isa<DeclRefExpr, MemberExpr, CXXThisExpr>(Stripped) ||
      isa<CXXOperatorCallExpr>(Stripped)) {
    Value = moduleValue(Init); // a copy of a handle: the same module
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Stripped)) {
    if (Construct->getNumArgs() == 1 &&
        Construct->getArg(0)->getType()->isNullPtrType())
      return std::nullopt;
    Value = construct(Stripped, Impl,
                      llvm::ArrayRef(Construct->getArgs(),
                                     Construct->getNumArgs()),
                      freshKey(Var));
  } else {
    Value = moduleValue(Init);
    if (Value && Value->Identity.Root == Stripped)
      Value = rebase(*Value, {{Stripped, freshKey(Var)}});
  }
  if (!Value)
    return std::nullopt;
  applyModuleEdits(Var, *Value);
  // Modules appended to a local Sequential or ModuleList.
  if (isContainerModule(Impl)) {
    unsigned Next = 0;
    for (const ParameterEntry &Entry : Value->Parameters)
      if (!Entry.Route.empty())
        Next = std::max(Next, (unsigned)std::atoi(Entry.Route[0].Name.c_str()) + 1);
    for (const CallExpr *Call : Index.Calls.lookup(Var)) {
      const CXXMethodDecl *Method = methodOf(Call);
      if (!Method || !Method->getIdentifier() ||
          Method->getName() != "push_back" || Call->getNumArgs() != 1)
        continue;
      std::optional<ModuleValue> Element = moduleValue(Call->getArg(0));
      if (!Element)
        continue;
      RegistrationStep Step{std::to_string(Next++), Call, Element->Identity,
                            Element->FillSite};
      // See Note [Containers of module handles].
      const CallPlace Place = Index.Places.lookup(Call);
      if (Place.Loop && !Element->FillSite &&
          sameEachIteration(Call->getArg(0), Place.Loop)) {
        Step.RepeatLoop = Place.Loop;
        Step.Repeated = Call->getArg(0);
        prefix(Value->Parameters, Element->Parameters, Step);
      }
      prefix(Value->Parameters, Element->Parameters, Step);
      // See Note [Registering a filled element in a loop].
      const auto *Pushed =
          dyn_cast<DeclRefExpr>(skipModuleHandleCopies(Call->getArg(0)));
      const auto *PushedVar =
          Pushed ? dyn_cast<VarDecl>(Pushed->getDecl()) : nullptr;
      if (Element->FillSite && PushedVar && Index.RangeInits.count(PushedVar))
        prefix(Value->Parameters, Element->Parameters, Step);
    }
  }
  return Value;
}

// Note [Module graphs edited after construction]
// Outside a constructor, `m->register_module(name, x)` and
// `m->register_parameter(name, t)` add to what m's parameters() walks, and
// `m->replace_module(name, x)` swaps the submodule registered under name for
// x: libtorch stores the handle it is given, so x is shared with whatever
// else holds it. The edits are found in the function of the variable m, in
// any order (flow-insensitive); a replacement by a fresh module removes the
// old one's parameters. Inside a constructor the class model reads them.
void ParameterSharingAnalysis::applyModuleEdits(const VarDecl *Var,
                                                ModuleValue &Value) {
  if (!Building.empty() || !Editing.insert(Var).second)
    return;
  auto Done = llvm::make_scope_exit([&] { Editing.erase(Var); });
  // One edit; This maps the class of `this` to Var's module for an edit in
  // one of its methods.
  auto Apply = [&](const CXXMemberCallExpr *Call,
                   const llvm::DenseMap<const void *, ObjectKey> &This) {
    bool Replace = isRegistration(Call, "replace_module");
    bool Module = Replace || isRegistration(Call, "register_module");
    if ((!Module && !isRegistration(Call, "register_parameter")) ||
        Call->getNumArgs() < 2)
      return;
    RegistrationStep Step;
    Step.Name = nameArgument(Call->getArg(0), &Step.NameFromSource);
    Step.Site = Call;
    if (!Module) {
      Step.Object = rebase(tensorKey(Call->getArg(1), &Step.View), This);
      ParameterEntry Entry;
      Entry.Route.push_back(Step);
      Value.Parameters.push_back(std::move(Entry));
      return;
    }
    std::optional<ModuleValue> Submodule = moduleValue(Call->getArg(1));
    if (Replace)
      llvm::erase_if(Value.Parameters, [&](const ParameterEntry &Entry) {
        return Entry.Route.size() > 1 && Entry.Route[0].Name == Step.Name;
      });
    if (!Submodule)
      return;
    if (!This.empty())
      Submodule = rebase(*Submodule, This);
    Step.Object = Submodule->Identity;
    prefix(Value.Parameters, Submodule->Parameters, Step);
  };
  const llvm::DenseMap<const void *, ObjectKey> Caller;
  for (const CallExpr *Call : indexOf(Var).Calls.lookup(Var)) {
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
    if (!Member)
      continue;
    Apply(Member, Caller);
    // Note [Edits made by a method of the module]
    // `model->tie_input_projections()`, whose body is `dec_in =
    // replace_module("dec_in", enc_in);`, edits the module it is called on
    // as the same call in the caller would: the method's registrations on
    // `this` apply to Var, with `this`'s members read as Var's.
    const CXXMethodDecl *Method = Member->getMethodDecl();
    const FunctionDecl *Definition = nullptr;
    const CXXRecordDecl *Class = Method ? Method->getParent() : nullptr;
    if (!Method || isLibtorchDecl(Method) || !Value.Impl ||
        isa<CXXConstructorDecl>(Method) || !Method->hasBody(Definition) ||
        (Value.Impl != Class->getDefinition() &&
         !Value.Impl->isDerivedFrom(Class)))
      continue;
    llvm::DenseMap<const void *, ObjectKey> This;
    This[Value.Impl] = Value.Identity;
    forEachStmt(Definition->getBody(), [&](const Stmt *S) {
      const auto *Edit = dyn_cast<CXXMemberCallExpr>(S);
      if (Edit && Edit->getImplicitObjectArgument() &&
          isa<CXXThisExpr>(Edit->getImplicitObjectArgument()->IgnoreImplicit()))
        Apply(Edit, This);
    });
  }
}

ObjectKey ParameterSharingAnalysis::tensorKey(const Expr *E, bool *IsView) {
  if (!E || Depth > 24)
    return {};
  ++Depth;
  auto Done = llvm::make_scope_exit([&] { --Depth; });
  E = skipModuleHandleCopies(E);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table)) {
      if (const Expr *Aliased = Tensor->aliasedArgument()) {
        if (IsView)
          *IsView = true;
        return tensorKey(Aliased, IsView);
      }
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
        Member && (isRegistration(Member, "register_parameter") ||
                   isRegistration(Member, "register_buffer")) &&
        Member->getNumArgs() >= 2)
      return tensorKey(Member->getArg(1), IsView);
    // Note [Dictionaries and lists of parameters]
    if (const auto *Index = dyn_cast<CXXOperatorCallExpr>(Call))
      if (ObjectKey Element = parameterElement(Index); Element.known())
        return Element;
    return freshKey(E);
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return {};
    if (isa<ParmVarDecl>(Var) || !Var->getParentFunctionOrMethod())
      return ObjectKey{Var, {}};
    const FunctionIndex &Index = indexOf(Var);
    if (Var->getInit() && !Index.Reassigned.count(Var) &&
        !Index.RangeInits.count(Var) && !Var->getType()->isReferenceType()) {
      ObjectKey Key = tensorKey(Var->getInit(), IsView);
      if (Key.known())
        return Key;
    }
    return freshKey(Var);
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    if (!Field)
      return {};
    std::optional<ModuleValue> Base = moduleValue(Member->getBase());
    if (!Base)
      return {};
    auto It = Base->FieldTensors.find(Field);
    if (It != Base->FieldTensors.end() && It->second.known())
      return It->second;
    return Base->Identity.member(Field);
  }
  return freshKey(E);
}

std::optional<std::vector<ParameterEntry>>
ParameterSharingAnalysis::parameterList(const Expr *E) {
  return ParameterListBuilder(*this).parameterList(E);
}

std::optional<std::vector<ParameterEntry>>
ParameterSharingAnalysis::parameterListThrough(const Expr *List,
                                               const CallExpr *Call) {
  return ParameterListBuilder(*this).parameterListThrough(List, Call);
}

/// The variable `m` of `m->parameters(...)`, if it is a local range-for
/// variable.
static const VarDecl *loopVariableOf(const CXXMemberCallExpr *Call) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(objectOf(Call));
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->getParentFunctionOrMethod() ? Var : nullptr;
}

static bool isParametersCall(const CXXMemberCallExpr *Call) {
  return Call && (isLibtorchMethod(Call->getMethodDecl(), "parameters") ||
                  isLibtorchMethod(Call->getMethodDecl(), "named_parameters"));
}

const VarDecl *ParameterSharingAnalysis::loopContainerOf(const Expr *List) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(
      List ? skipModuleHandleCopies(List) : nullptr);
  const VarDecl *Var = isParametersCall(Call) ? loopVariableOf(Call) : nullptr;
  if (!Var)
    return nullptr;
  const FunctionIndex &Index = indexOf(Var);
  auto Range = Index.RangeInits.find(Var);
  if (Range == Index.RangeInits.end())
    return nullptr;
  const auto *Ref = dyn_cast<DeclRefExpr>(skipModuleHandleCopies(Range->second));
  const auto *Container = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Container || !isStdContainer(recordOf(Container->getType())) ||
      !moduleImplOf(Var->getType()))
    return nullptr;
  return Container;
}

const VarDecl *ParameterSharingAnalysis::moduleLoopContainer(const Expr *List) {
  return moduleLoopParameters(List) ? loopContainerOf(List) : nullptr;
}

bool ParameterSharingAnalysis::sameEachIteration(const Expr *Arg,
                                                 const Stmt *Loop) {
  const Expr *E = skipModuleHandleCopies(Arg);
  const SourceManager &SM = AST.getSourceManager();
  auto Inside = [&](SourceLocation Loc) {
    SourceRange Range = Loop->getSourceRange();
    return !SM.isBeforeInTranslationUnit(Loc, Range.getBegin()) &&
           !SM.isBeforeInTranslationUnit(Range.getEnd(), Loc);
  };
  // A member of `this`, or of a handle the loop does not change.
  while (const auto *Member = dyn_cast<MemberExpr>(E))
    E = skipModuleHandleCopies(Member->getBase());
  if (isa<CXXThisExpr>(E))
    return true;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || Inside(Var->getLocation()))
    return false;
  if (!Var->getParentFunctionOrMethod() || isa<ParmVarDecl>(Var))
    return true;
  const FunctionIndex &Index = indexOf(Var);
  return !Index.Reassigned.count(Var) && !Index.RangeInits.count(Var);
}

// Note [Containers of module handles]
// A `std::vector<Linear>` holds handles: each element is the module its
// handle names, registered or not. A fill construction holds one module n
// times; a `push_back` of one handle in a loop (a variable declared outside
// the loop and not reassigned, or a member) adds it once per iteration; a
// handle constructed in the loop body is a new module each time. Two steps
// stand for n.
std::optional<ModuleElements>
ParameterSharingAnalysis::handleElements(const VarDecl *Container) {
  ModuleElements Elements;
  if (std::optional<ContainerFill> Fill = containerFill(Container)) {
    std::optional<ModuleValue> Value = moduleValue(Fill->Value);
    if (!Value)
      return std::nullopt;
    RegistrationStep Step{"", Fill->Site, Value->Identity, Fill->Site};
    Elements.emplace_back(*Value, Step);
    Elements.emplace_back(*Value, Step);
    return Elements;
  }
  if (isa<ParmVarDecl>(Container) || !Container->getParentFunctionOrMethod())
    return std::nullopt;
  const FunctionIndex &Index = indexOf(Container);
  if (Index.Reassigned.count(Container) || Index.RangeInits.count(Container))
    return std::nullopt;
  if (const Expr *Init = Container->getInit()) {
    const auto *Construct = dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit());
    if (!Construct || Construct->getNumArgs() != 0)
      return std::nullopt;
  }
  if (detail::isHandleMap(Container->getType()))
    return mapElements(Container, Index);
  for (const CallExpr *Call : Index.Calls.lookup(Container)) {
    if (!isContainerMutation(Call))
      continue;
    if (!methodOf(Call))
      return std::nullopt;
    llvm::StringRef Name = methodOf(Call)->getName();
    if ((Name != "push_back" && Name != "emplace_back") ||
        Call->getNumArgs() != 1)
      return std::nullopt;
    std::optional<ModuleValue> Element = moduleValue(Call->getArg(0));
    if (!Element)
      return std::nullopt;
    RegistrationStep Step{"", Call, Element->Identity, Element->FillSite};
    const CallPlace Place = Index.Places.lookup(Call);
    if (Place.Loop && sameEachIteration(Call->getArg(0), Place.Loop)) {
      Step.RepeatLoop = Place.Loop;
      Step.Repeated = Call->getArg(0);
      Elements.emplace_back(*Element, Step);
    }
    Elements.emplace_back(std::move(*Element), Step);
  }
  return Elements;
}

/// The handles of a local map, by literal key (Note [Maps of module
/// handles]).
std::optional<ModuleElements>
ParameterSharingAnalysis::mapElements(const VarDecl *Map,
                                      const FunctionIndex &Index) {
  ModuleElements Elements;
  llvm::StringSet<> Keys;
  for (const CallExpr *Call : Index.Calls.lookup(Map)) {
    const CXXMethodDecl *Method = methodOf(Call);
    llvm::StringRef Name =
        Method && Method->getIdentifier() ? Method->getName() : "";
    if (Name == "at" || Name == "find" || Name == "count" || Name == "begin" ||
        Name == "end" || Name == "size" || Name == "empty")
      continue;
    if ((Name != "emplace" && Name != "try_emplace") || Call->getNumArgs() != 2)
      return std::nullopt;
    // The key, through its conversion to the map's std::string.
    const Expr *KeyExpr = Call->getArg(0)->IgnoreImplicit();
    while (const auto *Construct = dyn_cast<CXXConstructExpr>(KeyExpr)) {
      if (Construct->getNumArgs() == 0)
        break;
      KeyExpr = Construct->getArg(0)->IgnoreImplicit();
    }
    const auto *Key = dyn_cast<StringLiteral>(KeyExpr);
    if (!Key)
      return std::nullopt;
    if (!Keys.insert(Key->getString()).second)
      continue;
    std::optional<ModuleValue> Element = moduleValue(Call->getArg(1));
    if (!Element)
      return std::nullopt;
    RegistrationStep Step{"", Call, Element->Identity, Element->FillSite};
    Elements.emplace_back(std::move(*Element), Step);
  }
  return Elements;
}

// Note [Per-module update loops]
// `for (auto &m : root->modules()) for (auto &p : m->parameters(false))`
// visits each module that modules() yields and its own parameters. modules()
// walks every registration path without de-duplicating, as parameters()
// does, so the two loops together visit exactly the tensors of
// root->parameters(), less root's own when modules(false) skips it. A shared
// module, or a tensor registered twice, is visited twice. A loop over a
// container of handles (Note [Containers of module handles]) visits each
// element's parameters.
std::optional<std::vector<ParameterEntry>>
ParameterSharingAnalysis::moduleLoopParameters(const Expr *List) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(
      List ? skipModuleHandleCopies(List) : nullptr);
  const VarDecl *Var = isParametersCall(Call) ? loopVariableOf(Call) : nullptr;
  if (!Var)
    return std::nullopt;
  bool Recurse = boolArgument(Call, 0, true);
  if (const VarDecl *Container = loopContainerOf(List)) {
    auto Elements = handleElements(Container);
    if (!Elements)
      return std::nullopt;
    return elementParameters(*Elements, Recurse);
  }
  if (Recurse)
    return std::nullopt;
  const FunctionIndex &Index = indexOf(Var);
  auto Range = Index.RangeInits.find(Var);
  if (Range == Index.RangeInits.end())
    return std::nullopt;
  const auto *Modules =
      dyn_cast<CXXMemberCallExpr>(skipModuleHandleCopies(Range->second));
  if (!Modules || !isLibtorchMethod(Modules->getMethodDecl(), "modules"))
    return std::nullopt;
  std::optional<ModuleValue> Root =
      moduleValue(Modules->getImplicitObjectArgument());
  if (!Root)
    return std::nullopt;
  bool IncludeSelf = boolArgument(Modules, 0, true);
  std::vector<ParameterEntry> Visited;
  for (const ParameterEntry &Entry : Root->Parameters)
    if (IncludeSelf || Entry.Route.size() > 1)
      Visited.push_back(Entry);
  std::vector<ParameterEntry> Result;
  prefix(Result, Visited,
         RegistrationStep{"", Modules, Root->Identity, nullptr});
  return Result;
}

/// Whether Target is evaluated on every pass through Body: not under a
/// branch, and Body, outside Target, holds no `continue`, `break` or
/// `return`.
static bool reachedOnEveryPass(const Stmt *Body, const Stmt *Target) {
  bool Found = false, Conditional = false, Exits = false;
  std::function<void(const Stmt *, bool)> Visit = [&](const Stmt *S,
                                                      bool Branch) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (S == Target) {
      Found = true;
      Conditional = Branch;
      return;
    }
    Exits |= isa<ContinueStmt, BreakStmt, ReturnStmt, GotoStmt>(S);
    const auto *Binary = dyn_cast<BinaryOperator>(S);
    bool Inner = Branch || isa<IfStmt, SwitchStmt, ConditionalOperator>(S) ||
                 (Binary && Binary->isLogicalOp());
    for (const Stmt *Child : S->children())
      Visit(Child, Inner);
  };
  Visit(Body, false);
  return Found && !Conditional && !Exits;
}

// Note [Recursive parameters in a loop over modules]
// modules() yields the root (unless modules(false)) and every submodule, and
// a module's parameters() recurses into its submodules by default. So
// `for (auto &m : root->modules()) for (auto &p : m->parameters())` visits a
// parameter once for each module on its registration path that yields it: a
// weight two registrations deep is visited three times. A hand-written update
// in that loop updates it that many times; `m->parameters(false)` visits
// each once. Reported only when the inner loop runs for every module (no
// branch on the module, such as `if (m->as<Linear>())`, and no early exit):
// a loop that picks out leaf modules visits each parameter once.
/// `root->modules()` or `root->named_modules()`, or null.
static const CXXMemberCallExpr *modulesCall(const Expr *E) {
  const auto *Call =
      dyn_cast_or_null<CXXMemberCallExpr>(E ? skipModuleHandleCopies(E) : nullptr);
  if (Call && (isLibtorchMethod(Call->getMethodDecl(), "modules") ||
               isLibtorchMethod(Call->getMethodDecl(), "named_modules")))
    return Call;
  return nullptr;
}

// Note [Walks over modules]
// `root->apply(fn)` calls fn on root, then on every submodule, recursing as
// modules() does (the named overload passes each module's dotted name, ""
// for root). So a lambda handed to apply is the body of a loop over
// `root->modules()`, and its module parameter is the loop variable. A
// `return` in the lambda ends one module's visit, as `continue` would.
std::optional<ParameterSharingAnalysis::ModuleWalk>
ParameterSharingAnalysis::moduleWalkOf(const VarDecl *Module) {
  if (const CXXForRangeStmt *Loop = indexOf(Module).RangeLoops.lookup(Module)) {
    const CXXMemberCallExpr *Modules = modulesCall(Loop->getRangeInit());
    if (!Modules)
      return std::nullopt;
    return ModuleWalk{Modules, Loop->getBody(), Loop->getBeginLoc(), {}};
  }
  const auto *Param = dyn_cast<ParmVarDecl>(Module);
  const auto *Operator =
      Param ? dyn_cast<CXXMethodDecl>(Param->getDeclContext()) : nullptr;
  const CXXRecordDecl *Closure = Operator ? Operator->getParent() : nullptr;
  if (!Closure || !Closure->isLambda() || !Operator->hasBody() ||
      !moduleImplOf(Param->getType()))
    return std::nullopt;
  const auto *Enclosing =
      dyn_cast_or_null<FunctionDecl>(Closure->getParentFunctionOrMethod());
  if (!Enclosing)
    return std::nullopt;
  const CXXMemberCallExpr *Apply = indexOf(Enclosing).Applies.lookup(Closure);
  if (!Apply)
    return std::nullopt;
  ModuleWalk Walk{Apply, Operator->getBody(), Apply->getBeginLoc(), {}};
  for (const ParmVarDecl *Bound : Operator->parameters())
    Walk.Bound.push_back(Bound);
  return Walk;
}

/// The first parameter of Root that the loops visit more than once: once for
/// each module on its registration path that yields it.
static std::optional<ParameterSharingAnalysis::RepeatedVisit>
firstRepeatedVisit(const ModuleValue &Root, const CXXMemberCallExpr *Modules) {
  // modules(include_self), named_modules(prefix, include_self); apply(fn)
  // starts at the root.
  llvm::StringRef Walk = Modules->getMethodDecl()->getName();
  bool IncludeSelf = Walk == "apply"           ? true
                     : Walk == "named_modules" ? boolArgument(Modules, 1, true)
                                               : boolArgument(Modules, 0, true);
  for (const ParameterEntry &Entry : Root.Parameters) {
    // One visit per module on the path: the root, then each registration
    // of a module before the tensor's own.
    unsigned Visits = static_cast<unsigned>(IncludeSelf) +
                      static_cast<unsigned>(Entry.Route.size()) - 1;
    if (Visits >= 2)
      return ParameterSharingAnalysis::RepeatedVisit{Entry.name(), Visits,
                                                     Modules};
  }
  return std::nullopt;
}

namespace detail {
const VarDecl *itemVariable(const Expr *E) {
  E = E ? skipModuleHandleCopies(E) : nullptr;
  if (const auto *Value = dyn_cast_or_null<CXXMemberCallExpr>(E);
      Value && Value->getMethodDecl() && Value->getMethodDecl()->getIdentifier() &&
      Value->getMethodDecl()->getName() == "value" && Value->getNumArgs() == 0)
    E = skipModuleHandleCopies(Value->getImplicitObjectArgument());
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->getParentFunctionOrMethod() ? Var : nullptr;
}
} // namespace detail

// Note [Lists collected over modules()]
// `for (auto &item : root->named_modules()) for (auto &p :
// item.value()->named_parameters()) decay.push_back(p.value());` collects a
// parameter once for each module on its path, as the hand-written update of
// Note [Recursive parameters in a loop over modules] updates it. The list is
// often split on the way (weight-decay groups by name, `requires_grad`), so
// its contents are unknown; but a filter that reads only the parameter (its
// name, its value) sends every visit of one tensor the same way, so the
// tensor lands in one list as many times as it is visited. Reported at a
// sink whose list is, or is built from (groups of), such a list, when:
// - the list is declared outside both loops;
// - the inner loop runs on every pass of the outer one, and no `break`,
//   `return` or `goto` leaves either;
// - no condition inside the loops reads the module variable or a local of
//   the outer loop's body (`if (item.key() == "head")`, `if (m->as<Linear>())`
//   pick out modules, and leaf modules visit each parameter once).
std::optional<ParameterSharingAnalysis::CollectedVisit>
ParameterSharingAnalysis::collectedOverModules(const Expr *ListExpr) {
  // The local lists the sink's list reads, and those they are built from.
  llvm::SmallVector<const VarDecl *, 4> Lists;
  std::function<void(const Stmt *, unsigned)> Gather = [&](const Stmt *S,
                                                           unsigned Depth) {
    if (!S)
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && Var->isLocalVarDecl() && !llvm::is_contained(Lists, Var)) {
        Lists.push_back(Var);
        if (Depth < 2) {
          Gather(Var->getInit(), Depth + 1);
          for (const CallExpr *Call : indexOf(Var).Calls.lookup(Var))
            if (isContainerMutation(Call))
              for (const Expr *Arg : Call->arguments())
                Gather(Arg, Depth + 1);
        }
      }
    for (const Stmt *Child : S->children())
      Gather(Child, Depth);
  };
  Gather(ListExpr, 0);
  for (const VarDecl *List : Lists) {
    // The calls on the list, and those on a `?:` that picks it
    // (`(is_bias ? no_decay : decay).push_back(p)`).
    std::vector<const CallExpr *> Pushes = indexOf(List).Calls.lookup(List);
    const auto *Function = dyn_cast_or_null<FunctionDecl>(
        List->getParentFunctionOrMethod());
    forEachStmt(Function ? Function->getBody() : nullptr, [&](const Stmt *S) {
      const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
      const auto *Pick = Call ? dyn_cast<ConditionalOperator>(
                                    Call->getImplicitObjectArgument()->IgnoreParens())
                              : nullptr;
      auto Names = [&](const Expr *Branch) {
        const auto *Ref = dyn_cast<DeclRefExpr>(Branch->IgnoreParenImpCasts());
        return Ref && Ref->getDecl() == List;
      };
      if (Pick && (Names(Pick->getTrueExpr()) || Names(Pick->getFalseExpr())))
        Pushes.push_back(Call);
    });
    for (const CallExpr *Push : Pushes) {
      if (!isContainerMutation(Push) || Push->getNumArgs() == 0)
        continue;
      const VarDecl *Param =
          detail::itemVariable(Push->getArg(Push->getNumArgs() - 1));
      if (std::optional<CollectedVisit> Visit = collectedVisit(Push, Param, List))
        return Visit;
    }
  }
  return std::nullopt;
}

std::optional<ParameterSharingAnalysis::CollectedVisit>
ParameterSharingAnalysis::collectedVisit(const CallExpr *Push,
                                         const VarDecl *Param,
                                         const VarDecl *List) {
  if (!Param)
    return std::nullopt;
  const FunctionIndex &Index = indexOf(Param);
  const CXXForRangeStmt *Inner = Index.RangeLoops.lookup(Param);
  const auto *Parameters = Inner ? dyn_cast<CXXMemberCallExpr>(skipModuleHandleCopies(
                                       Inner->getRangeInit()))
                                 : nullptr;
  if (!isParametersCall(Parameters) || !boolArgument(Parameters, 0, true))
    return std::nullopt;
  const VarDecl *Module =
      detail::itemVariable(Parameters->getImplicitObjectArgument());
  std::optional<ModuleWalk> Outer =
      Module ? moduleWalkOf(Module) : std::nullopt;
  const SourceManager &SM = AST.getSourceManager();
  if (!Outer || !SM.isBeforeInTranslationUnit(List->getLocation(), Outer->Begin))
    return std::nullopt;
  const CXXMemberCallExpr *Modules = Outer->Call;
  // The inner loop runs on every pass of the outer one: no branch above it,
  // and no exit of the outer body outside it.
  if (!reachedOnEveryPass(Outer->Body, Inner))
    return std::nullopt;
  // What a condition must not read: the module, its name, and what the
  // outer body derives from them.
  llvm::SmallVector<const ValueDecl *, 4> ModuleSide = {Module};
  llvm::append_range(ModuleSide, Outer->Bound);
  std::function<void(const Stmt *)> Declared = [&](const Stmt *S) {
    if (!S || S == Inner)
      return;
    if (const auto *Decls = dyn_cast<DeclStmt>(S))
      for (const Decl *D : Decls->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D))
          ModuleSide.push_back(Var);
    llvm::for_each(S->children(), Declared);
  };
  Declared(Outer->Body);
  bool Picks = false;
  std::function<void(const Stmt *)> Check = [&](const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return;
    const Stmt *Condition = nullptr;
    if (const auto *If = dyn_cast<IfStmt>(S))
      Condition = If->getCond();
    else if (const auto *Switch = dyn_cast<SwitchStmt>(S))
      Condition = Switch->getCond();
    else if (const auto *Ternary = dyn_cast<ConditionalOperator>(S))
      Condition = Ternary->getCond();
    else if (const auto *Binary = dyn_cast<BinaryOperator>(S);
             Binary && Binary->isLogicalOp())
      Condition = Binary;
    Picks |= isa<BreakStmt, ReturnStmt, GotoStmt>(S);
    if (Condition)
      Picks |= llvm::any_of(ModuleSide, [&](const ValueDecl *Decl) {
        return mentions(Condition, Decl);
      });
    llvm::for_each(S->children(), Check);
  };
  Check(Inner->getBody());
  std::function<bool(const Stmt *)> Holds = [&](const Stmt *S) {
    return S == Push || (S && llvm::any_of(S->children(), Holds));
  };
  if (Picks || !Holds(Inner->getBody()))
    return std::nullopt;
  std::optional<ModuleValue> Root = moduleValue(Modules->getImplicitObjectArgument());
  if (!Root)
    return std::nullopt;
  std::optional<RepeatedVisit> Visit = firstRepeatedVisit(*Root, Modules);
  if (!Visit)
    return std::nullopt;
  return CollectedVisit{*Visit, Parameters, List};
}

// Note [Own parameters collected over modules()]
// `for (auto &m : root->modules(false)) for (auto &p : m->parameters(false))
// flat.push_back(p);` is the usual way to collect "each parameter once". It
// is, for a tree: each module yields its own tensors. But modules() does not
// de-duplicate either, so a module registered in two parents is walked twice
// and its tensors land in the list twice, as they do in root->parameters().
// The list holds exactly the entries moduleLoopParameters gives for the inner
// call, when the inner loop runs on every pass of the outer one and the list
// is declared before the walk (a list declared inside it is per module).
std::optional<std::vector<ParameterEntry>>
ParameterSharingAnalysis::ownParametersOverWalk(const CXXForRangeStmt *Inner,
                                                const VarDecl *List) {
  const auto *Parameters = dyn_cast_or_null<CXXMemberCallExpr>(
      skipModuleHandleCopies(Inner->getRangeInit()));
  if (!isParametersCall(Parameters) || boolArgument(Parameters, 0, true))
    return std::nullopt;
  const VarDecl *Module =
      detail::itemVariable(Parameters->getImplicitObjectArgument());
  std::optional<ModuleWalk> Outer = Module ? moduleWalkOf(Module) : std::nullopt;
  if (!Outer || !List ||
      !AST.getSourceManager().isBeforeInTranslationUnit(List->getLocation(),
                                                        Outer->Begin) ||
      !reachedOnEveryPass(Outer->Body, Inner))
    return std::nullopt;
  return moduleLoopParameters(Parameters);
}

std::optional<ParameterSharingAnalysis::RepeatedVisit>
ParameterSharingAnalysis::recursiveModuleLoop(const Expr *List) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(
      List ? skipModuleHandleCopies(List) : nullptr);
  const VarDecl *Var = isParametersCall(Call) ? loopVariableOf(Call) : nullptr;
  if (!Var || !boolArgument(Call, 0, true))
    return std::nullopt;
  std::optional<ModuleWalk> Outer = moduleWalkOf(Var);
  const CXXMemberCallExpr *Modules = Outer ? Outer->Call : nullptr;
  if (!Modules || isLibtorchMethod(Modules->getMethodDecl(), "named_modules") ||
      !reachedOnEveryPass(Outer->Body, List))
    return std::nullopt;
  std::optional<ModuleValue> Root =
      moduleValue(Modules->getImplicitObjectArgument());
  if (!Root)
    return std::nullopt;
  return firstRepeatedVisit(*Root, Modules);
}

/// One item of a loop over named_parameters(), pushed by two of the loop's
/// push_backs: the routes differ only at the step that records the push.
static std::optional<ParameterTie> filteredTwice(const ParameterEntry &A,
                                                 const ParameterEntry &B) {
  if (A.Route.size() != B.Route.size())
    return std::nullopt;
  const RegistrationStep *PushA = nullptr, *PushB = nullptr;
  for (size_t I = 0; I < A.Route.size(); ++I) {
    const RegistrationStep &SA = A.Route[I], &SB = B.Route[I];
    if (SA.Filtered && SB.Filtered && SA.Site != SB.Site && !PushA) {
      PushA = &SA;
      PushB = &SB;
    } else if (SA.Site != SB.Site || !(SA.Object == SB.Object)) {
      return std::nullopt;
    }
  }
  if (!PushA)
    return std::nullopt;
  ParameterTie Tie;
  Tie.K = ParameterTie::Kind::FilteredTwice;
  Tie.Parameter = A.name();
  Tie.OtherParameter = B.name();
  Tie.First = PushA;
  Tie.Second = PushB;
  return Tie;
}

std::optional<ParameterTie>
ParameterSharingAnalysis::firstTie(const std::vector<ParameterEntry> &List) {
  for (size_t I = 0; I < List.size(); ++I) {
    for (size_t J = I + 1; J < List.size(); ++J) {
      const ParameterEntry &A = List[I], &B = List[J];
      if (!A.tensor().known() || !(A.tensor() == B.tensor()))
        continue;
      if (std::optional<ParameterTie> Tie = filteredTwice(A, B))
        return Tie;
      // The first place where the two routes reach one object along two
      // different paths (or one registration of a filled element).
      for (size_t X = 0; X < A.Route.size(); ++X) {
        for (size_t Y = 0; Y < B.Route.size(); ++Y) {
          const RegistrationStep &SA = A.Route[X], &SB = B.Route[Y];
          if (!SA.Object.known() || !(SA.Object == SB.Object))
            continue;
          bool Filled = SA.FillSite || SB.FillSite;
          bool Repeated = SA.RepeatLoop || SB.RepeatLoop;
          size_t Diverge = 0;
          while (Diverge <= std::min(X, Y) &&
                 A.Route[Diverge].Site == B.Route[Diverge].Site &&
                 A.Route[Diverge].Object == B.Route[Diverge].Object)
            ++Diverge;
          bool SamePath = X == Y && Diverge > X;
          if (SamePath && !Filled && !Repeated)
            continue;
          ParameterTie Tie;
          Tie.Parameter = A.name();
          Tie.OtherParameter = B.name();
          Tie.First = &SA;
          Tie.Second = &SB;
          // A list root: the parameters() call a part of the list comes
          // from, possibly in a function that returns it.
          auto IsRoot = [](const ParameterEntry &E, size_t I) {
            const RegistrationStep &Step = E.Route[I];
            return Step.Name.empty() && !Step.Added && !Step.Returned &&
                   !Step.Filtered &&
                   (I == 0 || E.Route[I - 1].Returned || E.Route[I - 1].Filtered);
          };
          // Where the list got the entry: the call of the function that
          // returned it, when both entries come through one statement.
          auto Entered = [&](const ParameterEntry &E, size_t I) {
            while (I > 0 && (E.Route[I - 1].Returned || E.Route[I - 1].Filtered))
              --I;
            return &E.Route[I];
          };
          auto RootOf = [](const ParameterEntry &E) {
            size_t I = 0;
            while (I + 1 < E.Route.size() &&
                   (E.Route[I].Returned || E.Route[I].Filtered))
              ++I;
            return &E.Route[I];
          };
          bool RootA = IsRoot(A, X), RootB = IsRoot(B, Y);
          if (Repeated) {
            Tie.K = ParameterTie::Kind::RepeatedHandle;
            Tie.First = Tie.Second = SA.RepeatLoop ? &SA : &SB;
          } else if (Filled) {
            Tie.K = ParameterTie::Kind::FilledElement;
          } else if (SA.Added || SB.Added) {
            Tie.K = ParameterTie::Kind::AddedTensor;
            Tie.First = SA.Added ? &SA : RootOf(A);
            Tie.Second = SB.Added ? &SB : RootOf(B);
            if (SA.Site == SB.Site) {
              Tie.First = Entered(A, X);
              Tie.Second = Entered(B, Y);
            }
          } else if (RootA && RootB) {
            Tie.K = ParameterTie::Kind::SameList;
            if (SA.Site == SB.Site) {
              Tie.First = Entered(A, X);
              Tie.Second = Entered(B, Y);
            }
          } else if (RootA != RootB && !SA.Name.empty() + !SB.Name.empty() == 1) {
            // `model->parameters()` and `model->enc->parameters()`.
            Tie.K = ParameterTie::Kind::Overlap;
            Tie.First = RootB ? RootOf(A) : RootOf(B);
            Tie.Second = RootB ? &SB : &SA;
            Tie.Registration = RootB ? &SA : &SB;
            // Both lists come from one statement of a helper called twice
            // (Note [Lists filled by a helper]): the calls say which is which.
            if (RootOf(A)->Site == RootOf(B)->Site && Diverge < A.Route.size() &&
                Diverge < B.Route.size() && A.Route[Diverge].Returned &&
                B.Route[Diverge].Returned) {
              const ParameterEntry &Whole = RootB ? A : B, &Part = RootB ? B : A;
              Tie.First = &Whole.Route[Diverge];
              Tie.Second = &Part.Route[Diverge];
            }
          } else if (SA.Site == SB.Site) {
            // One registration reached through two parents: the parents'
            // paths part where the sharing was introduced.
            Tie.K = ParameterTie::Kind::SharedArgument;
            Tie.First = &A.Route[std::min(Diverge, X)];
            Tie.Second = &B.Route[std::min(Diverge, Y)];
            Tie.Registration = &SA;
          } else if (SA.Name.empty() && SB.Name.empty()) {
            Tie.K = ParameterTie::Kind::SameList;
          } else if (X + 1 == A.Route.size() || Y + 1 == B.Route.size()) {
            Tie.K = ParameterTie::Kind::SameTensor;
          } else {
            Tie.K = ParameterTie::Kind::SameModule;
          }
          return Tie;
        }
      }
    }
  }
  return std::nullopt;
}

bool isCloneableModule(const CXXRecordDecl *Impl) {
  return llvm::any_of(Impl->bases(), [](const CXXBaseSpecifier &B) {
    const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl();
    return Base && Base->getIdentifier() && Base->getName() == "Cloneable" &&
           isLibtorchDecl(Base);
  });
}

bool mentions(const Stmt *S, const ValueDecl *Decl) {
  if (!S)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S); Ref && Ref->getDecl() == Decl)
    return true;
  if (const auto *Member = dyn_cast<MemberExpr>(S);
      Member && Member->getMemberDecl() == Decl)
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *Child) { return mentions(Child, Decl); });
}

} // namespace clang::tidy::libtorch
