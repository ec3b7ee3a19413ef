//===- ParameterUpdates.cpp - how code updates module parameters ----------===//

#include "ParameterUpdates.h"

#include "TensorModel.h"

#include "clang/AST/ASTContext.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <functional>

namespace clang::tidy::libtorch {

namespace {

/// The parameter a written tensor is, through views, `data()`, `detach()`,
/// the `value()` of a named_parameters() item and locals that hold the same
/// tensor (`auto &p = item.value();`).
const Expr *writtenParameter(const Expr *Target, const OperatorTable &Table) {
  for (unsigned Depth = 0; Target && Depth < 16; ++Depth) {
    Target = skipHandleCopies(Target);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Target)) {
      const auto *Local = dyn_cast<VarDecl>(Ref->getDecl());
      if (!Local || isa<ParmVarDecl>(Local) || !Local->hasLocalStorage() ||
          !Local->getInit() || !isTensorType(Local->getType()) ||
          Local->isCXXForRangeDecl())
        return Target;
      Target = Local->getInit();
      continue;
    }
    const auto *Call = dyn_cast_or_null<CallExpr>(Target);
    if (!Call)
      return Target;
    if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table)) {
      const Expr *Aliased = Tensor->aliasedArgument();
      if (!Aliased)
        return Target;
      Target = Aliased;
      continue;
    }
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
    if (Member && Member->getMethodDecl() &&
        Member->getMethodDecl()->getIdentifier() &&
        Member->getMethodDecl()->getName() == "value" &&
        isLibtorchDecl(Member->getMethodDecl())) {
      Target = Member->getImplicitObjectArgument();
      continue;
    }
    return Target;
  }
  return Target;
}

// Note [Overwriting is not an update]
// Writing a parameter twice is harmless when the write does not read the
// value it replaces: re-initialisation loops (`p.uniform_(-0.1, 0.1)`,
// `torch::nn::init::zeros_(p)`) and copies from elsewhere (`p.copy_(src)`)
// give the same result once or twice. A random fill is recognised from the
// schema (an overload with a `generator` argument); `copy_`, `fill_` and
// `zero_` are the overwrites ATen spells without one. Such a write counts
// as an update only when another operand reads the parameter itself.
bool isOverwrite(const TensorCall &Tensor, const OperatorTable &Table,
                 const ValueDecl *Parameter) {
  bool Random = llvm::any_of(
      Table.overloads(Tensor.Effect.Operator), [](const OperatorOverload &O) {
        return llvm::is_contained(O.Arguments, "generator");
      });
  llvm::StringRef Op = Tensor.Effect.Operator;
  if (!Random && Op != "copy_" && Op != "fill_" && Op != "zero_")
    return false;
  for (unsigned I = 1; I < Tensor.Call->getNumArgs(); ++I)
    if (mentions(Tensor.Call->getArg(I), Parameter))
      return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Tensor.Call))
    for (const Expr *Arg : Member->arguments())
      if (mentions(Arg, Parameter))
        return false;
  return true;
}

/// Whether A and B are the same expression, spelled alike up to implicit
/// nodes: `gpt->tok_emb->weight` twice.
bool isSameExpression(const Expr *A, const Expr *B,
                             const ASTContext &AST) {
  llvm::FoldingSetNodeID IdA, IdB;
  A->IgnoreParenImpCasts()->Profile(IdA, AST, /*Canonical=*/true);
  B->IgnoreParenImpCasts()->Profile(IdB, AST, /*Canonical=*/true);
  return IdA == IdB;
}

// Note [Loops that skip what they have seen]
// `if (!seen.insert(p.unsafeGetTensorImpl()).second) continue;` (or a
// `count`, `contains` or `find` of a set that the loop itself fills with
// what it saw) makes the loop visit each tensor once, however often the list
// holds it: the de-duplication is done in the loop rather than on the list.
// A loop that skips its variable with `continue` on such a test updates
// nothing twice. A skip on a set the loop does not fill (`frozen.count(name)`)
// is a filter, not a de-duplication.
bool skipsSeenEntries(const Stmt *Body, const VarDecl *Variable) {
  // The lookups of the loop's variable: the object, and whether it fills.
  struct Lookup {
    const ValueDecl *Set;
    const CXXMemberCallExpr *Call;
    bool Fills;
  };
  auto LookupOf = [&](const Stmt *S) -> std::optional<Lookup> {
    const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
    const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
    const ValueDecl *Set =
        Call ? namedDecl(Call->getImplicitObjectArgument()) : nullptr;
    if (!Method || !Method->getIdentifier() || !Set ||
        llvm::none_of(Call->arguments(), [&](const Expr *Arg) {
          return mentions(Arg, Variable);
        }))
      return std::nullopt;
    llvm::StringRef Name = Method->getName();
    bool Fills = Name == "insert" || Name == "emplace";
    if (!Fills && Name != "count" && Name != "contains" && Name != "find")
      return std::nullopt;
    return Lookup{Set, Call, Fills};
  };
  llvm::SmallPtrSet<const ValueDecl *, 2> Filled;
  forEachStmt(Body, [&](const Stmt *S) {
    if (std::optional<Lookup> Found = LookupOf(S); Found && Found->Fills)
      Filled.insert(Found->Set);
  });
  bool Skips = false;
  forEachStmt(Body, [&](const Stmt *S) {
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || Skips)
      return;
    const Stmt *Then = If->getThen();
    if (const auto *Block = dyn_cast<CompoundStmt>(Then);
        Block && Block->size() == 1)
      Then = Block->body_front();
    if (!isa<ContinueStmt>(Then))
      return;
    forEachStmt(If->getCond(), [&](const Stmt *Inner) {
      if (std::optional<Lookup> Found = LookupOf(Inner))
        Skips |= Filled.contains(Found->Set);
    });
  });
  return Skips;
}

} // namespace

// Note [Algorithms over a list]
// `std::for_each(params.begin(), params.end(), [&](Tensor &p) { ... })`
// is a range-for over `params` whose body is the lambda's and whose
// variable is the lambda's parameter.
ElementLoop elementLoop(const Stmt *Loop) {
  if (const auto *RangeFor = dyn_cast<CXXForRangeStmt>(Loop))
    return {RangeFor->getBody(), RangeFor->getLoopVariable(),
            RangeFor->getRangeInit()};
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return {For->getBody(), nullptr, nullptr};
  if (const auto *While = dyn_cast<WhileStmt>(Loop))
    return {While->getBody(), nullptr, nullptr};
  const auto *Call = dyn_cast<CallExpr>(Loop);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->isInStdNamespace() || !Callee->getIdentifier() ||
      Callee->getName() != "for_each" || Call->getNumArgs() != 3)
    return {};
  auto RangeOf = [](const Expr *Iterator, llvm::StringRef Name) -> const Expr * {
    const auto *Member =
        dyn_cast<CXXMemberCallExpr>(Iterator->IgnoreImplicit());
    const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
    return Method && Method->getIdentifier() && Method->getName() == Name
               ? Member->getImplicitObjectArgument()
               : nullptr;
  };
  const Expr *Begin = RangeOf(Call->getArg(0), "begin");
  const Expr *End = RangeOf(Call->getArg(1), "end");
  const LambdaExpr *Lambda = nullptr;
  forEachStmt(Call->getArg(2), [&](const Stmt *S) {
    if (!Lambda)
      Lambda = dyn_cast<LambdaExpr>(S);
  });
  if (!Begin || !End || !Lambda || Lambda->getCallOperator()->getNumParams() != 1 ||
      namedDecl(Begin) != namedDecl(End) || !namedDecl(Begin))
    return {};
  return {Lambda->getBody(), Lambda->getCallOperator()->getParamDecl(0), Begin};
}

std::optional<LoopUpdate> findLoopUpdate(const Stmt *Loop,
                                         ParameterSharingAnalysis &Sharing) {
  const OperatorTable &Ops = Sharing.table();
  ElementLoop Shape = elementLoop(Loop);
  const Stmt *Body = Shape.Body;
  std::optional<LoopUpdate> Found;
  if (!Body || (Shape.Variable && skipsSeenEntries(Body, Shape.Variable)))
    return Found;
  // The first in-place update of the loop's parameter, and the list it
  // comes from.
  std::function<bool(const Stmt *)> Visit = [&](const Stmt *S) -> bool {
    if (!S || isa<LambdaExpr>(S))
      return false;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Ops)) {
        for (unsigned Position : Tensor->Effect.WrittenArgs) {
          if (Position >= Tensor->Args.size())
            continue;
          const Expr *Target = writtenParameter(Tensor->Args[Position], Ops);
          const Expr *List = nullptr;
          const ValueDecl *Parameter = nullptr;
          bool ModuleLoop = false;
          if (Shape.Variable) {
            const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Target);
            if (Ref && Ref->getDecl() == Shape.Variable) {
              List = Shape.Range;
              Parameter = Ref->getDecl();
              if (Sharing.moduleLoopParameters(List) ||
                  Sharing.recursiveModuleLoop(List))
                ModuleLoop = true;
            }
          } else if (const auto *Index =
                         dyn_cast_or_null<CXXOperatorCallExpr>(Target);
                     Index && Index->getOperator() == OO_Subscript &&
                     isTensorListType(Index->getArg(0)->getType())) {
            List = Index->getArg(0);
            if (const auto *Ref =
                    dyn_cast<DeclRefExpr>(List->IgnoreImplicit()))
              Parameter = Ref->getDecl();
          }
          if (!List || !Parameter || isOverwrite(*Tensor, Ops, Parameter))
            continue;
          Found = LoopUpdate{Call, Tensor->Spelling, List, ModuleLoop};
          return true;
        }
      }
    }
    return llvm::any_of(S->children(), Visit);
  };
  Visit(Body);
  return Found;
}

// Note [Assigning a member the tensor it holds]
// `m->weight = assign(m->weight, w)`, where `assign` copies `w` into its
// argument and returns it, binds the member to the tensor it already holds:
// the registration still names the same tensor, so there is nothing to
// re-register. The right-hand side is followed through every call that
// returns its argument's handle unchanged (in-place operators, and functions
// of the translation unit whose summary says so) and compared with the
// member. A view of the member (`w = w.t()`) is another tensor and is still
// reported.
bool assignsHeldTensor(const CXXOperatorCallExpr *Assign,
                       AliasAnalysisContext &Aliases, const ASTContext &AST) {
  const Expr *Value = skipHandleCopies(Assign->getArg(1));
  while (const auto *Call = dyn_cast_or_null<CallExpr>(Value)) {
    const Expr *Returned = Aliases.returnedArgument(Call);
    if (!Returned)
      break;
    Value = skipHandleCopies(Returned);
  }
  return Value && isSameExpression(Value, Assign->getArg(0), AST);
}

/// Whether Field is registered as a parameter or buffer of Module's class:
/// a public tensor member of a libtorch module, or one the class's
/// constructor registers.
bool isRegisteredMember(const FieldDecl *Field, const CXXRecordDecl *Module,
                        ParameterSharingAnalysis &Sharing) {
  const auto *Owner = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!Owner || !isModuleClass(Owner))
    return false;
  if (isLibtorchDecl(Owner))
    return Field->getAccess() == AS_public;
  for (const CXXRecordDecl *Class : {Module, Owner})
    if (const ModuleValue *Model = Sharing.classModel(Class, std::nullopt);
        Model && Model->RegisteredFields.count(Field))
      return true;
  return false;
}

// Note [Reparametrised members]
// Weight normalisation recomputes a member from other parameters on every
// forward (`weight = g * v / v.norm();`, spectral norm's `weight =
// weight_orig / sigma`). The member then holds a new tensor, but one that
// autograd computes from tensors that are registered, so parameters(), to()
// and serialization still see everything that learns: the stale registered
// tensor is dead, not wrong. So a method of the module assigning its own
// member a new tensor (an out-of-place result) computed from another of its
// registered members, directly or through locals, is not reported. A fresh
// value that reads no registered member (`bias = torch::zeros({n});`) still
// is: the optimizer keeps stepping a tensor the module no longer uses.
bool isReparametrisation(const CXXOperatorCallExpr *Assign,
                         const FunctionDecl *Function, const FieldDecl *Field,
                         ParameterSharingAnalysis &Sharing,
                         const OperatorTable &Table) {
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Function);
  const auto *Member = cast<MemberExpr>(Assign->getArg(0)->IgnoreImplicit());
  if (!Method || !isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()))
    return false;
  const auto *Value = dyn_cast<CallExpr>(skipHandleCopies(Assign->getArg(1)));
  std::optional<TensorCall> Tensor =
      Value ? resolveTensorCall(Value, Table) : std::nullopt;
  if (!Tensor || Tensor->aliasedArgument() || Tensor->Effect.writes())
    return false;
  llvm::DenseSet<const VarDecl *> Seen;
  std::function<bool(const Stmt *)> ReadsRegistered = [&](const Stmt *S) {
    if (!S)
      return false;
    if (const auto *Read = dyn_cast<MemberExpr>(S)) {
      const auto *Other = dyn_cast<FieldDecl>(Read->getMemberDecl());
      if (Other && Other != Field && isTensorType(Other->getType()) &&
          isa<CXXThisExpr>(Read->getBase()->IgnoreImplicit()) &&
          isRegisteredMember(Other, Method->getParent(), Sharing))
        return true;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *Local = dyn_cast<VarDecl>(Ref->getDecl());
          Local && Local->hasLocalStorage() && Local->getInit() &&
          Seen.insert(Local).second && ReadsRegistered(Local->getInit()))
        return true;
    return llvm::any_of(S->children(), ReadsRegistered);
  };
  return ReadsRegistered(Value);
}

// Note [Ties by assignment]
// `head->weight = embed->weight;` ties an output projection to an embedding
// the C++ way. It does not re-register anything: head's parameters() still
// lists the tensor its constructor registered. But the tensor head now
// computes with is one that embed registers, so an optimizer over the
// model's parameters (or over both modules' lists) steps it once, with the
// gradient of both uses, and the stale tensor head registered gets no
// gradient and is skipped; to() moves it through embed, as it replaces a
// registered tensor's data in place. The tie is dead weight, not a wrong
// update, so the assignment is quiet when its right-hand side is another
// module's registered tensor itself, through calls that return their
// argument's handle. A view of one (`dec->weight = enc->weight.t();`) is
// reported: to() gives the registered tensor new storage, and a view made
// before keeps the old one (the corpus's attention chapter moves its module
// to the device after such an assignment).
bool tiesToRegistered(const CXXOperatorCallExpr *Assign, AliasAnalysisContext &Aliases,
                      ParameterSharingAnalysis &Sharing) {
  const Expr *Value = skipHandleCopies(Assign->getArg(1));
  while (const auto *Call = dyn_cast_or_null<CallExpr>(Value)) {
    const Expr *Returned = Aliases.returnedArgument(Call);
    if (!Returned)
      return false;
    Value = skipHandleCopies(Returned);
  }
  const auto *Read = dyn_cast_or_null<MemberExpr>(Value);
  if (!Read || isSameExpression(Read, Assign->getArg(0), Sharing.ast()))
    return false;
  const auto *Field = dyn_cast<FieldDecl>(Read->getMemberDecl());
  const auto *Owner = Field ? dyn_cast<CXXRecordDecl>(Field->getParent()) : nullptr;
  return Owner && isTensorType(Field->getType()) && isRegisteredMember(Field, Owner, Sharing);
}

std::optional<ListSink> listSinkOf(const ast_matchers::BoundNodes &Nodes) {
  if (const auto *Construct = Nodes.getNodeAs<CXXConstructExpr>(OptimizerId)) {
    const CXXRecordDecl *Optimizer = Construct->getConstructor()->getParent();
    return ListSink{Construct, Construct->getArg(0), SinkKind::Optimizer,
                    Optimizer->getName()};
  }
  if (const auto *Factory = Nodes.getNodeAs<CallExpr>(OptimizerFactoryId)) {
    const auto *Optimizer = Factory->getDirectCallee()
                                ->getTemplateSpecializationArgs()
                                ->get(0)
                                .getAsType()
                                ->getAsCXXRecordDecl();
    return ListSink{Factory, Factory->getArg(0), SinkKind::Optimizer,
                    Optimizer->getName()};
  }
  if (const auto *Call = Nodes.getNodeAs<CXXMemberCallExpr>(AddGroupId))
    return ListSink{Call, Call->getArg(0), SinkKind::AddParamGroup,
                    "add_param_group"};
  if (const auto *Clip = Nodes.getNodeAs<CallExpr>(ClipId))
    return ListSink{Clip, Clip->getArg(0), SinkKind::ClipGradNorm,
                    "clip_grad_norm_"};
  // Note [Parameters set from a flat vector]
  // `vector_to_parameters(theta, params)` copies consecutive slices of
  // `theta` into each tensor of the list in turn, as an update loop over the
  // list would (the flat steps of TRPO, natural gradient, evolution
  // strategies). A tensor the list holds twice is set twice, from two
  // slices, and keeps the second.
  if (const auto *Set = Nodes.getNodeAs<CallExpr>(SetFromVectorId))
    return ListSink{Set, Set->getArg(1), SinkKind::UpdateLoop,
                    "vector_to_parameters"};
  return std::nullopt;
}

// Note [Optimizers of the translation unit]
// A hand-written optimizer (momentum SGD with one velocity per entry, a
// Lookahead wrapper) is a class that keeps the list it is constructed from
// and updates each entry in place in a method: it steps a tensor the list
// holds twice twice, and keeps two states for it. It is recognised by what
// it does, not by its name: a constructor parameter of list type bound to a
// member (its initializer or an assignment in the body mentions the
// parameter), and a method that writes an element of that member in place
// (`params_[i].sub_(...)`, a range-for over it).
std::optional<ListSink> userOptimizerSink(const CXXConstructExpr *Construct,
                                          const OperatorTable &Table) {
  const auto *Ctor = dyn_cast_or_null<CXXConstructorDecl>(
      Construct->getConstructor()->getDefinition());
  const CXXRecordDecl *Class = Ctor ? Ctor->getParent() : nullptr;
  if (!Class || isLibtorchDecl(Class) || Class->isInStdNamespace() ||
      !Class->getIdentifier())
    return std::nullopt;
  auto WritesElementOf = [&](const FieldDecl *Member) {
    return llvm::any_of(Class->methods(), [&](const CXXMethodDecl *Method) {
      const FunctionDecl *Defined = Method->getDefinition();
      if (!Defined || isa<CXXConstructorDecl>(Defined))
        return false;
      llvm::DenseMap<const VarDecl *, const Expr *> Ranges =
          rangeForInits(Defined->getBody());
      bool Found = false;
      forEachStmt(Defined->getBody(), [&](const Stmt *S) {
        const auto *Call = dyn_cast<CallExpr>(S);
        std::optional<TensorCall> Tensor =
            Call && !Found ? resolveTensorCall(Call, Table) : std::nullopt;
        if (!Tensor || !Tensor->Effect.writes())
          return;
        for (unsigned Position : Tensor->Effect.WrittenArgs) {
          const Expr *Target = Position < Tensor->Args.size()
                                   ? skipHandleCopies(Tensor->Args[Position])
                                   : nullptr;
          const Expr *Container = nullptr;
          if (const auto *Index = dyn_cast_or_null<CXXOperatorCallExpr>(Target);
              Index && Index->getOperator() == OO_Subscript)
            Container = Index->getArg(0);
          else if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Target))
            if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
              Container = Ranges.lookup(Var);
          Found |= Container && namedDecl(Container) == Member;
        }
      });
      return Found;
    });
  };
  for (unsigned I = 0; I < Ctor->getNumParams() && I < Construct->getNumArgs();
       ++I) {
    const ParmVarDecl *Param = Ctor->getParamDecl(I);
    if (!isTensorListType(Param->getType()))
      continue;
    for (const CXXCtorInitializer *Init : Ctor->inits()) {
      const FieldDecl *Member = Init->getMember();
      if (Member && Init->isWritten() && isTensorListType(Member->getType()) &&
          mentions(Init->getInit(), Param) && WritesElementOf(Member))
        return ListSink{Construct, Construct->getArg(I), SinkKind::Optimizer,
                        Class->getName()};
    }
  }
  return std::nullopt;
}

/// The local variable, or member of `this`, an optimizer expression names:
/// `opt` in `opt.add_param_group(g)` and in `opt->add_param_group(g)`,
/// `optimizer_` in `optimizer_.add_param_group(g)`.
static const ValueDecl *optimizerVariable(const Expr *Object) {
  if (!Object)
    return nullptr;
  Object = Object->IgnoreParenImpCasts();
  if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Object);
      Arrow && Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs() == 1)
    Object = Arrow->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Member = dyn_cast<MemberExpr>(Object);
      Member && isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
    return dyn_cast<FieldDecl>(Member->getMemberDecl());
  const auto *Ref = dyn_cast<DeclRefExpr>(Object);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) ? Var
                                                                  : nullptr;
}

// Note [Optimizers that are members]
// `Trainer(Net net) : net_(net), optimizer_(net_->parameters(), ...) {
// optimizer_.add_param_group(...); }`: a member optimizer holds the list its
// member initialiser gives it, in the class's only constructor that
// initialises it, then the groups added in that constructor's body, then
// those added in the method at hand before the call. Groups edited through
// param_groups() anywhere in the class are not followed.
static const Expr *memberConstructionList(const FieldDecl *Optimizer,
                                          const CXXConstructorDecl *&Ctor) {
  const Expr *Found = nullptr;
  for (const CXXConstructorDecl *Candidate :
       cast<CXXRecordDecl>(Optimizer->getParent())->ctors()) {
    const auto *Definition =
        dyn_cast_or_null<CXXConstructorDecl>(Candidate->getDefinition());
    if (!Definition || Definition->isImplicit())
      continue;
    for (const CXXCtorInitializer *Init : Definition->inits()) {
      if (Init->getMember() != Optimizer || !Init->isWritten())
        continue;
      const auto *Construct =
          dyn_cast<CXXConstructExpr>(Init->getInit()->IgnoreImplicit());
      if (Found || !Construct || Construct->getNumArgs() == 0)
        return nullptr;
      Found = Construct->getArg(0);
      Ctor = Definition;
    }
  }
  return Found;
}

/// The list an optimizer variable is constructed from, if it is.
static const Expr *constructionList(const VarDecl *Optimizer) {
  const Expr *Init =
      Optimizer->getInit() ? Optimizer->getInit()->IgnoreImplicit() : nullptr;
  if (const auto *New = dyn_cast_or_null<CXXNewExpr>(Init))
    Init = New->getConstructExpr();
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Init)) {
    // A smart pointer constructed from `new SGD(...)`.
    if (Construct->getNumArgs() == 1)
      if (const auto *New = dyn_cast<CXXNewExpr>(
              Construct->getArg(0)->IgnoreImplicit()))
        Construct = New->getConstructExpr();
    return Construct && Construct->getNumArgs() > 0 ? Construct->getArg(0)
                                                    : nullptr;
  }
  if (const auto *Call = dyn_cast_or_null<CallExpr>(Init)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->isInStdNamespace() && Callee->getIdentifier() &&
        (Callee->getName() == "make_unique" ||
         Callee->getName() == "make_shared") &&
        Call->getNumArgs() > 0)
      return Call->getArg(0);
  }
  return nullptr;
}

// Note [Parameter groups added over time]
// An optimizer holds the union of its groups: the list it was built from,
// then each group add_param_group appends. Its step() updates a tensor once
// per group that holds it, and libtorch 1.13 accepts a group holding a
// tensor another group holds (runtime/test/parameter_list_facts_test.cpp).
// So `opt.add_param_group(g)` is reported when `g` holds a tensor the
// optimizer already holds, even when `g` itself holds it once. Groups
// edited by hand through param_groups() are not followed.
std::vector<ParameterEntry> heldParameters(const CXXMemberCallExpr *AddGroup,
                                           const FunctionDecl *Function,
                                           ParameterSharingAnalysis &Sharing) {
  const ValueDecl *Optimizer =
      optimizerVariable(AddGroup->getImplicitObjectArgument());
  if (!Optimizer || !Function->getBody())
    return {};
  const SourceManager &SM = Sharing.ast().getSourceManager();
  std::vector<const Expr *> Lists;
  // The bodies whose earlier add_param_group calls count.
  llvm::SmallVector<const Stmt *, 2> Bodies = {Function->getBody()};
  const Stmt *CtorBody = nullptr;
  if (const auto *Var = dyn_cast<VarDecl>(Optimizer)) {
    if (const Expr *Built = constructionList(Var))
      Lists.push_back(Built);
  } else {
    const CXXConstructorDecl *Ctor = nullptr;
    const Expr *Built = memberConstructionList(cast<FieldDecl>(Optimizer), Ctor);
    if (!Built)
      return {};
    Lists.push_back(Built);
    CtorBody = Ctor->getBody();
    if (Ctor != Function)
      Bodies.push_back(CtorBody);
    // An edit of the groups in any method leaves them unknown.
    for (const CXXMethodDecl *Method :
         cast<CXXRecordDecl>(Optimizer->getDeclContext())->methods())
      if (const FunctionDecl *Definition = Method->getDefinition();
          Definition && Definition != Function && Definition != Ctor &&
          Definition->getBody())
        Bodies.push_back(Definition->getBody());
  }
  // `opt.param_groups()`.
  auto IsGroupsOf = [&](const Expr *E) {
    const auto *Groups =
        E ? dyn_cast<CXXMemberCallExpr>(E->IgnoreParenImpCasts()) : nullptr;
    const CXXMethodDecl *Method = Groups ? Groups->getMethodDecl() : nullptr;
    return Method && Method->getIdentifier() &&
           Method->getName() == "param_groups" && isLibtorchDecl(Method) &&
           optimizerVariable(Groups->getImplicitObjectArgument()) == Optimizer;
  };
  bool Edited = false;
  const Stmt *CurrentBody = nullptr;
  bool CountsAdds = true;
  std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *Method = Call->getMethodDecl();
      llvm::StringRef Name =
          Method && Method->getIdentifier() ? Method->getName() : "";
      if (Name == "add_param_group" && Call->getNumArgs() == 1 &&
          Call != AddGroup && CountsAdds &&
          optimizerVariable(Call->getImplicitObjectArgument()) == Optimizer &&
          (CurrentBody != Function->getBody() ||
           SM.isBeforeInTranslationUnit(Call->getBeginLoc(),
                                        AddGroup->getBeginLoc())))
        Lists.push_back(Call->getArg(0));
      // `opt.param_groups().clear()` and the like.
      static constexpr llvm::StringLiteral Edits[] = {"clear", "erase",
                                                      "pop_back", "resize"};
      if (llvm::is_contained(Edits, Name) &&
          IsGroupsOf(Call->getImplicitObjectArgument()))
        Edited = true;
    }
    if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
        Assign && Assign->isAssignmentOp() && Assign->getNumArgs() == 2 &&
        IsGroupsOf(Assign->getArg(0)))
      Edited = true;
    llvm::for_each(S->children(), Visit);
  };
  for (const Stmt *Body : Bodies) {
    CurrentBody = Body;
    // The constructor's groups come first; other methods only edit.
    CountsAdds = Body == Function->getBody() || Body == CtorBody;
    Visit(Body);
  }
  if (Edited)
    return {};
  std::vector<ParameterEntry> Held;
  for (const Expr *List : Lists)
    if (std::optional<std::vector<ParameterEntry>> Known =
            Sharing.parameterList(List))
      Held.insert(Held.end(), Known->begin(), Known->end());
  return Held;
}

const FunctionDecl *moduleHelperDefinition(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Callee || !Callee->hasBody(Definition) || isLibtorchDecl(Callee) ||
      Callee->isInStdNamespace() ||
      llvm::none_of(Call->arguments(), [](const Expr *Arg) {
        return moduleImplOf(Arg->getType()) != nullptr ||
               isTensorListType(Arg->getType());
      }))
    return nullptr;
  return Definition;
}

std::optional<std::vector<ParameterEntry>>
listTiedThroughHelper(const ListSink &Sink, const CallExpr *Call,
                      ParameterSharingAnalysis &Sharing) {
  std::optional<std::vector<ParameterEntry>> Own =
      Sharing.parameterList(Sink.List);
  if (Own && ParameterSharingAnalysis::firstTie(*Own))
    return std::nullopt;
  std::optional<std::vector<ParameterEntry>> List =
      Sharing.parameterListThrough(Sink.List, Call);
  if (!List || !ParameterSharingAnalysis::firstTie(*List))
    return std::nullopt;
  return List;
}

std::optional<MemberRebinding>
memberRebinding(const CXXOperatorCallExpr *Assign, const FunctionDecl *Function,
                AliasAnalysisContext &Aliases, ParameterSharingAnalysis &Sharing) {
  const auto *Member = cast<MemberExpr>(Assign->getArg(0)->IgnoreImplicit());
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (!Field || !isTensorType(Field->getType()))
    return std::nullopt;
  const auto *Owner = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!isModuleClass(Owner))
    return std::nullopt;
  // A constructor binding its own members is how registration is written.
  if (isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()) &&
      isa_and_nonnull<CXXConstructorDecl>(Function))
    return std::nullopt;
  const auto *Rhs = dyn_cast<CXXMemberCallExpr>(
      skipModuleHandleCopies(Assign->getArg(1)));
  if (Rhs && Rhs->getMethodDecl() && Rhs->getMethodDecl()->getIdentifier() &&
      Rhs->getMethodDecl()->getName() == "register_parameter")
    return std::nullopt;
  if (assignsHeldTensor(Assign, Aliases, Sharing.ast()) ||
      tiesToRegistered(Assign, Aliases, Sharing) ||
      isReparametrisation(Assign, Function, Field, Sharing, Aliases.table()))
    return std::nullopt;
  std::string Registered;
  if (isLibtorchDecl(Owner)) {
    if (Field->getAccess() == AS_public)
      Registered = Field->getName().str();
  } else if (const ModuleValue *Model =
                 Sharing.classModel(Owner, std::nullopt)) {
    auto It = Model->RegisteredFields.find(Field);
    if (It != Model->RegisteredFields.end())
      Registered = It->second;
  }
  if (Registered.empty())
    return std::nullopt;
  return MemberRebinding{Field, Owner, std::move(Registered)};
}

} // namespace clang::tidy::libtorch
