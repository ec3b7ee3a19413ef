//===- TorchaliasClangd.cpp - clangd with the libtorch module -------------===//
//
// torchalias-clangd is clangd itself (the same flags, configuration files,
// code actions and NOLINT handling), linked with the libtorch module, so that
// editors get the libtorch diagnostics and fix-its as the user types. clangd
// does not load clang-tidy plugins; linking the module's object files in
// registers it with clangd's ClangTidyModuleRegistry.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/StringRef.h"

#include <optional>

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

int main(int Argc, char **Argv) { return clang::clangd::clangdMain(Argc, Argv); }
