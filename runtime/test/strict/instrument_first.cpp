// instrument.h as the first include, followed by ATen alone (no
// <torch/torch.h>), compiled with -Wall -Wextra -Werror: the header brings
// all its macros need, and they expand warning-free.
#include <torchalias/instrument.h>

#include <ATen/ATen.h>

#include <vector>

namespace strict_first {

void every_macro(at::Tensor &x, std::vector<float> &buffer,
                 torch::nn::Module &module) {
  TORCHALIAS_AT_VIEW_WRITE("a000000000000001", x.narrow(0, 0, 1)).add_(1);
  TORCHALIAS_AT_OVERLAP_DST("a000000000000002", x)
      .add_(TORCHALIAS_AT_OVERLAP_OPERAND("a000000000000002", x.flip({0})));
  at::add_out(x, TORCHALIAS_AT_OVERLAP_OPERAND_OF("a000000000000003", x, x),
              x);
  TORCHALIAS_AT_DETACHED_SOURCE("a000000000000004", x).data().mul_(2);
  const auto &wrapped = TORCHALIAS_AT_FROM_BLOB(
      "a000000000000005",
      at::from_blob(buffer.data(), {static_cast<int64_t>(buffer.size())},
                    [](void *) {}));
  TORCHALIAS_AT_VIEW_WRITE("a000000000000006", wrapped).zero_();
  const std::vector<at::Tensor> params =
      TORCHALIAS_AT_PARAMETERS("a000000000000007", module.parameters());
  TORCHALIAS_AT_PARAMETERS("a000000000000008", module);
  TORCHALIAS_AT_WORKER("a000000000000009", guard, x, params.empty() ? x : x);
}

} // namespace strict_first
