//===- DetachedWriteCheck.h - libtorch-detached-write -----------*- C++ -*-===//

#ifndef TORCHALIAS_CHECKS_DETACHEDWRITECHECK_H
#define TORCHALIAS_CHECKS_DETACHEDWRITECHECK_H

#include "AliasCheckBase.h"
#include "AutogradAnalysis.h"

namespace clang::tidy::libtorch {

/// Finds writes through `.data()` or `detach()` into storage that autograd
/// or the rest of the code still needs, and in-place writes into tensors
/// autograd saved for backward.
///
/// For the user-facing documentation see:
/// docs/checks/libtorch-detached-write.md
class DetachedWriteCheck : public AliasCheckBase {
public:
  DetachedWriteCheck(StringRef Name, ClangTidyContext *Context)
      : AliasCheckBase(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  /// Each returns whether it reported Write.
  bool checkDetachedWrite(const WriteEvent &Write,
                          const AutogradAnalysis &Autograd, ASTContext &AST);
  bool checkInPlaceWrite(const WriteEvent &Write,
                         const AutogradAnalysis &Autograd,
                         bool ThroughViews = false);
  void checkModuleStateWrites(const FunctionDecl &Function,
                              const AutogradAnalysis &Autograd,
                              const llvm::DenseSet<const Expr *> &Reported,
                              ASTContext &AST);
  void checkSequentialOrder(const FunctionDecl &Function);
  void checkSequential(const CXXConstructExpr &Sequential);
  void reportModuleStateWrite(const ModuleStateWrite &Write,
                              const ModuleSave &Save, SourceLocation Backward,
                              ASTContext &AST);
  std::optional<FixItHint> cloneAtDetach(const WriteEvent &Write,
                                         ASTContext &AST);

  /// The module facts of the current translation unit.
  std::unique_ptr<ModuleStateAnalysis> Modules;
};

} // namespace clang::tidy::libtorch

#endif
