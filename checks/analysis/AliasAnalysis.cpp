//===- AliasAnalysis.cpp - where tensor handles and views come from -------===//

#include "AliasAnalysis.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <functional>

namespace clang::tidy::libtorch {

namespace {

/// The relation of a view of a view.
Relation compose(Relation Inner, Relation Outer) {
  if (Inner == Relation::Handle)
    return Outer;
  if (Outer == Relation::Handle)
    return Inner;
  if (Inner == Relation::Detached || Outer == Relation::Detached)
    return Relation::Detached;
  // `expand(...).contiguous()` copies, so a may-alias step ends the overlap.
  if (Outer == Relation::MayAlias)
    return Relation::MayAlias;
  if (Inner == Relation::Expanded || Outer == Relation::Expanded)
    return Relation::Expanded;
  if (Inner == Relation::MayAlias)
    return Relation::MayAlias;
  return Relation::DefiniteView;
}

AliasValue viewOf(AliasValue Base, Relation Rel, const Expr *Site,
                  llvm::StringRef Operator) {
  if (Rel == Relation::Handle)
    return Base;
  Base.Rel = compose(Base.Rel, Rel);
  Base.AliasSite = Site;
  Base.AliasOperator = Operator;
  Base.IsList = false;
  return Base;
}

AliasValue temporary(Origin O) {
  AliasValue Value;
  Value.RootOrigin = O;
  return Value;
}

/// Merges the values of one variable arriving from two paths.
AliasValue join(const AliasValue &A, const AliasValue &B) {
  if (A == B)
    return A;
  if (A.Root && A.Root == B.Root) {
    AliasValue Result = A.isView() ? A : B;
    Result.Merged = true;
    Result.OwnMember = A.OwnMember && B.OwnMember;
    Result.HandedOut = A.HandedOut || B.HandedOut;
    if (A.Strides != B.Strides)
      Result.Strides = Layout::Unknown;
    if (A.DType != B.DType)
      Result.DType.reset();
    // The root itself on one path and a view of it on the other: a write
    // lands in the root's storage on both, so it is a view of it.
    auto HandleAndView = [](const AliasValue &X, const AliasValue &Y) {
      return X.Rel == Relation::Handle && Y.Rel == Relation::DefiniteView;
    };
    if (HandleAndView(A, B) || HandleAndView(B, A))
      Result.Rel = Relation::DefiniteView;
    else if (A.Rel != B.Rel)
      Result.Rel = (A.Rel == Relation::Detached || B.Rel == Relation::Detached)
                       ? Relation::Detached
                       : Relation::MayAlias;
    return Result;
  }
  // A view on one path and an unrelated tensor on the other: the variable
  // may or may not alias the view's root.
  const AliasValue *View = A.isView() ? &A : B.isView() ? &B : nullptr;
  const AliasValue *Other = View == &A ? &B : &A;
  if (View && !Other->isView() && Other->RootOrigin != Origin::CallerOwned &&
      Other->RootOrigin != Origin::ObjectState) {
    AliasValue Result = *View;
    Result.Merged = true;
    Result.Strides = Layout::Unknown;
    Result.DType.reset();
    if (Result.Rel != Relation::Detached)
      Result.Rel = Relation::MayAlias;
    return Result;
  }
  return temporary(Origin::Unknown);
}

AliasEnvironment join(const AliasEnvironment &A, const AliasEnvironment &B) {
  AliasEnvironment Result = A;
  for (const auto &[Var, Value] : B) {
    auto [It, Inserted] = Result.try_emplace(Var, Value);
    if (!Inserted)
      It->second = join(It->second, Value);
  }
  return Result;
}

bool sameEnvironment(const AliasEnvironment &A, const AliasEnvironment &B) {
  if (A.size() != B.size())
    return false;
  for (const auto &[Var, Value] : A) {
    auto It = B.find(Var);
    if (It == B.end() || It->second != Value)
      return false;
  }
  return true;
}

bool isTracked(QualType Type) {
  return isTensorType(Type) || isTensorListType(Type);
}

/// `model->parameters()` and friends: the elements are module state.
bool isModuleStateRange(const Expr *Range) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(Range->IgnoreImplicit());
  if (!Call || !Call->getMethodDecl() || !Call->getMethodDecl()->getIdentifier())
    return false;
  llvm::StringRef Name = Call->getMethodDecl()->getName();
  return Name == "parameters" || Name == "buffers";
}

void collectRangeForInits(const Stmt *S,
                          llvm::DenseMap<const VarDecl *, const Expr *> &Out) {
  if (!S)
    return;
  if (const auto *For = dyn_cast<CXXForRangeStmt>(S))
    Out[For->getLoopVariable()] = For->getRangeInit();
  for (const Stmt *Child : S->children())
    collectRangeForInits(Child, Out);
}

/// The position of a call's first argument among the callee's parameters.
unsigned firstArgumentOffset(const CallExpr *Call, const FunctionDecl *Callee) {
  return isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
}

/// The tensors an argument passes: itself, or the elements of a braced list
/// (through the ArrayRef, initializer_list and TensorIndex wrappers).
void collectTensorOperands(const Expr *Arg,
                           llvm::SmallVectorImpl<const Expr *> &Out) {
  if (!Arg)
    return;
  const Expr *E = Arg->IgnoreImplicit()->IgnoreParens();
  // `std::vector<Tensor>{a, b}`, `return {a, b};`: the tensors of the list.
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && isTensorListType(E->getType()) &&
      Construct->getNumArgs() >= 1 &&
      isa<CXXStdInitializerListExpr>(Construct->getArg(0)->IgnoreImplicit()))
    return collectTensorOperands(Construct->getArg(0), Out);
  if (isTracked(E->getType()) || isTracked(Arg->getType())) {
    Out.push_back(Arg);
    return;
  }
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
    return collectTensorOperands(List->getSubExpr(), Out);
  if (const auto *Temporary = dyn_cast<MaterializeTemporaryExpr>(E))
    return collectTensorOperands(Temporary->getSubExpr(), Out);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    for (const Expr *Inner : Construct->arguments())
      collectTensorOperands(Inner, Out);
    return;
  }
  if (const auto *Init = dyn_cast<InitListExpr>(E))
    for (const Expr *Element : Init->inits())
      collectTensorOperands(Element, Out);
}

/// The blocks reachable from the entry, in reverse post-order. Edges that
/// the CFG builder pruned (`if (true)`, `while (true)`) are null and skipped;
/// llvm::ReversePostOrderTraversal would follow them.
std::vector<const CFGBlock *> reversePostOrder(const CFG &Graph) {
  std::vector<const CFGBlock *> PostOrder;
  llvm::DenseSet<const CFGBlock *> Visited;
  llvm::SmallVector<std::pair<const CFGBlock *, CFGBlock::const_succ_iterator>, 16>
      Stack;
  Visited.insert(&Graph.getEntry());
  Stack.push_back({&Graph.getEntry(), Graph.getEntry().succ_begin()});
  while (!Stack.empty()) {
    auto &[Block, Next] = Stack.back();
    if (Next == Block->succ_end()) {
      PostOrder.push_back(Block);
      Stack.pop_back();
      continue;
    }
    const CFGBlock *Succ = Next->getReachableBlock();
    ++Next;
    if (Succ && Visited.insert(Succ).second)
      Stack.push_back({Succ, Succ->succ_begin()});
  }
  return {PostOrder.rbegin(), PostOrder.rend()};
}

/// The c10::ScalarType an argument of Call names (`torch::kByte`,
/// `TensorOptions().dtype(torch::kFloat)`, a local `options` initialised so),
/// not looking into tensor operands.
std::optional<int64_t> scalarTypeArgument(const CallExpr *Call,
                                          const ASTContext &AST) {
  std::function<std::optional<int64_t>(const Expr *)> Find =
      [&](const Expr *E) -> std::optional<int64_t> {
    if (!E || isTracked(E->getType()))
      return std::nullopt;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreImplicit()))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) &&
          Var->getInit() && !Var->getType()->isReferenceType())
        return Find(Var->getInit());
    if (const auto *Enum = E->getType()->getAs<EnumType>();
        Enum && Enum->getDecl()->getName() == "ScalarType") {
      Expr::EvalResult Result;
      if (!E->isValueDependent() && E->EvaluateAsInt(Result, AST))
        return Result.Val.getInt().getExtValue();
      return std::nullopt;
    }
    for (const Stmt *Child : E->children())
      if (std::optional<int64_t> Found = Find(dyn_cast_or_null<Expr>(Child)))
        return Found;
    return std::nullopt;
  };
  for (const Expr *Arg : Call->arguments())
    if (std::optional<int64_t> Found = Find(Arg))
      return Found;
  return std::nullopt;
}


/// A variable that dies with the function: a local, not a reference, not
/// static.
bool isFunctionLocal(const ValueDecl *D) {
  const auto *Var = dyn_cast_or_null<VarDecl>(D);
  return Var && !isa<ParmVarDecl>(Var) && Var->hasLocalStorage() &&
         !Var->getType()->isReferenceType();
}

/// The declaration an object expression names: `v`, `this->v`, `v[i]`.
const ValueDecl *objectDecl(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return Ref->getDecl();
    if (const auto *Member = dyn_cast<MemberExpr>(E))
      return Member->getMemberDecl();
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
        Operator && Operator->getOperator() == OO_Subscript)
      E = Operator->getArg(0);
    else
      return nullptr;
  }
  return nullptr;
}

/// `lhs = rhs` that rebinds a tracked handle (the lvalue `operator=`, not
/// the rvalue one that writes into an index): the left-hand side.
const Expr *rebindingTarget(const Stmt *S) {
  const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
  if (!Assign || Assign->getOperator() != OO_Equal || Assign->getNumArgs() != 2)
    return nullptr;
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Assign->getDirectCallee());
  const Expr *Lhs = Assign->getArg(0)->IgnoreImplicit();
  if (!Method || Method->getRefQualifier() == RQ_RValue ||
      !isTracked(Lhs->getType()))
    return nullptr;
  return Lhs;
}

// Note [A view that replaces its base]
// `buf = buf.view({g, -1});` drops the only handle of the tensor `buf` held
// before, so the view is now the one way to reach that storage: it is the
// local's own tensor, whatever `view` (or `contiguous()`, a may-alias result)
// returned. This holds only for a fresh local, with no other variable still
// holding the old tensor or a view of it; a parameter's or a member's old
// tensor is still held by the caller or the object.
bool isSoleHolderOfView(const VarDecl *Var, const AliasValue &Value,
                        const AliasEnvironment &Environment) {
  if (Value.Root != Var || Value.RootOrigin != Origin::Fresh ||
      (Value.Rel != Relation::DefiniteView && Value.Rel != Relation::MayAlias))
    return false;
  return llvm::none_of(Environment, [&](const auto &Entry) {
    return Entry.first != Var && Entry.second.Root == Var;
  });
}

/// `t = ...` on a named handle: the variable it rebinds.
const VarDecl *reboundVariable(const Stmt *S) {
  const auto *Lhs = dyn_cast_or_null<DeclRefExpr>(rebindingTarget(S));
  return Lhs ? dyn_cast<VarDecl>(Lhs->getDecl()) : nullptr;
}

/// What a walk over the CFG does after a block.
enum class Walk { Past, Stop, Done };

/// Visits, each once, the blocks reachable from the successors of the block
/// numbered Start, until Visit says Done; paths go on past a block when it
/// says Past.
template <typename VisitFn>
void walkAfter(const CFG &Cfg, unsigned Start, VisitFn Visit) {
  llvm::SmallVector<const CFGBlock *, 8> Worklist;
  llvm::DenseSet<const CFGBlock *> Seen;
  auto Push = [&](const CFGBlock &Block) {
    for (const CFGBlock::AdjacentBlock &Succ : Block.succs())
      if (const CFGBlock *Next = Succ.getReachableBlock())
        if (Seen.insert(Next).second)
          Worklist.push_back(Next);
  };
  for (const CFGBlock *Block : Cfg)
    if (Block->getBlockID() == Start)
      Push(*Block);
  while (!Worklist.empty()) {
    const CFGBlock *Block = Worklist.pop_back_val();
    Walk Next = Visit(*Block);
    if (Next == Walk::Done)
      return;
    if (Next == Walk::Past)
      Push(*Block);
  }
}

} // namespace

bool isSummarizable(const FunctionDecl *Callee, const ASTContext &AST) {
  // Members of std classes too: their namespace is the class's.
  return Callee && Callee->hasBody() && !isLibtorchDecl(Callee) &&
         !Callee->getEnclosingNamespaceContext()->isStdNamespace() &&
         !AST.getSourceManager().isInSystemHeader(Callee->getLocation());
}

bool isStoringMethod(const CXXMethodDecl *Method) {
  static constexpr llvm::StringLiteral Storing[] = {
      "push_back",  "emplace_back",  "push",  "emplace",
      "push_front", "emplace_front", "insert", "emplace_hint"};
  return Method && Method->getIdentifier() &&
         llvm::is_contained(Storing, Method->getName());
}

static const CXXMemberCallExpr *rawElementWrite(const Stmt *S);

bool mayWriteTensors(const Stmt *Body, const OperatorTable &Table) {
  if (!Body)
    return false;
  if (rawElementWrite(Body))
    return true;
  if (const auto *Call = dyn_cast<CallExpr>(Body)) {
    if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table)) {
      if (Tensor->Effect.writes())
        return true;
    } else if (const FunctionDecl *Callee = Call->getDirectCallee();
               Callee && !isLibtorchDecl(Callee) &&
               (!Callee->isInStdNamespace() || callsStdFunction(Call)) &&
               llvm::any_of(Call->arguments(), [](const Expr *Arg) {
                 // An object with tensor members, whose members the
                 // callee may write (Note [Members of an argument written
                 // by a helper]).
                 QualType Type = Arg->getType();
                 if (Type->isPointerType())
                   Type = Type->getPointeeType();
                 return isTracked(Arg->getType()) || isTensorRecordType(Type);
               })) {
      return true;
    }
  }
  return llvm::any_of(Body->children(), [&](const Stmt *Child) {
    return mayWriteTensors(Child, Table);
  });
}

llvm::StringRef describeOrigin(Origin O) {
  switch (O) {
  case Origin::Fresh:
    return "local";
  case Origin::CallerOwned:
    return "parameter";
  case Origin::ObjectState:
    return "member";
  case Origin::External:
    return "external";
  case Origin::Unknown:
    return "tensor";
  }
  return "tensor";
}

/// The object whose member a written expression reaches, through views of
/// the member: `track` for `track.P` and `track.P.narrow(0, 0, 2)`; null
/// for anything else.
static const Expr *memberBase(const Expr *Target, const OperatorTable &Table) {
  for (unsigned Depth = 0; Target && Depth < 16; ++Depth) {
    Target = skipHandleCopies(Target);
    if (const auto *Member = dyn_cast<MemberExpr>(Target))
      return isa<FieldDecl>(Member->getMemberDecl())
                 ? Member->getBase()->IgnoreParenImpCasts()
                 : nullptr;
    const auto *Call = dyn_cast<CallExpr>(Target);
    std::optional<TensorCall> Tensor =
        Call ? resolveTensorCall(Call, Table) : std::nullopt;
    Target = Tensor ? Tensor->aliasedArgument() : nullptr;
  }
  return nullptr;
}

const FunctionSummary *
AliasAnalysisContext::summary(const FunctionDecl *Callee) {
  Callee = Callee ? Callee->getDefinition() : nullptr;
  if (!isSummarizable(Callee, AST) || InProgress.count(Callee))
    return nullptr;
  if (auto It = Summaries.find(Callee); It != Summaries.end())
    return It->second.get();

  const FunctionAliasAnalysis &Analysis = analyze(Callee);
  auto Summary = std::make_unique<FunctionSummary>();
  for (const WriteEvent &Write : Analysis.writes()) {
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(Write.Value.Root);
    if (!Param || Param->getDeclContext() != Callee)
      continue;
    unsigned Index = Param->getFunctionScopeIndex();
    bool ThroughView = Write.Value.isView();
    FunctionSummary::ParameterWrite Written{Index, Write.Call, ThroughView};
    Written.Parameter = Param;
    if (Write.Value.Rel == Relation::Detached) {
      Written.DetachSite = Write.Value.AliasSite;
      Written.DetachOperator = Write.Value.AliasOperator;
    }
    auto Known = llvm::find_if(Summary->WrittenParameters,
                               [&](const auto &W) { return W.Index == Index; });
    if (Known == Summary->WrittenParameters.end())
      Summary->WrittenParameters.push_back(Written);
    else if ((ThroughView && !Known->ThroughView) ||
             (Written.DetachSite && !Known->DetachSite))
      *Known = Written;
  }
  for (const WriteEvent &Write : Analysis.rawWrites()) {
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(Write.Value.Root);
    if (!Param || Param->getDeclContext() != Callee ||
        llvm::any_of(Summary->RawWrittenParameters, [&](const auto &W) {
          return W.Parameter == Param;
        }))
      continue;
    FunctionSummary::ParameterWrite Written{Param->getFunctionScopeIndex(),
                                            Write.Call};
    Written.Parameter = Param;
    Written.DetachSite = Write.Value.AliasSite;
    Written.DetachOperator = Write.Value.AliasOperator;
    Summary->RawWrittenParameters.push_back(Written);
  }
  auto WritesMember = [&](const WriteEvent &Write) {
    const auto *Field = dyn_cast_or_null<FieldDecl>(Write.Value.Root);
    if (!Field || !Write.Value.OwnMember ||
        llvm::any_of(Summary->WrittenMembers,
                     [&](const auto &Known) { return Known.first == Field; }))
      return;
    Summary->WrittenMembers.push_back({Field, Write.Call});
  };
  if (isa<CXXMethodDecl>(Callee)) {
    for (const WriteEvent &Write : Analysis.writes())
      WritesMember(Write);
    for (const WriteEvent &Write : Analysis.memberWrites())
      WritesMember(Write);
  }
  // Note [Members of an argument written by a helper]
  // `void kalman_update(Track &track, ...) { track.P.sub_(...); }` writes
  // the member P of the object its caller passes: at the call, that is a
  // write of the argument's member, as a method's write of its own member is
  // at a call of the method (recordMemberWrites). The stale-view rule reads
  // these, for a view of the same object's member, and so does the rule for
  // saved tensors (`clip_obs_(batch)` writing `b.obs.data()` after
  // `critic(batch.obs)` saved it).
  for (const WriteEvent &Write : Analysis.writes()) {
    const auto *Field = dyn_cast_or_null<FieldDecl>(Write.Value.Root);
    const Expr *Base = Field ? memberBase(Write.Target, Table) : nullptr;
    const auto *Ref = Base ? dyn_cast<DeclRefExpr>(Base) : nullptr;
    const auto *Param = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
    if (!Param || Param->getDeclContext() != Callee ||
        !(Param->getType()->isReferenceType() || Param->getType()->isPointerType()))
      continue;
    unsigned Index = Param->getFunctionScopeIndex();
    FunctionSummary::ParameterMemberWrite Written{Index, Field, Write.Call};
    if (Write.Value.Rel == Relation::Detached) {
      Written.DetachSite = Write.Value.AliasSite;
      Written.DetachOperator = Write.Value.AliasOperator;
    }
    auto Known = llvm::find_if(Summary->WrittenParameterMembers, [&](const auto &W) {
      return W.Index == Index && W.Member == Field;
    });
    if (Known == Summary->WrittenParameterMembers.end())
      Summary->WrittenParameterMembers.push_back(Written);
    else if (Written.DetachSite && !Known->DetachSite)
      *Known = Written;
  }
  auto Keep = [&](const AliasValue &Value, const Expr *Site) {
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(Value.Root);
    if (!Param || Param->getDeclContext() != Callee)
      return;
    unsigned Index = Param->getFunctionScopeIndex();
    if (!Summary->keeps(Index)) {
      Summary->KeptParameters.push_back({Index, Site});
      Summary->KeptParameters.back().Parameter = Param;
    }
  };
  for (const EscapeEvent &Escape : Analysis.escapes())
    Keep(Escape.Value, Escape.Where);
  // A constructor keeps what its member initializers bind.
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Callee))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isAnyMemberInitializer() && Init->getInit() &&
          isTracked(Init->getAnyMember()->getType()))
        Keep(Analysis.evaluate(Init->getInit(), AliasEnvironment()),
             Init->getInit());
  if (const std::optional<AliasValue> &Returned = Analysis.returned()) {
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(Returned->Root);
    const auto *Field = dyn_cast_or_null<FieldDecl>(Returned->Root);
    if (Param && Param->getDeclContext() == Callee) {
      Summary->ReturnsAliasOf = Param->getFunctionScopeIndex();
      Summary->ReturnRelation = Returned->Rel;
    } else if (Field && Returned->OwnMember && Returned->isView()) {
      Summary->ReturnsViewOfMember = Field;
      Summary->MemberViewRelation = Returned->Rel;
      Summary->MemberViewOperator = Returned->AliasOperator;
    } else {
      Summary->ReturnsFresh = Returned->RootOrigin == Origin::Fresh;
      Summary->ReturnsExternal = Returned->RootOrigin == Origin::External;
    }
  }
  return (Summaries[Callee] = std::move(Summary)).get();
}

/// What one of Parts may do, the call that runs one of them may do; what it
/// returns is known only where they all agree.
static std::unique_ptr<FunctionSummary>
mergeSummaries(llvm::ArrayRef<const FunctionSummary *> Parts) {
  auto Merged = std::make_unique<FunctionSummary>(*Parts.front());
  for (const FunctionSummary *Part : Parts.drop_front()) {
    for (const FunctionSummary::ParameterWrite &Write : Part->WrittenParameters) {
      auto Known = llvm::find_if(Merged->WrittenParameters,
                                 [&](const auto &W) { return W.Index == Write.Index; });
      if (Known == Merged->WrittenParameters.end())
        Merged->WrittenParameters.push_back(Write);
      else if ((Write.ThroughView && !Known->ThroughView) ||
               (Write.DetachSite && !Known->DetachSite))
        *Known = Write;
    }
    for (const FunctionSummary::ParameterWrite &Kept : Part->KeptParameters)
      if (!Merged->keeps(Kept.Index))
        Merged->KeptParameters.push_back(Kept);
    llvm::append_range(Merged->WrittenMembers, Part->WrittenMembers);
    llvm::append_range(Merged->WrittenParameterMembers, Part->WrittenParameterMembers);
    if (Part->ReturnsAliasOf != Merged->ReturnsAliasOf ||
        Part->ReturnRelation != Merged->ReturnRelation)
      Merged->ReturnsAliasOf.reset();
    Merged->ReturnsFresh &= Part->ReturnsFresh;
    Merged->ReturnsExternal &= Part->ReturnsExternal;
    if (Part->ReturnsViewOfMember != Merged->ReturnsViewOfMember)
      Merged->ReturnsViewOfMember = nullptr;
  }
  return Merged;
}

const FunctionSummary *AliasAnalysisContext::callSummary(const CallExpr *Call) {
  if (!Call)
    return nullptr;
  if (!Targets.dispatches(Call))
    return summary(Call->getDirectCallee());
  if (auto It = CallSummaries.find(Call); It != CallSummaries.end())
    return It->second;
  llvm::SmallVector<const FunctionSummary *, 2> Parts;
  for (const FunctionDecl *Definition : Targets.definitionsRunBy(Call))
    if (const FunctionSummary *Part = summary(Definition))
      Parts.push_back(Part);
  const FunctionSummary *Result = nullptr;
  if (Parts.size() == 1) {
    Result = Parts.front();
  } else if (!Parts.empty()) {
    MergedSummaries.push_back(mergeSummaries(Parts));
    Result = MergedSummaries.back().get();
  }
  return CallSummaries[Call] = Result;
}

std::optional<bool>
AliasAnalysisContext::keepsArgument(const Expr *CallOrConstruct, unsigned Arg) {
  const FunctionSummary *Summary = nullptr;
  unsigned Offset = 0;
  if (const auto *Call = dyn_cast<CallExpr>(CallOrConstruct)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    Offset = Callee ? firstArgumentOffset(Call, Callee) : 0;
    Summary = callSummary(Call);
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(CallOrConstruct)) {
    Summary = summary(Construct->getConstructor());
  }
  if (!Summary || Arg < Offset)
    return std::nullopt;
  return Summary->keeps(Arg - Offset);
}

const Expr *AliasAnalysisContext::returnedArgument(const CallExpr *Call) {
  // An in-place operator returns its `self`.
  if (std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table)) {
    const CallEffect &Effect = Tensor->Effect;
    bool ReturnsSelf = Effect.View == ViewKind::None && !Effect.Expands &&
                       !Effect.ReturnsList &&
                       Tensor->Special == SpecialOperation::None;
    return ReturnsSelf ? Tensor->aliasedArgument() : nullptr;
  }
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionSummary *Summary = callSummary(Call);
  if (!Summary || !Summary->ReturnsAliasOf ||
      Summary->ReturnRelation != Relation::Handle)
    return nullptr;
  unsigned Arg = *Summary->ReturnsAliasOf + firstArgumentOffset(Call, Callee);
  return Arg < Call->getNumArgs() ? Call->getArg(Arg) : nullptr;
}

const FunctionAliasAnalysis &
AliasAnalysisContext::analyze(const FunctionDecl *Function) {
  if (auto It = Analyses.find(Function); It != Analyses.end())
    return *It->second;
  InProgress.insert(Function);
  auto Analysis = std::make_unique<FunctionAliasAnalysis>(
      Function, Function->getBody(), *this);
  InProgress.erase(Function);
  return *(Analyses[Function] = std::move(Analysis));
}

FunctionAliasAnalysis::FunctionAliasAnalysis(const FunctionDecl *Function,
                                             const Stmt *Body,
                                             AliasAnalysisContext &Context,
                                             FunctionAliasAnalysis *Parent,
                                             AliasEnvironment Seed)
    : Function(Function), Parent(Parent),
      Enclosing(Parent ? Parent->enclosingFunction() : Function), Body(Body),
      Context(Context) {
  run(std::move(Seed));
}

void FunctionAliasAnalysis::run(AliasEnvironment Seed) {
  if (!Body)
    return;
  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  Cfg = CFG::buildCFG(Function, const_cast<Stmt *>(Body), &Context.ast(),
                      Options);
  if (!Cfg)
    return;
  collectRangeForInits(Body, RangeForInits);
  indexReferences();

  std::vector<const CFGBlock *> Order = reversePostOrder(*Cfg);
  std::vector<AliasEnvironment> Exits(Cfg->getNumBlockIDs());
  std::vector<bool> Computed(Cfg->getNumBlockIDs(), false);
  auto Entry = [&](const CFGBlock &Block) {
    if (&Block == &Cfg->getEntry())
      return Seed;
    AliasEnvironment Environment;
    bool First = true;
    for (const CFGBlock::AdjacentBlock &Pred : Block.preds()) {
      if (!Pred.getReachableBlock() ||
          !Computed[Pred.getReachableBlock()->getBlockID()])
        continue;
      const AliasEnvironment &Exit = Exits[Pred->getBlockID()];
      Environment = First ? Exit : join(Environment, Exit);
      First = false;
    }
    return Environment;
  };

  // The lattice has finite height (relations only weaken, roots only drop),
  // so this converges; the bound guards against a mistake in that argument.
  bool Changed = true;
  for (unsigned Round = 0; Changed && Round < 64; ++Round) {
    Changed = false;
    for (const CFGBlock *Block : Order) {
      AliasEnvironment Environment = Entry(*Block);
      for (const CFGElement &Element : *Block)
        if (auto S = Element.getAs<CFGStmt>())
          transfer(S->getStmt(), Environment, false, 0, 0);
      unsigned ID = Block->getBlockID();
      if (!Computed[ID] || !sameEnvironment(Environment, Exits[ID])) {
        Exits[ID] = std::move(Environment);
        Computed[ID] = true;
        Changed = true;
      }
    }
  }

  for (const CFGBlock *Block : Order) {
    AliasEnvironment Environment = Entry(*Block);
    unsigned Index = 0;
    for (const CFGElement &Element : *Block) {
      if (auto S = Element.getAs<CFGStmt>())
        transfer(S->getStmt(), Environment, true, Block->getBlockID(), Index);
      ++Index;
    }
  }
  const SourceManager &SM = Context.ast().getSourceManager();
  llvm::stable_sort(Writes, [&](const WriteEvent &A, const WriteEvent &B) {
    return SM.isBeforeInTranslationUnit(A.Call->getBeginLoc(),
                                        B.Call->getBeginLoc());
  });
}



void FunctionAliasAnalysis::indexReferences() {
  References.assign(Cfg->getNumBlockIDs(), {});
  // The left-hand side of `t = ...` names the variable being rebound; it
  // reads nothing.
  llvm::DenseSet<const Expr *> Assignees;
  for (const CFGBlock *Block : *Cfg)
    for (const CFGElement &Element : *Block)
      if (auto S = Element.getAs<CFGStmt>())
        if (reboundVariable(S->getStmt()))
          Assignees.insert(
              cast<CallExpr>(S->getStmt())->getArg(0)->IgnoreImplicit());
  for (const CFGBlock *Block : *Cfg) {
    unsigned Index = 0;
    for (const CFGElement &Element : *Block) {
      if (auto S = Element.getAs<CFGStmt>()) {
        const auto *Ref = dyn_cast<DeclRefExpr>(S->getStmt());
        if (Ref && !Assignees.count(Ref))
          References[Block->getBlockID()].push_back(
              {Index, Ref->getDecl(), false, Ref});
        else if (const auto *Member = dyn_cast<MemberExpr>(S->getStmt()))
          References[Block->getBlockID()].push_back(
              {Index, Member->getMemberDecl(), false, Member});
        else if (const VarDecl *Var = reboundVariable(S->getStmt()))
          References[Block->getBlockID()].push_back({Index, Var, true});
        else if (const auto *Decl = dyn_cast<DeclStmt>(S->getStmt()))
          for (const clang::Decl *D : Decl->decls())
            if (const auto *Declared = dyn_cast<VarDecl>(D))
              References[Block->getBlockID()].push_back(
                  {Index, Declared, false, nullptr, true});
      }
      ++Index;
    }
  }
}

bool FunctionAliasAnalysis::isReferencedAfter(const WriteEvent &Write,
                                              const ValueDecl *Root) const {
  // Block and element numbers are those of the owner's CFG.
  if (!Cfg || Write.Owner != this)
    return false;
  auto Refers = [&](const ValueDecl *D) {
    return D == Root || llvm::is_contained(Write.RootHolders, D);
  };
  // Only Root itself is followed to its rebinding; a path that rebinds it
  // with no other handle alive reads only the new tensor from there on.
  auto Kills = [&](const Reference &R) {
    return R.Rebinds && R.Decl == Root && Write.RootHolders.empty();
  };
  auto Scan = [&](const std::vector<Reference> &Block, unsigned From,
                  bool &Killed) {
    for (const Reference &R : Block) {
      if (R.Element < From || R.Declares)
        continue;
      if (Kills(R)) {
        Killed = true;
        return false;
      }
      if (!R.Rebinds && Refers(R.Decl))
        return true;
    }
    return false;
  };
  bool Killed = false;
  if (Scan(References[Write.Block], Write.Element + 1, Killed))
    return true;
  if (Killed)
    return false;
  bool Found = false;
  walkAfter(*Cfg, Write.Block, [&](const CFGBlock &Block) {
    bool BlockKills = false;
    if (Scan(References[Block.getBlockID()], 0, BlockKills)) {
      Found = true;
      return Walk::Done;
    }
    return BlockKills ? Walk::Stop : Walk::Past;
  });
  return Found;
}

const DeclRefExpr *FunctionAliasAnalysis::readAfter(const WriteEvent &Write,
                                                   const VarDecl *Var) const {
  if (!Cfg || Write.Owner != this)
    return nullptr;
  // References that are the target of an in-place write of Var: the write
  // replaces what Var held, which is no read of it.
  llvm::DenseSet<const Expr *> Written;
  for (const WriteEvent &Other : Writes)
    Written.insert(skipHandleCopies(Other.Target)->IgnoreParenImpCasts());
  // Whether a path goes on past R, and R itself if it reads Var.
  auto Visit = [&](const Reference &R, const DeclRefExpr *&Read) {
    if (R.Decl != Var)
      return true;
    if (R.Declares || R.Rebinds)
      return false;
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(R.Ref);
    if (!Ref || Written.count(Ref))
      return false;
    Read = Ref;
    return false;
  };
  auto Scan = [&](unsigned Block, unsigned From, const DeclRefExpr *&Read) {
    for (const Reference &R : References[Block])
      if (R.Element >= From && !Visit(R, Read))
        return false;
    return true;
  };
  const DeclRefExpr *Read = nullptr;
  if (!Scan(Write.Block, Write.Element + 1, Read))
    return Read;
  walkAfter(*Cfg, Write.Block, [&](const CFGBlock &Block) {
    if (Scan(Block.getBlockID(), 0, Read))
      return Walk::Past;
    return Read ? Walk::Done : Walk::Stop;
  });
  return Read;
}

bool FunctionAliasAnalysis::isBefore(const EscapeEvent &Escape,
                                     const WriteEvent &Write) const {
  if (!Cfg || Escape.Owner != this || Write.Owner != this)
    return false;
  if (Escape.Block == Write.Block && Escape.Element < Write.Element)
    return true;
  llvm::SmallVector<const CFGBlock *, 8> Worklist;
  llvm::DenseSet<const CFGBlock *> Seen;
  for (const CFGBlock *Block : *Cfg)
    if (Block->getBlockID() == Escape.Block)
      Worklist.push_back(Block);
  while (!Worklist.empty()) {
    const CFGBlock *Block = Worklist.pop_back_val();
    for (const CFGBlock::AdjacentBlock &Succ : Block->succs()) {
      const CFGBlock *Next = Succ.getReachableBlock();
      if (!Next || !Seen.insert(Next).second)
        continue;
      if (Next->getBlockID() == Write.Block)
        return true;
      Worklist.push_back(Next);
    }
  }
  return false;
}

AliasValue
FunctionAliasAnalysis::variableValue(const VarDecl *Var,
                                     const AliasEnvironment &Environment) const {
  if (auto It = Environment.find(Var); It != Environment.end())
    return It->second;
  AliasValue Value;
  Value.Root = Var;
  Value.RootOrigin =
      isa<ParmVarDecl>(Var) ? Origin::CallerOwned : Origin::Unknown;
  return Value;
}

AliasValue
FunctionAliasAnalysis::evaluate(const Expr *E,
                                const AliasEnvironment &Environment) const {
  E = skipHandleCopies(E);
  if (!E)
    return temporary(Origin::Unknown);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      return variableValue(Var, Environment);
    return temporary(Origin::Unknown);
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    if (!Field || !isTracked(Field->getType()))
      return temporary(Origin::Unknown);
    AliasValue Value;
    Value.Root = Field;
    // `this->w`, `module->w`: the object outlives the call. A member of a
    // local aggregate (`batch.data`) is not tracked further.
    Value.OwnMember = isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit());
    bool OfObject = Member->isArrow() || Value.OwnMember;
    Value.RootOrigin = OfObject ? Origin::ObjectState : Origin::Unknown;
    return Value;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return evaluateCall(Call, Environment);
  if (const auto *Conditional = dyn_cast<AbstractConditionalOperator>(E))
    return join(evaluate(Conditional->getTrueExpr(), Environment),
                evaluate(Conditional->getFalseExpr(), Environment));
  return temporary(Origin::Unknown);
}

/// `std::optional<Tensor>` or `c10::optional<Tensor>`.
static bool isOptionalTensor(QualType Type) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Type.getNonReferenceType()->getAsCXXRecordDecl());
  return Spec && Spec->getIdentifier() && Spec->getName() == "optional" &&
         (Spec->isInStdNamespace() || isLibtorchDecl(Spec)) &&
         Spec->getTemplateArgs().size() == 1 &&
         Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
         isTensorType(Spec->getTemplateArgs()[0].getAsType());
}

// Note [Outputs of library modules]
// `seq->forward(x)` on a Sequential (or another module of libtorch whose
// forward the operator table does not measure, as it does Linear's) runs
// its modules, each of which returns a new tensor: the output is a new
// tensor, and the variable that holds it (or a view of it) its root, as for
// a measured module. A forward whose body the translation unit defines is
// summarised instead.
static bool isLibraryModuleForward(const FunctionDecl *Callee) {
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Callee);
  if (!Method || !isLibtorchDecl(Method) ||
      !(Method->getOverloadedOperator() == OO_Call ||
        (Method->getIdentifier() && Method->getName() == "forward")))
    return false;
  const CXXRecordDecl *Class = Method->getParent();
  auto IsModule = [](const CXXRecordDecl *Record) {
    return Record->getIdentifier() && Record->getName() == "Module" &&
           isLibtorchDecl(Record);
  };
  return Class && Class->hasDefinition() &&
         !Class->forallBases([&](const CXXRecordDecl *Base) { return !IsModule(Base); });
}

AliasValue
FunctionAliasAnalysis::evaluateCall(const CallExpr *Call,
                                    const AliasEnvironment &Environment) const {
  if (std::optional<TensorCall> Tensor =
          resolveTensorCall(Call, Context.table())) {
    std::optional<int64_t> DType = scalarTypeArgument(Call, Context.ast());
    const CallEffect &Effect = Tensor->Effect;
    const Expr *Aliased = Tensor->aliasedArgument();
    AliasValue Fresh = temporary(Origin::Fresh);
    Fresh.DType = DType;
    if (makesContiguousTensor(*Tensor))
      Fresh.Strides = Layout::Contiguous;
    if (Tensor->Special == SpecialOperation::FromBlob) {
      Fresh.RootOrigin = Origin::External;
      return Fresh;
    }
    if (!Aliased) {
      // A copy (`clone()`, `zeros_like`, `to(dtype)`) keeps its input's
      // strides (preserve_format): keep what is known of them.
      if (Fresh.Strides == Layout::Unknown && !Tensor->Args.empty() &&
          isTensorType(Tensor->Args[0]->getType()) &&
          preservesFormat(*Tensor))
        Fresh.Strides = evaluate(Tensor->Args[0], Environment).Strides;
      return Fresh;
    }
    AliasValue Base = evaluate(Aliased, Environment);
    // Note [Layout facts]
    // Where the function shows the layout or dtype, a may-alias operation is
    // known to copy or to return a view: a tensor fresh from a factory is
    // contiguous, and so is a reshaping view or a view along the first
    // dimension of a contiguous tensor (Note [Contiguity of views]), so
    // `reshape`/`flatten` of it is a view and `contiguous()` returns it;
    // `contiguous()` copies a tensor whose strides were permuted; `to(dtype)`
    // copies a tensor of another known dtype and returns one of the same
    // dtype as it is. A permutation survives only the views that keep
    // strides (`unsqueeze`, ...): `t().narrow(...)` may be contiguous again.
    Relation Rel = Relation::Handle;
    if (Tensor->Special != SpecialOperation::None)
      Rel = Relation::Detached;
    else if (Effect.Expands)
      Rel = Relation::Expanded;
    else if (Effect.View == ViewKind::Definite)
      Rel = Relation::DefiniteView;
    else if (Effect.View == ViewKind::MayAlias)
      Rel = Relation::MayAlias;
    if (Rel == Relation::MayAlias) {
      if (Tensor->Spelling == "contiguous") {
        if (Base.Strides == Layout::NotContiguous) {
          Fresh.DType = Base.DType;
          Fresh.Strides = Layout::Contiguous;
          return Fresh;
        }
        if (Base.Strides == Layout::Contiguous)
          return Base;
      }
      if (Tensor->Spelling == "to" && DType && Base.DType) {
        if (*DType != *Base.DType) {
          Fresh.Strides = Base.Strides;
          return Fresh;
        }
        return Base;
      }
      if (Base.Strides == Layout::Contiguous &&
          keepsContiguity(*Tensor, Context.ast()))
        Rel = Relation::DefiniteView;
    }
    AliasValue Result = viewOf(Base, Rel, Call, Context.intern(Tensor->Spelling));
    Result.IsList = Effect.ReturnsList;
    if (Rel != Relation::Handle) {
      if (permutesStrides(Tensor->Spelling))
        Result.Strides = Layout::NotContiguous;
      else if (Base.Strides == Layout::Contiguous &&
               keepsContiguity(*Tensor, Context.ast()))
        Result.Strides = Layout::Contiguous;
      else if (!keepsStrides(*Tensor))
        Result.Strides = Layout::Unknown;
    }
    if (DType)
      Result.DType = DType;
    return Result;
  }

  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return temporary(Origin::Unknown);

  // An element of a container of tensors is treated as the container:
  // `v[i]`, `m.at("user")`, and `d.at(k)`/`l.get(i)` of libtorch's own
  // containers (Note [libtorch's own containers]).
  const Expr *Object = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Object = Member->getImplicitObjectArgument();
  else if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee))
    Object = Call->getArg(0);
  if (Object &&
      (isTensorListType(Object->getType()) ||
       isTensorContainerType(Object->getType())) &&
      !isOptionalTensor(Object->getType()) && isTensorType(Call->getType())) {
    AliasValue Element = evaluate(Object, Environment);
    Element.IsList = false;
    return Element;
  }
  // Note [Optional tensors]
  // `*rank_`, `rank_.value()` and `rank_->` of a `std::optional<Tensor>` (or
  // c10::optional) are the tensor it holds, so two of them name one
  // storage: the optional variable or member is the root, as a tensor
  // variable or member would be.
  if (Object && isOptionalTensor(Object->getType()) &&
      isTensorType(Call->getType()) &&
      (isa<CXXOperatorCallExpr>(Call) ||
       (Callee->getIdentifier() && Callee->getName() == "value"))) {
    const Expr *Holder = Object->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Holder))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        return variableValue(Var, Environment);
    if (const auto *Member = dyn_cast<MemberExpr>(Holder))
      if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl())) {
        AliasValue Value;
        Value.Root = Field;
        Value.OwnMember = isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit());
        Value.RootOrigin = Member->isArrow() || Value.OwnMember
                               ? Origin::ObjectState
                               : Origin::Unknown;
        return Value;
      }
  }

  if (!isTracked(Call->getType()))
    return temporary(Origin::Unknown);
  if (isLibraryModuleForward(Callee) && isTensorType(Call->getType()))
    return temporary(Origin::Fresh);
  const FunctionSummary *Summary = Context.callSummary(Call);
  if (!Summary)
    return temporary(Origin::Unknown);
  if (const FieldDecl *Member = Summary->ReturnsViewOfMember) {
    AliasValue View;
    View.Root = Member;
    View.RootOrigin = Origin::ObjectState;
    View.Rel = Summary->MemberViewRelation;
    View.AliasSite = Call;
    View.AliasOperator = Context.intern(Callee->getNameAsString());
    // A method calling its own accessor is still the object at work.
    View.OwnMember = Object && isa<CXXThisExpr>(Object->IgnoreImplicit());
    View.HandedOut = !View.OwnMember;
    return View;
  }
  if (Summary->ReturnsAliasOf) {
    unsigned Arg = *Summary->ReturnsAliasOf + firstArgumentOffset(Call, Callee);
    if (Arg < Call->getNumArgs())
      return viewOf(evaluate(Call->getArg(Arg), Environment),
                    Summary->ReturnRelation, Call,
                    Context.intern(Callee->getNameAsString()));
  }
  if (Summary->ReturnsExternal)
    return temporary(Origin::External);
  return temporary(Summary->ReturnsFresh ? Origin::Fresh : Origin::Unknown);
}

void FunctionAliasAnalysis::bind(const VarDecl *Var, AliasValue Value,
                                 const Expr *Init,
                                 AliasEnvironment &Environment, bool Record) {
  // A variable holding a new tensor becomes a root, and so does one holding
  // a view of a new temporary (`tensor({...}).view({4, 3})`): nothing else
  // holds that storage. An expanded or detached view of a temporary
  // (`zeros(...).expand(...)`) stays a view with no root to name.
  bool OnlyHolder = !Value.Root && Value.RootOrigin == Origin::Fresh &&
                    (Value.Rel == Relation::DefiniteView ||
                     Value.Rel == Relation::MayAlias);
  if (!Value.Root && (!Value.isView() || OnlyHolder)) {
    Value.Root = Var;
    Value.Rel = Relation::Handle;
    Value.AliasSite = nullptr;
  }
  if (Record && Init && Value.isView() && Value.AliasSite &&
      Value.AliasSite == skipHandleCopies(Init))
    outermost().ViewBindings[Value.AliasSite] = Var;
  Environment[Var] = Value;
}

void FunctionAliasAnalysis::transfer(const Stmt *S,
                                     AliasEnvironment &Environment, bool Record,
                                     unsigned Block, unsigned Element) {
  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    for (const auto *D : Decl->decls()) {
      const auto *Var = dyn_cast<VarDecl>(D);
      if (!Var || !isTracked(Var->getType()))
        continue;
      if (auto Range = RangeForInits.find(Var); Range != RangeForInits.end()) {
        AliasValue Value = evaluate(Range->second, Environment);
        Value.IsList = false;
        if (isModuleStateRange(Range->second)) {
          Value = AliasValue();
          Value.Root = Var;
          Value.RootOrigin = Origin::ObjectState;
        }
        bind(Var, Value, nullptr, Environment, Record);
      } else if (const Expr *Init = Var->getInit()) {
        bind(Var, evaluate(Init, Environment), Init, Environment, Record);
      } else {
        bind(Var, temporary(Origin::Fresh), nullptr, Environment, Record);
      }
    }
    return;
  }
  if (Record)
    recordEscapes(S, Environment, Block, Element);
  if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
    if (Record && Return->getRetValue() && isTracked(Return->getRetValue()->getType())) {
      AliasValue Value = evaluate(Return->getRetValue(), Environment);
      Returned = Returned ? join(*Returned, Value) : Value;
    }
    return;
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
    if (Record)
      analyzeLambda(Lambda, Environment);
    return;
  }
  if (Record)
    recordRawWrites(S, Environment, Block, Element);
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    return;
  // `t = expr` on a named handle rebinds it.
  if (const VarDecl *Var = reboundVariable(Call)) {
    AliasValue Value = evaluate(Call->getArg(1), Environment);
    if (isSoleHolderOfView(Var, Value, Environment)) {
      // Note [A view that replaces its base]
      Value.Rel = Relation::Handle;
      Value.AliasSite = nullptr;
      Value.AliasOperator = "";
      Value.Merged = false;
    }
    bind(Var, Value, Call->getArg(1), Environment, Record);
    return;
  }
  if (Record)
    recordWrites(Call, Environment, Block, Element);
}

void FunctionAliasAnalysis::recordEscape(const Expr *E, EscapeKind Kind,
                                         llvm::StringRef Into,
                                         const AliasEnvironment &Environment,
                                         unsigned Block, unsigned Element) {
  llvm::SmallVector<const Expr *, 4> Tensors;
  collectTensorOperands(E, Tensors);
  for (const Expr *Tensor : Tensors) {
    EscapeEvent Escape;
    Escape.Where = Tensor;
    Escape.Value = evaluate(Tensor, Environment);
    Escape.Kind = Kind;
    Escape.Into = Context.intern(Into);
    Escape.Owner = this;
    Escape.Block = Block;
    Escape.Element = Element;
    Escapes.push_back(std::move(Escape));
  }
}

// See Note [Escapes].
void FunctionAliasAnalysis::recordEscapes(const Stmt *S,
                                          const AliasEnvironment &Environment,
                                          unsigned Block, unsigned Element) {
  auto Escape = [&](const Expr *E, EscapeKind Kind, llvm::StringRef Into) {
    recordEscape(E, Kind, Into, Environment, Block, Element);
  };
  auto NameOf = [](const NamedDecl *D) {
    return D && D->getIdentifier() ? D->getName() : llvm::StringRef();
  };
  // What a lambda returns goes to whoever calls the lambda, which is this
  // function or a worker; the capture is the escape that counts.
  if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
    if (Return->getRetValue() && !Parent)
      Escape(Return->getRetValue(), EscapeKind::Returned, "");
    return;
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
    for (auto [Capture, Init] :
         llvm::zip(Lambda->captures(), Lambda->capture_inits()))
      if (Capture.capturesVariable() && Capture.getCaptureKind() == LCK_ByCopy &&
          Init)
        Escape(Init, EscapeKind::Captured, "");
    return;
  }
  auto PassesTensors = [](auto Args) {
    return llvm::any_of(Args, [](const Expr *Arg) {
      return isTracked(Arg->getType());
    });
  };
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(S)) {
    if (isTracked(Construct->getType()) || !PassesTensors(Construct->arguments()))
      return;
    const FunctionSummary *Summary = Context.summary(Construct->getConstructor());
    if (!Summary)
      return;
    for (const FunctionSummary::ParameterWrite &Kept : Summary->KeptParameters)
      if (Kept.Index < Construct->getNumArgs())
        Escape(Construct->getArg(Kept.Index), EscapeKind::Kept,
               NameOf(Construct->getConstructor()->getParent()));
    return;
  }
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    return;
  // `member = t`, `global = t`, `out = t` on a reference parameter.
  if (const Expr *Lhs = rebindingTarget(Call)) {
    const ValueDecl *Target =
        isa<MemberExpr, DeclRefExpr>(Lhs) ? objectDecl(Lhs) : nullptr;
    if (Target && !isFunctionLocal(Target))
      Escape(Call->getArg(1), EscapeKind::Stored, NameOf(Target));
    return;
  }
  // libtorch's own functions have no summary and are no storing methods, so
  // tensor operations fall through both tests below.
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !PassesTensors(Call->arguments()))
    return;
  if (const FunctionSummary *Summary = Context.callSummary(Call)) {
    unsigned Offset = firstArgumentOffset(Call, Callee);
    for (const FunctionSummary::ParameterWrite &Kept : Summary->KeptParameters)
      if (Kept.Index + Offset < Call->getNumArgs())
        Escape(Call->getArg(Kept.Index + Offset), EscapeKind::Kept,
               NameOf(Callee));
    return;
  }
  // A standard container that is not a local of this function.
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  if (!Member || !isStoringMethod(Member->getMethodDecl()))
    return;
  const ValueDecl *Container = objectDecl(Member->getImplicitObjectArgument());
  if (!Container || isFunctionLocal(Container))
    return;
  for (const Expr *Arg : Call->arguments())
    Escape(Arg, EscapeKind::Stored, NameOf(Container));
}

/// The name a diagnostic gives the callee: a lambda's call operator is the
/// variable that holds the lambda (`clip(w)`).
static std::string calleeName(const CallExpr *Call, const FunctionDecl *Callee) {
  if (callsStdFunction(Call))
    if (const ValueDecl *Holder = functionHolderOf(Call->getArg(0)))
      return Holder->getNameAsString();
  const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
  if (Method && Method->getParent()->isLambda() &&
      isa<CXXOperatorCallExpr>(Call) && Call->getNumArgs() > 0)
    if (const ValueDecl *Lambda = namedDecl(Call->getArg(0)))
      return Lambda->getNameAsString();
  return Callee->getNameAsString();
}

WriteEvent FunctionAliasAnalysis::newWrite(const Expr *Site, const Expr *Target,
                                           llvm::StringRef Operator,
                                           const AliasEnvironment &Environment,
                                           unsigned Block, unsigned Element) {
  WriteEvent Write;
  Write.Call = Site;
  Write.Target = Target;
  Write.Value = evaluate(Target, Environment);
  Write.Operator = Context.intern(Operator);
  Write.Owner = this;
  Write.Block = Block;
  Write.Element = Element;
  return Write;
}

void FunctionAliasAnalysis::recordWrites(const CallExpr *Call,
                                         const AliasEnvironment &Environment,
                                         unsigned Block, unsigned Element) {
  auto Record = [&](const Expr *Target, llvm::StringRef Operator) -> WriteEvent & {
    WriteEvent Write =
        newWrite(Call, Target, Operator, Environment, Block, Element);
    // Who else holds the root's storage: a copy of its handle, or another
    // view of it than the one written.
    const auto *Written = dyn_cast_or_null<DeclRefExpr>(skipHandleCopies(Target));
    for (const auto &[Var, Value] : Environment)
      if (Write.Value.Root && Value.Root == Write.Value.Root &&
          Var != Write.Value.Root && (!Written || Written->getDecl() != Var) &&
          (Value.Rel == Relation::Handle ||
           Value.AliasSite != Write.Value.AliasSite)) {
        Write.RootHolders.push_back(Var);
        if (Value.isView())
          Write.HeldViews.push_back({Var, Value});
      }
    Writes.push_back(std::move(Write));
    return Writes.back();
  };

  if (std::optional<TensorCall> Tensor =
          resolveTensorCall(Call, Context.table())) {
    if (!Tensor->Effect.writes())
      return;
    llvm::SmallVector<WriteOperand, 4> Operands;
    for (unsigned Position = 0; Position < Tensor->Args.size(); ++Position) {
      llvm::SmallVector<const Expr *, 4> Tensors;
      collectTensorOperands(Tensor->Args[Position], Tensors);
      for (const Expr *Operand : Tensors)
        Operands.push_back({Operand, Position, evaluate(Operand, Environment)});
    }
    for (unsigned Position : Tensor->Effect.WrittenArgs) {
      if (Position >= Tensor->Args.size())
        continue;
      WriteEvent &Write = Record(Tensor->Args[Position], Tensor->Spelling);
      Write.IsOutArgument = llvm::is_contained(Tensor->Effect.OutArgs, Position);
      Write.IsIndexAssignment = Tensor->IsIndexAssignment;
      Write.Operands = Operands;
    }
    return;
  }
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (const auto *Method = dyn_cast<CXXMemberCallExpr>(Call))
    recordMemberWrites(Method, Environment, Block, Element);
  if (const FunctionSummary *Summary = Callee ? Context.callSummary(Call) : nullptr;
      Summary && !Summary->WrittenParameterMembers.empty())
    recordParameterMemberWrites(Call, *Summary, Environment, Block, Element);
  if (!Callee || !llvm::any_of(Call->arguments(), [](const Expr *Arg) {
        return isTracked(Arg->getType());
      }))
    return;
  const FunctionSummary *Summary = Context.callSummary(Call);
  if (!Summary)
    return;
  unsigned Offset = firstArgumentOffset(Call, Callee);
  for (const FunctionSummary::ParameterWrite &Param : Summary->WrittenParameters) {
    unsigned Arg = Param.Index + Offset;
    if (Arg >= Call->getNumArgs() || !Param.Parameter)
      continue;
    WriteEvent &Write = Record(Call->getArg(Arg), calleeName(Call, Callee));
    Write.CalleeWrite = Param.Site;
    Write.CalleeParam = Param.Parameter;
    Write.CalleeThroughView = Param.ThroughView;
    // Note [Helpers that write through data() or detach()]
    // `renorm(w)`, where the helper writes `w.data().clamp_(...)`, writes the
    // caller's tensor through a detached handle, as the same write in the
    // caller would.
    if (Param.DetachSite && Write.Value.Root && !Write.Value.isView()) {
      Write.Value.Rel = Relation::Detached;
      Write.Value.AliasSite = Param.DetachSite;
      Write.Value.AliasOperator = Param.DetachOperator;
    }
  }
}

// Note [Element writes through an accessor]
// `auto a = u.accessor<float, 1>(); a[0] = 0.0f;` and `u.data_ptr<float>()[i]
// = v` write u's elements through a raw view of its storage. Like a write
// through `.data()`, it shares the storage and not the version counter:
// autograd cannot see it, and a backward that saved u computes its
// gradients from the new values without an error. A write is an
// assignment (`=`, `+=`, ...), or `++`/`--`, of an element reached by
// subscripts or `*` from `t.accessor<T, N>()`, a packed accessor or
// `t.data_ptr<T>()` (`mutable_data_ptr`), spelled in place or held by a
// local never assigned (`float *p = u.data_ptr<float>();`). A call of a
// function of the translation unit that makes such a write on its
// parameter makes it on the argument (RawWrittenParameters). The writes
// are kept apart from writes(): a kernel that fills its output through an
// accessor is no in-place operation for the other checks.
/// For an element write through an accessor or a data pointer: the
/// `accessor()` or `data_ptr()` call it goes through.
static const CXXMemberCallExpr *rawElementWrite(const Stmt *S) {
  static constexpr llvm::StringLiteral RawViews[] = {
      "accessor",          "packed_accessor", "packed_accessor32",
      "packed_accessor64", "data_ptr",        "mutable_data_ptr"};
  const Expr *Element = nullptr;
  if (const auto *Assign = dyn_cast<BinaryOperator>(S);
      Assign && Assign->isAssignmentOp())
    Element = Assign->getLHS();
  else if (const auto *Step = dyn_cast<UnaryOperator>(S);
           Step && Step->isIncrementDecrementOp())
    Element = Step->getSubExpr();
  else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(S);
           Operator && Operator->isAssignmentOp() && Operator->getNumArgs() == 2)
    Element = Operator->getArg(0); // an element of class type (c10::Half)
  if (!Element)
    return nullptr;
  // Down the subscripts and dereferences to the accessor or pointer.
  const Expr *E = Element->IgnoreParenImpCasts();
  bool Indexed = false;
  while (true) {
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E)) {
      E = Subscript->getBase()->IgnoreParenImpCasts();
    } else if (const auto *Index = dyn_cast<CXXOperatorCallExpr>(E);
               Index && Index->getOperator() == OO_Subscript) {
      E = Index->getArg(0)->IgnoreParenImpCasts();
    } else if (const auto *Deref = dyn_cast<UnaryOperator>(E);
               Deref && Deref->getOpcode() == UO_Deref) {
      E = Deref->getSubExpr()->IgnoreParenImpCasts();
    } else if (const auto *Offset = dyn_cast<BinaryOperator>(E);
               Offset && Offset->isAdditiveOp() && Indexed == false &&
               Offset->getLHS()->getType()->isPointerType()) {
      E = Offset->getLHS()->IgnoreParenImpCasts();
      continue;
    } else {
      break;
    }
    Indexed = true;
  }
  if (!Indexed)
    return nullptr;
  // The locals that hold it; whether they are ever reassigned (a walk of
  // the function) is asked last, of an accessor or pointer only.
  llvm::SmallVector<const VarDecl *, 2> Holders;
  for (unsigned Depth = 0; Depth < 4; ++Depth) {
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Var)
      break;
    if (!Var->isLocalVarDecl() || !Var->getInit())
      return nullptr;
    Holders.push_back(Var);
    E = Var->getInit()->IgnoreImplicit();
    while (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      if (Construct->getNumArgs() != 1)
        return nullptr;
      E = Construct->getArg(0)->IgnoreImplicit();
    }
  }
  const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  if (!Method || !Method->getIdentifier() ||
      !llvm::is_contained(RawViews, Method->getName()) ||
      !isTensorType(Call->getImplicitObjectArgument()->getType()) ||
      !llvm::all_of(Holders, neverAssigned))
    return nullptr;
  return Call;
}

void FunctionAliasAnalysis::recordRawWrites(const Stmt *S,
                                            const AliasEnvironment &Environment,
                                            unsigned Block, unsigned Element) {
  auto Record = [&](const Expr *Site, const Expr *Target,
                    llvm::StringRef Operator) -> WriteEvent & {
    WriteEvent Write =
        newWrite(Site, Target, Operator, Environment, Block, Element);
    Write.RawElements = true;
    RawWrites.push_back(std::move(Write));
    return RawWrites.back();
  };
  if (const CXXMemberCallExpr *Raw = rawElementWrite(S)) {
    std::string Operator = "operator";
    if (const auto *Assign = dyn_cast<BinaryOperator>(S))
      Operator += Assign->getOpcodeStr().str();
    else if (const auto *Step = dyn_cast<UnaryOperator>(S))
      Operator += UnaryOperator::getOpcodeStr(Step->getOpcode()).str();
    else
      Operator += "=";
    WriteEvent &Write =
        Record(cast<Expr>(S), Raw->getImplicitObjectArgument(), Operator);
    Write.Value.Rel = Relation::Detached;
    Write.Value.AliasSite = Raw;
    Write.Value.AliasOperator = Raw->getMethodDecl()->getName();
    return;
  }
  const auto *Call = dyn_cast<CallExpr>(S);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  const FunctionSummary *Summary = Callee ? Context.callSummary(Call) : nullptr;
  if (!Summary)
    return;
  unsigned Offset = firstArgumentOffset(Call, Callee);
  for (const FunctionSummary::ParameterWrite &Param :
       Summary->RawWrittenParameters) {
    unsigned Arg = Param.Index + Offset;
    if (Arg >= Call->getNumArgs())
      continue;
    WriteEvent &Write = Record(Call, Call->getArg(Arg), calleeName(Call, Callee));
    Write.CalleeWrite = Param.Site;
    Write.CalleeParam = Param.Parameter;
    if (!Write.Value.Root || Write.Value.isView()) {
      RawWrites.pop_back();
      continue;
    }
    Write.Value.Rel = Relation::Detached;
    Write.Value.AliasSite = Param.DetachSite;
    Write.Value.AliasOperator = Param.DetachOperator;
  }
}

/// At a call, the writes of its arguments' members that the callee makes
/// (Note [Members of an argument written by a helper]): the Target is the
/// argument, the Value's root the member.
void FunctionAliasAnalysis::recordParameterMemberWrites(
    const CallExpr *Call, const FunctionSummary &Summary,
    const AliasEnvironment &Environment, unsigned Block, unsigned Element) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  unsigned Offset = firstArgumentOffset(Call, Callee);
  for (const FunctionSummary::ParameterMemberWrite &Member :
       Summary.WrittenParameterMembers) {
    unsigned Arg = Member.Index + Offset;
    if (Arg >= Call->getNumArgs())
      continue;
    WriteEvent Write;
    Write.Call = Call;
    Write.Target = Call->getArg(Arg);
    Write.Value.Root = Member.Member;
    Write.Value.RootOrigin = Origin::ObjectState;
    if (Member.DetachSite) {
      Write.Value.Rel = Relation::Detached;
      Write.Value.AliasSite = Member.DetachSite;
      Write.Value.AliasOperator = Member.DetachOperator;
    }
    Write.ArgumentMember = true;
    Write.Operator = Context.intern(Callee->getName());
    Write.CalleeWrite = Member.Site;
    Write.Owner = this;
    Write.Block = Block;
    Write.Element = Element;
    for (const auto &[Var, Value] : Environment)
      if (Value.Root == Member.Member) {
        Write.RootHolders.push_back(Var);
        if (Value.isView())
          Write.HeldViews.push_back({Var, Value});
      }
    MemberWrites.push_back(std::move(Write));
  }
}

void FunctionAliasAnalysis::recordMemberWrites(const CXXMemberCallExpr *Call,
                                               const AliasEnvironment &Environment,
                                               unsigned Block, unsigned Element) {
  const FunctionSummary *Summary = Context.callSummary(Call);
  if (!Summary)
    return;
  const Expr *Object = Call->getImplicitObjectArgument();
  for (const auto &[Field, Site] : Summary->WrittenMembers) {
    WriteEvent Write;
    Write.Call = Call;
    Write.Target = Object;
    Write.Value.Root = Field;
    Write.Value.RootOrigin = Origin::ObjectState;
    Write.Value.OwnMember = isa<CXXThisExpr>(Object->IgnoreImplicit());
    Write.Operator = Context.intern(Call->getMethodDecl()->getName());
    Write.CalleeWrite = Site;
    Write.Owner = this;
    Write.Block = Block;
    Write.Element = Element;
    for (const auto &[Var, Value] : Environment)
      if (Value.Root == Field) {
        Write.RootHolders.push_back(Var);
        if (Value.isView())
          Write.HeldViews.push_back({Var, Value});
      }
    MemberWrites.push_back(std::move(Write));
  }
}

void FunctionAliasAnalysis::analyzeLambda(const LambdaExpr *Lambda,
                                          const AliasEnvironment &Environment) {
  AliasEnvironment Seed = Environment;
  for (const LambdaCapture &Capture : Lambda->captures()) {
    if (!Capture.capturesVariable())
      continue;
    const auto *Var = dyn_cast<VarDecl>(Capture.getCapturedVar());
    if (Var && Var->isInitCapture() && Var->getInit() &&
        isTracked(Var->getType()))
      bind(Var, evaluate(Var->getInit(), Environment), Var->getInit(), Seed,
           true);
  }
  auto Inner = std::make_unique<FunctionAliasAnalysis>(
      Lambda->getCallOperator(), Lambda->getBody(), Context, this,
      std::move(Seed));
  Writes.insert(Writes.end(), Inner->Writes.begin(), Inner->Writes.end());
  MemberWrites.insert(MemberWrites.end(), Inner->MemberWrites.begin(),
                      Inner->MemberWrites.end());
  RawWrites.insert(RawWrites.end(), Inner->RawWrites.begin(),
                   Inner->RawWrites.end());
  Escapes.insert(Escapes.end(), Inner->Escapes.begin(), Inner->Escapes.end());
  Lambdas.push_back(std::move(Inner));
}

} // namespace clang::tidy::libtorch
