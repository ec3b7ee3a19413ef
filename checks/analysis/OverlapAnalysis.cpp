//===- OverlapAnalysis.cpp - which elements two views of one tensor cover -===//

#include "OverlapAnalysis.h"
#include "TensorModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include <algorithm>
#include <map>

namespace clang::tidy::libtorch {

IndexPolynomial::IndexPolynomial(int64_t Constant) {
  if (Constant != 0)
    Terms[{}] = Constant;
}

IndexPolynomial::IndexPolynomial(const ValueDecl *Variable) {
  Terms[{Variable}] = 1;
}

IndexPolynomial IndexPolynomial::operator+(const IndexPolynomial &Other) const {
  IndexPolynomial Sum = *this;
  for (const auto &[Monomial, Coefficient] : Other.Terms)
    if ((Sum.Terms[Monomial] += Coefficient) == 0)
      Sum.Terms.erase(Monomial);
  return Sum;
}

IndexPolynomial IndexPolynomial::operator-(const IndexPolynomial &Other) const {
  return *this + Other * IndexPolynomial(int64_t(-1));
}

IndexPolynomial IndexPolynomial::operator*(const IndexPolynomial &Other) const {
  IndexPolynomial Product;
  for (const auto &[LeftMonomial, Left] : Terms)
    for (const auto &[RightMonomial, Right] : Other.Terms) {
      std::vector<const ValueDecl *> Monomial = LeftMonomial;
      Monomial.insert(Monomial.end(), RightMonomial.begin(), RightMonomial.end());
      std::sort(Monomial.begin(), Monomial.end());
      if ((Product.Terms[Monomial] += Left * Right) == 0)
        Product.Terms.erase(Monomial);
    }
  return Product;
}

std::optional<int64_t> IndexPolynomial::constant() const {
  if (Terms.empty())
    return 0;
  if (Terms.size() == 1 && Terms.begin()->first.empty())
    return Terms.begin()->second;
  return std::nullopt;
}

namespace {

using Bound = std::optional<IndexPolynomial>;

bool provablyLessOrEqual(const Bound &A, const Bound &B) {
  if (!A || !B)
    return false;
  std::optional<int64_t> Difference = (*B - *A).constant();
  return Difference && *Difference >= 0;
}

bool provablyLess(const Bound &A, const Bound &B) {
  if (!A || !B)
    return false;
  std::optional<int64_t> Difference = (*B - *A).constant();
  return Difference && *Difference > 0;
}

bool provablyEqual(const Bound &A, const Bound &B) {
  return provablyLessOrEqual(A, B) && provablyLessOrEqual(B, A);
}

/// A negative constant counts from the end of the dimension: unknown here.
Bound fromStart(Bound Index) {
  if (Index) {
    std::optional<int64_t> Constant = Index->constant();
    if (Constant && *Constant < 0)
      return std::nullopt;
  }
  return Index;
}

const Expr *stripIntegerWrappers(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(E)) {
      E = Default->getExpr();
      continue;
    }
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    // c10::optional<int64_t>, SymInt, TensorIndex: one-argument wrappers.
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
        Construct && Construct->getNumArgs() == 1) {
      E = Construct->getArg(0);
      continue;
    }
    return E;
  }
  return E;
}

/// `c10::nullopt`, `None` or an empty optional: an argument left out.
bool isAbsent(const Expr *E) {
  E = stripIntegerWrappers(E);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 0;
  const auto *Record = E->getType()->getAsCXXRecordDecl();
  return Record && Record->getIdentifier() && Record->getName() == "nullopt_t";
}

const CXXConstructExpr *sliceConstruction(const Expr *E) {
  E = E->IgnoreImplicit()->IgnoreParens();
  while (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const auto *Record = Construct->getType()->getAsCXXRecordDecl();
    if (Record && Record->getIdentifier() && Record->getName() == "Slice")
      return Construct;
    if (Construct->getNumArgs() != 1)
      return nullptr;
    E = Construct->getArg(0)->IgnoreImplicit()->IgnoreParens();
  }
  return nullptr;
}

/// The elements of a braced index list, `{Slice(), 0}`.
llvm::SmallVector<const Expr *, 4> indexElements(const Expr *List) {
  const Expr *E = List->IgnoreImplicit()->IgnoreParens();
  if (const auto *Std = dyn_cast<CXXStdInitializerListExpr>(E))
    E = Std->getSubExpr()->IgnoreImplicit();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() == 1)
    return indexElements(Construct->getArg(0));
  llvm::SmallVector<const Expr *, 4> Elements;
  if (const auto *Init = dyn_cast<InitListExpr>(E))
    Elements.append(Init->inits().begin(), Init->inits().end());
  return Elements;
}

struct Interval {
  Bound Start, End;
  bool Strided = false;
};

/// What one side's steps after the common prefix say about each dimension.
struct DimensionConstraints {
  std::map<unsigned, std::vector<Interval>> ByDimension;
  bool Incomplete = false; ///< Steps after an unmodelled view were ignored.
};

DimensionConstraints constrain(llvm::ArrayRef<ViewStep> Steps) {
  DimensionConstraints Result;
  std::vector<unsigned> Removed; // Original dimensions removed by points.
  auto Original = [&](unsigned Current) {
    unsigned Dim = 0;
    for (unsigned Seen = 0;; ++Dim)
      if (!llvm::is_contained(Removed, Dim) && Seen++ == Current)
        return Dim;
  };
  for (size_t I = 0; I < Steps.size(); ++I) {
    const ViewStep &Step = Steps[I];
    if (Step.Kind == ViewStep::Other || Step.Kind == ViewStep::Element) {
      Result.Incomplete = I + 1 < Steps.size() || Step.Kind == ViewStep::Element;
      return Result;
    }
    unsigned Dim = Original(Step.Dim);
    Interval Range{Step.Start, Step.End, Step.Strided};
    if (Step.Kind == ViewStep::Point) {
      Range.Start = fromStart(Step.Start);
      Range.End = Range.Start ? Bound(*Range.Start + IndexPolynomial(int64_t(1)))
                              : std::nullopt;
      Removed.push_back(Dim);
    }
    Result.ByDimension[Dim].push_back(Range);
  }
  return Result;
}

bool provablyDisjoint(const Interval &A, const Interval &B) {
  return provablyLessOrEqual(A.End, B.Start) ||
         provablyLessOrEqual(B.End, A.Start);
}

/// With non-empty ranges, one start inside the other range is an overlap.
bool provablyIntersecting(const Interval &A, const Interval &B) {
  if (A.Strided || B.Strided)
    return false;
  return (provablyLessOrEqual(A.Start, B.Start) && provablyLess(B.Start, A.End)) ||
         (provablyLessOrEqual(B.Start, A.Start) && provablyLess(A.Start, B.End));
}

bool isShift(const Interval &A, const Interval &B) {
  if (A.Strided || B.Strided || !A.Start || !B.Start)
    return false;
  std::optional<int64_t> Difference = (*A.Start - *B.Start).constant();
  return Difference && *Difference != 0;
}

bool sameStep(const ViewStep &A, const ViewStep &B) {
  if (A.Kind != B.Kind || A.Dim != B.Dim || A.Strided != B.Strided)
    return false;
  if (A.Kind == ViewStep::Other)
    return A.Key == B.Key;
  auto Same = [](const Bound &X, const Bound &Y) {
    return (!X && !Y) || provablyEqual(X, Y);
  };
  // Two unknown bounds are the same only if they were written the same way.
  return Same(A.Start, B.Start) && Same(A.End, B.End) && A.Key == B.Key;
}

} // namespace

OverlapAnalysis::OverlapAnalysis(const FunctionDecl &Function, ASTContext &AST,
                                 const OperatorTable &Table)
    : Function(Function), AST(AST), Table(Table) {}

OverlapAnalysis::~OverlapAnalysis() = default;

bool OverlapAnalysis::isFixedVariable(const VarDecl *Var) const {
  if (!Var->hasLocalStorage() || !Function.getBody())
    return false;
  if (!Mutations)
    Mutations = std::make_unique<ExprMutationAnalyzer>(*Function.getBody(), AST);
  return !Mutations->isMutated(Var);
}

std::optional<IndexPolynomial>
OverlapAnalysis::integer(const Expr *E, bool InWriteCall) const {
  E = stripIntegerWrappers(E);
  if (!E || E->isValueDependent() || !E->getType()->isIntegerType())
    return std::nullopt;
  Expr::EvalResult Result;
  if (E->EvaluateAsInt(Result, AST))
    return IndexPolynomial(Result.Val.getInt().getExtValue());
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    // A variable read in the writing call itself has one value there; one
    // read in a view variable's initializer must not change before the call.
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && (InWriteCall || isFixedVariable(Var)))
      return IndexPolynomial(Var);
    return std::nullopt;
  }
  if (const auto *Unary = dyn_cast<UnaryOperator>(E);
      Unary && Unary->getOpcode() == UO_Minus) {
    if (auto Operand = integer(Unary->getSubExpr(), InWriteCall))
      return IndexPolynomial(int64_t(0)) - *Operand;
    return std::nullopt;
  }
  const auto *Binary = dyn_cast<BinaryOperator>(E);
  if (!Binary)
    return std::nullopt;
  auto Left = integer(Binary->getLHS(), InWriteCall);
  auto Right = integer(Binary->getRHS(), InWriteCall);
  if (!Left || !Right)
    return std::nullopt;
  switch (Binary->getOpcode()) {
  case BO_Add:
    return *Left + *Right;
  case BO_Sub:
    return *Left - *Right;
  case BO_Mul:
    return *Left * *Right;
  default:
    return std::nullopt;
  }
}

ViewExtent OverlapAnalysis::extent(const Expr *E, bool InWriteCall) const {
  ViewExtent Result;
  appendSteps(E, InWriteCall, Result);
  return Result;
}

// Note [Following view variables]
// `auto lo = x.narrow(0, 0, n); lo.add_(hi);` compares the initializers of
// `lo` and `hi`. That is only right while the variable still holds its
// initializer, so only local variables that are never modified (assigned,
// passed by non-const reference) are followed; the others are bases of their
// own, which the comparison cannot relate to anything (Unknown).
bool OverlapAnalysis::appendSteps(const Expr *E, bool InWriteCall,
                                  ViewExtent &Out) const {
  E = skipHandleCopies(E);
  auto Base = [&] {
    E->Profile(Out.Base, AST, /*Canonical=*/true);
    return true;
  };
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && !isa<ParmVarDecl>(Var) && Var->getInit() &&
        !Var->isInitCapture() && !Var->isCXXForRangeDecl() &&
        isFixedVariable(Var))
      return appendSteps(Var->getInit(), false, Out);
    return Base();
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return Base();

  // An element of a std::vector of views: `parts[0]`.
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
      Operator && Operator->getOperator() == OO_Subscript &&
      Operator->getNumArgs() == 2 &&
      isTensorListType(Operator->getArg(0)->getType())) {
    appendSteps(Operator->getArg(0), InWriteCall, Out);
    ViewStep Step;
    Step.Kind = ViewStep::Element;
    Step.Start = integer(Operator->getArg(1), InWriteCall);
    Step.Key.AddString("[]");
    Operator->getArg(1)->Profile(Step.Key, AST, true);
    Out.Steps.push_back(std::move(Step));
    return true;
  }

  std::optional<TensorCall> Tensor = resolveTensorCall(Call, Table);
  if (!Tensor || Tensor->Effect.ResultAliases != 0u || Tensor->Args.empty() ||
      Tensor->Effect.writes())
    return Base();
  appendSteps(Tensor->Args[0], InWriteCall, Out);
  // `detach()`, `data()` and `alias()` cover the same elements.
  if (Tensor->Special != SpecialOperation::None || Tensor->Spelling == "alias")
    return true;

  llvm::ArrayRef<const Expr *> Args = Tensor->Args;
  llvm::StringRef Name = Tensor->Spelling;
  ViewStep Step;
  Step.Key.AddString(Name);
  for (const Expr *Arg : Args.drop_front())
    Arg->Profile(Step.Key, AST, true);
  auto Dimension = [&](unsigned Position) -> std::optional<unsigned> {
    if (Position >= Args.size())
      return 0u;
    std::optional<IndexPolynomial> Dim = integer(Args[Position], InWriteCall);
    std::optional<int64_t> Constant = Dim ? Dim->constant() : std::nullopt;
    if (!Constant || *Constant < 0)
      return std::nullopt;
    return unsigned(*Constant);
  };

  if (Name == "narrow" && Args.size() == 4 && Dimension(1)) {
    Step.Kind = ViewStep::Range;
    Step.Dim = *Dimension(1);
    Step.Start = fromStart(integer(Args[2], InWriteCall));
    std::optional<IndexPolynomial> Length = integer(Args[3], InWriteCall);
    if (Step.Start && Length)
      Step.End = *Step.Start + *Length;
  } else if (Name == "slice" && Dimension(1)) {
    Step.Kind = ViewStep::Range;
    Step.Dim = *Dimension(1);
    Step.Start = Args.size() <= 2 || isAbsent(Args[2])
                     ? Bound(IndexPolynomial(int64_t(0)))
                     : fromStart(integer(Args[2], InWriteCall));
    if (Args.size() > 3 && !isAbsent(Args[3]))
      Step.End = fromStart(integer(Args[3], InWriteCall));
    if (Args.size() > 4) {
      std::optional<IndexPolynomial> Stride = integer(Args[4], InWriteCall);
      Step.Strided = !Stride || Stride->constant() != 1;
    }
  } else if (Name == "select" && Args.size() == 3 && Dimension(1)) {
    Step.Kind = ViewStep::Point;
    Step.Dim = *Dimension(1);
    Step.Start = integer(Args[2], InWriteCall);
  } else if (Name == "operator[]" && Args.size() == 2 &&
             !isTensorType(Args[1]->getType())) {
    Step.Kind = ViewStep::Point;
    Step.Start = integer(Args[1], InWriteCall);
  } else if (Name == "index" && Args.size() == 2) {
    appendIndexSteps(Args[1], InWriteCall, Out);
    return true;
  }
  Out.Steps.push_back(std::move(Step));
  return true;
}


// Each integer removes the current dimension, each Slice keeps it.
void OverlapAnalysis::appendIndexSteps(const Expr *List, bool InWriteCall,
                                       ViewExtent &Out) const {
  unsigned Current = 0;
  for (const Expr *Element : indexElements(List)) {
    ViewStep Index;
    Element->Profile(Index.Key, AST, true);
    if (const CXXConstructExpr *Slice = sliceConstruction(Element)) {
      Index.Kind = ViewStep::Range;
      Index.Dim = Current++;
      unsigned N = Slice->getNumArgs();
      Index.Start = N < 1 || isAbsent(Slice->getArg(0))
                        ? Bound(IndexPolynomial(int64_t(0)))
                        : fromStart(integer(Slice->getArg(0), InWriteCall));
      if (N > 1 && !isAbsent(Slice->getArg(1)))
        Index.End = fromStart(integer(Slice->getArg(1), InWriteCall));
      if (N > 2 && !isAbsent(Slice->getArg(2))) {
        std::optional<IndexPolynomial> Stride =
            integer(Slice->getArg(2), InWriteCall);
        Index.Strided = !Stride || Stride->constant() != 1;
      }
    } else if (stripIntegerWrappers(Element)->getType()->isIntegerType()) {
      Index.Kind = ViewStep::Point;
      Index.Dim = Current;
      Index.Start = integer(Element, InWriteCall);
    } else {
      Index.Kind = ViewStep::Other; // None, Ellipsis, a bool, a tensor.
      Out.Steps.push_back(std::move(Index));
      return;
    }
    Out.Steps.push_back(std::move(Index));
  }
}

// Note [Indexing writes]
// `t.index_put_({Slice(), k}, v)` is the C++ indexing API, not the aten::
// operator: with basic indices only (integers and slices), libtorch takes the
// view `t.index({Slice(), k})` and copies `v` into it (torch::indexing's
// set_item, then copy_). So `v` is compared with that view, not with all of
// `t`, and the facts that apply are copy_'s. With a tensor among the indices
// it dispatches to aten::index_put_ on `t`, with `v` as `values`.
// runtime/test/overlap_semantics_facts_test.cpp checks both against the
// library.
std::optional<IndexingWrite> indexingWrite(const CallExpr *Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Member || !Callee || Callee->getNumParams() != 2 || Call->getNumArgs() != 2)
    return std::nullopt;
  const auto *Record = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      Callee->getParamDecl(0)->getType().getNonReferenceType()->getAsCXXRecordDecl());
  if (!Record || Record->getTemplateArgs().size() < 1 ||
      Record->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return std::nullopt;
  const auto *Element =
      Record->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  if (!Element || !Element->getIdentifier() ||
      Element->getName() != "TensorIndex")
    return std::nullopt;
  IndexingWrite Result;
  Result.Indices = Call->getArg(0);
  llvm::SmallVector<const Expr *, 4> Elements = indexElements(Result.Indices);
  Result.Basic = !Elements.empty() && llvm::none_of(Elements, [](const Expr *E) {
    return !sliceConstruction(E) &&
           !stripIntegerWrappers(E)->getType()->isIntegerType();
  });
  Result.AtenOperator = Result.Basic ? "copy_" : "index_put_";
  Result.ValuesName = Result.Basic ? "src" : "values";
  return Result;
}

ExtentOverlap OverlapAnalysis::compareIndexed(const Expr *Self,
                                              const Expr *Indices,
                                              const Expr *Operand) const {
  ViewExtent Region = extent(Self, true);
  appendIndexSteps(Indices, true, Region);
  return compareExtents(Region, extent(Operand, true));
}

ExtentOverlap OverlapAnalysis::compare(const Expr *A, const Expr *B) const {
  return compareExtents(extent(A, true), extent(B, true));
}

ExtentOverlap OverlapAnalysis::compareExtents(const ViewExtent &Left,
                                              const ViewExtent &Right) const {
  if (Left.Base != Right.Base)
    return ExtentOverlap::Unknown;
  size_t Common = 0;
  while (Common < Left.Steps.size() && Common < Right.Steps.size() &&
         sameStep(Left.Steps[Common], Right.Steps[Common]))
    ++Common;
  llvm::ArrayRef<ViewStep> RestLeft = llvm::ArrayRef(Left.Steps).drop_front(Common);
  llvm::ArrayRef<ViewStep> RestRight =
      llvm::ArrayRef(Right.Steps).drop_front(Common);
  if (RestLeft.empty() && RestRight.empty())
    return ExtentOverlap::Identical;

  // Different elements of one list of views, or different rows.
  if (!RestLeft.empty() && !RestRight.empty() &&
      RestLeft.front().Kind == RestRight.front().Kind &&
      RestLeft.front().Dim == RestRight.front().Dim) {
    const ViewStep &L = RestLeft.front(), &R = RestRight.front();
    if (L.Kind == ViewStep::Element || L.Kind == ViewStep::Point) {
      std::optional<int64_t> Difference =
          L.Start && R.Start ? (*L.Start - *R.Start).constant() : std::nullopt;
      if (Difference && *Difference != 0)
        return ExtentOverlap::Disjoint;
      if (L.Kind == ViewStep::Point && RestLeft.size() == 1 &&
          RestRight.size() == 1)
        return ExtentOverlap::SameOrDisjoint;
    }
  }

  DimensionConstraints OfLeft = constrain(RestLeft);
  DimensionConstraints OfRight = constrain(RestRight);
  bool AllIntersect = true;
  std::optional<unsigned> ShiftDim;
  for (const auto &[Dim, Ranges] : OfLeft.ByDimension) {
    auto Other = OfRight.ByDimension.find(Dim);
    if (Other == OfRight.ByDimension.end())
      continue;
    for (const Interval &L : Ranges)
      for (const Interval &R : Other->second)
        if (provablyDisjoint(L, R))
          return ExtentOverlap::Disjoint;
    if (Ranges.size() != 1 || Other->second.size() != 1) {
      AllIntersect = false;
      continue;
    }
    if (provablyIntersecting(Ranges.front(), Other->second.front()))
      continue;
    AllIntersect = false;
    if (isShift(Ranges.front(), Other->second.front()))
      ShiftDim = Dim;
  }
  if (OfLeft.Incomplete || OfRight.Incomplete)
    return ExtentOverlap::Unknown;
  if (AllIntersect)
    return ExtentOverlap::Contained;
  if (ShiftDim) {
    LastShiftDim = *ShiftDim;
    return ExtentOverlap::Shifted;
  }
  return ExtentOverlap::Unknown;
}

} // namespace clang::tidy::libtorch
