//===- TorchaliasTidy.cpp - clang-tidy with the libtorch module -----------===//
//
// torchalias-tidy is clang-tidy itself (the same flags, configuration files,
// fixes and NOLINT handling), linked with the stock modules and the libtorch
// module. The module registers itself when its object files are linked in.
//
//===----------------------------------------------------------------------===//

#include "clang-tidy/tool/ClangTidyMain.h"

int main(int Argc, const char **Argv) {
  return clang::tidy::clangTidyMain(Argc, Argv);
}
