//===- OverlapAnalysis.cpp - which elements two views of one tensor cover -===//

#include "OverlapAnalysis.h"
#include "TensorModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include <algorithm>
#include <limits>
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

bool IndexPolynomial::isNegative() const {
  return !Terms.empty() && llvm::all_of(Terms, [](const auto &Term) {
    return Term.second < 0 && !llvm::is_contained(Term.first, nullptr);
  });
}

bool IndexPolynomial::mentions(const ValueDecl *Variable) const {
  return llvm::any_of(Terms, [&](const auto &Term) {
    return llvm::is_contained(Term.first, Variable);
  });
}

bool IndexPolynomial::usesDimensionSize() const { return mentions(nullptr); }

const ValueDecl *IndexPolynomial::singleVariable() const {
  if (Terms.size() != 1)
    return nullptr;
  const auto &[Monomial, Coefficient] = *Terms.begin();
  if (Monomial.size() != 1 || Monomial.front() == nullptr ||
      (Coefficient != 1 && Coefficient != -1))
    return nullptr;
  return Monomial.front();
}

IndexPolynomial
IndexPolynomial::withDimensionSize(const IndexPolynomial &Size) const {
  IndexPolynomial Result;
  for (const auto &[Monomial, Coefficient] : Terms) {
    IndexPolynomial Term(Coefficient);
    for (const ValueDecl *Variable : Monomial)
      Term = Term * (Variable ? IndexPolynomial(Variable) : Size);
    Result = Result + Term;
  }
  return Result;
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

/// An index as a position from the start: a negative one (`-1`, `-k`) counts
/// from the end, N + index.
Bound fromStart(Bound Index) {
  if (Index && Index->isNegative())
    return IndexPolynomial::dimensionSize() + *Index;
  return Index;
}

/// A slice's end: past the size it is the size (`INT64_MAX`, the old default).
Bound sliceEnd(Bound End) {
  std::optional<int64_t> Constant = End ? End->constant() : std::nullopt;
  if (Constant && *Constant >= std::numeric_limits<int64_t>::max() / 2)
    return IndexPolynomial::dimensionSize();
  return fromStart(End);
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

/// What one side's steps after the common prefix say about each dimension:
/// the interval it keeps, keyed by the dimension of the base (negative:
/// counted from the last).
struct DimensionConstraints {
  std::map<int64_t, Interval> ByDimension;
  bool Incomplete = false; ///< Steps after an unmodelled view were ignored.
};

/// Range, taken within Outer along the same dimension, in the coordinates of
/// Outer's own base.
std::optional<Interval> within(const Interval &Outer, const Interval &Range) {
  if (Outer.Strided || !Outer.Start)
    return std::nullopt;
  Bound Length = Outer.End ? Bound(*Outer.End - *Outer.Start) : std::nullopt;
  auto Place = [&](const Bound &B) -> Bound {
    if (!B)
      return std::nullopt;
    if (B->usesDimensionSize() && !Length)
      return std::nullopt;
    return *Outer.Start + (Length ? B->withDimensionSize(*Length) : *B);
  };
  return Interval{Place(Range.Start), Place(Range.End), Range.Strided};
}

DimensionConstraints constrain(llvm::ArrayRef<ViewStep> Steps) {
  DimensionConstraints Result;
  std::vector<int64_t> Removed; // Original dimensions removed by points.
  bool RemovedFromEnd = false;  // A point counted from the last dimension.
  auto Original = [&](int64_t Current) {
    int64_t Dim = 0;
    for (int64_t Seen = 0;; ++Dim)
      if (!llvm::is_contained(Removed, Dim) && Seen++ == Current)
        return Dim;
  };
  for (size_t I = 0; I < Steps.size(); ++I) {
    const ViewStep &Step = Steps[I];
    if (Step.Kind == ViewStep::Other || Step.Kind == ViewStep::Element) {
      Result.Incomplete = I + 1 < Steps.size() ||
                          Step.Kind == ViewStep::Element || Step.Partial;
      return Result;
    }
    // After a point counted from the end, neither count is known.
    if (RemovedFromEnd) {
      Result.Incomplete = true;
      return Result;
    }
    int64_t Dim = Step.Dim < 0 ? Step.Dim : Original(Step.Dim);
    Interval Range{Step.Start, Step.End, Step.Strided};
    if (Step.Kind == ViewStep::Point) {
      Range.End = Range.Start ? Bound(*Range.Start + IndexPolynomial(int64_t(1)))
                              : std::nullopt;
      if (Step.Dim < 0)
        RemovedFromEnd = true;
      else
        Removed.push_back(Dim);
    }
    auto [It, First] = Result.ByDimension.try_emplace(Dim, Range);
    if (!First) {
      std::optional<Interval> Inner = within(It->second, Range);
      if (!Inner) {
        Result.Incomplete = true;
        return Result;
      }
      It->second = *Inner;
    }
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

/// Two windows whose starts differ by a constant (`x[1:]` and `x[:-1]`), or
/// two windows of one length that together span a fixed extent, shifted by
/// one variable against each other: `x[:, k:]` and `x[:, :-k]` (the windows
/// [k, N) and [0, N - k) of [0, N)), `narrow(1, 0, n - k)` and
/// `narrow(1, k, n - k)`. A shift of zero would make the copy pointless, so
/// the starts are taken to differ. Two windows of one length somewhere
/// inside a dimension (`narrow(0, pos, len)` and `narrow(0, 0, len)`) may as
/// well be blocks apart.
bool isShift(const Interval &A, const Interval &B) {
  if (A.Strided || B.Strided || !A.Start || !B.Start)
    return false;
  IndexPolynomial Offset = *A.Start - *B.Start;
  if (std::optional<int64_t> Constant = Offset.constant())
    return *Constant != 0;
  const ValueDecl *Shift = Offset.singleVariable();
  if (!A.End || !B.End || !Shift)
    return false;
  IndexPolynomial Length = *A.End - *A.Start;
  if ((Length - (*B.End - *B.Start)).constant() != 0)
    return false;
  IndexPolynomial Extent =
      Offset.isNegative() ? Length - Offset : Length + Offset;
  return !Extent.mentions(Shift);
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
  // A member of this (`c_`, the frame stack's channel count) read twice in
  // the writing call itself has one value there.
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
        Field && InWriteCall &&
        isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()))
      return IndexPolynomial(Field);
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
bool OverlapAnalysis::sameTensor(const ValueDecl *A, const ValueDecl *B) const {
  if (A == B)
    return true;
  const auto *FieldA = dyn_cast_or_null<FieldDecl>(A);
  const auto *FieldB = dyn_cast_or_null<FieldDecl>(B);
  return FieldA && FieldB &&
         Ties.representative(FieldA) == Ties.representative(FieldB);
}

bool OverlapAnalysis::appendSteps(const Expr *E, bool InWriteCall,
                                  ViewExtent &Out) const {
  E = skipHandleCopies(E);
  auto Base = [&] {
    // Members tied at construction are one base.
    if (const auto *Member = dyn_cast<MemberExpr>(E))
      if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
          Field && Ties.representative(Field) != Field) {
        Out.Base.AddPointer(Ties.representative(Field));
        Member->getBase()->Profile(Out.Base, AST, /*Canonical=*/true);
        return true;
      }
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

  // An element of a std::vector of views: `parts[0]`. Every element of a
  // container filled with one handle is that tensor.
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
      Operator && Operator->getOperator() == OO_Subscript &&
      Operator->getNumArgs() == 2 &&
      isTensorListType(Operator->getArg(0)->getType())) {
    appendSteps(Operator->getArg(0), InWriteCall, Out);
    if (const ValueDecl *Container = namedDecl(Operator->getArg(0));
        Container && Ties.filledBy(Container))
      return true;
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
  auto Dimension = [&](unsigned Position) -> std::optional<int64_t> {
    if (Position >= Args.size())
      return 0;
    std::optional<IndexPolynomial> Dim = integer(Args[Position], InWriteCall);
    return Dim ? Dim->constant() : std::nullopt;
  };
  // Views that reorder or reshape keep every element; any other view this
  // does not model keeps an unknown part.
  Step.Partial = !keepsEveryElement(*Tensor);

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
    Step.End = Args.size() <= 3 || isAbsent(Args[3])
                   ? Bound(IndexPolynomial::dimensionSize())
                   : sliceEnd(integer(Args[3], InWriteCall));
    if (Args.size() > 4) {
      std::optional<IndexPolynomial> Stride = integer(Args[4], InWriteCall);
      Step.Strided = !Stride || Stride->constant() != 1;
    }
  } else if (Name == "select" && Args.size() == 3 && Dimension(1)) {
    Step.Kind = ViewStep::Point;
    Step.Dim = *Dimension(1);
    Step.Start = fromStart(integer(Args[2], InWriteCall));
  } else if (Name == "operator[]" && Args.size() == 2 &&
             !isTensorType(Args[1]->getType())) {
    Step.Kind = ViewStep::Point;
    Step.Start = fromStart(integer(Args[1], InWriteCall));
  } else if (Name == "index" && Args.size() == 2) {
    appendIndexSteps(Args[1], InWriteCall, Out);
    return true;
  }
  Out.Steps.push_back(std::move(Step));
  return true;
}


/// `"..."` or `torch::indexing::Ellipsis` in an index list.
bool isEllipsis(const Expr *E) {
  E = E->IgnoreImplicit()->IgnoreParens();
  while (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (Construct->getNumArgs() != 1)
      break;
    E = Construct->getArg(0)->IgnoreImplicit()->IgnoreParens();
  }
  if (const auto *Text = dyn_cast<StringLiteral>(E))
    return Text->getString() == "...";
  const auto *Record = E->getType()->getAsCXXRecordDecl();
  return Record && Record->getIdentifier() &&
         Record->getName() == "EllipsisIndexType";
}

// Each integer removes the current dimension, each Slice keeps it. After an
// Ellipsis, one last index counts from the end (`{"...", 0}` is
// `select(-1, 0)`).
void OverlapAnalysis::appendIndexSteps(const Expr *List, bool InWriteCall,
                                       ViewExtent &Out) const {
  llvm::SmallVector<const Expr *, 4> Elements = indexElements(List);
  int64_t Current = 0;
  for (size_t I = 0; I < Elements.size(); ++I) {
    const Expr *Element = Elements[I];
    ViewStep Index;
    Element->Profile(Index.Key, AST, true);
    if (isEllipsis(Element) && I + 2 == Elements.size()) {
      Current = -1;
      continue;
    }
    if (const CXXConstructExpr *Slice = sliceConstruction(Element)) {
      Index.Kind = ViewStep::Range;
      Index.Dim = Current++;
      unsigned N = Slice->getNumArgs();
      Index.Start = N < 1 || isAbsent(Slice->getArg(0))
                        ? Bound(IndexPolynomial(int64_t(0)))
                        : fromStart(integer(Slice->getArg(0), InWriteCall));
      Index.End = N < 2 || isAbsent(Slice->getArg(1))
                      ? Bound(IndexPolynomial::dimensionSize())
                      : sliceEnd(integer(Slice->getArg(1), InWriteCall));
      if (N > 2 && !isAbsent(Slice->getArg(2))) {
        std::optional<IndexPolynomial> Stride =
            integer(Slice->getArg(2), InWriteCall);
        Index.Strided = !Stride || Stride->constant() != 1;
      }
    } else if (stripIntegerWrappers(Element)->getType()->isIntegerType()) {
      Index.Kind = ViewStep::Point;
      Index.Dim = Current;
      Index.Start = fromStart(integer(Element, InWriteCall));
    } else {
      // None, an Ellipsis with more after it, a bool, a tensor: what follows
      // is not compared, and what this keeps is not known.
      Index.Kind = ViewStep::Other;
      Index.Partial = I + 1 < Elements.size() || !isa<CXXConstructExpr>(Element);
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
  // A dimension counted from the end may be any one counted from the start.
  auto CountsFromEnd = [](const DimensionConstraints &C) {
    return llvm::any_of(C.ByDimension, [](const auto &D) { return D.first < 0; });
  };
  auto CountsFromStart = [](const DimensionConstraints &C) {
    return llvm::any_of(C.ByDimension, [](const auto &D) { return D.first >= 0; });
  };
  if ((CountsFromEnd(OfLeft) || CountsFromEnd(OfRight)) &&
      (CountsFromStart(OfLeft) || CountsFromStart(OfRight)))
    return ExtentOverlap::Unknown;
  bool AllIntersect = true;
  std::optional<int64_t> ShiftDim;
  for (const auto &[Dim, L] : OfLeft.ByDimension) {
    auto Other = OfRight.ByDimension.find(Dim);
    if (Other == OfRight.ByDimension.end())
      continue;
    const Interval &R = Other->second;
    if (provablyDisjoint(L, R))
      return ExtentOverlap::Disjoint;
    if (provablyIntersecting(L, R))
      continue;
    AllIntersect = false;
    if (isShift(L, R))
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
