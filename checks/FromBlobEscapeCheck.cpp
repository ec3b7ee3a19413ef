//===- FromBlobEscapeCheck.cpp - libtorch-from-blob-escape ----------------===//

#include "FromBlobEscapeCheck.h"
#include "Compat.h"
#include "FromBlobEscapeAnalysis.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

FromBlobEscapeCheck::FromBlobEscapeCheck(StringRef Name,
                                         ClangTidyContext *Context)
    : AliasCheckBase(Name, Context),
      RawWorkerEntryPoints(
          Options.get("WorkerEntryPoints", DefaultWorkerEntryPoints)),
      Workers(compat::parseStringList(RawWorkerEntryPoints)) {}

void FromBlobEscapeCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  AliasCheckBase::storeOptions(Opts);
  Options.store(Opts, "WorkerEntryPoints", RawWorkerEntryPoints);
}

void FromBlobEscapeCheck::onEndOfTranslationUnit() {
  AliasCheckBase::onEndOfTranslationUnit();
  FixedSites.clear();
}

// Note [From-blob clone fix-it]
// Appending `.clone()` to the from_blob call gives the tensor its own memory,
// which is what every escape route assumes. The clone costs one copy of the
// buffer; it is offered once per call, outside macros.
void FromBlobEscapeCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = matchedFunction(Result);
  if (!mentionsFromBlob(Function->getBody()))
    return;
  const FunctionAliasAnalysis *Analysis =
      analyze(Function, *Result.Context, /*RequireWrites=*/false);
  if (!Analysis)
    return;
  FromBlobEscapeAnalysis Escapes(*Analysis, aliasContext(*Result.Context),
                                 Workers);
  Escapes.run(Function);

  auto CloneFix = [&](const CallExpr *FromBlob) -> std::optional<FixItHint> {
    if (!FixedSites.insert(FromBlob).second)
      return std::nullopt;
    return appendClone(FromBlob, *Result.SourceManager, getLangOpts());
  };
  auto TensorName = [](const BlobEscape &E) -> std::string {
    if (E.Tensor.empty())
      return "a from_blob tensor";
    return "from_blob tensor '" + E.Tensor + "'";
  };
  auto BufferName = [](const BlobSite &Site) -> std::string {
    if (!Site.Buffer)
      return "memory it does not own";
    return ((isScopedBuffer(Site.Buffer) ? "local buffer '" : "'") +
            Site.Buffer->getName() + "'")
        .str();
  };

  llvm::DenseSet<SourceLocation> Reported;
  for (const BlobEscape &E : Escapes.escapes()) {
    if (!Reported.insert(E.Where).second)
      continue;
    diag(E.Where,
         "%0 wraps %1 and %select{is returned from '%3', which destroys "
         "the buffer|is returned from dataset 'get()', so every example "
         "aliases memory that no tensor owns|is stored in '%3', which outlives the "
         "buffer|is stored in member '%3', which outlives the buffer|is handed "
         "to worker entry point '%3'|is stored in '%3' on every iteration, but "
         "the loop rewrites the one buffer they all wrap}2")
        << TensorName(E) << BufferName(*E.Site)
        << static_cast<unsigned>(E.Route) << E.Into
        << CloneFix(E.Site->FromBlob);
    diag(E.Site->FromBlob->getExprLoc(), "'from_blob' wraps the memory here",
         DiagnosticIDs::Note);
  }
  for (const BlobRewrite &R : Escapes.rewrites()) {
    diag(R.Write->getBeginLoc(),
         "'%0' is written again while from_blob tensor '%1' still wraps it")
        << R.Site->Buffer->getName() << R.Root->getName()
        << CloneFix(R.Site->FromBlob);
    diag(R.Site->FromBlob->getExprLoc(), "'from_blob' wraps the memory here",
         DiagnosticIDs::Note);
    diag(R.LaterUse->getLocation(),
         "'%0' is used here and sees the new contents", DiagnosticIDs::Note)
        << R.LaterUse->getDecl()->getName();
  }
}

} // namespace clang::tidy::libtorch
