//===- PreambleTokens.h - What preprocessing a preamble gives ---*- C++ -*-===//
//
// The facts by which PchCache decides that a preamble read in another order
// is transparent: see Note [A shared PCH] in PchCache.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_DRIVER_PREAMBLETOKENS_H
#define TORCHALIAS_DRIVER_PREAMBLETOKENS_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class PPCallbacks;
class Preprocessor;
} // namespace clang

namespace torchalias::driver {

/// How the preprocessor took the conditionals of a main file: Note [A
/// preamble's conditionals] in PchCache.cpp.
struct Branches {
  /// For each #if, #ifdef, #ifndef and #elif, in order: 'T' (its condition
  /// held), 'F' (it did not) or 'N' (not evaluated: an earlier branch was
  /// taken).
  std::string Taken;
  /// The identifiers their conditions name that are defined otherwise at the
  /// end of the main file than where the condition read them.
  std::set<std::string> Changed;
};

/// The identifiers that a condition's text names (`defined` among them),
/// numbers aside.
std::vector<llvm::StringRef> conditionIdentifiers(llvm::StringRef Text);

/// Callbacks that fill \p Out as \p PP preprocesses its main file.
std::unique_ptr<clang::PPCallbacks> recordBranches(const clang::Preprocessor &PP, Branches &Out);

/// What the preprocessor makes of a header, file by file.
struct PreambleTokens {
  /// For each file (a real path), the hash of the tokens that each of its
  /// entries gave the parser (its own and those its macros expand to, and its
  /// unknown pragmas), sorted; entries that gave none are left out.
  std::map<std::string, std::vector<std::string>> Entries;
  /// Every macro defined at the end, with the hash of its definition.
  std::map<std::string, std::string> Macros;
  /// For each file, the files its #include lines named, entered or skipped,
  /// in order.
  std::map<std::string, std::vector<std::string>> Includes;
  /// For each system header, the hashes of its statements (tokens up to a
  /// `;`, `{` or `}`), in order, over all its entries.
  std::map<std::string, std::vector<std::string>> Statements;
  /// Every file read, the header itself aside.
  std::vector<std::string> Files;
  /// The search directories, as real paths, in search order.
  std::vector<std::string> Dirs;
  /// The files that an #include at the end would skip as already included.
  std::set<std::string> Skipped;
  /// The conditionals of the header itself.
  Branches Conditions;

  /// Whether the parser sees the same tokens from each file, and the same
  /// macros at the end; except that the system headers whose tokens differ
  /// may differ by which of them holds each statement (the C library's
  /// `#ifndef __pid_t_defined` typedefs land in the first header to reach
  /// them), as long as together they hold the same ones.
  /// The macros \p Ignored, which no file names (a command line's that
  /// another run set otherwise), are left out.
  bool sameAs(const PreambleTokens &Other, const std::set<std::string> &Ignored = {}) const;
};

/// Preprocesses \p Text as the C++ header \p Header (a path that need not
/// exist) with the syntax-only command line \p Flags (without an input file)
/// in \p WorkingDir. None if it has errors.
std::optional<PreambleTokens> preprocessPreamble(const std::vector<std::string> &Flags,
                                                 const std::string &Header,
                                                 llvm::StringRef Text,
                                                 llvm::StringRef WorkingDir);

} // namespace torchalias::driver

#endif
