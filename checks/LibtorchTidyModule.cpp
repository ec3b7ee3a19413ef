//===- LibtorchTidyModule.cpp - the `libtorch` clang-tidy module ----------===//

#include "DetachedWriteCheck.h"
#include "FromBlobEscapeCheck.h"
#include "WorkerMissingCloneCheck.h"
#include "InplaceOnViewCheck.h"
#include "SharedParameterUpdateCheck.h"
#include "OverlappingInplaceCheck.h"

#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace clang::tidy::libtorch {

class LibtorchModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<InplaceOnViewCheck>("libtorch-inplace-on-view");
    Factories.registerCheck<SharedParameterUpdateCheck>(
        "libtorch-shared-parameter-update");
    Factories.registerCheck<OverlappingInplaceCheck>(
        "libtorch-overlapping-inplace");
    Factories.registerCheck<DetachedWriteCheck>("libtorch-detached-write");
    Factories.registerCheck<FromBlobEscapeCheck>("libtorch-from-blob-escape");
    Factories.registerCheck<WorkerMissingCloneCheck>(
        "libtorch-worker-missing-clone");
  }
};

// Registered both when the plugin is loaded into clang-tidy and when the
// object files are linked into torchalias-tidy.
static ClangTidyModuleRegistry::Add<LibtorchModule>
    X("libtorch-module", "Checks for tensor-aliasing bugs in libtorch code.");

} // namespace clang::tidy::libtorch
