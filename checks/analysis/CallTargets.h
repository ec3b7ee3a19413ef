//===- CallTargets.h - the code a call may run, chosen at run time -*- C++ -*-===//
//
// Problem: `constraint->project(w)` through a `Constraint` base, or
// `hook_(w)` of a `std::function` member, runs code the call does not name.
// The helper that writes `w.data()` in place, or queues `w` for a writer
// thread, is an override or a lambda stored elsewhere in the file, and a
// summary of the declared callee (a pure virtual method, std::function's
// operator()) says nothing.
//
// Approach: one index of the translation unit's user code, built on first
// use, answers "which definitions may this call run" (Note [Calls that run
// code chosen at run time]):
// - a virtual call runs the callee's definition or one of its overriders in
//   the translation unit, unless clang can tell the dynamic type;
// - a call of a std::function object runs one of the callables stored into
//   the variable or member it names (or the container it is an element of).
//
// Simplifications, and what they cost:
// - Only the translation unit is read: an override or a stored lambda in
//   another file is unknown, as any callee without a body is.
// - A std::function is known by its declaration, not its object: every
//   callable stored into a member of any object of the class, or into any
//   element of a container, is a target.
// - A callable reaches a holder directly, through a local variable
//   initialised with it, or through one parameter of a registration
//   function (`on(std::function<...> f) { hooks_.push_back(f); }`), whose
//   callers' arguments are then read.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_CALLTARGETS_H
#define TORCHALIAS_ANALYSIS_CALLTARGETS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::libtorch {

/// True for a `std::function` type, through references and qualifiers.
bool isStdFunctionType(QualType Type);

/// A call of a std::function object's operator(): `hook_(w)`.
bool callsStdFunction(const CallExpr *Call);

/// The declaration a std::function value is read from: the variable or
/// member it names, or the container an element is taken from (`hooks_[i]`,
/// `hooks_.at(k)`, a range-for variable over `hooks_`). Null otherwise.
const ValueDecl *functionHolderOf(const Expr *E);

class CallTargets {
public:
  explicit CallTargets(ASTContext &AST) : AST(AST) {}

  /// The definitions, in the user code of the translation unit, that Call
  /// may run (Note [Calls that run code chosen at run time]). Empty for a
  /// callee of libtorch or the standard library other than std::function,
  /// and for one with no body here.
  llvm::SmallVector<const FunctionDecl *, 2> definitionsRunBy(const CallExpr *Call);

  /// Whether Call chooses its code at run time: a virtual call clang cannot
  /// resolve, or a call of a std::function.
  bool dispatches(const CallExpr *Call);

  /// The lambdas stored into Holder, a std::function variable, member or
  /// container of them, anywhere in the translation unit.
  llvm::ArrayRef<const LambdaExpr *> storedLambdas(const ValueDecl *Holder);

private:
  void buildIndex();
  void noteStore(const ValueDecl *Holder, const Expr *Value);

  ASTContext &AST;
  bool Indexed = false;
  llvm::DenseMap<const CXXMethodDecl *, llvm::SmallVector<const CXXMethodDecl *, 2>>
      Overriders;
  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<const LambdaExpr *, 2>> Stored;
  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<const FunctionDecl *, 2>>
      StoredFunctions;
  /// Parameters stored into a holder, resolved once every call is seen.
  llvm::SmallVector<std::pair<const ValueDecl *, const ParmVarDecl *>, 4> StoredParameters;
  /// Arguments passed to each std::function parameter of the user's code.
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>,
                 llvm::SmallVector<const Expr *, 2>>
      Passed;
};

} // namespace clang::tidy::libtorch

#endif
