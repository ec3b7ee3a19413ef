//===- OverlappingInplaceCheck.h - libtorch-overlapping-inplace -*- C++ -*-===//

#ifndef TORCHALIAS_CHECKS_OVERLAPPINGINPLACECHECK_H
#define TORCHALIAS_CHECKS_OVERLAPPINGINPLACECHECK_H

#include "AliasCheckBase.h"
#include "OverlapAnalysis.h"

namespace clang::tidy::libtorch {

/// Finds in-place and `out=` operations whose source, index or mask operand
/// overlaps the tensor they write.
///
/// For the user-facing documentation see:
/// docs/checks/libtorch-overlapping-inplace.md
class OverlappingInplaceCheck : public AliasCheckBase {
public:
  OverlappingInplaceCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  bool checkOperand(const WriteEvent &Write, const WriteOperand &Operand,
                    const OverlapAnalysis &Ranges, ASTContext &AST);

  const bool WarnOnPossibleOverlap;
};

} // namespace clang::tidy::libtorch

#endif
