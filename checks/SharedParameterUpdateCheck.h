//===- SharedParameterUpdateCheck.h - libtorch-shared-parameter-update *- C++ -*-===//

#ifndef TORCHALIAS_CHECKS_SHAREDPARAMETERUPDATECHECK_H
#define TORCHALIAS_CHECKS_SHAREDPARAMETERUPDATECHECK_H

#include "ParameterSharing.h"
#include "ParameterUpdates.h"
#include "RepeatedGroups.h"
#include "WorkerEntryPoints.h"

#include "AliasCheckBase.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang-tidy/utils/IncludeInserter.h"

#include <memory>
#include <optional>
#include <string>

namespace clang::tidy::libtorch {

struct HolderCopy;

/// Finds tied or duplicated module parameters that reach an optimizer, a
/// gradient-norm clip or an in-place update loop, copies of a ModuleHolder
/// updated as if they were independent models, and parameter members
/// assigned without re-registering them.
///
/// For the user-facing documentation see:
/// docs/checks/libtorch-shared-parameter-update.md
class SharedParameterUpdateCheck : public AliasCheckBase {
public:
  SharedParameterUpdateCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  ParameterSharingAnalysis &analysis(ASTContext &AST);
  void checkHelperCall(const CallExpr *Call, const FunctionDecl *Function,
                       ASTContext &AST);
  void checkNode(const ast_matchers::BoundNodes &Nodes,
                 const FunctionDecl *Function, ASTContext &AST);
  void checkSink(const Expr *Sink, const Expr *List, SinkKind Kind,
                 llvm::StringRef Name, const FunctionDecl *Function,
                 ASTContext &AST);
  void checkUpdateLoop(const Stmt *Loop, const FunctionDecl *Function,
                       ASTContext &AST);
  void checkHolderCopy(const Expr *Sink, const Expr *List,
                       llvm::StringRef Name, const FunctionDecl *Function,
                       ASTContext &AST);
  bool reportedAsWorkerRace(const ValueDecl *Copy, const Expr *Sink,
                            const FunctionDecl *Function, ASTContext &AST);
  void reportHolderCopy(const Expr *Sink, llvm::StringRef Name,
                        const HolderCopy &Copy, std::optional<FixItHint> Fix,
                        ASTContext &AST);
  void reportPrefixGrowth(const Expr *Sink, SinkKind Kind, llvm::StringRef Name,
                          const PrefixGrowth &Growth);
  void reportRepeatedGroup(const Expr *Sink, const RepeatedGroup &Repeated);
  void reportCollectedOverModules(
      const Expr *Sink, SinkKind Kind, llvm::StringRef Name,
      const ParameterSharingAnalysis::CollectedVisit &Collected);
  void reportRecursiveModuleLoop(
      const Expr *Sink, const Expr *ListExpr, llvm::StringRef Name,
      const ParameterSharingAnalysis::RepeatedVisit &Visit);
  /// Reports `opt.add_param_group(g)` when g holds a tensor the optimizer
  /// already holds (Note [Parameter groups added over time]); whether it did.
  bool checkAddedGroup(const CXXMemberCallExpr *AddGroup,
                       const std::vector<ParameterEntry> &Group,
                       const FunctionDecl *Function, ASTContext &AST);
  void reportFill(const Expr *FillSite, ASTContext &AST);
  void checkMemberAssignment(const CXXOperatorCallExpr *Assign,
                             const FunctionDecl *Function, ASTContext &AST);
  void checkModuleClass(const CXXRecordDecl *Impl, ASTContext &AST);
  void addTieNotes(const ParameterTie &Tie);
  /// An optimizer built in the function being checked, and its list.
  struct OptimizerList {
    const Expr *Sink;
    std::string Name;
    std::vector<ParameterEntry> List;
  };
  /// The register_* call that puts a list entry's tensor in its module, and
  /// the name it gives.
  struct Registration {
    const Expr *Site;
    std::string Name;
  };
  std::optional<Registration> registrationOf(const ParameterEntry &Entry);
  void checkAcrossOptimizers(const std::vector<OptimizerList> &Lists);
  /// While a function is checked: its optimizers' lists.
  std::vector<OptimizerList> *Optimizers = nullptr;

  const IsolationHelper Isolation;
  const bool WarnWithoutSink;
  /// The worker entry points of libtorch-worker-missing-clone, when that
  /// check runs too (Note [One finding for a worker's holder copy]).
  const std::optional<WorkerEntryPoints> WorkerCheckEntryPoints;
  utils::IncludeInserter Includes;
  std::unique_ptr<ParameterSharingAnalysis> Analysis;
  llvm::DenseSet<const Expr *> NotedSites;
  llvm::SmallVector<const CXXRecordDecl *, 4> ModuleClasses;
  /// Fill constructions seen with WarnWithoutSink, reported at the end of
  /// the translation unit unless a sink noted them.
  llvm::SmallVector<const Expr *, 4> Fills;
  /// Fills that already carry a fix-it.
  llvm::DenseSet<const Expr *> FixedFills;
  /// ModuleHolder copies that already carry a fix-it: a copy two sinks
  /// reach is repaired once.
  llvm::DenseSet<const Expr *> FixedCopies;
  /// The parameters() calls of loops over modules() already given their
  /// `false`: a list given to two sinks is fixed once.
  llvm::DenseSet<const Expr *> FixedRecursions;
  /// The holder copies reported, by location: once each, whatever updates it.
  llvm::DenseSet<SourceLocation::UIntTy> ReportedCopies;
};

} // namespace clang::tidy::libtorch

#endif
