//===- Snapshots.cpp - records of tensor handles taken as if they were values //

#include "Snapshots.h"
#include "ModuleState.h"
#include "ParameterSharing.h"
#include "TensorModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/FoldingSet.h"

#include <optional>

namespace clang::tidy::libtorch {

// Note [Snapshots of handles]
// `best = Best{val, epoch, model->parameters()}` copies three handles into
// `best`, and `Snapshot{sum_, count_}` two: the record and the state are the
// same tensors. Nothing is wrong until the state changes in place and the
// record is read as the old values. The reading that shows the mistake is an
// operation between a tensor and the record's handle to it: a restore that
// copies a tensor into itself (`params[i].copy_(best.params[i])`), a
// difference that is always zero (`sum_ - s.sum`). Identities are followed
// syntactically: a member, a local tensor, element i of a module's
// `parameters()` (by the same index expression), a field of a record bound
// by its initializer or by the assignment of a braced list, a construction
// or `std::make_pair`. A record field that any binding leaves without such
// an identity (a vector of clones built with `push_back`) is unknown.
// A local tensor initialised with another tensor's handle and never
// assigned (`torch::Tensor before = fc->weight;`, `auto old = w;`) is a
// record of one handle: `fc->weight - before` after `opt.step()` is zero
// too. A module's parameter member (`fc->weight`) is the module's state,
// which an optimizer over its parameters writes. `detach()`, `data()` and
// `variable_data()` share the storage as a copy of the handle does: `auto
// x_prev = x_.detach();` before `x_.add_(v_, dt)` is a record of one handle,
// and `(x_ - x_prev) / dt` is zero. So do the views of all of a tensor's
// elements (`auto mean_old = mean_.unsqueeze(0);`, `view`, `t()`; not
// `reshape`, which may copy), and an operand read through such a view
// (`mean_old.squeeze(0)`) reads the record. Besides the difference, the ratio, the
// restore and their in-place forms, a comparison that tests whether the
// tensor moved (`allclose`, `equal`) reads both sides the same way.

namespace {

/// For `t.detach()`, `t.unsqueeze(0)`, `t.view({n, -1})` and other calls that
/// always return a view of all of t's elements (or chains of them): t, with
/// Through set to the outermost method; null for anything else. `reshape`,
/// `flatten` and `contiguous` may copy, so they are not among them.
const Expr *wholeViewOf(const Expr *E, llvm::StringRef *Through = nullptr) {
  static constexpr llvm::StringLiteral WholeViews[] = {
      "detach",  "data",      "variable_data", "alias",     "view",
      "view_as", "unsqueeze", "squeeze",       "t",         "transpose",
      "permute", "movedim",   "unflatten",     "expand",    "expand_as",
      "mT",      "swapaxes",  "swapdims"};
  const Expr *Viewed = nullptr;
  while (true) {
    const auto *Call = dyn_cast<CXXMemberCallExpr>(skipHandleCopies(E)->IgnoreParens());
    const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
    if (!Method || !Method->getIdentifier() ||
        !isTensorType(Call->getImplicitObjectArgument()->getType()) ||
        !llvm::is_contained(WholeViews, Method->getName()))
      return Viewed;
    if (!Viewed && Through)
      *Through = Method->getName();
    E = Call->getImplicitObjectArgument();
    Viewed = skipHandleCopies(E)->IgnoreParens();
  }
}

/// For the initializer of a local tensor: the tensor whose handle it holds
/// (`w` in `auto old = w;` or `auto old = w.detach();`), with Through set to
/// the detaching method; null for anything else.
const Expr *heldHandle(const Expr *Init, llvm::StringRef &Through) {
  Init = skipHandleCopies(Init)->IgnoreParens();
  if (const Expr *Viewed = wholeViewOf(Init, &Through))
    Init = Viewed;
  return isa<DeclRefExpr, MemberExpr>(Init) ? Init : nullptr;
}

/// What a tensor expression names.
struct Identity {
  const ValueDecl *Base = nullptr; ///< A member, local or module.
  bool ParameterOfModule = false;  ///< Base is a module variable.
  llvm::FoldingSetNodeID Index;    ///< Element, by index expression.
  const VarDecl *Record = nullptr; ///< Reached through this record.
  const Expr *Binding = nullptr;   ///< Where the record took it.
  bool HandleCopy = false;         ///< Record is a tensor variable.
  llvm::StringRef Through;         ///< "detach" for `auto r = t.detach()`.
  const FieldDecl *Member = nullptr; ///< A parameter member of module Base.

  bool sameTensor(const Identity &Other) const {
    return Base == Other.Base && ParameterOfModule == Other.ParameterOfModule &&
           Index == Other.Index && Member == Other.Member;
  }
};

/// A local record of handles: a class that is not a tensor, a container or
/// a module, with at least one tensor or tensor-list field (a user struct,
/// std::pair, std::tuple).
bool isRecordType(QualType Type) {
  const CXXRecordDecl *Record =
      Type.getNonReferenceType()->getAsCXXRecordDecl();
  if (!Record || !Record->hasDefinition() || isTensorType(Type) ||
      isTensorListType(Type) || moduleImplOf(Type))
    return false;
  return llvm::any_of(
      Record->getDefinition()->fields(), [](const FieldDecl *F) {
        return isTensorType(F->getType()) || isTensorListType(F->getType());
      });
}

class Snapshots {
public:
  Snapshots(const FunctionDecl &Function, const OperatorTable &Table)
      : Function(Function), Table(Table), AST(Function.getASTContext()),
        Parents(const_cast<Stmt *>(Function.getBody())) {}

  std::vector<SnapshotUse> find();

private:
  std::optional<Identity> tensor(const Expr *E, unsigned Depth = 0);
  std::optional<Identity> list(const Expr *E, unsigned Depth = 0);
  std::optional<Identity> field(const MemberExpr *Member, bool List,
                                unsigned Depth);
  std::optional<Identity> handleCopy(const VarDecl *Var, unsigned Depth);
  const Expr *writeSince(const Identity &Of, const CallExpr *Use,
                         std::string &Name);
  bool shareLoop(const Stmt *A, const Stmt *B) const;
  bool before(const Stmt *A, const Stmt *B) const {
    return AST.getSourceManager().isBeforeInTranslationUnit(A->getEndLoc(),
                                                            B->getBeginLoc());
  }

  const FunctionDecl &Function;
  const OperatorTable &Table;
  ASTContext &AST;
  ParentMap Parents;
  ModuleStateAnalysis Modules{Table};
  llvm::DenseSet<const ValueDecl *> Assigned;
  bool AssignedFound = false;
};

std::optional<Identity> Snapshots::list(const Expr *E, unsigned Depth) {
  if (!E || Depth > 6)
    return std::nullopt;
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    if (!Method || !Method->getIdentifier() ||
        Method->getName() != "parameters")
      return std::nullopt;
    ModuleInstance Module = moduleInstanceOf(Call->getImplicitObjectArgument());
    if (Module.Of != ModuleInstance::Kind::Variable)
      return std::nullopt;
    Identity Result;
    Result.Base = Module.Variable;
    Result.ParameterOfModule = true;
    return Result;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && Var->isLocalVarDecl() && Var->getInit())
      return list(Var->getInit(), Depth + 1);
    return std::nullopt;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return field(Member, /*List=*/true, Depth);
  return std::nullopt;
}

std::optional<Identity> Snapshots::tensor(const Expr *E, unsigned Depth) {
  if (!E || Depth > 6)
    return std::nullopt;
  E = skipHandleCopies(E)->IgnoreParens();
  // A view of all of a tensor's elements reads the tensor.
  if (const Expr *Viewed = wholeViewOf(E))
    E = Viewed;
  const Expr *Container = nullptr, *Index = nullptr;
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
      Operator && Operator->getOperator() == OO_Subscript &&
      Operator->getNumArgs() == 2 &&
      isTensorListType(Operator->getArg(0)->getType())) {
    Container = Operator->getArg(0);
    Index = Operator->getArg(1);
  } else if (const auto *At = dyn_cast<CXXMemberCallExpr>(E);
             At && At->getMethodDecl() &&
             At->getMethodDecl()->getIdentifier() &&
             At->getMethodDecl()->getName() == "at" && At->getNumArgs() == 1 &&
             isTensorListType(At->getImplicitObjectArgument()->getType())) {
    Container = At->getImplicitObjectArgument();
    Index = At->getArg(0);
  }
  if (Container) {
    std::optional<Identity> Result = list(Container, Depth + 1);
    if (Result)
      Index->IgnoreImplicit()->Profile(Result->Index, AST, /*Canonical=*/true);
    return Result;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    if (std::optional<Identity> Recorded = field(Member, /*List=*/false, Depth))
      return Recorded;
    const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    if (!Field || !isTensorType(Field->getType()))
      return std::nullopt;
    Identity Result;
    if (isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit())) {
      Result.Base = Field;
      return Result;
    }
    // A parameter member of a module variable: `fc->weight`.
    ModuleInstance Module = moduleInstanceOf(Member->getBase());
    if (Module.Of != ModuleInstance::Kind::Variable || !Module.Path.empty())
      return std::nullopt;
    Result.Base = Module.Variable;
    Result.ParameterOfModule = true;
    Result.Member = Field;
    return Result;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var || !isTensorType(Var->getType()) || !Var->hasLocalStorage())
      return std::nullopt;
    if (std::optional<Identity> Copied = handleCopy(Var, Depth))
      return Copied;
    Identity Result;
    Result.Base = Var;
    return Result;
  }
  return std::nullopt;
}

std::optional<Identity> Snapshots::handleCopy(const VarDecl *Var,
                                              unsigned Depth) {
  if (isa<ParmVarDecl>(Var) || !Var->getInit())
    return std::nullopt;
  llvm::StringRef Through;
  const Expr *Init = heldHandle(Var->getInit(), Through);
  if (!Init)
    return std::nullopt;
  // The variables the body assigns, found once per function.
  if (!AssignedFound) {
    forEachStmt(Function.getBody(), [&](const Stmt *S) {
      const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
      if (const auto *Lhs = Assign && Assign->isAssignmentOp()
                                ? dyn_cast<DeclRefExpr>(Assign->getArg(0)->IgnoreImplicit())
                                : nullptr)
        Assigned.insert(Lhs->getDecl());
    });
    AssignedFound = true;
  }
  std::optional<Identity> Of =
      Assigned.count(Var) ? std::nullopt : tensor(Init, Depth + 1);
  if (!Of || Of->Record)
    return std::nullopt;
  Of->Record = Var;
  Of->Binding = Var->getInit();
  Of->HandleCopy = true;
  Of->Through = Through;
  return Of;
}

/// The expressions a record's bindings give its field number Index: the
/// elements of braced lists and constructions, the arguments of
/// std::make_pair; null where a binding gives none.
llvm::SmallVector<std::pair<const Expr *, const Expr *>, 2>
fieldBindings(const VarDecl *Record, unsigned Index, const Stmt *Body) {
  llvm::SmallVector<std::pair<const Expr *, const Expr *>, 2> Found;
  auto Element = [&](const Expr *Binding) -> const Expr * {
    const Expr *E = Binding->IgnoreImplicit()->IgnoreParens();
    for (unsigned Depth = 0; Depth < 4; ++Depth) {
      if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
        E = Cast->getSubExpr()->IgnoreImplicit();
      else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
               Construct && Construct->getNumArgs() == 1 &&
               Construct->getConstructor()->isCopyOrMoveConstructor())
        E = Construct->getArg(0)->IgnoreImplicit();
      else
        break;
    }
    if (const auto *List = dyn_cast<InitListExpr>(E))
      return Index < List->getNumInits() ? List->getInit(Index) : nullptr;
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
      return Index < Construct->getNumArgs() &&
                     !Construct->getConstructor()->isCopyOrMoveConstructor()
                 ? Construct->getArg(Index)
                 : nullptr;
    if (const auto *Call = dyn_cast<CallExpr>(E);
        Call && Call->getDirectCallee() &&
        Call->getDirectCallee()->getIdentifier() &&
        Call->getDirectCallee()->getName() == "make_pair")
      return Index < Call->getNumArgs() ? Call->getArg(Index) : nullptr;
    return nullptr;
  };
  if (Record->getInit())
    Found.push_back({Record->getInit(), Element(Record->getInit())});
  forEachStmt(Body, [&](const Stmt *S) {
    const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
    if (!Assign || Assign->getOperator() != OO_Equal ||
        Assign->getNumArgs() != 2)
      return;
    const auto *Lhs =
        dyn_cast<DeclRefExpr>(Assign->getArg(0)->IgnoreImplicit());
    if (Lhs && Lhs->getDecl() == Record)
      Found.push_back({Assign, Element(Assign->getArg(1))});
  });
  return Found;
}

std::optional<Identity> Snapshots::field(const MemberExpr *Member, bool List,
                                         unsigned Depth) {
  const auto *Ref = dyn_cast<DeclRefExpr>(Member->getBase()->IgnoreImplicit());
  const auto *Record = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (!Record || !Field || !Record->hasLocalStorage() ||
      !isRecordType(Record->getType()))
    return std::nullopt;
  std::optional<Identity> Agreed;
  for (auto [Binding, Element] :
       fieldBindings(Record, Field->getFieldIndex(), Function.getBody())) {
    if (!Element)
      return std::nullopt;
    // An empty list (`{}`, a default construction) stands for nothing yet.
    const Expr *Bare = Element->IgnoreImplicit();
    if (const auto *Empty = dyn_cast<InitListExpr>(Bare);
        Empty && Empty->getNumInits() == 0)
      continue;
    if (const auto *Empty = dyn_cast<CXXConstructExpr>(Bare);
        Empty && Empty->getNumArgs() == 0)
      continue;
    std::optional<Identity> Bound =
        List ? list(Element, Depth + 1) : tensor(Element, Depth + 1);
    if (!Bound || (Agreed && !Agreed->sameTensor(*Bound)))
      return std::nullopt;
    if (!Agreed) {
      Agreed = Bound;
      Agreed->Binding = Binding;
    }
  }
  if (Agreed)
    Agreed->Record = Record;
  return Agreed;
}

bool Snapshots::shareLoop(const Stmt *A, const Stmt *B) const {
  auto Loops = [&](const Stmt *S) {
    llvm::SmallPtrSet<const Stmt *, 4> Found;
    for (const Stmt *P = Parents.getParent(S); P; P = Parents.getParent(P))
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P))
        Found.insert(P);
    return Found;
  };
  llvm::SmallPtrSet<const Stmt *, 4> OfA = Loops(A);
  return llvm::any_of(Loops(B), [&](const Stmt *L) { return OfA.count(L); });
}

/// An in-place write into Of after its record was bound (or in a loop that
/// binds it) and before Use.
const Expr *Snapshots::writeSince(const Identity &Of, const CallExpr *Use,
                                  std::string &Name) {
  const Expr *Found = nullptr;
  auto Consider = [&](const CallExpr *Call, llvm::StringRef Writer) {
    if (Found || !before(Call, Use) ||
        (!before(Of.Binding, Call) && !shareLoop(Of.Binding, Call)))
      return;
    Found = Call;
    Name = Writer.str();
  };
  if (Of.ParameterOfModule) {
    for (const ModuleStateWrite &Write : Modules.writesIn(&Function))
      if (Write.Instance.Of == ModuleInstance::Kind::Variable &&
          Write.Instance.Variable == Of.Base &&
          (!Write.Member || Write.Member == Of.Member))
        if (const auto *Call = dyn_cast<CallExpr>(Write.Call))
          Consider(Call, Call->getDirectCallee()
                             ? Call->getDirectCallee()->getName()
                             : "");
    return Found;
  }
  forEachStmt(Function.getBody(), [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    std::optional<TensorCall> Tensor =
        Call ? resolveTensorCall(Call, Table) : std::nullopt;
    if (!Tensor || !Tensor->Effect.writes())
      return;
    for (unsigned Position : Tensor->Effect.WrittenArgs)
      if (Position < Tensor->Args.size())
        if (std::optional<Identity> Written = tensor(Tensor->Args[Position]);
            Written && !Written->Record && Written->sameTensor(Of))
          Consider(Call, Tensor->Spelling);
  });
  return Found;
}

std::vector<SnapshotUse> Snapshots::find() {
  std::vector<SnapshotUse> Uses;
  forEachStmt(Function.getBody(), [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    std::optional<TensorCall> Tensor =
        Call ? resolveTensorCall(Call, Table) : std::nullopt;
    if (!Tensor || Tensor->Args.size() < 2)
      return;
    static constexpr llvm::StringLiteral Operations[] = {
        "copy_", "sub", "sub_", "operator-", "div", "div_", "operator/",
        "allclose", "equal"};
    if (!llvm::is_contained(Operations, Tensor->Spelling))
      return;
    std::optional<Identity> A = tensor(Tensor->Args[0]);
    std::optional<Identity> B = tensor(Tensor->Args[1]);
    if (!A || !B || !A->sameTensor(*B) || !A->Record == !B->Record)
      return;
    const Identity &Recorded = A->Record ? *A : *B;
    SnapshotUse Use;
    Use.Use = Call;
    Use.Operation = Tensor->Spelling;
    Use.Live = A->Record ? Tensor->Args[1] : Tensor->Args[0];
    Use.Recorded = A->Record ? Tensor->Args[0] : Tensor->Args[1];
    Use.Record = Recorded.Record;
    Use.Binding = Recorded.Binding;
    Use.HandleCopy = Recorded.HandleCopy;
    Use.Through = Recorded.Through.str();
    Use.Write = writeSince(Recorded, Call, Use.WriteName);
    if (!Use.Write)
      return;
    Use.State =
        Recorded.Member
            ? ("'" + Recorded.Base->getName() + "->" + Recorded.Member->getName() + "'").str()
        : Recorded.ParameterOfModule
            ? ("the parameters of '" + Recorded.Base->getName() + "'").str()
            : ("'" + Recorded.Base->getName() + "'").str();
    Uses.push_back(std::move(Use));
  });
  return Uses;
}

/// The members of this whose handles a returned record holds.
llvm::SmallVector<const FieldDecl *, 2> recordedMembers(const Expr *Returned) {
  llvm::SmallVector<const FieldDecl *, 2> Members;
  const Expr *E = Returned->IgnoreImplicit()->IgnoreParens();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = Cast->getSubExpr()->IgnoreImplicit();
  llvm::SmallVector<const Expr *, 4> Elements;
  if (const auto *List = dyn_cast<InitListExpr>(E))
    Elements.append(List->inits().begin(), List->inits().end());
  else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
           Construct && !Construct->getConstructor()->isCopyOrMoveConstructor())
    Elements.append(Construct->arg_begin(), Construct->arg_end());
  for (const Expr *Element : Elements) {
    const auto *Member =
        dyn_cast<MemberExpr>(skipHandleCopies(Element)->IgnoreParens());
    const auto *Field =
        Member ? dyn_cast<FieldDecl>(Member->getMemberDecl()) : nullptr;
    if (Field && isTensorType(Field->getType()) &&
        isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()))
      Members.push_back(Field);
  }
  return Members;
}

} // namespace

// Note [Records of an object's state]
// A method that returns a record (a struct, pair or tuple) built from its
// object's tensor members hands out the members themselves. Where another
// method of the class writes one of them in place, every record handed out
// changes with the object: the record meant as a snapshot (`Snapshot{sum_,
// count_}` before `update()` adds into the totals) records nothing. A
// method that returns one tensor member is a getter, and left alone.
std::optional<StateRecord> findStateRecord(const FunctionDecl &Function,
                                           const OperatorTable &Table) {
  const auto *Method = dyn_cast<CXXMethodDecl>(&Function);
  if (!Method || !Function.getBody() || !isRecordType(Method->getReturnType()))
    return std::nullopt;
  std::optional<StateRecord> Found;
  forEachStmt(Function.getBody(), [&](const Stmt *S) {
    const auto *Return = dyn_cast<ReturnStmt>(S);
    if (Found || !Return || !Return->getRetValue())
      return;
    for (const FieldDecl *Member : recordedMembers(Return->getRetValue()))
      for (const CXXMethodDecl *Other : Method->getParent()->methods()) {
        const FunctionDecl *Defined = Other->getDefinition();
        if (Found || !Defined || Defined == &Function ||
            isa<CXXConstructorDecl>(Defined))
          continue;
        forEachStmt(Defined->getBody(), [&](const Stmt *Inner) {
          const auto *Call = dyn_cast<CallExpr>(Inner);
          std::optional<TensorCall> Tensor =
              Call && !Found ? resolveTensorCall(Call, Table) : std::nullopt;
          if (!Tensor || !Tensor->Effect.writes())
            return;
          for (unsigned Position : Tensor->Effect.WrittenArgs) {
            const auto *Written = dyn_cast_or_null<MemberExpr>(
                Position < Tensor->Args.size()
                    ? skipHandleCopies(Tensor->Args[Position])->IgnoreParens()
                    : nullptr);
            if (Written && Written->getMemberDecl() == Member &&
                isa<CXXThisExpr>(Written->getBase()->IgnoreImplicit()))
              Found =
                  StateRecord{Return, Member, Other, Call, Tensor->Spelling};
          }
        });
      }
  });
  return Found;
}

std::vector<SnapshotUse> findSnapshotUses(const FunctionDecl &Function,
                                          const OperatorTable &Table) {
  if (!Function.getBody())
    return {};
  // Only functions with a local record of handles, or a local tensor
  // initialised with another one's handle.
  bool HasRecord = false;
  llvm::StringRef Through;
  forEachStmt(Function.getBody(), [&](const Stmt *S) {
    if (const auto *Decl = dyn_cast<DeclStmt>(S))
      for (const auto *D : Decl->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D))
          HasRecord |= isRecordType(Var->getType()) ||
                       (isTensorType(Var->getType()) && Var->getInit() &&
                        heldHandle(Var->getInit(), Through));
  });
  if (!HasRecord)
    return {};
  return Snapshots(Function, Table).find();
}

} // namespace clang::tidy::libtorch
