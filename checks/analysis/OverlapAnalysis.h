//===- OverlapAnalysis.h - which elements two views of one tensor cover ---===//
//
// Problem: the alias analysis says that two tensors share a root, not which
// of its elements they cover. `x.narrow(0, 0, n)` and `x.narrow(0, n, n)`
// share `x` and no element; `buf.slice(1, 1)` and `buf.slice(1, 0, -1)` share
// all columns but one.
//
// Simplification: an expression is followed back syntactically to its base,
// through views and through local variables that are never reassigned. Each
// step that selects along one dimension (`narrow`, `slice`, `select`,
// `operator[]`, a basic `index`, a constant element of a `split`/`chunk`/
// `unbind` list) becomes a range [start, end) whose bounds are polynomials
// over integer constants and variables that cannot change between the two
// evaluations. Two extents of one base are compared after their common prefix
// of steps, dimension by dimension. A range is assumed to be non-empty, and
// the variables in bounds to be valid non-negative indices. A write through
// basic indices, `t.index_put_({Slice(), k}, v)`, covers the view
// `t.index({Slice(), k})` (Note [Indexing writes]), so `v` is compared with
// that view.
//
// Sizes are unknown, so a bound relative to the end (an open end, a negative
// index such as `-1` or `-k`) is a polynomial in the size of its dimension,
// which cancels when two bounds of one dimension are compared: `x[:, :-k]`
// and `x[:, k:]` are the windows [0, N - k) and [k, N) of one length, shifted
// by k. A dimension may be counted from the end too (`select(-1, 0)`), and
// is then compared only with the same count from the end. A range taken
// within a range of the same dimension is placed inside it.
//
// Limitations: a view that keeps every element but reorders them
// (`transpose`, `view`, `expand`, ...) ends what can be compared: a range
// taken after it is not used; any other view (`diagonal`, `unfold`, a
// `select` along a dimension the code does not show) keeps an unknown part.
// A range with a step other than 1 is an interval that may interleave with
// the other side, so it can prove disjointness but not overlap.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_OVERLAPANALYSIS_H
#define TORCHALIAS_ANALYSIS_OVERLAPANALYSIS_H

#include "ConstructionTies.h"
#include "OperatorTable.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "llvm/ADT/FoldingSet.h"

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace clang::tidy::libtorch {

/// An integer as a polynomial over variables: {monomial -> coefficient}, the
/// empty monomial holding the constant. The size of the dimension a bound
/// belongs to is a variable too, the null declaration.
class IndexPolynomial {
public:
  IndexPolynomial() = default;
  explicit IndexPolynomial(int64_t Constant);
  explicit IndexPolynomial(const ValueDecl *Variable);
  /// N, the size of the dimension being indexed.
  static IndexPolynomial dimensionSize() { return IndexPolynomial(nullptr); }

  IndexPolynomial operator+(const IndexPolynomial &Other) const;
  IndexPolynomial operator-(const IndexPolynomial &Other) const;
  IndexPolynomial operator*(const IndexPolynomial &Other) const;
  /// The value, if the polynomial is a constant.
  std::optional<int64_t> constant() const;
  /// Whether every coefficient is negative (`-1`, `-k`, `-2 * k - 1`): with
  /// non-negative variables, an index counted from the end.
  bool isNegative() const;
  /// Whether Variable appears in it.
  bool mentions(const ValueDecl *Variable) const;
  /// Whether the dimension size appears in it.
  bool usesDimensionSize() const;
  /// The variable, if the polynomial is `v` or `-v` for one variable that is
  /// not a size.
  const ValueDecl *singleVariable() const;
  /// The polynomial with the dimension size replaced by Size.
  IndexPolynomial withDimensionSize(const IndexPolynomial &Size) const;

private:
  std::map<std::vector<const ValueDecl *>, int64_t> Terms;
};

/// One step of a view chain.
struct ViewStep {
  enum StepKind {
    Range,   ///< [Start, End) along Dim; the dimension stays.
    Point,   ///< `select(Dim, Start)`: the dimension goes.
    Element, ///< Element Start of a list of views.
    Other,   ///< Any other view; ranges after it are not compared.
  };
  StepKind Kind = Other;
  int64_t Dim = 0; ///< Negative: counted from the last dimension.
  /// [Start, End) along Dim, the dimension's size N where they count from
  /// its end; unknown when empty.
  std::optional<IndexPolynomial> Start, End;
  bool Strided = false;      ///< A slice step other than 1.
  /// An Other step that keeps only some of the elements (`diagonal`,
  /// `select` along a dimension the code does not show).
  bool Partial = false;
  llvm::FoldingSetNodeID Key; ///< Identifies the step for prefix matching.
};

/// Where a tensor expression's elements lie within its base.
struct ViewExtent {
  llvm::FoldingSetNodeID Base; ///< The base expression, profiled.
  std::vector<ViewStep> Steps;
};

/// How the elements of two views of one base relate.
enum class ExtentOverlap {
  Identical,       ///< The same elements in the same layout.
  Disjoint,        ///< Provably no common element.
  SameOrDisjoint,  ///< Two `select`s of one dimension: never partly shared.
  Contained,       ///< Provably overlapping.
  Shifted,         ///< Slices of one dimension at different constant starts.
  Unknown,         ///< Could not be decided (symbolic or unrelated bases).
};

/// A write through the C++ indexing API, `t.index_put_({...}, v)` (Note
/// [Indexing writes]).
struct IndexingWrite {
  const Expr *Indices = nullptr; ///< The braced index list.
  /// Integers and slices only: the call copies `v` into `t.index(Indices)`.
  bool Basic = false;
  /// The aten:: operator that runs, and the schema name `v` has there, under
  /// which the measured overlap facts are found: `copy_`'s `src` for basic
  /// indices, `index_put_`'s `values` otherwise.
  llvm::StringRef AtenOperator, ValuesName;
};

/// Whether Call is `t.index_put_(indices, v)` with a list of TensorIndex.
std::optional<IndexingWrite> indexingWrite(const CallExpr *Call);

/// Extents of view expressions in one function body.
class OverlapAnalysis {
public:
  OverlapAnalysis(const FunctionDecl &Function, ASTContext &AST,
                  const OperatorTable &Table);
  ~OverlapAnalysis();

  /// Compares two tensor expressions that are arguments of one call.
  ExtentOverlap compare(const Expr *A, const Expr *B) const;
  /// Compares Operand with `Self.index(Indices)`, the region a basic-index
  /// write covers.
  ExtentOverlap compareIndexed(const Expr *Self, const Expr *Indices,
                               const Expr *Operand) const;

  /// Where E's elements lie within its base (as an operand of a write).
  ViewExtent extentOf(const Expr *E) const { return extent(E, true); }

  /// The dimension along which the last comparison found a shift.
  int64_t shiftedDimension() const { return LastShiftDim; }

  /// What the function's constructions made one tensor (Note [Tensors made
  /// one at construction]); extents see through it.
  ConstructionTies &ties() const { return Ties; }
  /// Whether two roots are one tensor: the same declaration, or members
  /// tied at construction.
  bool sameTensor(const ValueDecl *A, const ValueDecl *B) const;

private:
  ViewExtent extent(const Expr *E, bool InWriteCall) const;
  bool appendSteps(const Expr *E, bool InWriteCall, ViewExtent &Out) const;
  void appendIndexSteps(const Expr *List, bool InWriteCall,
                        ViewExtent &Out) const;
  ExtentOverlap compareExtents(const ViewExtent &Left,
                               const ViewExtent &Right) const;
  std::optional<IndexPolynomial> integer(const Expr *E, bool InWriteCall) const;
  bool isFixedVariable(const VarDecl *Var) const;

  const FunctionDecl &Function;
  ASTContext &AST;
  const OperatorTable &Table;
  mutable std::unique_ptr<ExprMutationAnalyzer> Mutations;
  mutable ConstructionTies Ties;
  mutable int64_t LastShiftDim = 0;
};

} // namespace clang::tidy::libtorch

#endif
