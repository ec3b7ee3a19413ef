//===- Compat.h - What differs between the LLVM releases we build on -*- C++ -*-===//
//
// torchalias builds against LLVM 14, 15, 16, 19 and 22 from one set of
// sources. Every API difference between those releases that the code meets
// is bridged here, and only here, each with a note saying which releases
// differ and how. The rest of the code calls these names and has no #if on
// the LLVM version. TORCHALIAS_LLVM_MAJOR comes from cmake/TorchAliasLLVM.cmake.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_COMPAT_H
#define TORCHALIAS_COMPAT_H

#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/utils/OptionsUtils.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"

#include <memory>
#include <optional>

#ifndef TORCHALIAS_LLVM_MAJOR
#error "TORCHALIAS_LLVM_MAJOR must be defined (cmake/TorchAliasLLVM.cmake does)"
#endif

namespace torchalias::compat {

// Note [Prefix and suffix tests]
// StringRef::starts_with/ends_with exist from LLVM 16 (SmallString's from
// 17); the older startswith/endswith are gone in 19. These work on all.
inline bool startsWith(llvm::StringRef S, llvm::StringRef Prefix) {
  return S.size() >= Prefix.size() && S.take_front(Prefix.size()) == Prefix;
}
inline bool endsWith(llvm::StringRef S, llvm::StringRef Suffix) {
  return S.size() >= Suffix.size() && S.take_back(Suffix.size()) == Suffix;
}

// Note [The thread pool]
// LLVM 19 split ThreadPool into an interface and implementations and named
// the default one DefaultThreadPool; before that it was the class ThreadPool.
#if TORCHALIAS_LLVM_MAJOR >= 19
using ThreadPool = llvm::DefaultThreadPool;
#else
using ThreadPool = llvm::ThreadPool;
#endif

// Note [Inclusion callbacks]
// PPCallbacks::InclusionDirective's parameters changed three times: LLVM 14
// passes `const FileEntry *File`, 15 `Optional<FileEntryRef>`, 16-18
// `OptionalFileEntryRef` (a different type), and 19 replaced
// `const Module *Imported` with `const Module *SuggestedModule, bool
// ModuleImported`. Derive from InclusionCallbacks and override included().
class InclusionCallbacks : public clang::PPCallbacks {
public:
  /// An #include of \p FileName, found in the search directory \p SearchPath.
  virtual void included(llvm::StringRef FileName, llvm::StringRef SearchPath) = 0;

#if TORCHALIAS_LLVM_MAJOR >= 19
  void InclusionDirective(clang::SourceLocation, const clang::Token &, llvm::StringRef FileName,
                          bool, clang::CharSourceRange, clang::OptionalFileEntryRef,
                          llvm::StringRef SearchPath, llvm::StringRef, const clang::Module *,
                          bool, clang::SrcMgr::CharacteristicKind) override {
    included(FileName, SearchPath);
  }
#elif TORCHALIAS_LLVM_MAJOR >= 16
  void InclusionDirective(clang::SourceLocation, const clang::Token &, llvm::StringRef FileName,
                          bool, clang::CharSourceRange, clang::OptionalFileEntryRef,
                          llvm::StringRef SearchPath, llvm::StringRef, const clang::Module *,
                          clang::SrcMgr::CharacteristicKind) override {
    included(FileName, SearchPath);
  }
#elif TORCHALIAS_LLVM_MAJOR == 15
  void InclusionDirective(clang::SourceLocation, const clang::Token &, llvm::StringRef FileName,
                          bool, clang::CharSourceRange, llvm::Optional<clang::FileEntryRef>,
                          llvm::StringRef SearchPath, llvm::StringRef, const clang::Module *,
                          clang::SrcMgr::CharacteristicKind) override {
    included(FileName, SearchPath);
  }
#else
  void InclusionDirective(clang::SourceLocation, const clang::Token &, llvm::StringRef FileName,
                          bool, clang::CharSourceRange, const clang::FileEntry *,
                          llvm::StringRef SearchPath, llvm::StringRef, const clang::Module *,
                          clang::SrcMgr::CharacteristicKind) override {
    included(FileName, SearchPath);
  }
#endif
};

// Note [The files a SourceManager read]
// SourceManager::fileinfo_begin() iterates a map keyed by FileEntryRef from
// LLVM 18, by `const FileEntry *` before.
template <typename Callback>
void forEachFileRead(const clang::SourceManager &SM, Callback &&Each) {
  for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
#if TORCHALIAS_LLVM_MAJOR >= 18
    Each(It->first.getName());
#else
    Each(It->first->getName());
#endif
  }
}

// Note [A header included again]
// Whether an #include of \p File at this point would enter it, or skip it as
// already included (its `#pragma once`, or its include guard's macro still
// defined). HeaderSearch::ShouldEnterIncludeFile() takes a FileEntryRef from
// LLVM 18, a `const FileEntry *` before. It marks the file as included: ask
// at the end of a run.
inline bool wouldEnter(clang::Preprocessor &PP, clang::FileEntryRef File) {
  bool FirstInclude = false;
#if TORCHALIAS_LLVM_MAJOR >= 18
  return PP.getHeaderSearchInfo().ShouldEnterIncludeFile(PP, File, /*isImport=*/false,
                                                         /*ModulesEnabled=*/false,
                                                         /*M=*/nullptr, FirstInclude);
#else
  return PP.getHeaderSearchInfo().ShouldEnterIncludeFile(
      PP, &File.getFileEntry(), /*isImport=*/false, /*ModulesEnabled=*/false, /*M=*/nullptr,
      FirstInclude);
#endif
}

// Note [Search directories]
// HeaderSearch::search_dir_range() and DirectoryLookup::getDirRef() are
// LLVM 15's; 14 has search_dir_begin()/end() and getDir(). Header maps and
// frameworks are skipped.
template <typename Callback>
void forEachSearchDir(const clang::HeaderSearch &Search, Callback &&Each) {
  for (auto It = Search.search_dir_begin(); It != Search.search_dir_end(); ++It) {
#if TORCHALIAS_LLVM_MAJOR >= 15
    if (auto Dir = It->getDirRef())
      Each(Dir->getName());
#else
    if (const clang::DirectoryEntry *Dir = It->getDir())
      Each(Dir->getName());
#endif
  }
}

// Note [Making a path absolute]
// make_absolute(Base, Path) is in llvm::sys::fs up to LLVM 21 and in
// llvm::sys::path from 22.
inline void makeAbsolute(const llvm::Twine &Base, llvm::SmallVectorImpl<char> &Path) {
#if TORCHALIAS_LLVM_MAJOR >= 22
  llvm::sys::path::make_absolute(Base, Path);
#else
  llvm::sys::fs::make_absolute(Base, Path);
#endif
}

// Note [A diagnostics engine for a ClangTidyContext]
// Up to LLVM 21 a DiagnosticsEngine shares ownership of its options and the
// context takes a plain engine; from 22 the engine refers to options the
// context owns. TidyDiagnostics builds either and attaches it to a context.
class TidyDiagnostics {
public:
  TidyDiagnostics(clang::tidy::ClangTidyContext &Context, clang::DiagnosticConsumer &Consumer) {
#if TORCHALIAS_LLVM_MAJOR >= 22
    auto Options = std::make_unique<clang::DiagnosticOptions>();
    Engine = std::make_unique<clang::DiagnosticsEngine>(new clang::DiagnosticIDs(), *Options,
                                                        &Consumer, /*ShouldOwnClient=*/false);
    Context.setDiagnosticsEngine(std::move(Options), Engine.get());
#else
    Engine = std::make_unique<clang::DiagnosticsEngine>(
        new clang::DiagnosticIDs(), new clang::DiagnosticOptions(), &Consumer,
        /*ShouldOwnClient=*/false);
    Context.setDiagnosticsEngine(Engine.get());
#endif
  }

private:
  std::unique_ptr<clang::DiagnosticsEngine> Engine;
};

// Note [Optional results]
// Up to LLVM 15 clang and LLVM return llvm::Optional (CFGElement::getAs,
// json::Value::getAsString, ...), from 16 std::optional. The code declares such
// results with `auto` rather than naming either type; where a type must be
// named (an array passed to LLVM), it is compat::Optional.
#if TORCHALIAS_LLVM_MAJOR >= 16
template <typename T> using Optional = std::optional<T>;
#else
template <typename T> using Optional = llvm::Optional<T>;
#endif

// Note [Enabled checks]
// clang::tidy::getCheckNames gained a third parameter, for custom checks
// written in the configuration, in LLVM 22 (off here, as in clang-tidy's
// default).
inline std::vector<std::string> enabledChecks(const clang::tidy::ClangTidyOptions &Options) {
#if TORCHALIAS_LLVM_MAJOR >= 22
  return clang::tidy::getCheckNames(Options, /*AllowEnablingAnalyzerAlphaCheckers=*/false,
                                    /*ExperimentalCustomChecks=*/false);
#else
  return clang::tidy::getCheckNames(Options, /*AllowEnablingAnalyzerAlphaCheckers=*/false);
#endif
}

// Note [value_or]
// llvm::Optional (LLVM 14 and 15, Note [Optional results]) has getValueOr
// and, from 15, value_or; std::optional has value_or.
template <typename OptionalT, typename Default>
auto valueOr(const OptionalT &Value, Default &&Fallback) {
  using T = std::decay_t<decltype(*Value)>;
  return Value ? *Value : T(std::forward<Default>(Fallback));
}

// Note [String-list options]
// clang-tidy's utils::options::parseStringList returns StringRefs into the
// option's value from LLVM 15, std::strings in 14. The checks keep the value
// and want StringRefs: this splits it on ';', dropping empty items, as
// parseStringList does.
inline std::vector<llvm::StringRef> parseStringList(llvm::StringRef Option) {
#if TORCHALIAS_LLVM_MAJOR >= 15
  return clang::tidy::utils::options::parseStringList(Option);
#else
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Option.split(Parts, ';', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  return {Parts.begin(), Parts.end()};
#endif
}

} // namespace torchalias::compat

// Note [Self-contained diagnostics]
// From LLVM 15 an IncludeInserter is told whether the check's diagnostics
// must be self-contained (clangd), through the check's protected
// areDiagsSelfContained(); LLVM 14 has neither. A check constructs its
// inserter as Inserter(Style TORCHALIAS_SELF_CONTAINED_DIAGS): the macro is
// `, areDiagsSelfContained()` on 15+ and nothing on 14.
#if TORCHALIAS_LLVM_MAJOR >= 15
#define TORCHALIAS_SELF_CONTAINED_DIAGS , areDiagsSelfContained()
#else
#define TORCHALIAS_SELF_CONTAINED_DIAGS
#endif

// Note [Optional fix-its in diagnostics]
// `diag(...) << std::optional<FixItHint>` adds the fix-it if there is one;
// LLVM 16 added that operator, 15 and 14 have it only for llvm::Optional.
#if TORCHALIAS_LLVM_MAJOR <= 15
namespace clang {
inline const StreamingDiagnostic &operator<<(const StreamingDiagnostic &Diag,
                                             const std::optional<FixItHint> &Fix) {
  if (Fix)
    Diag << *Fix;
  return Diag;
}
} // namespace clang
#endif

namespace clang::tidy::libtorch {
namespace compat = ::torchalias::compat;
} // namespace clang::tidy::libtorch

#endif
