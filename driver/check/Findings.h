//===- Findings.h - What `torchalias check` reports -------------*- C++ -*-===//
//
// A Finding is one clang-tidy diagnostic as the runner reports it: resolved
// to absolute paths, lines and columns, with its notes, its fix-it edits, the
// function that encloses it and its identity. See Note [Finding identity].
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_DRIVER_FINDINGS_H
#define TORCHALIAS_DRIVER_FINDINGS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace torchalias::driver {

struct SourcePoint {
  std::string File; // absolute
  unsigned Line = 0, Column = 0; // 1-based; Column counts bytes
};

struct Note {
  std::string Message;
  SourcePoint Where;
};

struct Edit {
  SourcePoint Begin, End; // End is exclusive
  std::string Text;
  // The same edit as clang-apply-replacements wants it.
  unsigned Offset = 0, Length = 0;
};

struct Finding {
  std::string Check; // e.g. libtorch-inplace-on-view, clang-diagnostic-error
  bool IsError = false;
  std::string Message;
  SourcePoint Where;
  std::vector<Note> Notes;
  std::vector<Edit> Fixes;
  std::string Function; // qualified name of the enclosing function, or ""
  std::string Snippet;  // the finding's source line, whitespace normalised
  std::string Id;       // see Note [Finding identity]
};

/// 16 hex digits of the XXH3 64-bit hash of \p Text.
std::string hash64(llvm::StringRef Text);

/// Gives each finding its identity. \p Root makes paths relative, so that a
/// baseline written on one checkout matches on another.
void assignIds(std::vector<Finding> &Findings, llvm::StringRef Root);

/// \p Path relative to \p Root when it lies under it, else \p Path.
std::string relativePath(llvm::StringRef Path, llvm::StringRef Root);

/// Collapses runs of whitespace to one space and trims both ends.
std::string normaliseSnippet(llvm::StringRef Line);

/// A baseline file: the identities of accepted findings.
llvm::Expected<std::set<std::string>> readBaseline(llvm::StringRef Path);
llvm::Error writeBaseline(llvm::StringRef Path, const std::vector<Finding> &Findings,
                          llvm::StringRef Root);

/// Changed lines per absolute file path, from a unified diff.
using ChangedLines = std::map<std::string, std::set<unsigned>>;
/// Parses a unified diff (`git diff -U0`, or any `diff -u`); paths in its
/// `+++` lines are taken relative to \p Root.
ChangedLines parseUnifiedDiff(llvm::StringRef Diff, llvm::StringRef Root);

} // namespace torchalias::driver

#endif
