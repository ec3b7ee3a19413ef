//===- ModuleFixIts.h - fix-its that rewrite module handles -----*- C++ -*-===//
//
// The fix-its of libtorch-shared-parameter-update and
// libtorch-worker-missing-clone that change how modules are shared: a deep
// copy in place of a copied ModuleHolder, a module constructed for each
// element of a container filled with one handle, and a de-duplicated
// parameter list. Each returns std::nullopt where it cannot be shown to give
// the same program but for the sharing.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_CHECKS_MODULEFIXITS_H
#define TORCHALIAS_CHECKS_MODULEFIXITS_H

#include "ParameterSharing.h"

#include "clang/Basic/Diagnostic.h"

#include <optional>

namespace clang::tidy::libtorch {

/// `Holder(std::dynamic_pointer_cast<Impl>(global->clone()))` for the
/// initializer of the local ModuleHolder Copy (Note [Isolating fix-it]).
std::optional<FixItHint> deepCopyHolder(const VarDecl *Copy,
                                        const SourceManager &SM,
                                        const LangOptions &LangOpts);

/// A deep copy of the module in place of the handle that Init, the
/// initializer of a handle of type Type, copies (Note [Clone fix-it]).
/// DirectInit: Init is a member initializer; Torchalias: the runtime's
/// torchalias::deep_clone may be used.
std::optional<FixItHint> cloneAtCopy(const Expr *Init, QualType Type,
                                     bool DirectInit, bool Torchalias,
                                     const ASTContext &AST);

/// A module constructed for each element in place of Fill (Note [Distinct
/// construction fix-it]).
std::optional<FixItHint>
distinctConstruction(const ParameterSharingAnalysis::ContainerFill &Fill,
                     const ASTContext &AST);

/// `torchalias::unique_parameters(list)` around the list of tensors List
/// (Note [De-duplicating fix-it]).
std::optional<FixItHint> uniqueParameters(const Expr *List,
                                          const ASTContext &AST);

} // namespace clang::tidy::libtorch

#endif
