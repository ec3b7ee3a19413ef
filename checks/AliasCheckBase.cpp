//===- AliasCheckBase.cpp - shared plumbing of the libtorch checks --------===//

#include "AliasCheckBase.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

namespace {
AST_MATCHER(Decl, isLibtorchCode) { return isLibtorchDecl(&Node); }
AST_MATCHER(FunctionDecl, isDependentPattern) {
  return Node.isDependentContext();
}

ast_matchers::internal::BindableMatcher<Decl> analyzableFunction() {
  return functionDecl(
      isDefinition(), hasBody(stmt()), unless(isExpansionInSystemHeader()),
      unless(isImplicit()), unless(isLibtorchCode()),
      unless(isDependentPattern()),
      unless(cxxMethodDecl(ofClass(cxxRecordDecl(isLambda())))));
}
} // namespace

AliasCheckBase::AliasCheckBase(StringRef Name, ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context), CheckName(Name.str()),
      OperatorTablePath(Options.get("OperatorTable", "")) {}

void AliasCheckBase::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "OperatorTable", OperatorTablePath);
}

static constexpr llvm::StringRef FunctionId = "function";

void AliasCheckBase::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(analyzableFunction().bind(FunctionId), this);
}

const FunctionDecl *
AliasCheckBase::matchedFunction(const MatchFinder::MatchResult &Result) {
  return Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
}

void AliasCheckBase::onEndOfTranslationUnit() { Analysis.reset(); }

std::optional<FixItHint> appendClone(const Expr *E, const SourceManager &SM,
                                     const LangOptions &LangOpts) {
  if (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return std::nullopt;
  SourceLocation End =
      Lexer::getLocForEndOfToken(E->getEndLoc(), 0, SM, LangOpts);
  if (End.isInvalid())
    return std::nullopt;
  // `.clone()` binds tighter than a prefix operator: `*opt` becomes
  // `(*opt).clone()`.
  const Expr *Inner = E->IgnoreImplicit();
  while (const auto *Copy = dyn_cast<CXXConstructExpr>(Inner)) {
    if (isa<CXXTemporaryObjectExpr>(Copy) || Copy->getNumArgs() != 1)
      break;
    Inner = Copy->getArg(0)->IgnoreImplicit();
  }
  bool Postfix = isa<DeclRefExpr, MemberExpr, ParenExpr, ArraySubscriptExpr,
                     CXXFunctionalCastExpr, CXXTemporaryObjectExpr>(Inner);
  if (const auto *Call = dyn_cast<CallExpr>(Inner)) {
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
    Postfix = !Op || Op->getOperator() == OO_Call ||
              Op->getOperator() == OO_Subscript ||
              Op->getOperator() == OO_Arrow;
  }
  if (Postfix)
    return FixItHint::CreateInsertion(End, ".clone()");
  // One hint can make only one edit: replace the expression's text.
  std::string Text = Lexer::getSourceText(
                         CharSourceRange::getTokenRange(E->getSourceRange()),
                         SM, LangOpts)
                         .str();
  if (Text.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(E->getSourceRange()),
      "(" + Text + ").clone()");
}

std::string sourceText(const Expr *E, const SourceManager &SM,
                       const LangOptions &LangOpts) {
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(E->getSourceRange()), SM, LangOpts)
      .str();
}

const OperatorTable &AliasCheckBase::table() {
  if (Table)
    return *Table;
  llvm::Expected<std::shared_ptr<const OperatorTable>> Loaded =
      OperatorTable::load(OperatorTablePath);
  if (Loaded) {
    Table = *Loaded;
  } else {
    // A bad table path must not silently disable the check: report it and
    // fall back to the built-in table so the run still finds bugs.
    configurationDiag("cannot use option '%0.OperatorTable': %1; using the "
                      "built-in table for libtorch %2",
                      DiagnosticIDs::Error)
        << CheckName << llvm::toString(Loaded.takeError())
        << OperatorTable::builtin()->libtorchVersion();
    Table = OperatorTable::builtin();
  }
  return *Table;
}

const FunctionAliasAnalysis *
AliasCheckBase::analyze(const FunctionDecl *Function, ASTContext &AST,
                        bool RequireWrites) {
  const OperatorTable &Operators = table();
  if (RequireWrites && !mayWriteTensors(Function->getBody(), Operators))
    return nullptr;
  const FunctionAliasAnalysis &Result = aliasContext(AST).analyze(Function);
  return Result.built() ? &Result : nullptr;
}

AliasAnalysisContext &AliasCheckBase::aliasContext(ASTContext &AST) {
  if (!Analysis || &Analysis->ast() != &AST)
    Analysis = std::make_unique<AliasAnalysisContext>(AST, table());
  return *Analysis;
}

std::string AliasCheckBase::describeTarget(const WriteEvent &Write) {
  const AliasValue &Value = Write.Value;
  llvm::StringRef Relation;
  switch (Value.Rel) {
  case Relation::Handle:
    Relation = "the same tensor as";
    break;
  case Relation::DefiniteView:
    Relation = "a view of";
    break;
  case Relation::MayAlias:
    Relation = "a possible alias of";
    break;
  case Relation::Expanded:
    Relation = "an expanded view of";
    break;
  case Relation::Detached:
    Relation = "a detached view of";
    break;
  }
  std::string Text = (Relation + " " + describeRoot(Value)).str();
  const Expr *Target = skipHandleCopies(Write.Target);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Target))
    return ("'" + Ref->getDecl()->getName() + "', " + Text).str();
  return Text;
}

std::string AliasCheckBase::describeRoot(const AliasValue &Value) {
  if (!Value.Root || !Value.Root->getIdentifier())
    return "a temporary";
  return (describeOrigin(Value.RootOrigin) + " '" + Value.Root->getName() + "'")
      .str();
}

void AliasCheckBase::addAliasNotes(const WriteEvent &Write) {
  const AliasValue &Value = Write.Value;
  if (Value.AliasSite) {
    unsigned Kind = Value.Rel == Relation::MayAlias   ? 1
                    : Value.Rel == Relation::Expanded ? 2
                    : Value.Rel == Relation::Detached ? 3
                                                      : 0;
    diag(Value.AliasSite->getExprLoc(),
         "%select{view|possible alias|expanded view|detached view}0 of %1 "
         "created here by '%2'",
         DiagnosticIDs::Note)
        << Kind << describeRoot(Value) << Value.AliasOperator;
  }
  if (Write.CalleeWrite && Write.CalleeParam)
    diag(Write.CalleeWrite->getExprLoc(),
         "'%0' writes its parameter '%1' in place here", DiagnosticIDs::Note)
        << Write.Operator << Write.CalleeParam->getName();
}

} // namespace clang::tidy::libtorch
