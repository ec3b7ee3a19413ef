//===- OverlappingInplaceCheck.h - libtorch-overlapping-inplace -*- C++ -*-===//

#ifndef TORCHALIAS_CHECKS_OVERLAPPINGINPLACECHECK_H
#define TORCHALIAS_CHECKS_OVERLAPPINGINPLACECHECK_H

#include "AliasCheckBase.h"
#include "OverlapAnalysis.h"
#include "OverlapSemantics.h"

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
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// The written argument's role, which decides what an exact alias means.
  enum class WrittenRole {
    Self,  ///< The object of an in-place method, or `self` of `at::op_`.
    Out,   ///< An `out=` argument.
    Other, ///< Another argument the schema marks written (`growth_tracker`).
  };

  /// One operand of an in-place call that shares a root with the tensor the
  /// call writes.
  struct OverlapSite {
    const WriteEvent &Write;
    const WriteOperand &Operand;
    const CallExpr *Call;
    unsigned WrittenPosition = 0;
    WrittenRole Written = WrittenRole::Self;
    bool OperandWritten = false;
    llvm::StringRef Parameter;        ///< The operand's name.
    llvm::StringRef WrittenParameter; ///< The written argument's name.
    bool ApiCall = false; ///< A call of the C++ API (ApiEffectTable).
    ExtentOverlap Overlap = ExtentOverlap::Unknown;
    /// The index list of a basic-index write, whose view is the destination.
    const Expr *WrittenIndices = nullptr;
    /// What libtorch was measured to do, under the aten:: operator's name.
    std::string AtenOperator;
    std::optional<MeasuredOverlap> Measured;
  };

  void lookUpMeasuredFacts(OverlapSite &Site, const TensorCall &Tensor,
                           const OverlapAnalysis &Ranges) const;
  bool checkOperand(const WriteEvent &Write, const WriteOperand &Operand,
                    const OverlapAnalysis &Ranges, ASTContext &AST);
  /// Settles what the overlap means (Note [What PyTorch checks]) and whether
  /// it is worth a warning.
  bool isReportable(OverlapSite &Site) const;
  void report(const OverlapSite &Site, const OverlapAnalysis &Ranges,
              ASTContext &AST);
  void noteConstructionTie(const OverlapSite &Site,
                           const OverlapAnalysis &Ranges);

  const bool WarnOnPossibleOverlap;
  const std::shared_ptr<const OverlapSemantics> Semantics;
};

} // namespace clang::tidy::libtorch

#endif
