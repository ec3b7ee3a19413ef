//===- ModuleFixIts.cpp - fix-its that rewrite module handles -------------===//

#include "ModuleFixIts.h"

#include "AliasCheckBase.h"
#include "TensorModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"

namespace clang::tidy::libtorch {

static std::string sourceText(const Expr *E, const ASTContext &AST) {
  return sourceText(E, AST.getSourceManager(), AST.getLangOpts());
}

std::optional<FixItHint> deepCopyHolder(const VarDecl *Copy,
                                        const SourceManager &SM,
                                        const LangOptions &LangOpts) {
  const Expr *Init = Copy->getInit()->IgnoreImplicit();
  const CXXRecordDecl *Impl = moduleImplOf(Copy->getType());
  const CXXRecordDecl *Holder =
      Copy->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (Copy->getInitStyle() != VarDecl::CInit || !Impl || !Holder ||
      !isModuleHolderType(Copy->getType()) ||
      isa<ClassTemplateSpecializationDecl>(Holder) ||
      Init->getBeginLoc().isMacroID() || Init->getEndLoc().isMacroID())
    return std::nullopt;
  if (!isCloneableModule(Impl))
    return std::nullopt;
  std::string Source = sourceText(Init, SM, LangOpts);
  if (Source.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Init->getSourceRange()),
      Holder->getQualifiedNameAsString() + "(std::dynamic_pointer_cast<" +
          Impl->getQualifiedNameAsString() + ">(" + Source + "->clone()))");
}

// Note [Clone fix-it]
// `auto target = online;` copies a shared_ptr. The fix replaces the copied
// handle with a deep copy of the module: `clone()` (offered only when the
// module class is Cloneable, since Module::clone() throws otherwise), cast
// back to the module's type, or torchalias::deep_clone, which does the same
// and keeps the holder's type. For `=` initialisation the cast is wrapped in
// the holder's type; a member initializer (`target(online)`) initialises
// directly, so the cast alone will do. Not inside macros.
std::optional<FixItHint> cloneAtCopy(const Expr *Init, QualType Type,
                                     bool DirectInit, bool Torchalias,
                                     const ASTContext &AST) {
  const CXXRecordDecl *Impl = moduleImplOf(Type);
  const CXXRecordDecl *Holder = Type->getAsCXXRecordDecl();
  // The copied handle: `online` in `auto target = online` or `target(online)`.
  const Expr *Source = Init->IgnoreImplicit();
  if (const auto *Copy = dyn_cast<CXXConstructExpr>(Source);
      Copy && Copy->getNumArgs() == 1)
    Source = Copy->getArg(0)->IgnoreImplicit();
  if (!Holder || !Impl || Source->getBeginLoc().isMacroID() ||
      Source->getEndLoc().isMacroID())
    return std::nullopt;
  if (!isCloneableModule(Impl))
    return std::nullopt;
  std::string Text = sourceText(Source, AST);
  std::string Cast = "std::dynamic_pointer_cast<" +
                     Impl->getQualifiedNameAsString() + ">(" + Text +
                     "->clone())";
  std::string Replacement;
  bool IsHolder = isModuleHolderType(Type);
  if (Torchalias && IsHolder &&
      isModuleHolderType(Source->getType()))
    Replacement = "torchalias::deep_clone(" + Text + ")";
  else if (DirectInit || !IsHolder)
    Replacement = Cast;
  else if (!isa<ClassTemplateSpecializationDecl>(Holder))
    Replacement = Holder->getQualifiedNameAsString() + "(" + Cast + ")";
  if (Text.empty() || Replacement.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Source->getSourceRange()), Replacement);
}

// Note [De-duplicating fix-it]
// Wrapping the list in torchalias::unique_parameters keeps each tensor once,
// in first-seen order, which is what Python's optimizer would have built. It
// needs the runtime library, so it is offered only when IsolationHelper is
// `torchalias`, and only for a list of tensors (a list of parameter groups
// has no single place to wrap).
std::optional<FixItHint> uniqueParameters(const Expr *List,
                                          const ASTContext &AST) {
  if (!isTensorListType(List->getType()))
    return std::nullopt;
  const Expr *Written = List->IgnoreImplicit();
  if (isa<InitListExpr, CXXStdInitializerListExpr>(Written) ||
      Written->getBeginLoc().isMacroID() || Written->getEndLoc().isMacroID())
    return std::nullopt;
  std::string Text = sourceText(Written, AST);
  if (Text.empty())
    return std::nullopt;
  return FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Written->getSourceRange()),
      "torchalias::unique_parameters(" + Text + ")");
}

namespace {
/// Whether evaluating Value again constructs another module: a construction
/// (`Linear(4, 4)`, `Net()`, `std::make_shared<NetImpl>()`) whose arguments
/// are neither modules nor have side effects. A named handle (`shared`,
/// `Linear(shared)`) evaluates to the same module every time.
bool constructsFreshModule(const Expr *Value, const ASTContext &AST) {
  const Expr *E = skipModuleHandleCopies(Value);
  llvm::ArrayRef<const Expr *> Args;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    Args = llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs());
  } else if (const auto *Call = dyn_cast<CallExpr>(E);
             Call && Call->getDirectCallee() &&
             Call->getDirectCallee()->isInStdNamespace() &&
             Call->getDirectCallee()->getIdentifier() &&
             Call->getDirectCallee()->getName() == "make_shared") {
    Args = llvm::ArrayRef(Call->getArgs(), Call->getNumArgs());
  } else {
    return false;
  }
  return llvm::none_of(Args, [&](const Expr *Arg) {
    return Arg->getType()->isNullPtrType() || moduleImplOf(Arg->getType()) ||
           Arg->HasSideEffects(AST, /*IncludePossibleEffects=*/false);
  });
}

/// Whether S, below Body, is a statement of a block: not the condition or
/// initializer of another statement, where a loop cannot be inserted.
bool isBlockStatement(const Stmt *Body,
                      llvm::function_ref<bool(const Stmt *)> IsIt) {
  if (!Body)
    return false;
  if (isa<CompoundStmt>(Body) && llvm::any_of(Body->children(), IsIt))
    return true;
  return llvm::any_of(Body->children(), [&](const Stmt *Child) {
    return isBlockStatement(Child, IsIt);
  });
}

/// The first of Candidates that is no word of Text.
std::optional<std::string>
unusedName(llvm::StringRef Text, llvm::ArrayRef<llvm::StringRef> Candidates) {
  llvm::StringSet<> Used;
  std::string Word;
  for (char C : Text.str() + " ") {
    if (isAlphanumeric(C) || C == '_') {
      Word += C;
      continue;
    }
    Used.insert(Word);
    Word.clear();
  }
  for (llvm::StringRef Candidate : Candidates)
    if (!Used.contains(Candidate))
      return Candidate.str();
  return std::nullopt;
}
} // namespace

// Note [Distinct construction fix-it]
// `std::vector<Linear> v(n, Linear(4, 4))` copies one handle n times. The fix
// declares the container empty and constructs a module per element:
//   std::vector<Linear> v;
//   for (std::size_t i = 0, count = n; i < count; ++i)
//     v.push_back(Linear(4, 4));
// and `v.assign(n, Linear(4, 4))` becomes `v.clear();` and the same loop.
// The count is evaluated once, before the loop, as the fill evaluated it
// (a constant is used as it is), and converted to std::size_t as the
// container's size_type would be. The loop's names are chosen among words
// the count and the value do not use. Offered only where it is the same
// program but for distinct modules: the value is a construction (see
// constructsFreshModule), the container is a non-const local declared alone,
// the fill is a statement of a block, and nothing is in a macro. The
// container keeps its name and type, so its other uses stay valid.
std::optional<FixItHint>
distinctConstruction(const ParameterSharingAnalysis::ContainerFill &Fill,
                     const ASTContext &AST) {
  const Expr *FillSite = Fill.Site;
  if (!constructsFreshModule(Fill.Value, AST))
    return std::nullopt;
  const VarDecl *Var = Fill.Container;
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
  if (!Function || Var->getType().isConstQualified() || !Var->hasLocalStorage())
    return std::nullopt;
  bool Assign = isa<CXXMemberCallExpr>(FillSite);
  bool InBlock = isBlockStatement(Function->getBody(), [&](const Stmt *S) {
    if (Assign)
      return isa<Expr>(S) && cast<Expr>(S)->IgnoreImplicit() == FillSite;
    const auto *Decl = dyn_cast<DeclStmt>(S);
    return Decl && Decl->isSingleDecl() && Decl->getSingleDecl() == Var;
  });
  if (!InBlock || (!Assign && Var->getInitStyle() != VarDecl::CallInit))
    return std::nullopt;
  SourceLocation Begin = Assign ? FillSite->getBeginLoc() : Var->getLocation();
  SourceLocation End = FillSite->getEndLoc();
  if (Begin.isMacroID() || End.isMacroID() ||
      Fill.Value->getBeginLoc().isMacroID() ||
      Fill.Count->getBeginLoc().isMacroID())
    return std::nullopt;

  const SourceManager &SM = AST.getSourceManager();
  std::string Count = sourceText(Fill.Count, AST);
  std::string Value = sourceText(Fill.Value, AST);
  std::string Name = Var->getName().str();
  std::string Words = Count + " " + Value;
  std::optional<std::string> Index = unusedName(Words, {"i", "j", "k"});
  std::optional<std::string> Bound = unusedName(Words, {"count", "n", "size"});
  if (Count.empty() || Value.empty() || !Index || !Bound ||
      !unusedName(Words, {Name}))
    return std::nullopt;
  std::string Header = "for (std::size_t " + *Index + " = 0";
  if (Fill.Count->isIntegerConstantExpr(AST))
    Header += "; " + *Index + " < " + Count;
  else
    Header += ", " + *Bound + " = " + Count + "; " + *Index + " < " + *Bound;
  Header += "; ++" + *Index + ")";
  std::string Indent =
      Lexer::getIndentationForLine(Assign ? Begin : Var->getBeginLoc(), SM)
          .str();
  std::string Loop =
      Header + "\n" + Indent + "  " + Name + ".push_back(" + Value + ")";
  // The statement's own `;` ends the loop's body.
  SourceLocation AfterEnd =
      Lexer::getLocForEndOfToken(End, 0, SM, AST.getLangOpts());
  if (Assign)
    return FixItHint::CreateReplacement(
        CharSourceRange::getCharRange(Begin, AfterEnd),
        Name + ".clear();\n" + Indent + Loop);
  return FixItHint::CreateReplacement(
      CharSourceRange::getCharRange(
          Lexer::getLocForEndOfToken(Begin, 0, SM, AST.getLangOpts()),
          AfterEnd),
      ";\n" + Indent + Loop);
}

} // namespace clang::tidy::libtorch
