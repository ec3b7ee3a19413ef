//===- WorkerMissingCloneCheck.h - libtorch-worker-missing-clone -*- C++ -*-===//

#ifndef TORCHALIAS_CHECKS_WORKERMISSINGCLONECHECK_H
#define TORCHALIAS_CHECKS_WORKERMISSINGCLONECHECK_H

#include "AliasCheckBase.h"
#include "DatasetViews.h"
#include "WorkerEntryPoints.h"
#include "WorkerRaceAnalysis.h"
#include "clang-tidy/utils/IncludeInserter.h"

#include <string>

namespace clang::tidy::libtorch {

/// Finds tensors handed to a worker thread without a clone while the worker
/// or the spawner writes them in place and nothing orders the two.
/// Containers and structs of tensors and ModuleHolders count as tensors, and
/// so does an example of a dataset whose get() returns views of its own
/// storage, written in place.
///
/// For the user-facing documentation see:
/// docs/checks/libtorch-worker-missing-clone.md
class WorkerMissingCloneCheck : public AliasCheckBase {
public:
  WorkerMissingCloneCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  void checkDatasetWrites(const FunctionAliasAnalysis &Analysis,
                          const FunctionDecl *Function, ASTContext &AST);
  void reportParallelLoopRace(const WorkerRace &R);
  void reportPublishedMember(const MemberWorkerRace &R,
                             llvm::ArrayRef<FixItHint> Fixes);

  const std::string RawWorkerEntryPoints;
  const WorkerEntryPoints Workers;
  const IsolationHelper Isolation;
  utils::IncludeInserter Inserter;
  /// The views of get() already given a fix-it, in this translation unit.
  llvm::DenseSet<const Expr *> FixedViews;
  /// Note [OpenMP loops]: the pragmas of the translation unit.
  std::vector<SourceLocation> ParallelPragmas, SerialisingPragmas;
};

} // namespace clang::tidy::libtorch

#endif
