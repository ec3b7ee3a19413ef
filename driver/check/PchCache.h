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
#include <string>
#include <vector>

namespace torchalias::driver {

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

  /// How many PCHs this run built, and how many it reused from the cache.
  unsigned built() const { return BuiltCount; }
  unsigned reused() const { return Reused; }

private:
  struct Built {
    std::string Path;
    std::vector<std::string> Files; // every file it was built from
  };
  std::optional<Built> buildOrReuse(const std::string &Key,
                                          const std::vector<std::string> &Flags,
                                          llvm::StringRef WorkingDir);

  std::string Directory;
  std::mutex Mutex;
  std::map<std::string, std::shared_future<std::optional<Built>>> ByKey;
  std::atomic<unsigned> BuiltCount{0}, Reused{0};
};

/// If the directives at the top of the file \p Path reach
/// `#include <torch/torch.h>` with nothing but other `#include <...>` lines,
/// `#pragma once`, include guards and project headers (`#include "..."`, next
/// to the file) that do the same before it: the angled includes met on the
/// way. Otherwise nullopt. See Note [When a PCH is used].
std::optional<std::vector<std::string>> includesBeforeTorch(llvm::StringRef Path,
                                                             unsigned Depth = 0);

} // namespace torchalias::driver

#endif
