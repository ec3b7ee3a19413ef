//===- InplaceOnViewCheck.h - libtorch-inplace-on-view ---------*- C++ -*-===//

#ifndef TORCHALIAS_CHECKS_INPLACEONVIEWCHECK_H
#define TORCHALIAS_CHECKS_INPLACEONVIEWCHECK_H

#include "AliasCheckBase.h"
#include "AutogradAnalysis.h"
#include "ConstructionTies.h"
#include "IntendedWrites.h"
#include "OverlapAnalysis.h"
#include "ParameterSharing.h"
#include "Snapshots.h"

#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// Finds in-place writes through a view whose base the author can observe: a
/// parameter, object state, an expanded tensor, or a may-alias result.
///
/// For the user-facing documentation see:
/// docs/checks/libtorch-inplace-on-view.md
class InplaceOnViewCheck : public AliasCheckBase {
public:
  InplaceOnViewCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  /// Why a write into a view of object state is harmful, if it is.
  enum class StateHazard { None, HandedOut, EscapedBefore, TrackedParameter };

  bool namesItsWrite(const ParmVarDecl *Param,
                     const FunctionDecl *Function) const;
  bool isOutputParameter(const ValueDecl *Root,
                         const FunctionAliasAnalysis &Analysis);
  const FunctionDecl *changedArgumentReadAfter(const WriteEvent &Write);
  void reportChangedArgument(const WriteEvent &Write,
                             const FunctionDecl *Callee);
  bool shouldReport(const WriteEvent &Write,
                    const FunctionAliasAnalysis &Analysis);
  IntendedWrites &intended(ASTContext &AST);
  StateHazard stateHazard(const WriteEvent &Write);
  const EscapeEvent *escapeBefore(const WriteEvent &Write) const;
  bool isRegisteredParameter(const FieldDecl *Field);
  const AutogradAnalysis &autograd(const FunctionDecl &Function);
  void report(const WriteEvent &Write);
  void reportSnapshotUse(const SnapshotUse &Use);
  /// Note [Writes into tensors made one at construction].
  bool checkConstructionTie(const WriteEvent &Write);
  /// Note [In-place options on a tensor someone still reads].
  bool checkInplaceOption(const WriteEvent &Write);
  std::optional<FixItHint> cloneAtView(const WriteEvent &Write);
  /// A view of part of a tensor, read after the tensor was written in place:
  /// Note [A view read after its base changed].
  struct StaleView {
    const VarDecl *View;
    const AliasValue *Value;
    const DeclRefExpr *Read;
    /// The view is of the whole tensor, read beside the tensor itself.
    bool Whole = false;
  };
  std::optional<StaleView> staleView(const WriteEvent &Write);
  void reportStaleView(const WriteEvent &Write, const StaleView &Stale);
  bool calleeWriteReaches(const WriteEvent &Write, const DeclRefExpr *Read);
  OverlapAnalysis &overlaps(const FunctionDecl &Function);

  const bool WarnOnLocalBuffers;
  const std::string RawOutputParameterNames;
  const std::vector<StringRef> OutputParameterNames;
  llvm::DenseSet<const Expr *> FixedSites;
  std::unique_ptr<ParameterSharingAnalysis> Parameters;
  std::unique_ptr<IntendedWrites> Intended;
  /// The autograd facts of the function being checked, built on demand.
  const FunctionDecl *AutogradFunction = nullptr;
  std::unique_ptr<AutogradAnalysis> Autograd;
  std::unique_ptr<ConstructionTies> Ties;
  /// The extents of the function being checked, built on demand.
  const FunctionDecl *OverlapFunction = nullptr;
  std::unique_ptr<OverlapAnalysis> Overlaps;
  /// The views reported as read stale, once each.
  llvm::DenseSet<const VarDecl *> StaleReported;
};

} // namespace clang::tidy::libtorch

#endif
