// CASE: an mmcv-style `sigmoid_focal_loss_forward(Tensor input, Tensor
//       target, Tensor weight, Tensor output, double gamma, double alpha)`
//       kernel returns void and writes the per-class loss into column c of
//       its `output` argument with select(1, c).copy_; it is registered with
//       `m.def("sigmoid_focal_loss_forward", &sigmoid_focal_loss_forward)`
//       (schema inferred from the C++ signature) and the frontend allocates
//       `output = input.new_zeros(...)` before calling the op
// SOURCE: the kind of code in open-mmlab/mmcv mmcv/ops/csrc/pytorch/
//         focal_loss.cpp + pybind.cpp (m.def("sigmoid_focal_loss_forward",
//         ...)) with mmcv/ops/focal_loss.py allocating the output
// KIND: near-miss
// WHY-OK: `output` is the op's result slot, allocated fresh by its only
//         caller for this call and read back as the loss
#include <torch/torch.h>
#include <torch/library.h>
#include <iostream>

void sigmoid_focal_loss_forward(at::Tensor input, at::Tensor target, at::Tensor weight,
                                at::Tensor output, double gamma, double alpha) {
  TORCH_CHECK(output.sizes() == input.sizes(), "output must match input");
  const int64_t num_classes = input.size(1);
  auto p = input.sigmoid();
  for (int64_t c = 0; c < num_classes; ++c) {
    auto pc = p.select(1, c);
    auto is_pos = target.eq(c).to(input.scalar_type());
    auto pos = -alpha * (1 - pc).pow(gamma) * at::log(pc.clamp_min(1e-12));
    auto neg = -(1 - alpha) * pc.pow(gamma) * at::log((1 - pc).clamp_min(1e-12));
    auto loss = is_pos * pos + (1 - is_pos) * neg;
    if (weight.numel() > 0) loss = loss * weight[c];
    output.select(1, c).copy_(loss);
  }
}

TORCH_LIBRARY(mmcv_cpu, m) {
  m.def("sigmoid_focal_loss_forward", &sigmoid_focal_loss_forward);
}

// What mmcv/ops/focal_loss.py SigmoidFocalLossFunction.forward does.
at::Tensor sigmoid_focal_loss(const at::Tensor& input, const at::Tensor& target, double gamma,
                              double alpha) {
  auto output = input.new_zeros(input.sizes());
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("mmcv_cpu::sigmoid_focal_loss_forward", "")
                       .typed<void(at::Tensor, at::Tensor, at::Tensor, at::Tensor, double, double)>();
  op.call(input, target, at::empty({0}, input.options()), output, gamma, alpha);
  return output.sum() / std::max<int64_t>(1, target.ge(0).sum().item<int64_t>());
}

int main() {
  torch::manual_seed(0);
  auto logits = torch::randn({6, 3});
  auto target = torch::tensor({0, 2, 1, 1, -1, 0}, torch::kLong);  // -1: background
  auto loss = sigmoid_focal_loss(logits, target, 2.0, 0.25);
  auto onehot = torch::zeros({6, 3});
  for (int64_t i = 0; i < 6; ++i)
    if (target[i].item<int64_t>() >= 0) onehot[i][target[i].item<int64_t>()] = 1;
  auto ref = torch::nn::functional::binary_cross_entropy_with_logits(
      logits, onehot, torch::nn::functional::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone));
  auto pt = torch::where(onehot.eq(1), logits.sigmoid(), 1 - logits.sigmoid());
  auto at_ = torch::where(onehot.eq(1), torch::full_like(logits, 0.25), torch::full_like(logits, 0.75));
  auto ref_loss = (at_ * (1 - pt).pow(2) * ref).sum() / 5;
  std::cout << "focal loss " << loss.item<float>() << " reference " << ref_loss.item<float>() << "\n";
  return 0;
}
