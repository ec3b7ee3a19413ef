// CASE: an int8 calibration observer records the activation range of a
//       tanh layer during quantisation-aware fine-tuning and saturates the
//       outliers with a hand-written CPU kernel that writes through
//       data_ptr<float>(); it runs on the activation after the forward and
//       before backward, so tanh's backward and the head's weight gradient
//       read the clipped values (no version bump, no error)
// SOURCE: the kind of code in C++ extension kernels and QAT observers that
//         operate on raw buffers for speed
// KIND: bug
// HARM: the hidden-layer and head gradients differ from the gradients of the
//       loss that was computed

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>

struct RangeObserver {
  float lo = 0.f, hi = 0.f;
  float saturation = 0.6f;

  // Records the range and saturates the tensor to +-saturation, in place.
  void observe_and_saturate(torch::Tensor& act) {
    TORCH_CHECK(act.is_contiguous() && act.scalar_type() == torch::kFloat);
    float* data = act.data_ptr<float>();  // BUG(libtorch-detached-write)
    const int64_t n = act.numel();
    for (int64_t i = 0; i < n; ++i) {
      lo = std::min(lo, data[i]);
      hi = std::max(hi, data[i]);
      data[i] = std::clamp(data[i], -saturation, saturation);  // BUG(libtorch-detached-write)
    }
  }
};

struct Net {
  torch::Tensor w1, w2;
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) const {
    auto hidden = torch::tanh(x.mm(w1));
    return {hidden, hidden.mm(w2)};
  }
};

int main() {
  torch::manual_seed(0);
  Net net{(torch::randn({6, 12})).requires_grad_(), (0.2 * torch::randn({12, 2})).requires_grad_()};
  auto x = torch::randn({32, 6});
  auto y = torch::randn({32, 2});

  // Reference gradients of the same loss, without the observer.
  auto [h_ref, out_ref] = net.forward(x);
  torch::mse_loss(out_ref, y).backward();
  auto g1_ref = net.w1.grad().clone(), g2_ref = net.w2.grad().clone();
  net.w1.grad().zero_();
  net.w2.grad().zero_();

  RangeObserver observer;
  auto [hidden, out] = net.forward(x);
  auto loss = torch::mse_loss(out, y);
  observer.observe_and_saturate(hidden);  // BUG(libtorch-detached-write)
  loss.backward();

  double d1 = (net.w1.grad() - g1_ref).abs().max().item<double>();
  double d2 = (net.w2.grad() - g2_ref).abs().max().item<double>();
  std::printf("observed range [%.3f, %.3f]; loss %.4f\n", observer.lo, observer.hi, loss.item<float>());
  std::printf("grad error: w1 %.4f, w2 %.4f\n", d1, d2);
  if (d1 > 1e-5 || d2 > 1e-5)
    std::printf("HARM: the gradients of the computed loss are off by up to %.4f (w1) and "
                "%.4f (w2): backward read the saturated activation\n", d1, d2);
  return 0;
}
