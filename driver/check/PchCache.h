//===- PchCache.h - Automatic PCH of the libtorch headers -------*- C++ -*-===//
//
// See Note [When a PCH is used] in PchCache.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_DRIVER_PCHCACHE_H
#define TORCHALIAS_DRIVER_PCHCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace torchalias::driver {

/// A unit's include directories, absolute, in the compiler's search order.
struct SearchPaths {
  std::vector<std::string> Quoted; // -iquote: for "..." only
  std::vector<std::string> Angled; // -I, then -isystem, then -idirafter
};

class PchCache {
public:
  explicit PchCache(std::string Directory) : Directory(std::move(Directory)) {}

  /// Creates the cache directory and checks that it can be written.
  llvm::Error prepare();

  /// For a translation unit compiled with \p Args (a syntax-only command line
  /// whose input is \p File) in \p WorkingDir: the path of a PCH of
  /// <torch/torch.h> built with the same flags, building or rebuilding it if
  /// needed, or nullopt if a PCH would not be transparent for this unit or
  /// cannot be built. Thread-safe; one build per distinct set of flags.
  std::optional<std::string> pchFor(const std::vector<std::string> &Args,
                                    llvm::StringRef File, llvm::StringRef WorkingDir);

  /// How many PCHs this run built, and how many built earlier it used.
  unsigned built() const;
  unsigned reused() const;

private:
  struct Built {
    std::string Path;
    std::vector<std::string> Dirs;     // its search directories, in order
    std::vector<std::string> FlagDirs; // those that came from its flags
    std::vector<std::string> Files; // every file it was built from
  };
  /// The PCH and its manifest, if every file it lists is unchanged.
  static std::optional<Built> readManifest(const std::string &Pch,
                                           const std::string &Manifest);
  /// The PCH of \p Key: already known, read from the cache, or (with
  /// \p Flags) built; one build per key at a time.
  std::optional<Built> variant(const std::string &Key, const std::vector<std::string> *Flags,
                               llvm::StringRef WorkingDir);
  std::optional<Built> build(const std::string &Key, const std::vector<std::string> &Flags,
                             llvm::StringRef WorkingDir);
  /// Whether reading \p Pch first is transparent for a unit that includes
  /// \p Before ahead of libtorch and searches \p Paths.
  static bool fits(const Built &Pch, const std::vector<std::string> &Before,
                   const SearchPaths &Paths);

  std::string Directory;
  mutable std::mutex Mutex;
  std::map<std::string, std::shared_future<std::optional<Built>>> ByKey;
  std::set<std::string> BuiltKeys, Used;
};

/// If the directives at the top of the file \p Path reach
/// `#include <torch/torch.h>` through nothing but `#pragma once`, include
/// guards, headers (found through \p Paths) that do the same, and other
/// includes: those other includes, as real paths, or as "/<spelling>" for
/// headers of the system directories, all of which must be in the PCH.
/// Otherwise nullopt. See Note [When a PCH is used].
std::optional<std::vector<std::string>>
includesBeforeTorch(llvm::StringRef Path, const SearchPaths &Paths, unsigned Depth = 0);

} // namespace torchalias::driver

#endif
