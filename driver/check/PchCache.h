//===- PchCache.h - Automatic PCH of each unit's preamble -------*- C++ -*-===//
//
// See Note [When a PCH is used] and Note [A unit's preamble] in PchCache.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_DRIVER_PCHCACHE_H
#define TORCHALIAS_DRIVER_PCHCACHE_H

#include "PreambleTokens.h"

#include "llvm/ADT/STLFunctionalExtras.h"
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
  std::vector<std::string> System; // those of Angled from -isystem and -idirafter
};

/// The macros that a command line defines (`-DNAME=VALUE`) or undefines
/// (`-UNAME`), by name, each as its last flag leaves it.
using MacroFlags = std::map<std::string, std::string>;

/// Why a unit was parsed without a PCH; None when it used one. The names
/// (pchMissName) are what `--format json` and the summary line show.
enum class PchMiss {
  None,
  Disabled,         // --no-pch
  SeveralCommands,  // the database has more than one command for the file
  ForcedInclude,    // -include, -imacros or -include-pch on its command line
  NotCxx,           // -x other than c++
  NoPreamble,       // code or a directive of its own (#if) before any library header
  Unguarded,        // a header of its preamble has no include guard
  MacroChanged,     // a header of its preamble changes a macro the preamble set
  ConditionChanged, // its preamble's header or line changes a macro its #if reads
  BuildFailed,      // its flags do not compile its preamble
  SearchPaths,      // its search paths would find a header of the PCH elsewhere
  CompileError,     // it has compiler errors: re-run without the PCH
};
llvm::StringRef pchMissName(PchMiss Miss);

/// The headers of libraries (system, libtorch and other installed packages)
/// that a unit includes before any code of its own, in order, as the
/// compiler meets them, with the macros defined and undefined among them.
/// See Note [A unit's preamble].
struct Preamble {
  enum class Kind { Include, Macro, Condition };
  struct Line {
    std::string Text;   // `#include <torch/torch.h>`, `#define NAME 1`, `#ifdef NAME`, ...
    std::string Header; // an include's: a real path, or "/<spelling>" if builtin
    std::string Macro;  // a #define's or #undef's name
    Kind Is = Kind::Include;
    /// A conditional's: for #if, #ifdef, #ifndef and #elif, as
    /// Branches::Taken has it ('T', 'F' or 'N'); 0 for #else and #endif.
    char Branch = 0;
    std::vector<std::string> Tested; // the identifiers its condition names
  };
  std::vector<Line> Lines;
};

/// The PCH that a unit uses instead of its own preamble's (Note [A shared
/// PCH]): of its roots, chained to a PCH of the base if that is not empty.
struct SharedPreamble {
  Preamble Base, Roots;
};

/// A decision of Note [A shared PCH]: the shared PCH's preambles, or none;
/// every file that decided it; and the search directories and macro flags
/// of the runs that took it.
struct SharedPlan {
  std::optional<SharedPreamble> Shared;
  std::vector<std::string> Files, Dirs, FlagDirs;
  MacroFlags Defines;
};

/// What the cache offers a unit: a PCH, or why not.
struct PchChoice {
  std::optional<std::string> Path;
  PchMiss Miss = PchMiss::None;
};

class PchCache {
public:
  explicit PchCache(std::string Directory) : Directory(std::move(Directory)) {}

  /// Creates the cache directory and checks that it can be written.
  llvm::Error prepare();

  /// For a translation unit compiled with \p Args (a syntax-only command line
  /// whose input is \p File) in \p WorkingDir: the path of a PCH of the
  /// unit's preamble built with the same flags, building or rebuilding it if
  /// needed, or why the unit has none (a PCH would not be transparent, or
  /// cannot be built). Thread-safe; one build per preamble and set of flags.
  PchChoice pchFor(const std::vector<std::string> &Args, llvm::StringRef File,
                   llvm::StringRef WorkingDir);

  /// How many PCHs this run built, and how many built earlier it used.
  unsigned built() const;
  unsigned reused() const;

private:
  struct Built {
    std::string Path;
    std::vector<std::string> Dirs;     // its search directories, in order
    std::vector<std::string> FlagDirs; // those that came from its flags
    std::vector<std::string> Files; // every file it was built from
    std::set<std::string> Guarded;  // those that have an include guard
    /// The preamble's macros at its end: "here" (defined by the preamble),
    /// "elsewhere" (redefined by a header) or "undefined".
    std::map<std::string, std::string> Macros;
    /// The -D and -U flags it was built with.
    MacroFlags Defines;
    /// How it took its header's conditionals.
    Branches Conditions;
  };
  /// A unit's flags, as a PCH of its sees them: Note [Macros no header
  /// reads].
  struct UnitFlags {
    std::vector<std::string> Build; // the flags to build a PCH with
    const SearchPaths &Paths;
    const std::vector<std::string> &Rest; // without include directories and macros
    const MacroFlags &Macros;             // the unit's
    MacroFlags Kept;                      // those of Build
  };
  /// The PCH and its manifest, if every file it lists is unchanged.
  static std::optional<Built> readManifest(const std::string &Pch,
                                           const std::string &Manifest);
  /// The PCH of \p Key: already known, read from the cache, or (with
  /// \p Input) built; one build per key at a time.
  struct BuildInput {
    const std::vector<std::string> &Flags;
    const Preamble &Lead;
    const Built *Base; // the PCH it is chained to, or null
  };
  std::optional<Built> variant(const std::string &Key, const BuildInput *Input,
                               llvm::StringRef WorkingDir);
  std::optional<Built> build(const std::string &Key, const BuildInput &Input,
                             llvm::StringRef WorkingDir);
  /// Adds to the manifest of a PCH chained to \p Base what it has from it:
  /// the base's stamp (a rebuilt base makes it stale), files and guards.
  static bool addBase(const std::string &Manifest, const Built &Base);
  /// A PCH of \p Lead (chained to one of \p Base, if given) that fits a
  /// unit with \p Flags, or why there is none.
  std::pair<std::optional<Built>, PchMiss> pchOf(const UnitFlags &Flags, const Preamble &Lead,
                                                 const Built *Base, llvm::StringRef WorkingDir);
  /// The shorter preamble whose PCH the unit may use instead of its own, if
  /// any, and the files that decided it: Note [A shared PCH]. Decided once
  /// per preamble and flags, and kept in the cache.
  SharedPlan sharedPreamble(const std::vector<std::string> &Flags, const UnitFlags &Split,
                            const Preamble &Lead, llvm::StringRef WorkingDir);
  /// Of the macros \p Names, those that none of \p Files names: Note
  /// [Macros no header reads].
  std::set<std::string> unread(const std::vector<std::string> &Files,
                               const std::set<std::string> &Names);
  /// Whether what was decided or built with the macro flags \p Had, reading
  /// \p Files, holds for a unit with \p Has: each macro they set differently
  /// is one that none of the files reads, and (\p HadKept) one that \p Had
  /// does not set.
  bool macrosAlike(const std::vector<std::string> &Files, const MacroFlags &Had,
                   const MacroFlags &Has, bool HadKept);

  /// The value of \p Key in \p Map, which the first thread to ask computes
  /// with \p Compute while the others wait for it.
  template <typename T, typename Fn>
  T once(std::map<std::string, std::shared_future<T>> &Map, const std::string &Key,
         Fn Compute) {
    std::shared_future<T> Result;
    std::promise<T> Promise;
    bool Mine = false;
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      auto It = Map.find(Key);
      if (It == Map.end()) {
        It = Map.emplace(Key, Promise.get_future().share()).first;
        Mine = true;
      }
      Result = It->second;
    }
    if (Mine)
      Promise.set_value(Compute());
    return Result.get();
  }
  /// Whether reading \p Pch first is transparent for a unit whose preamble
  /// is \p Lead and that searches \p Paths: None, or why not.
  static PchMiss fits(const Built &Pch, const Preamble &Lead, const SearchPaths &Paths);

  std::string Directory;
  mutable std::mutex Mutex;
  std::map<std::string, std::shared_future<std::optional<Built>>> ByKey;
  std::map<std::string, std::shared_future<SharedPlan>> Shared;
  /// Note [A shared PCH]: a shorter preamble preprocessed alone, by its
  /// text and the flags other than include directories; one per set of
  /// include directories that needed its own run.
  struct AloneRun {
    std::vector<std::string> FlagDirs;
    MacroFlags Defines;
    PreambleTokens Tokens;
  };
  /// The keys of the cache's variants of \p Prefix whose files end with
  /// \p Suffix (`.deps` for PCHs, `.plan` for decisions).
  std::vector<std::string> variants(const std::string &Prefix, llvm::StringRef Suffix) const;
  /// The lock of a cache key's variants (PCHs or decisions): one thread at
  /// a time looks for one that fits and builds its own.
  std::mutex &searchLock(const std::string &Prefix);
  std::map<std::string, std::mutex> SearchLocks;
  /// For each file read, whether it names each macro asked about.
  std::mutex MentionsMutex;
  std::map<std::string, std::map<std::string, bool>> Mentions;
  std::map<std::string, std::vector<AloneRun>> AloneRuns;
  /// Note [A preamble's conditionals]: whether each condition holds, by the
  /// unit's flags and the #define and #undef lines before it.
  std::map<std::string, std::shared_future<std::optional<bool>>> Evaluated;
  std::set<std::string> BuiltKeys, Used;
};

/// Whether a conditional's directive (`#ifdef NAME`, `#if EXPR`, ...) holds
/// after the #define and #undef lines \p Macros, with a unit's flags; none if
/// it does not preprocess.
using EvaluateCondition =
    llvm::function_ref<std::optional<bool>(const std::string &Macros, const std::string &If)>;

/// The preamble of the file \p Path, whose search paths are \p Paths: the
/// part of it that a PCH holds, cut after its last libtorch header, with
/// repeated headers once. Empty if the file begins with code or a directive
/// of its own. See Note [A unit's preamble].
Preamble preambleOf(llvm::StringRef Path, const SearchPaths &Paths, EvaluateCondition Evaluate);

} // namespace torchalias::driver

#endif
