//===- ConstructionTies.cpp - tensors one construction made into one -----===//

#include "ConstructionTies.h"
#include "TensorModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/FoldingSet.h"

namespace clang::tidy::libtorch {

// Note [Tensors made one at construction]
// A handle copied into two places is one tensor in both. The places that a
// construction fills, and nothing refills later, stay one tensor: the
// elements of `std::vector<Tensor>(n, t)`, and two members a constructor
// binds to one variable. Whether something refills them is read from every
// statement that can reach them (the function of a local container, the
// methods of a member's class); anything that may give a container other
// elements, or a member another tensor, ends the fact. Only variables and
// members are sources: `torch::zeros({d})` written twice makes two tensors.

namespace {

/// `v[i]`, `v.at(i)`, `v.front()`, `v.back()`: the container.
const ValueDecl *containerOfElement(const Expr *E) {
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
      Operator && Operator->getOperator() == OO_Subscript &&
      Operator->getNumArgs() == 2)
    return namedDecl(Operator->getArg(0));
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    static constexpr llvm::StringLiteral Accessors[] = {"at", "front", "back"};
    if (Method && Method->getIdentifier() &&
        llvm::is_contained(Accessors, Method->getName()))
      return namedDecl(Member->getImplicitObjectArgument());
  }
  return nullptr;
}

/// `std::vector<Tensor> v(n, t)`: the construction, or null.
const CXXConstructExpr *fillConstruction(const Expr *Init) {
  const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(
      Init ? Init->IgnoreImplicit() : nullptr);
  if (!Construct || Construct->getNumArgs() < 2 ||
      !isTensorListType(Construct->getType()) ||
      !Construct->getArg(0)->getType()->isIntegerType() ||
      !isTensorType(Construct->getArg(1)->getType()) ||
      isa<CXXDefaultArgExpr>(Construct->getArg(1)))
    return nullptr;
  return Construct;
}

/// Whether S may give Container other elements, or another value: it
/// assigns the container, an element of it or a reference to an element
/// (a range-for variable over it), calls a method that adds or removes
/// elements, or passes it by non-const reference.
bool refills(const Stmt *S, const ValueDecl *Container,
             const llvm::DenseMap<const VarDecl *, const Expr *> &Ranges) {
  auto IsContainer = [&](const Expr *E) { return namedDecl(E) == Container; };
  if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
      Assign && Assign->getOperator() == OO_Equal &&
      Assign->getNumArgs() == 2) {
    const auto *Method =
        dyn_cast_or_null<CXXMethodDecl>(Assign->getDirectCallee());
    // `t[i] = v` on a tensor element writes it; `v[i] = t` rebinds.
    if (Method && Method->getRefQualifier() == RQ_RValue)
      return false;
    const Expr *Lhs = Assign->getArg(0);
    if (IsContainer(Lhs) || containerOfElement(Lhs) == Container)
      return true;
    if (const auto *Var = dyn_cast_or_null<VarDecl>(namedDecl(Lhs)))
      if (auto Range = Ranges.find(Var); Range != Ranges.end())
        return IsContainer(Range->second);
    return false;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *Method = Member->getMethodDecl();
    static constexpr llvm::StringLiteral Refilling[] = {
        "push_back", "emplace_back", "push_front", "emplace_front",
        "insert",    "emplace",      "assign",     "resize",
        "clear",     "erase",        "swap",       "pop_back"};
    return Method && Method->getIdentifier() &&
           llvm::is_contained(Refilling, Method->getName()) &&
           IsContainer(Member->getImplicitObjectArgument());
  }
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || isa<CXXOperatorCallExpr>(Call))
      return false;
    for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
         ++I) {
      QualType Param = Callee->getParamDecl(I)->getType();
      if (IsContainer(Call->getArg(I)) && Param->isLValueReferenceType() &&
          !Param.getNonReferenceType().isConstQualified())
        return true;
    }
  }
  return false;
}

bool refilledIn(const Stmt *Body, const ValueDecl *Container) {
  if (!Body)
    return false;
  llvm::DenseMap<const VarDecl *, const Expr *> Ranges = rangeForInits(Body);
  bool Found = false;
  forEachStmt(Body, [&](const Stmt *S) {
    Found = Found || refills(S, Container, Ranges);
  });
  return Found;
}

/// The bodies of the methods of Record that have one here.
llvm::SmallVector<const Stmt *, 8> methodBodies(const CXXRecordDecl *Record) {
  llvm::SmallVector<const Stmt *, 8> Bodies;
  for (const CXXMethodDecl *Method : Record->methods())
    if (const FunctionDecl *Defined = Method->getDefinition())
      Bodies.push_back(Defined->getBody());
  return Bodies;
}

/// The tensor a binding hands over: `register_buffer("b", t)` hands `t`.
const Expr *boundValue(const Expr *E, bool &Parameter) {
  E = skipHandleCopies(E);
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E))
    if (const CXXMethodDecl *Method = Call->getMethodDecl();
        Method && Method->getIdentifier() && Call->getNumArgs() >= 2 &&
        (Method->getName() == "register_buffer" ||
         Method->getName() == "register_parameter")) {
      Parameter = Method->getName() == "register_parameter";
      return skipHandleCopies(Call->getArg(1));
    }
  return E;
}

/// A source that names one tensor: a variable or a member, not a call.
bool isNamedSource(const Expr *E) {
  E = E->IgnoreParens();
  return isa<DeclRefExpr>(E) ||
         (isa<MemberExpr>(E) && isTensorType(E->getType()));
}

} // namespace

llvm::SmallVector<MemberBinding, 2> memberBindings(const FieldDecl *Field) {
  llvm::SmallVector<MemberBinding, 2> Found;
  const auto *Owner = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!Owner)
    return Found;
  if (Field->hasInClassInitializer() && Field->getInClassInitializer())
    Found.push_back({Field->getInClassInitializer(), nullptr});
  for (const CXXConstructorDecl *Ctor : Owner->ctors()) {
    const auto *Defined =
        dyn_cast_or_null<CXXConstructorDecl>(Ctor->getDefinition());
    if (!Defined)
      continue;
    for (const CXXCtorInitializer *Init : Defined->inits())
      if (Init->getMember() == Field && Init->isWritten())
        Found.push_back({Init->getInit(), Defined});
    forEachStmt(Defined->getBody(), [&](const Stmt *S) {
      const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
      if (Assign && Assign->getOperator() == OO_Equal &&
          Assign->getNumArgs() == 2 && namedDecl(Assign->getArg(0)) == Field)
        Found.push_back({Assign->getArg(1), Defined});
    });
  }
  return Found;
}

const Expr *ConstructionTies::filledBy(const ValueDecl *Container) {
  if (auto It = Fills.find(Container); It != Fills.end())
    return It->second;
  const Expr *Fill = nullptr;
  if (const auto *Var = dyn_cast<VarDecl>(Container)) {
    const auto *Function =
        dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
    if (Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) && Function &&
        !Var->getType()->isReferenceType())
      if (const CXXConstructExpr *Construct = fillConstruction(Var->getInit()))
        if (!refilledIn(Function->getBody(), Var))
          Fill = Construct;
  } else if (const auto *Field = dyn_cast<FieldDecl>(Container)) {
    llvm::SmallVector<MemberBinding, 2> Bindings = memberBindings(Field);
    const auto *Owner = dyn_cast<CXXRecordDecl>(Field->getParent());
    if (Owner && Bindings.size() == 1)
      if (const CXXConstructExpr *Construct =
              fillConstruction(Bindings.front().Value))
        if (llvm::none_of(methodBodies(Owner), [&](const Stmt *Body) {
              return refilledIn(Body, Field);
            }))
          Fill = Construct;
  }
  return Fills[Container] = Fill;
}

std::optional<MemberTie> ConstructionTies::tieOf(const FieldDecl *Member) {
  if (auto It = Ties.find(Member); It != Ties.end())
    return It->second;
  std::optional<MemberTie> Result;
  const auto *Owner = dyn_cast<CXXRecordDecl>(Member->getParent());
  const ASTContext &AST = Member->getASTContext();
  // A member bound once, in a constructor, to a variable or a member.
  struct Sole {
    MemberBinding Binding;
    const Expr *Value = nullptr;
    bool Parameter = false;
  };
  auto SoleBinding = [&](const FieldDecl *Field) -> std::optional<Sole> {
    llvm::SmallVector<MemberBinding, 2> Bindings = memberBindings(Field);
    if (Bindings.size() != 1 || !Bindings.front().In)
      return std::nullopt;
    Sole Result{Bindings.front()};
    Result.Value = boundValue(Result.Binding.Value, Result.Parameter);
    if (!isNamedSource(Result.Value))
      return std::nullopt;
    return Result;
  };
  auto AssignedElsewhere = [&](const FieldDecl *Field) {
    return llvm::any_of(Owner->methods(), [&](const CXXMethodDecl *Method) {
      const FunctionDecl *Defined = Method->getDefinition();
      bool Found = false;
      if (Defined && !isa<CXXConstructorDecl>(Defined))
        forEachStmt(Defined->getBody(), [&](const Stmt *S) {
          const auto *Assign = dyn_cast<CXXOperatorCallExpr>(S);
          Found = Found || (Assign && Assign->getOperator() == OO_Equal &&
                            Assign->getNumArgs() == 2 &&
                            namedDecl(Assign->getArg(0)) == Field);
        });
      return Found;
    });
  };
  std::optional<Sole> Mine;
  if (Owner && isTensorType(Member->getType()))
    Mine = SoleBinding(Member);
  if (Mine && !AssignedElsewhere(Member)) {
    llvm::FoldingSetNodeID Key;
    Mine->Value->Profile(Key, AST, /*Canonical=*/true);
    for (const FieldDecl *Other : Owner->fields()) {
      if (Other == Member || !isTensorType(Other->getType()))
        continue;
      std::optional<Sole> Theirs = SoleBinding(Other);
      if (!Theirs || Theirs->Binding.In != Mine->Binding.In ||
          AssignedElsewhere(Other))
        continue;
      llvm::FoldingSetNodeID OtherKey;
      Theirs->Value->Profile(OtherKey, AST, /*Canonical=*/true);
      if (Key != OtherKey)
        continue;
      Result = MemberTie{Other, Mine->Binding.Value, Theirs->Binding.Value,
                         Mine->Value, Mine->Parameter};
      break;
    }
  }
  return Ties[Member] = Result;
}

const FieldDecl *ConstructionTies::representative(const FieldDecl *Member) {
  const FieldDecl *First = Member;
  if (std::optional<MemberTie> Tie = tieOf(Member))
    if (Tie->Other->getFieldIndex() < Member->getFieldIndex())
      First = Tie->Other;
  return First;
}

} // namespace clang::tidy::libtorch
