//===- NameFilters.h - the names a loop's tests let through -----*- C++ -*-===//
//
// A loop over named_parameters() often sorts the parameters into groups by
// name: weight decay for weights, none for biases and norms. The groups are
// disjoint only when the tests are. Two independent `if`s both let a
// LayerNorm's "norm.weight" through, and an optimizer given both groups
// steps it twice. libtorch-shared-parameter-update words what this finds.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_NAMEFILTERS_H
#define TORCHALIAS_ANALYSIS_NAMEFILTERS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// For Site, a statement in the body of Loop (a range-for over the items of
/// named_parameters()): for each of Names, in order, whether Site runs in
/// the iteration that visits that name.
///
/// Problem: the list such a loop builds holds the parameters whose names
/// pass the tests on the way to its push_back, and nothing else tells which
/// those are.
///
/// Simplification: the way from the loop's body to Site must be `if`
/// branches and earlier `if (...) continue;` statements; each test is
/// evaluated for each name by a small interpreter of std::string's methods,
/// integer and logical operators, constant containers of strings and the
/// functions and lambdas of the translation unit made of declarations,
/// `if`, range-for and `return` (Note [Lists filtered by parameter name]).
///
/// Limitation: std::nullopt when any test on the way, for any name, reads
/// something else (the tensor, a flag set by an earlier statement, a
/// regex), or Site is reached another way (a nested loop, a switch).
///
/// RequiresGrad gives, for each name, whether its tensor requires grad where
/// that is known, for tests of `requires_grad()` (Note [Lists filtered by
/// requires_grad()]): an entry whose answer turns on an unknown fact is left
/// out.
std::optional<std::vector<bool>>
passesNameTests(const CXXForRangeStmt *Loop, const Stmt *Site,
                llvm::ArrayRef<std::string> Names,
                llvm::ArrayRef<std::optional<bool>> RequiresGrad,
                ASTContext &AST);

/// The same for a predicate given each item in turn (the lambda of a
/// std::copy_if): for each of Names, whether Predicate returns true.
std::optional<std::vector<bool>>
passesPredicate(const Expr *Predicate, llvm::ArrayRef<std::string> Names,
                llvm::ArrayRef<std::optional<bool>> RequiresGrad,
                ASTContext &AST);

} // namespace clang::tidy::libtorch

#endif
