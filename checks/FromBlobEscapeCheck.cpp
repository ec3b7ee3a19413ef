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
  ReportedGrowths.clear();
  Producers.reset();
}

// Note [From-blob clone fix-it]
// Appending `.clone()` to the from_blob call gives the tensor its own memory,
// which is what every escape route assumes. The clone costs one copy of the
// buffer; it is offered once per call, outside macros.
void FromBlobEscapeCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = matchedFunction(Result);
  AliasAnalysisContext &Context = aliasContext(*Result.Context);
  if (!Producers)
    Producers = std::make_unique<BlobProducers>(Context, Workers);
  if (!mentionsFromBlob(Function->getBody()) &&
      !Producers->callsProducer(Function->getBody()))
    return;
  const FunctionAliasAnalysis *Analysis =
      analyze(Function, *Result.Context, /*RequireWrites=*/false);
  if (!Analysis)
    return;
  FromBlobEscapeAnalysis Escapes(*Analysis, Context, Workers, *Producers);
  Escapes.run(Function);

  auto CloneFix = [&](const CallExpr *FromBlob) {
    return cloneFix(FromBlob, *Result.SourceManager);
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
    if (E.Site->Producer) {
      reportProducerEscape(E);
      continue;
    }
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
  for (const MemberBlobGrowth &G : Escapes.memberGrowths())
    reportMemberGrowth(G);
  for (const BlobRewrite &R : Escapes.rewrites()) {
    if (R.Site->Producer) {
      reportProducerRewrite(R);
      continue;
    }
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

// Note [Members that wrap a member]: reported at the call that may
// reallocate the buffer, once per call in a translation unit, with notes at
// the wrap, the store and a read of the member.
void FromBlobEscapeCheck::reportMemberGrowth(const MemberBlobGrowth &G) {
  if (!ReportedGrowths.insert(G.Growth).second)
    return;
  const auto *Buffer = cast<FieldDecl>(G.Site->Buffer);
  const SourceManager &SM = sourceManager(*G.Site);
  diag(G.Growth->getExprLoc(),
       "'%0' may reallocate member '%1' while member '%2' still wraps its "
       "memory: 'from_blob' made '%2' without a copy, so it would read freed "
       "memory")
      << G.Growth->getDirectCallee()->getNameAsString() << Buffer->getName()
      << G.Tensor->getName() << cloneFix(G.Site->FromBlob, SM);
  diag(G.Site->FromBlob->getExprLoc(), "'from_blob' wraps member '%0' here",
       DiagnosticIDs::Note)
      << Buffer->getName();
  diag(G.Store->getBeginLoc(), "'%0' keeps the tensor here",
       DiagnosticIDs::Note)
      << G.Tensor->getName();
  diag(G.Read->getExprLoc(), "'%0' is read here, where nothing wraps the "
                             "buffer again",
       DiagnosticIDs::Note)
      << G.Tensor->getName();
}

std::optional<FixItHint>
FromBlobEscapeCheck::cloneFix(const CallExpr *FromBlob,
                              const SourceManager &SM) {
  if (!FixedSites.insert(FromBlob).second)
    return std::nullopt;
  return appendClone(FromBlob, SM, getLangOpts());
}

namespace {
/// "member 'buf_' of 'reader'", or "member 'buf_'" for `this`.
std::string memberOf(const BlobSite &Site) {
  std::string Text = "member '" + Site.Buffer->getName().str() + "'";
  if (const auto *Owner = dyn_cast_or_null<NamedDecl>(Site.Owner))
    Text += " of '" + Owner->getName().str() + "'";
  return Text;
}

std::string producerName(const BlobSite &Site) {
  return Site.Producer->getMethodDecl()->getNameAsString();
}
} // namespace

// Note [Producer notes]
// A producer's tensor (Note [Blob producers]) is reported where the caller
// keeps it, or at the call that refills the buffer under it, since that is
// where the mistake shows; notes point at the from_blob call inside the
// method (which carries the `.clone()` fix-it: every call then returns its
// own copy), at the write that refills the buffer, and at the call that made
// the tensor.
void FromBlobEscapeCheck::reportProducerEscape(const BlobEscape &E) {
  const BlobSite &Site = *E.Site;
  std::string Tensor =
      E.Tensor.empty()
          ? "the from_blob tensor returned by '" + producerName(Site) + "'"
          : "from_blob tensor '" + E.Tensor + "', returned by '" +
                producerName(Site) + "',";
  bool Worker = E.Route == EscapeRoute::Worker;
  diag(E.Where, "%0 wraps %1 without a copy and %select{is stored in '%3' on "
                "every iteration, but the loop refills the one buffer they all "
                "wrap|is handed to worker entry point '%3', which may still "
                "read it when a later call refills the buffer}2")
      << Tensor << memberOf(Site) << Worker << E.Into
      << cloneFix(Site.FromBlob, sourceManager(Site));
  addProducerNotes(Site, E.RefillInner ? E.RefillInner : E.Refill, E.Where);
}

void FromBlobEscapeCheck::reportProducerRewrite(const BlobRewrite &R) {
  const BlobSite &Site = *R.Site;
  const auto *Refill = dyn_cast<CXXMemberCallExpr>(R.Write);
  std::string Writer =
      Refill ? "call of '" + Refill->getMethodDecl()->getNameAsString() + "'"
             : "this write";
  diag(R.Write->getBeginLoc(), "%0 refills %1 while from_blob tensor '%2', "
                               "returned by an earlier call of '%3', still "
                               "wraps it")
      << Writer << memberOf(Site) << R.Root->getName() << producerName(Site)
      << cloneFix(Site.FromBlob, sourceManager(Site));
  addProducerNotes(Site, R.Inner, SourceLocation());
  diag(R.LaterUse->getLocation(),
       "'%0' is used here and sees the new contents", DiagnosticIDs::Note)
      << R.LaterUse->getDecl()->getName();
}

void FromBlobEscapeCheck::addProducerNotes(const BlobSite &Site,
                                           const Stmt *Refill,
                                           SourceLocation Reported) {
  if (Site.Producer->getBeginLoc() != Reported)
    diag(Site.Producer->getBeginLoc(), "the tensor is returned by this call",
         DiagnosticIDs::Note);
  diag(Site.FromBlob->getExprLoc(),
       "'from_blob' wraps %0 here, and '%1' returns the tensor without a copy",
       DiagnosticIDs::Note)
      << ("member '" + Site.Buffer->getName() + "'").str()
      << producerName(Site);
  if (Refill)
    diag(Refill->getBeginLoc(), "'%0' is written here", DiagnosticIDs::Note)
        << Site.Buffer->getName();
}

const SourceManager &FromBlobEscapeCheck::sourceManager(const BlobSite &Site) {
  return Site.Buffer->getASTContext().getSourceManager();
}

} // namespace clang::tidy::libtorch
