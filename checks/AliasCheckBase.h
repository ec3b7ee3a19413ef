//===- AliasCheckBase.h - shared plumbing of the libtorch checks *- C++ -*-===//
//
// The libtorch checks are thin clients of the alias analysis. This base loads
// the operator table named by the `OperatorTable` option, keeps the analysis
// of the current translation unit, and words the notes that point at both ends
// of an alias.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_CHECKS_ALIASCHECKBASE_H
#define TORCHALIAS_CHECKS_ALIASCHECKBASE_H

#include "Compat.h"
#include "AliasAnalysis.h"
#include "AutogradAnalysis.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "clang/ASTMatchers/ASTMatchers.h"

#include <memory>
#include <string>

namespace clang::tidy::libtorch {

/// The copy that isolating fix-its insert: option `IsolationHelper` of the
/// checks that offer one.
enum class IsolationHelper {
  Clone,      ///< libtorch alone: `.clone()`, `Module::clone()`.
  Torchalias, ///< The runtime library: `torchalias::isolate`, ...
};

/// `v.mul_(2).add_(1)` is one mistake: a write whose target is the result of
/// an earlier reported write continues that report and is not reported again.
class WriteChains {
public:
  /// Whether Write continues a reported chain; otherwise Write starts one.
  bool continuesReported(const WriteEvent &Write) {
    if (Reported.count(skipHandleCopies(Write.Target)))
      return true;
    Reported.insert(Write.Call);
    return false;
  }

private:
  llvm::DenseSet<const Expr *> Reported;
};

/// `.clone()` appended to E, or std::nullopt when E begins or ends in a
/// macro.
/// The operator or function a writing call is spelled with (`masked_fill_`,
/// `renorm_`, a helper's name); empty when there is none.
std::string writerName(const Expr *Call, const OperatorTable &Table);

std::optional<FixItHint> appendClone(const Expr *E, const SourceManager &SM,
                                     const LangOptions &LangOpts);

/// The text E is spelled with; empty when it cannot be read.
std::string sourceText(const Expr *E, const SourceManager &SM,
                       const LangOptions &LangOpts);

class AliasCheckBase : public ClangTidyCheck {
public:
  AliasCheckBase(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  /// Matches the function definitions the checks analyse: user code with a
  /// body, not libtorch's own inline functions, not system headers, not
  /// lambda bodies (they are analysed with the function that holds them) and
  /// not dependent template patterns (their instantiations are analysed
  /// instead). check() reads the function back with matchedFunction().
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void onEndOfTranslationUnit() override;

protected:
  /// The function registerMatchers() matched, or null for another matcher.
  static const FunctionDecl *
  matchedFunction(const ast_matchers::MatchFinder::MatchResult &Result);

  /// The analysis of Function if it may write tensors (or, with
  /// RequireWrites false, whenever its CFG builds), else null.
  const FunctionAliasAnalysis *analyze(const FunctionDecl *Function,
                                       ASTContext &AST,
                                       bool RequireWrites = true);

  /// The written tensor and how it relates to its root: "'head', a view of
  /// parameter 'input'", or "a view of parameter 'input'" when unnamed.
  static std::string describeTarget(const WriteEvent &Write);
  /// "parameter 'input'", "member 'weight_'", ...
  static std::string describeRoot(const AliasValue &Value);

  /// The analysis state of the translation unit AST belongs to: summaries and
  /// escapes.
  AliasAnalysisContext &aliasContext(ASTContext &AST);

  /// Notes at the alias site and, for a write inside a callee, at that write.
  void addAliasNotes(const WriteEvent &Write);

  /// The autograd facts of Function; for a function with no backward of its
  /// own, with the backward of a caller that differentiates the graph it
  /// returns (Note [A graph returned to the caller]).
  std::unique_ptr<AutogradAnalysis> autogradFacts(const FunctionDecl &Function,
                                                  ASTContext &AST);
  /// Whether Write, not through `.data()` or `detach()`, reaches its root
  /// through a view: one the caller made, or one a helper it calls makes of
  /// its parameter (Note [In-place writes into saved tensors]).
  static bool writesThroughView(const WriteEvent &Write);
  /// The save that Write, an in-place write that is not through `.data()`
  /// or `detach()`, breaks, if a backward needs it (Note [In-place writes
  /// into saved tensors]); null otherwise.
  const SavedTensor *savedTensorBroken(const WriteEvent &Write,
                                       const AutogradAnalysis &Autograd);
  /// Reports Write, which breaks Save: at the write (in a helper, where the
  /// helper writes), with notes at the call, the views, the save and the
  /// backward.
  void reportSavedTensorWrite(const WriteEvent &Write, const SavedTensor &Save,
                              const AutogradAnalysis &Autograd);
  /// Whether Write is in a lambda that Function stores for later (Note
  /// [Lambdas stored for later]): it runs at a time Function does not show.
  bool runsLater(const WriteEvent &Write, const FunctionDecl &Function);
  /// The save, and, for a graph returned to a caller, where that caller
  /// differentiates it.
  void noteSave(const SavedTensor &Save, const AutogradAnalysis &Autograd,
                const Expr *Write);

  /// The operator table; valid once analyze() has returned an analysis.
  /// The table named by the OperatorTable option, loaded on first use; a
  /// table that cannot be loaded is reported and the built-in one is used.
  const OperatorTable &table();

protected:
  /// The check's name; ClangTidyCheck::getID is private before LLVM 17.
  const std::string CheckName;

private:
  const std::string OperatorTablePath;
  std::shared_ptr<const OperatorTable> Table;
  std::unique_ptr<AliasAnalysisContext> Analysis;
  /// The calls of the current translation unit's main file, built when a
  /// function that may return a graph first needs them.
  std::unique_ptr<MainFileCalls> Calls;
};

} // namespace clang::tidy::libtorch

namespace clang::tidy {
template <> struct OptionEnumMapping<libtorch::IsolationHelper> {
  static ArrayRef<std::pair<libtorch::IsolationHelper, StringRef>>
  getEnumMapping() {
    static constexpr std::pair<libtorch::IsolationHelper, StringRef>
        Mapping[] = {{libtorch::IsolationHelper::Clone, "clone"},
                     {libtorch::IsolationHelper::Torchalias, "torchalias"}};
    return Mapping;
  }
};
} // namespace clang::tidy

#endif
