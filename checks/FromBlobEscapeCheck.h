//===- FromBlobEscapeCheck.h - libtorch-from-blob-escape -------*- C++ -*-===//

#ifndef TORCHALIAS_CHECKS_FROMBLOBESCAPECHECK_H
#define TORCHALIAS_CHECKS_FROMBLOBESCAPECHECK_H

#include "AliasCheckBase.h"
#include "FromBlobEscapeAnalysis.h"
#include "WorkerEntryPoints.h"

#include <memory>

#include <string>

namespace clang::tidy::libtorch {

/// Finds `from_blob` tensors that escape the lifetime or ownership of the
/// buffer they wrap: returned, stored, handed to a worker, returned from a
/// dataset's `get()`, or kept while the buffer is written again.
///
/// For the user-facing documentation see:
/// docs/checks/libtorch-from-blob-escape.md
class FromBlobEscapeCheck : public AliasCheckBase {
public:
  FromBlobEscapeCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  const std::string RawWorkerEntryPoints;
  const WorkerEntryPoints Workers;
  void reportProducerEscape(const BlobEscape &Escape);
  void reportProducerRewrite(const BlobRewrite &Rewrite);
  void reportMemberGrowth(const MemberBlobGrowth &Growth);
  void addProducerNotes(const BlobSite &Site, const Stmt *Refill,
                        SourceLocation Reported);
  std::optional<FixItHint> cloneFix(const CallExpr *FromBlob,
                                    const SourceManager &SM);
  static const SourceManager &sourceManager(const BlobSite &Site);

  llvm::DenseSet<const Expr *> FixedSites;
  llvm::DenseSet<const CallExpr *> ReportedGrowths;
  std::unique_ptr<BlobProducers> Producers;
};

} // namespace clang::tidy::libtorch

#endif
