//===- LibtorchTidyModule.cpp - the `libtorch` clang-tidy module ----------===//

#include "InplaceOnViewCheck.h"

#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace clang::tidy::libtorch {

class LibtorchModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<InplaceOnViewCheck>("libtorch-inplace-on-view");
  }
};

// Registered both when the plugin is loaded into clang-tidy and when the
// object files are linked into torchalias-tidy.
static ClangTidyModuleRegistry::Add<LibtorchModule>
    X("libtorch-module", "Checks for tensor-aliasing bugs in libtorch code.");

} // namespace clang::tidy::libtorch
