//===- TorchaliasClangd.cpp - clangd with the libtorch module -------------===//
//
// torchalias-clangd is clangd itself (the same flags, configuration files,
// code actions and NOLINT handling), linked with the libtorch module, so that
// editors get the libtorch diagnostics and fix-its as the user types. clangd
// does not load clang-tidy plugins; linking the module's object files in
// registers it with clangd's ClangTidyModuleRegistry.
//
//===----------------------------------------------------------------------===//

#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <optional>
#include <string>

namespace clang::clangd {
// clang-tools-extra/clangd/tool/ClangdMain.cpp; Debian installs the library
// (libclangdMain.a) but not a header for it.
int clangdMain(int Argc, char **Argv);
} // namespace clang::clangd

// Note [libtorch checks are fast checks]
// clangd runs a clang-tidy check only if its table of measured checks
// (TidyFastChecks.inc, compiled into libclangDaemon) says it is fast, unless
// the project's `FastCheckFilter` says otherwise; a check it has never
// measured is dropped by the default `Strict` filter. The libtorch checks
// analyse only the main file's functions that write tensors, and re-checking
// a file after an edit costs well under a second (docs/benchmarks.md), so
// torchalias-clangd answers "fast" for them and defers to clangd's table for
// every other check. The linker routes clangd's calls to isFastTidyCheck here
// (`-Wl,--wrap`, see driver/CMakeLists.txt); `FastCheckFilter: None` or
// `Loose` in a `.clangd` file keep their meaning.
// The symbol names are clang::clangd::isFastTidyCheck(llvm::StringRef) with
// the linker's `__real_` and `__wrap_` prefixes.
std::optional<bool> clangdIsFastTidyCheck(llvm::StringRef Check) asm(
    "__real__ZN5clang6clangd15isFastTidyCheckEN4llvm9StringRefE");
std::optional<bool> isFastTidyCheck(llvm::StringRef Check) asm(
    "__wrap__ZN5clang6clangd15isFastTidyCheckEN4llvm9StringRefE");

std::optional<bool> isFastTidyCheck(llvm::StringRef Check) {
  if (Check.starts_with("libtorch-"))
    return true;
  return clangdIsFastTidyCheck(Check);
}

// Note [Configuration errors reach the log]
// clang-tidy reports a bad check option (`invalid configuration value`, an
// unreadable OperatorTable) as a diagnostic without a location. clangd has no
// place for such a diagnostic in an editor: it passes it to
// IgnoreDiagnostics::log, which logs it only at `--log=verbose`, so a typo in
// `.clang-tidy` would silently fall back to the default. torchalias-clangd
// also writes every clang-tidy configuration diagnostic to the server's log
// (stderr, which editors show as the language server's output) at the default
// log level, once per distinct message (clangd rebuilds the AST, and so
// reconfigures the checks, on every edit). The wrap is the same linker
// mechanism as above.
// The symbol is clang::clangd::IgnoreDiagnostics::log(
// DiagnosticsEngine::Level, const Diagnostic &), a static member function.
void clangdLogIgnoredDiagnostic(clang::DiagnosticsEngine::Level Level,
                                const clang::Diagnostic &Info) asm(
    "__real__ZN5clang6clangd17IgnoreDiagnostics3logENS_17DiagnosticsEngine5LevelERKNS_10DiagnosticE");
void logIgnoredDiagnostic(clang::DiagnosticsEngine::Level Level,
                          const clang::Diagnostic &Info) asm(
    "__wrap__ZN5clang6clangd17IgnoreDiagnostics3logENS_17DiagnosticsEngine5LevelERKNS_10DiagnosticE");

void logIgnoredDiagnostic(clang::DiagnosticsEngine::Level Level,
                          const clang::Diagnostic &Info) {
  llvm::SmallString<128> Message;
  Info.FormatDiagnostic(Message);
  static std::mutex Mutex;
  static llvm::StringSet<> Logged;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (llvm::StringRef(Message).ends_with("[clang-tidy-config]") &&
      Logged.insert(Message).second) {
    // One write, so that the line does not interleave with clangd's own.
    std::string Line = (llvm::Twine("torchalias-clangd: ") +
                        (Level >= clang::DiagnosticsEngine::Error ? "error: "
                                                                  : "warning: ") +
                        Message + "\n")
                           .str();
    llvm::errs() << Line;
  }
  clangdLogIgnoredDiagnostic(Level, Info);
}

int main(int Argc, char **Argv) { return clang::clangd::clangdMain(Argc, Argv); }
