// Mock of the runtime's <torchalias/isolate.h> (runtime/include/torchalias/
// isolate.h) for the lit tests: the declarations fix-its insert calls to.
#pragma once

#include <torch/torch.h>

namespace torchalias {
struct isolate_options {
  bool keep_requires_grad = false;
};
at::Tensor isolate(const at::Tensor &tensor, isolate_options options = {});
} // namespace torchalias
