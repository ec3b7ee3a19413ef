//===- ConstructionTies.h - tensors one construction made into one -------===//
//
// Problem: copying a tensor handle shares the tensor. Two places that a
// construction fills from one handle are one tensor for good, though the
// code names them as two: `std::vector<torch::Tensor> stats(2,
// torch::zeros({d}))` holds one tensor twice, and a constructor that does
// `bias = register_buffer("bias", zeros); running_mean =
// register_buffer("running_mean", zeros);` makes `bias` and `running_mean`
// one tensor. An in-place write through one name (`batch_norm`'s running
// statistics, `mul_().add_()` of a moving average) changes the other.
//
// Approach (Note [Tensors made one at construction]): read syntactically,
// from the declaration of a container (a local, or a member's initializers)
// and from the constructors of a class:
// - a container is filled with one handle when it is constructed with
//   `(count, value)` and nothing gives it other elements: no element or the
//   container is assigned, no element is added or removed, it is not passed
//   by non-const reference, in the function (a local) or the class's methods
//   (a member);
// - two tensor members are tied when each is bound once, in one
//   constructor, to the same variable or member (directly or through
//   `register_buffer`/`register_parameter`), and no method assigns either
//   again.
//
// Limitations: ties made outside constructors, through helper functions or
// through a container of members are not seen; a fresh tensor made twice by
// the same expression (`torch::zeros({d})`) is two tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_CONSTRUCTIONTIES_H
#define TORCHALIAS_ANALYSIS_CONSTRUCTIONTIES_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace clang::tidy::libtorch {

/// What a member is given in its class: its default initializer (In null),
/// its constructor initializers and the assignments to it in the
/// constructors' bodies (In the constructor).
struct MemberBinding {
  const Expr *Value = nullptr;
  const FunctionDecl *In = nullptr;
};
llvm::SmallVector<MemberBinding, 2> memberBindings(const FieldDecl *Field);

/// Two members of a class bound to one tensor at construction.
struct MemberTie {
  const FieldDecl *Other = nullptr;
  const Expr *Binding = nullptr;      ///< Where the member was bound.
  const Expr *OtherBinding = nullptr; ///< Where the other one was.
  /// The variable or member both were bound to (`zeros`, `enc->weight`).
  const Expr *Source = nullptr;
  /// The member was bound through `register_parameter`: a weight tie,
  /// usually meant.
  bool Parameter = false;
};

class ConstructionTies {
public:
  /// For a container of tensors (a local or a member) whose every element is
  /// one handle: the construction that filled it; null otherwise.
  const Expr *filledBy(const ValueDecl *Container);

  /// For a tensor member tied to another: the first such member, in
  /// declaration order.
  std::optional<MemberTie> tieOf(const FieldDecl *Member);

  /// The member that stands for Member's tensor in its tied group: the
  /// first of the group in declaration order, or Member itself.
  const FieldDecl *representative(const FieldDecl *Member);

private:
  llvm::DenseMap<const ValueDecl *, const Expr *> Fills;
  llvm::DenseMap<const FieldDecl *, std::optional<MemberTie>> Ties;
};

} // namespace clang::tidy::libtorch

#endif
