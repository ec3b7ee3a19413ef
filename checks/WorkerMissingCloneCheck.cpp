//===- WorkerMissingCloneCheck.cpp - libtorch-worker-missing-clone --------===//

#include "WorkerMissingCloneCheck.h"

#include "Compat.h"
#include "ModuleFixIts.h"
#include "WorkerRaceAnalysis.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

static constexpr llvm::StringRef IsolateHeader = "<torchalias/isolate.h>";

WorkerMissingCloneCheck::WorkerMissingCloneCheck(StringRef Name,
                                                 ClangTidyContext *Context)
    : AliasCheckBase(Name, Context),
      RawWorkerEntryPoints(
          Options.get("WorkerEntryPoints", DefaultWorkerEntryPoints)),
      Workers(compat::parseStringList(RawWorkerEntryPoints)),
      Isolation(Options.get("IsolationHelper", IsolationHelper::Clone)),
      Inserter(Options.getLocalOrGlobal("IncludeStyle",
                                        utils::IncludeSorter::IS_LLVM)
               TORCHALIAS_SELF_CONTAINED_DIAGS) {}

void WorkerMissingCloneCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  AliasCheckBase::storeOptions(Opts);
  Options.store(Opts, "WorkerEntryPoints", RawWorkerEntryPoints);
  Options.store(Opts, "IsolationHelper", Isolation);
  Options.store(Opts, "IncludeStyle", Inserter.getStyle());
}

namespace {

/// Records the `#pragma omp` lines that make a loop parallel and those that
/// serialise a block: Note [OpenMP loops].
class RecordOpenMP : public PPCallbacks {
public:
  RecordOpenMP(const SourceManager &SM, std::vector<SourceLocation> &Loops,
               std::vector<SourceLocation> &Serialising)
      : SM(SM), Loops(Loops), Serialising(Serialising) {}

  void PragmaDirective(SourceLocation Loc, PragmaIntroducerKind Introducer) override {
    if (Introducer != PIK_HashPragma || Loc.isMacroID())
      return;
    bool Invalid = false;
    const char *Start = SM.getCharacterData(Loc, &Invalid);
    if (Invalid)
      return;
    llvm::StringRef Line(Start, strcspn(Start, "\n"));
    llvm::SmallVector<llvm::StringRef, 8> Words;
    Line.split(Words, ' ', -1, /*KeepEmpty=*/false);
    // `#`, `pragma` (or `#pragma`), then `omp` and the directive's words.
    auto Omp = llvm::find(Words, "omp");
    if (Omp == Words.end())
      return;
    llvm::ArrayRef<llvm::StringRef> Directive(std::next(Omp), Words.end());
    auto Has = [&](llvm::StringRef Word) {
      return llvm::any_of(Directive, [&](llvm::StringRef W) {
        return W == Word || compat::startsWith(W, Word.str() + "(");
      });
    };
    if (Has("critical") || Has("atomic") || Has("single") || Has("master"))
      Serialising.push_back(Loc);
    else if (Has("for") && !Has("ordered"))
      Loops.push_back(Loc);
  }

private:
  const SourceManager &SM;
  std::vector<SourceLocation> &Loops, &Serialising;
};

} // namespace

void WorkerMissingCloneCheck::registerPPCallbacks(
    const SourceManager &SM, Preprocessor *PP, Preprocessor *) {
  Inserter.registerPreprocessor(PP);
  PP->addPPCallbacks(std::make_unique<RecordOpenMP>(SM, ParallelPragmas, SerialisingPragmas));
}

// Note [Isolating fix-it]
// The fix-it isolates the tensor where it is handed over: `.clone()` on a
// by-value argument or an init-capture's initializer, `[x = x.clone()]` for an
// explicit by-value capture. A by-reference capture gets none: the author may
// want the worker's result, and neither does a `std::ref(x)` argument (a
// clone cannot bind to the worker's `Tensor &`). With
// IsolationHelper=torchalias the copy is `torchalias::isolate(x)` from the
// runtime, and its header is included.
// Containers and structs get no fix-it (their elements would each need a
// clone). A worker's copy of a ModuleHolder (`auto local = global;`) becomes
// a deep copy of the module, `Holder(std::dynamic_pointer_cast<Impl>(
// global->clone()))`, when the module is Cloneable.
namespace {

std::optional<FixItHint> isolateTensor(const SharedValue &S, bool Isolate,
                                       const SourceManager &SM,
                                       const LangOptions &LangOpts) {
  // A clone cannot bind to the worker's `Tensor &` parameter.
  if (S.ByReference)
    return std::nullopt;
  const Expr *Copied = S.Argument;
  if (S.Capture && S.Capture->capturesVariable())
    if (const auto *Var = dyn_cast<VarDecl>(S.Capture->getCapturedVar());
        Var && Var->isInitCapture())
      Copied = Var->getInit();
  SourceLocation Loc =
      S.Capture ? S.Capture->getLocation() : S.Argument->getBeginLoc();
  if (Copied && !Copied->getBeginLoc().isMacroID() &&
      !Copied->getEndLoc().isMacroID()) {
    if (Isolate)
      return FixItHint::CreateReplacement(
          Copied->getSourceRange(),
          "torchalias::isolate(" + sourceText(Copied, SM, LangOpts) + ")");
    return appendClone(Copied, SM, LangOpts);
  }
  if (S.Capture && S.Capture->getCaptureKind() == LCK_ByCopy &&
      S.Capture->isExplicit() && !Loc.isMacroID()) {
    std::string Copy = Isolate ? "torchalias::isolate(" + S.Name + ")"
                               : S.Name + ".clone()";
    return FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Loc, Loc), S.Name + " = " + Copy);
  }
  return std::nullopt;
}

/// Where the warning goes: the argument, the explicit capture, or for an
/// implicit capture the lambda's capture default (`[&]`), which is at the
/// spawn, where an implicit capture's own location is its first use.
SourceLocation sharingLocation(const WorkerRace &R) {
  const SharedValue &S = R.Shared;
  if (!S.Capture)
    return S.Argument->getBeginLoc();
  if (!S.Capture->isExplicit() && R.Spawn->Lambda &&
      R.Spawn->Lambda->getCaptureDefaultLoc().isValid())
    return R.Spawn->Lambda->getCaptureDefaultLoc();
  return S.Capture->getLocation();
}

/// The warning, at the argument or capture, and its notes: the implicit
/// capture's first use, the holder copy, the write, the spawner's use.
void reportRace(ClangTidyCheck &Check, const WorkerRace &R,
                llvm::ArrayRef<FixItHint> Fixes) {
  const SharedValue &S = R.Shared;
  SourceLocation Loc = sharingLocation(R);
  bool Module = S.Kind == SharedKind::Module;
  bool Holder = S.Kind == SharedKind::Container || S.Kind == SharedKind::Struct;
  unsigned How = S.Capture ? (S.Capture->getCaptureKind() == LCK_ByRef ||
                                      S.Capture->capturesThis()
                                  ? 2
                                  : 1)
                           : (S.ByReference ? 3 : 0);
  llvm::StringRef Shares = Module   ? "shares its module"
                           : Holder ? "holds tensors that share their storage"
                                    : "shares its storage";
  llvm::StringRef Writes = Module   ? "updates its parameters"
                           : Holder ? "writes them"
                                    : "writes it";
  Check.diag(Loc, "%select{|by-value |by-reference |by-reference }0"
                  "%select{argument|capture|capture|argument}0 '%1' %2 with "
                  "worker entry point '%3' and "
                  "%select{the worker %4 in place while the spawner still uses "
                  "%5|the spawner %4 in place before the worker is joined|"
                  "every chunk %4 in place, not only its [begin, end) part|"
                  "each chunk %4 in place while other chunks read %5|"
                  "every worker the loop starts %4 in place while the others "
                  "use %5}6")
      << How << S.Name << Shares << R.Spawn->EntryPoint << Writes
      << (Holder ? "them" : "it") << static_cast<unsigned>(R.Kind) << Fixes;
  if (S.Capture && Loc != S.Capture->getLocation())
    Check.diag(S.Capture->getLocation(),
               "the worker first uses '%0' here, captured by %select{copy|"
               "reference}1",
               DiagnosticIDs::Note)
        << S.Name << (S.Capture->getCaptureKind() == LCK_ByRef);
  if (R.Write->HolderCopy)
    Check.diag(R.Write->HolderCopy->getLocation(),
               "'%0' is a copy of the ModuleHolder '%1', not of the module",
               DiagnosticIDs::Note)
        << R.Write->HolderCopy->getName() << S.Root->getName();
  std::string Root = "'" + S.Root->getName().str() + "'";
  std::string Written = Root;
  // Note [Holders built from tensors]: the write is of a tensor the shared
  // holder holds, maybe through holders it holds in turn (`batches` holds
  // `b`, which holds `act`): one note for each, the innermost first.
  llvm::SmallVector<const StorageUpdate::ThroughHolder *, 2> Chain;
  for (const ValueDecl *Outer = S.Root;
       Chain.size() < R.Write->ThroughHolders.size();) {
    const auto *Next = llvm::find_if(
        R.Write->ThroughHolders,
        [&](const StorageUpdate::ThroughHolder &T) { return T.Holder == Outer; });
    if (Next == R.Write->ThroughHolders.end())
      break;
    Chain.push_back(&*Next);
    Outer = Next->Held;
  }
  for (const StorageUpdate::ThroughHolder *Through : llvm::reverse(Chain)) {
    // `jobs[c] = MeterJob{&block, c}` fills a member of a container's
    // element.
    const CXXRecordDecl *Class =
        Through->Holder->getType().getNonReferenceType()->getAsCXXRecordDecl();
    static constexpr llvm::StringLiteral SmartPointers[] = {"unique_ptr",
                                                            "shared_ptr"};
    std::string Name = "'" + Through->Holder->getName().str() + "'";
    QualType HolderType = Through->Holder->getType().getNonReferenceType();
    bool Pointer = HolderType->isPointerType() ||
                   (Class && Class->isInStdNamespace() && Class->getIdentifier() &&
                    llvm::is_contained(SmartPointers, Class->getName()));
    std::string HolderName =
        !Through->Member ? Name
        : Pointer
            ? "'" + Through->Holder->getName().str() + "->" +
                  Through->Member->getName().str() + "'"
        : Class && Class->isInStdNamespace()
            ? "an element of " + Name
            : "'" + Through->Holder->getName().str() + "." +
                  Through->Member->getName().str() + "'";
    Check.diag(isa<DeclStmt>(Through->Site) ? Through->Holder->getLocation()
                                            : Through->Site->getBeginLoc(),
               "%0 holds '%1' from here", DiagnosticIDs::Note)
        << HolderName << Through->Held->getName();
  }
  if (!Chain.empty())
    Written = "'" + Chain.back()->Held->getName().str() + "'";
  else if (S.Kind == SharedKind::Struct && R.Write->Member)
    Written = "'" + S.Root->getName().str() + "." +
              R.Write->Member->getName().str() + "'";
  else if (Holder)
    Written = "a tensor of " + Root;
  if (const CXXMemberCallExpr *Store = R.Spawn->MethodStore) {
    Check.diag(Store->getExprLoc(), "'%0' stores %1 in '%2' here",
               DiagnosticIDs::Note)
        << cast<CallExpr>(R.Spawn->Site)->getDirectCallee()->getNameAsString()
        << (Holder ? "them" : "it") << R.Spawn->Queue->getName();
    Check.diag(R.Spawn->Via->getBeginLoc(), "this worker reads '%0'",
               DiagnosticIDs::Note)
        << R.Spawn->Queue->getName();
  } else if (R.Spawn->StartedBy) {
    Check.diag(R.Spawn->Via->getBeginLoc(),
               "'%0' starts this worker with %1 and returns without joining it",
               DiagnosticIDs::Note)
        << R.Spawn->StartedBy->getNameAsString() << (Holder ? "them" : "it");
  } else if (R.Spawn->Queue)
    Check.diag(R.Spawn->Via->getBeginLoc(),
               "this worker reads '%0', which the spawner stores %1 in",
               DiagnosticIDs::Note)
        << R.Spawn->Queue->getName() << (Holder ? "them" : "it");
  else if (R.Spawn->Via)
    Check.diag(R.Spawn->Via->getBeginLoc(),
               "'%0' hands the callable to this worker", DiagnosticIDs::Note)
        << R.Spawn->EntryPoint;
  // An optimizer step updates the module its parameter list came from; a
  // zero_grad() zeroes the gradients the shared value holds.
  bool Step = !R.Write->Write;
  if (R.Write->Gradients)
    Check.diag(R.Write->Call->getExprLoc(),
               "'zero_grad' zeroes the gradients %0 holds in place here",
               DiagnosticIDs::Note)
        << Root;
  else if (const FieldDecl *Member = R.Write->RefilledMember) {
    // Note [A member handed out and refilled]
    Check.diag(R.Write->Call->getExprLoc(),
               "'%0' refills member '%1', which %2 holds, in place here",
               DiagnosticIDs::Note)
        << R.Write->Operator << Member->getName() << Root;
    Check.diag(R.Write->Write->CalleeWrite->getExprLoc(),
               "'%0' is written in place here", DiagnosticIDs::Note)
        << Member->getName();
  } else
    // A tensor handed over as a parameter of its module (`model->weight`)
    // is written by an update of the module's parameters.
    Check.diag(R.Write->Call->getExprLoc(),
               Module || Step || moduleImplOf(S.Root->getType())
                   ? "'%0' updates the parameters of %1 in place here"
                              : "'%0' writes %1 in place here",
               DiagnosticIDs::Note)
        << R.Write->Operator << (Step ? Root : Written);
  if (R.UseHeldSite)
    Check.diag(isa<DeclStmt>(R.UseHeldSite) ? S.Root->getLocation()
                                           : R.UseHeldSite->getBeginLoc(),
               "'%0' holds '%1' from here", DiagnosticIDs::Note)
        << (R.UseHeldMember ? S.Root->getName().str() + "." +
                                  R.UseHeldMember->getName().str()
                            : S.Root->getName().str())
        << cast<DeclRefExpr>(R.Use)->getDecl()->getName();
  // A use of a tensor the shared holder holds names that tensor.
  const auto *UseRef = dyn_cast_or_null<DeclRefExpr>(R.Use);
  if (UseRef && (!Holder || !isTensorType(UseRef->getDecl()->getType())))
    UseRef = nullptr;
  if (R.Use)
    Check.diag(R.Use->getBeginLoc(),
               R.Kind == RaceKind::ChunksReadOthers
                   ? "a chunk reads '%0' outside its own part here"
                   : "the spawner uses '%0' here, before any join",
               DiagnosticIDs::Note)
        << (UseRef ? UseRef->getDecl()->getName() : S.Root->getName());
}

} // namespace

void WorkerMissingCloneCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = matchedFunction(Result);
  const FunctionAliasAnalysis *Analysis =
      analyze(Function, *Result.Context, /*RequireWrites=*/false);
  if (!Analysis)
    return;
  auto AnalyzeCallee = [&](const FunctionDecl *Callee) {
    return analyze(Callee, *Result.Context, /*RequireWrites=*/false);
  };
  WorkerRaceAnalysis Races(*Analysis, Workers, table(), AnalyzeCallee);
  Races.setOpenMPPragmas(ParallelPragmas, SerialisingPragmas);
  Races.run(Function);

  const SourceManager &SM = *Result.SourceManager;
  bool Isolate = Isolation == IsolationHelper::Torchalias;
  for (const WorkerRace &R : Races.races()) {
    if (R.Spawn->Loop) {
      reportParallelLoopRace(R);
      continue;
    }
    llvm::SmallVector<FixItHint, 2> Fixes;
    // Workers of a loop writing one value may mean to share it (under a
    // lock they forgot) or to work on copies: no fix-it chooses for them.
    bool Choice = R.Kind == RaceKind::WorkersWrite;
    if (R.Shared.Kind == SharedKind::Tensor && !Choice) {
      if (std::optional<FixItHint> Fix =
              isolateTensor(R.Shared, Isolate, SM, getLangOpts())) {
        Fixes.push_back(*Fix);
        if (Isolate)
          if (auto Include =
                  Inserter.createIncludeInsertion(
                      SM.getFileID(Fix->RemoveRange.getBegin()),
                      IsolateHeader))
            Fixes.push_back(*Include);
      }
    } else if (R.Write->HolderCopy && R.Kind == RaceKind::WorkerWrites) {
      if (std::optional<FixItHint> Fix =
              deepCopyHolder(R.Write->HolderCopy, SM, getLangOpts()))
        Fixes.push_back(*Fix);
    }
    reportRace(*this, R, Fixes);
  }
  for (const MemberWorkerRace &R : Races.memberRaces()) {
    const auto *Spawner = dyn_cast<NamedDecl>(R.Worker.Spawner);
    if (R.Published) {
      llvm::SmallVector<FixItHint, 2> Fixes;
      bool InMacro = R.Published->getBeginLoc().isMacroID() ||
                     R.Published->getEndLoc().isMacroID();
      if (InMacro) {
        // No fix-it.
      } else if (Isolate) {
        Fixes.push_back(FixItHint::CreateReplacement(
            R.Published->getSourceRange(),
            "torchalias::isolate(" +
                sourceText(R.Published, SM, getLangOpts()) + ")"));
        if (auto Include = Inserter.createIncludeInsertion(
                SM.getFileID(R.Published->getBeginLoc()), IsolateHeader))
          Fixes.push_back(*Include);
      } else if (std::optional<FixItHint> Fix =
                     appendClone(R.Published, SM, getLangOpts())) {
        Fixes.push_back(*Fix);
      }
      reportPublishedMember(R, Fixes);
      continue;
    }
    // Why the worker may still run: detached, kept in a member, or started
    // by a call whose result is dropped.
    unsigned Why = R.Worker.Keeper ? 1 : R.Worker.Unwaited ? 2 : 0;
    diag(R.Write->Call->getExprLoc(),
         "'%0' writes member '%1' in place while the worker that "
         "%select{|the previous call of }5'%2' %select{starts|started}5 may "
         "still read it: %select{the thread is detached|'%4' keeps the "
         "thread, and it is not joined before this write|nothing waits for "
         "it before '%2' returns}3")
        << R.Write->Operator << R.Member->getName()
        << Spawner->getNameAsString() << Why
        << (R.Worker.Keeper ? R.Worker.Keeper->getName() : llvm::StringRef())
        << R.PreviousCall;
    diag(R.Worker.Spawn->getBeginLoc(),
         "the worker that reads '%0' is started here", DiagnosticIDs::Note)
        << R.Member->getName();
  }
  checkDatasetWrites(*Analysis, Function, *Result.Context);
}

// Note [Handles published atomically]: at the write, with a note at the
// atomic store; the fix-it publishes a clone.
void WorkerMissingCloneCheck::reportPublishedMember(
    const MemberWorkerRace &R, llvm::ArrayRef<FixItHint> Fixes) {
  const auto *Publisher = cast<NamedDecl>(R.Worker.Spawner);
  diag(R.Write->Call->getExprLoc(),
       "'%0' writes member '%1' in place while other threads may still read "
       "the snapshot of it that '%2' publishes atomically%select{| in '%4'}3: "
       "the snapshot shares the member's storage")
      << R.Write->Operator << R.Member->getName()
      << Publisher->getNameAsString() << (R.Snapshot != nullptr)
      << (R.Snapshot ? R.Snapshot->getName() : llvm::StringRef()) << Fixes;
  diag(R.Worker.Spawn->getBeginLoc(),
       "'%0' is published here without a copy", DiagnosticIDs::Note)
      << R.Member->getName();
}

// Note [OpenMP loops]: at the write, with notes at the loop and at the read
// of other iterations' parts. No fix-it: the repair (a part per iteration, a
// reduction, a critical section) is the loop's design.
void WorkerMissingCloneCheck::reportParallelLoopRace(const WorkerRace &R) {
  const SharedValue &S = R.Shared;
  bool Holder = S.Kind == SharedKind::Container || S.Kind == SharedKind::Struct;
  diag(R.Write->Call->getExprLoc(),
       R.Kind == RaceKind::ChunksReadOthers
           ? "'%0' writes each iteration's own part of %select{|a tensor of }1'%2' "
             "in place in an OpenMP parallel loop while other iterations read "
             "it: the iterations race"
           : "'%0' writes %select{|a tensor of }1'%2' in place in every "
             "iteration of an OpenMP parallel loop, not only the iteration's "
             "own part: the iterations race")
      << R.Write->Operator << Holder << S.Name;
  diag(R.Spawn->Loop->getBeginLoc(),
       "the iterations of this loop run in parallel ('#pragma omp ... for')",
       DiagnosticIDs::Note);
  if (R.Use)
    diag(R.Use->getBeginLoc(), "an iteration reads '%0' outside its own part here",
         DiagnosticIDs::Note)
        << S.Name;
}

void WorkerMissingCloneCheck::checkDatasetWrites(
    const FunctionAliasAnalysis &Analysis, const FunctionDecl *Function,
    ASTContext &AST) {
  auto Analyze = [&](const FunctionDecl *F) {
    return analyze(F, AST, /*RequireWrites=*/false);
  };
  DatasetViewFinder Finder(table(), Analyze);
  if (const auto *Get = dyn_cast<CXXMethodDecl>(Function))
    if (std::optional<RefilledMember> Refilled = Finder.refilledMember(Get)) {
      // The write and the return are both get()'s: the fix-it, a clone
      // where get() returns the member, goes with the warning.
      const Expr *Returned = Refilled->View.Returned;
      {
        auto Diag =
            diag(Refilled->Write->Call->getExprLoc(),
                 "'%0' refills member '%1' in place in 'get()', which returns "
                 "it: every example shares one storage, so a batch's examples "
                 "all hold the last sample, and the DataLoader's workers, each "
                 "with a copy of dataset '%2', write it at once")
            << Refilled->Write->Operator << Refilled->View.Member->getName()
            << Refilled->View.Dataset->getName();
        if (FixedViews.insert(Returned).second)
          Diag << appendClone(Returned, AST.getSourceManager(), getLangOpts());
      } // The warning is emitted before its note.
      diag(Returned->getBeginLoc(), "'get()' returns member '%0' here",
           DiagnosticIDs::Note)
          << Refilled->View.Member->getName();
    }
  WriteChains Chains;
  for (const DatasetWrite &W : Finder.find(Analysis, Function->getBody())) {
    if (Chains.continuesReported(*W.Write))
      continue;
    diag(W.Write->Call->getExprLoc(),
         "'%0' writes example '%1' in place, but dataset '%2' returns views "
         "of its own storage from 'get()': every epoch sees the data already "
         "written")
        << W.Write->Operator << W.Example->getName()
        << W.View.Dataset->getName();
    // Note [Clone in get()]: the fix-it clones the view where get() returns
    // it, once per translation unit, on the note: the write's author may not
    // own the dataset. It is applied with --fix-notes.
    const Expr *Returned = W.View.Returned;
    auto Note = diag(Returned->getBeginLoc(),
                     "'get()' returns a view of member '%0' here",
                     DiagnosticIDs::Note)
                << W.View.Member->getName();
    if (FixedViews.insert(Returned).second)
      Note << appendClone(Returned, AST.getSourceManager(), getLangOpts());
  }
}

void WorkerMissingCloneCheck::onEndOfTranslationUnit() {
  AliasCheckBase::onEndOfTranslationUnit();
  FixedViews.clear();
  ParallelPragmas.clear();
  SerialisingPragmas.clear();
}

} // namespace clang::tidy::libtorch
