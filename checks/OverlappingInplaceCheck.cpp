//===- OverlappingInplaceCheck.cpp - libtorch-overlapping-inplace ---------===//

#include "OverlappingInplaceCheck.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

namespace {

/// Whether Operand is the written argument itself, also where the argument
/// wraps it (`c10::optional<Tensor>` from `w`).
bool isWrittenOperand(const WriteEvent &Write, const WriteOperand &Operand) {
  return Operand.Operand == Write.Target ||
         skipHandleCopies(Operand.Operand) == skipHandleCopies(Write.Target);
}

/// The word for an operand in diagnostics.
llvm::StringRef operandRole(llvm::StringRef Parameter, bool OfOutCall) {
  if (Parameter == "indices")
    return "index";
  if (Parameter == "mask")
    return "mask";
  if (Parameter == "src" || Parameter == "source")
    return "source";
  return OfOutCall ? "input" : "operand";
}

/// The operand's source text when it is short enough to quote.
std::string spelling(const Expr *E, const ASTContext &AST) {
  E = E->IgnoreImplicit();
  llvm::StringRef Text = Lexer::getSourceText(
      CharSourceRange::getTokenRange(E->getSourceRange()),
      AST.getSourceManager(), AST.getLangOpts());
  if (Text.empty() || Text.size() > 48 || Text.contains('\n'))
    return "";
  return Text.str();
}

bool isCloneable(const Expr *E) {
  E = skipHandleCopies(E);
  return isa<DeclRefExpr, MemberExpr, CallExpr, ParenExpr>(E) &&
         !E->getBeginLoc().isMacroID() && !E->getEndLoc().isMacroID();
}

} // namespace

OverlappingInplaceCheck::OverlappingInplaceCheck(StringRef Name,
                                                 ClangTidyContext *Context)
    : AliasCheckBase(Name, Context),
      WarnOnPossibleOverlap(Options.get("WarnOnPossibleOverlap", false)),
      Semantics(OverlapSemantics::builtin()) {}

void OverlappingInplaceCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  AliasCheckBase::storeOptions(Opts);
  Options.store(Opts, "WarnOnPossibleOverlap", WarnOnPossibleOverlap);
}

void OverlappingInplaceCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = matchedFunction(Result);
  const FunctionAliasAnalysis *Analysis = analyze(Function, *Result.Context);
  if (!Analysis)
    return;
  std::unique_ptr<OverlapAnalysis> Ranges;
  // One finding per call: `at::cat_out(x, {x, x})` is one mistake.
  llvm::DenseSet<const Expr *> Reported;
  for (const WriteEvent &Write : Analysis->writes()) {
    if (Write.CalleeWrite || !Write.Value.Root || Reported.count(Write.Call))
      continue;
    for (const WriteOperand &Operand : Write.Operands) {
      if (isWrittenOperand(Write, Operand) || !Operand.Value.Root)
        continue;
      if (!Ranges)
        Ranges = std::make_unique<OverlapAnalysis>(*Function, *Result.Context,
                                                   table());
      if (!Ranges->sameTensor(Operand.Value.Root, Write.Value.Root))
        continue;
      if (checkOperand(Write, Operand, *Ranges, *Result.Context)) {
        Reported.insert(Write.Call);
        break;
      }
    }
  }
}

// Note [What PyTorch checks]
// TensorIterator, copy_, cat and index_put_ call assert_no_partial_overlap or
// assert_no_overlap on their inputs and outputs. Those checks can only decide
// overlap for dense tensors; for others (a slice along an inner dimension)
// they give up and the kernel runs, reading elements it has already written.
// So the same mistake throws for one shape and is silently wrong for another,
// and the message says both. Which operator rejects what is measured, not
// written here (OverlapSemantics, checks/data/aten-overlap.json):
// - an operand that is exactly the destination is reported where the
//   operator rejects that (`x.index_put_({i}, x)`) or runs and computes a
//   wrong result (`at::mm_out(a, a, b)`: a row of `a` is overwritten while
//   later rows still read it), and not where it runs and is right
//   (`a.add_(a)`, `at::add_out(x, x, y)`: each element is read before it is
//   written);
// - a partial overlap is reported in any case: where the operator rejects it
//   the message says it throws when it can see it, where it accepts it the
//   message says nothing checks it;
// - where nothing was measured (an untested verdict, an operator the table
//   skips), an exact alias is reported for an index, an `out=` argument and
//   another written argument, as before the table existed;
// - two written arguments are never checked by libtorch: always reported.
void OverlappingInplaceCheck::lookUpMeasuredFacts(
    OverlapSite &Site, const TensorCall &Tensor,
    const OverlapAnalysis &Ranges) const {
  std::optional<IndexingWrite> Indexing =
      Site.Written == WrittenRole::Self ? indexingWrite(Site.Call) : std::nullopt;
  llvm::StringRef Input = Site.Parameter;
  Site.AtenOperator = Tensor.Effect.Operator;
  if (Indexing) {
    // Note [Indexing writes]: the indices are not an operand of copy_.
    Site.AtenOperator = Indexing->AtenOperator.str();
    if (Site.Operand.Position == 2)
      Input = Site.Parameter = Indexing->ValuesName;
    if (Indexing->Basic && Site.Operand.Position == 2)
      Site.WrittenIndices = Indexing->Indices;
  }
  if (!Site.AtenOperator.empty())
    Site.Measured = Semantics->lookup(
        Site.AtenOperator, Site.WrittenParameter,
        Input);
  Site.Overlap = Site.WrittenIndices
                     ? Ranges.compareIndexed(Site.Write.Target,
                                             Site.WrittenIndices,
                                             Site.Operand.Operand)
                     : Ranges.compare(Site.Write.Target, Site.Operand.Operand);
}

bool OverlappingInplaceCheck::checkOperand(const WriteEvent &Write,
                                           const WriteOperand &Operand,
                                           const OverlapAnalysis &Ranges,
                                           ASTContext &AST) {
  const auto *Call = cast<CallExpr>(Write.Call);
  std::optional<TensorCall> Tensor = resolveTensorCall(Call, table());
  if (!Tensor)
    return false;
  OverlapSite Site{Write, Operand, Call};
  for (const WriteOperand &Other : Write.Operands)
    if (isWrittenOperand(Write, Other))
      Site.WrittenPosition = Other.Position;
  Site.Written = Write.IsOutArgument         ? WrittenRole::Out
                 : Site.WrittenPosition == 0 ? WrittenRole::Self
                                             : WrittenRole::Other;
  Site.OperandWritten = Tensor->Effect.writesArgument(Operand.Position);
  Site.Parameter = operandName(*Tensor, Operand.Position);
  Site.WrittenParameter = operandName(*Tensor, Site.WrittenPosition);
  Site.ApiCall = !Tensor->OperandNames.empty();
  lookUpMeasuredFacts(Site, *Tensor, Ranges);
  if (!isReportable(Site))
    return false;
  report(Site, Ranges, AST);
  return true;
}

bool OverlappingInplaceCheck::isReportable(OverlapSite &Site) const {
  const WriteEvent &Write = Site.Write;
  const WriteOperand &Operand = Site.Operand;
  // Two handles of one root that the extents could not follow (a variable
  // that is reassigned) are still the same tensor.
  if (Site.Overlap == ExtentOverlap::Unknown && !Write.Value.isView() &&
      !Operand.Value.isView() && !Write.Value.Merged && !Operand.Value.Merged)
    Site.Overlap = ExtentOverlap::Identical;
  // In an expanded tensor, distinct indices can share memory.
  if ((Write.Value.Rel == Relation::Expanded ||
       Operand.Value.Rel == Relation::Expanded) &&
      (Site.Overlap == ExtentOverlap::Disjoint ||
       Site.Overlap == ExtentOverlap::SameOrDisjoint))
    Site.Overlap = ExtentOverlap::Unknown;

  switch (Site.Overlap) {
  case ExtentOverlap::Disjoint:
  case ExtentOverlap::SameOrDisjoint:
    return false;
  case ExtentOverlap::Identical:
    // Note [What PyTorch checks].
    if (Site.Written == WrittenRole::Other || Site.OperandWritten)
      return true;
    if (Site.Measured && Site.Measured->ExactAlias != OverlapVerdict::Untested)
      return Site.Measured->ExactAlias == OverlapVerdict::Rejects ||
             Site.Measured->ExactAlias == OverlapVerdict::Corrupts;
    return Site.Written != WrittenRole::Self || Site.Parameter == "indices";
  case ExtentOverlap::Unknown:
    return WarnOnPossibleOverlap;
  case ExtentOverlap::Contained:
  case ExtentOverlap::Shifted:
    return true;
  }
  llvm_unreachable("unknown ExtentOverlap");
}

void OverlappingInplaceCheck::report(const OverlapSite &Site,
                                     const OverlapAnalysis &Ranges,
                                     ASTContext &AST) {
  const WriteEvent &Write = Site.Write;
  const WriteOperand &Operand = Site.Operand;
  unsigned Relation = 0; // overlaps
  if (Site.Overlap == ExtentOverlap::Identical)
    Relation = 1;
  else if (Site.Overlap == ExtentOverlap::Unknown)
    Relation = 2;
  else if (Site.Overlap == ExtentOverlap::Shifted)
    Relation = 3;
  else if (Operand.Value.isView() && !Write.Value.isView() &&
           !Site.WrittenIndices)
    Relation = 4;
  // Note [What PyTorch checks]: no check runs between two written arguments
  // or between the schema's other written arguments and their inputs.
  unsigned Consequence = 0; // throws when it can see it
  if (Site.Written == WrittenRole::Other || Site.OperandWritten)
    Consequence = 1; // nothing checks
  else if (Site.Overlap == ExtentOverlap::Identical && Site.Measured &&
           Site.Measured->ExactAlias == OverlapVerdict::Rejects)
    Consequence = 2; // measured: rejects an exact alias
  else if (Site.Measured &&
           (Site.Overlap == ExtentOverlap::Identical
                ? Site.Measured->ExactAlias
                : Site.Measured->PartialOverlap) == OverlapVerdict::Corrupts)
    Consequence = 4; // measured: runs and computes a wrong result
  else if (Site.Overlap != ExtentOverlap::Identical && Site.Measured &&
           Site.Measured->PartialOverlap == OverlapVerdict::Accepts)
    Consequence = 3; // measured: accepts a partial overlap

  std::optional<FixItHint> Fix;
  if (!Site.OperandWritten && isCloneable(Operand.Operand))
    Fix = appendClone(Operand.Operand, AST.getSourceManager(), getLangOpts());
  // A call of the C++ API names its operands by their role (`weight`).
  std::string Who =
      Site.ApiCall && !Site.Parameter.empty()
          ? Site.Parameter.str()
          : operandRole(Site.Parameter, Site.Written == WrittenRole::Out).str();
  if (std::string Text = spelling(Operand.Operand, AST); !Text.empty())
    Who += " '" + Text + "'";
  std::string Where;
  switch (Site.Written) {
  case WrittenRole::Self:
    Where = "its destination";
    break;
  case WrittenRole::Out:
    Where = "its out= argument";
    break;
  case WrittenRole::Other:
    Where = ("the argument '" + Site.WrittenParameter +
             "' it also writes")
                .str();
    break;
  }
  if (std::string Text = spelling(Write.Target, AST); !Text.empty())
    Where += " '" + Text + "'";
  if (Site.WrittenIndices)
    if (std::string Text = spelling(Site.WrittenIndices, AST); !Text.empty())
      Where += " at '" + Text + "'";
  diag(Site.Call->getExprLoc(),
       "%0 of '%1' %select{overlaps|is the same tensor as|may overlap|overlaps "
       "(a shifted slice along dimension %3 of)|is a view of}2 %4; "
       "%select{PyTorch throws 'unsupported operation: some elements of the "
       "input tensor and the written-to tensor refer to a single memory "
       "location' when it can see the overlap and silently computes a wrong "
       "result when it cannot|no run-time check covers this and the result "
       "depends on the order of reads and writes|aten::%6 throws "
       "'unsupported operation: some elements of the input tensor and the "
       "written-to tensor refer to a single memory location' even for the "
       "same tensor|aten::%6 does not reject this overlap and the result "
       "depends on the order of reads and writes|aten::%6 does not reject "
       "this and computes a wrong result: it reads elements it has already "
       "written}5")
      << Who << Write.Operator << Relation << Ranges.shiftedDimension()
      << Where << Consequence << Site.AtenOperator << Fix;
  noteConstructionTie(Site, Ranges);
  for (const AliasValue *Value : {&Operand.Value, &Write.Value}) {
    if (!Value->AliasSite || Site.Call->getSourceRange().fullyContains(
                                 Value->AliasSite->getSourceRange()))
      continue;
    WriteEvent Alias;
    Alias.Value = *Value;
    addAliasNotes(Alias);
  }
}

// Note [Tensors made one at construction]: say where the two names became
// one tensor.
void OverlappingInplaceCheck::noteConstructionTie(
    const OverlapSite &Site, const OverlapAnalysis &Ranges) {
  const auto *Written = dyn_cast_or_null<FieldDecl>(Site.Write.Value.Root);
  const auto *Read = dyn_cast_or_null<FieldDecl>(Site.Operand.Value.Root);
  if (Written && Read && Written != Read) {
    if (std::optional<MemberTie> Tie = Ranges.ties().tieOf(Read)) {
      diag(Tie->Binding->getBeginLoc(),
           "'%0' and '%1' are one tensor: both are bound to '%2'",
           DiagnosticIDs::Note)
          << Read->getName() << Tie->Other->getName()
          << sourceText(Tie->Source,
                        Written->getASTContext().getSourceManager(),
                        getLangOpts());
    }
    return;
  }
  const auto *Element =
      dyn_cast<CXXOperatorCallExpr>(skipHandleCopies(Site.Operand.Operand));
  const auto *Container =
      Element && Element->getOperator() == OO_Subscript
          ? dyn_cast<DeclRefExpr>(Element->getArg(0)->IgnoreImplicit())
          : nullptr;
  const ValueDecl *Decl = Container ? Container->getDecl() : nullptr;
  if (!Decl)
    if (const auto *Member = dyn_cast_or_null<MemberExpr>(
            Element && Element->getOperator() == OO_Subscript
                ? Element->getArg(0)->IgnoreImplicit()
                : nullptr))
      Decl = Member->getMemberDecl();
  if (const Expr *Fill = Decl ? Ranges.ties().filledBy(Decl) : nullptr)
    diag(Fill->getBeginLoc(),
         "every element of '%0' is one tensor: it is filled with copies of "
         "one handle here",
         DiagnosticIDs::Note)
        << Decl->getName();
}

} // namespace clang::tidy::libtorch
