//===- DatasetViews.h - examples that are views of a dataset -*- C++ -*-===//
//
// Problem: a torch::data dataset whose get() returns views of its own members
// (`return {images_[i], labels_[i]};`) hands out examples that share storage
// with the dataset. Writing such an example in place, or a batch of them
// when the DataLoader stacks nothing, rewrites the dataset, and the next epoch
// reads the data already written.
//
// Approach: a written tensor is followed back through views, references and
// the `data`/`target` members of a torch::data::Example to the example, and
// the example to where it came from: `ds.get(i)`, an element of a batch, a
// batch of a range-for over `*loader` whose loader type names the dataset
// (`StatelessDataLoader<Dataset, Sampler>`). The dataset's get() is then read:
// its returned tensors are evaluated by the alias analysis, and one that is a
// member of the dataset, or a definite view of one, makes the write a bug.
//
// Simplifications, and what they cost:
// - A loader of a MapDataset (any transform, Stack<> included) is taken to
//   make fresh batches; a transform that returns its input is missed.
// - A may-alias step (`to()`, `reshape()`, `contiguous()`) on either side is
//   taken to copy, since it usually converts (`images_[i].to(kFloat)`).
// - A transform is followed when it is a lambda given to TensorLambda or
//   Lambda, or a class of the file derived from TensorTransform (its
//   `operator()`) or Transform (its `apply`), in a `map()` of the dataset
//   itself (not of a mapped dataset).
// - Only the function that iterates the loader or calls get() is looked at:
//   an example passed to another function and written there is missed, and
//   so is an example returned by get() through a local Example variable.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_DATASETVIEWS_H
#define TORCHALIAS_ANALYSIS_DATASETVIEWS_H

#include "AliasAnalysis.h"

#include "clang/AST/DeclCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace clang::tidy::libtorch {

/// A tensor a dataset's get() returns that is its own storage.
struct DatasetView {
  const CXXRecordDecl *Dataset = nullptr;
  const Expr *Returned = nullptr; ///< The returned expression, in get().
  const FieldDecl *Member = nullptr;
};

/// A member a dataset's get() writes in place and returns (Note [A member
/// refilled by get()]).
struct RefilledMember {
  DatasetView View;
  const WriteEvent *Write = nullptr; ///< The write in get().
};

/// An in-place write to an example that is a view of its dataset.
struct DatasetWrite {
  const WriteEvent *Write = nullptr;
  const VarDecl *Example = nullptr; ///< The example or batch written.
  DatasetView View;
};

class DatasetViewFinder {
public:
  using Analyzer =
      llvm::function_ref<const FunctionAliasAnalysis *(const FunctionDecl *)>;
  DatasetViewFinder(const OperatorTable &Table, Analyzer Analyze)
      : Table(Table), Analyze(Analyze) {}

  /// The writes of Analysis's function to examples that are dataset views.
  std::vector<DatasetWrite> find(const FunctionAliasAnalysis &Analysis,
                                 const Stmt *Body);

  /// The tensor Dataset's own get() returns as the example's member number
  /// Position (0 for `data`, 1 for `target`), if it is the dataset's storage.
  std::optional<DatasetView> viewReturnedBy(const CXXRecordDecl *Dataset,
                                            unsigned Position);

  /// For Get, a dataset's own get(): the member it writes in place and
  /// returns (or returns a view of), if there is one.
  std::optional<RefilledMember> refilledMember(const CXXMethodDecl *Get);

private:
  /// The example whose member Target is, and that member's number.
  const Expr *exampleOf(const Expr *Target, unsigned &Position) const;
  const CXXRecordDecl *datasetOf(const Expr *Example,
                                 const VarDecl *&Named) const;

  const OperatorTable &Table;
  Analyzer Analyze;
  void findTransforms(const Stmt *S);

  llvm::DenseMap<const VarDecl *, const Expr *> RangeInits;
  /// The parameter of a lambda transform mapped onto a dataset, and the
  /// dataset: Note [Transforms of a dataset's examples].
  struct Transform {
    const CXXRecordDecl *Dataset = nullptr;
    bool OfData = false; ///< A TensorLambda: the parameter is `data`.
  };
  llvm::DenseMap<const ParmVarDecl *, Transform> Transforms;
  /// The methods of transform classes among them, analysed apart.
  std::vector<const CXXMethodDecl *> TransformMethods;
};

} // namespace clang::tidy::libtorch

#endif
