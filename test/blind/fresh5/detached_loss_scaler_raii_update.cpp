// CASE: a hand-written dynamic loss scaler is driven by an RAII ScaleGuard
//       (like apex's scale_loss context) whose destructor calls update(); the
//       guard lives in a helper that returns loss * scale, so the destructor
//       grows the scale tensor in place (mul_) before the caller's backward,
//       and mul saved that tensor for the gradient of the loss
// SOURCE: mixed-precision training loops ported to libtorch, which has no
//         GradScaler in C++ (hand-written dynamic loss scaling); error text as
//         in https://discuss.pytorch.org/t/leaf-variable-was-used-in-an-inplace-operation/308
// KIND: bug
// HARM: on the step where the scale grows, backward throws (modified by an
//       inplace operation)
#include <torch/torch.h>

#include <iostream>

class DynamicLossScaler {
 public:
  torch::Tensor scale = torch::full({}, 1024.f);
  void update(bool found_inf) {
    if (found_inf) {
      scale.mul_(0.5);
      good_steps_ = 0;
    } else if (++good_steps_ % growth_interval_ == 0) {
      scale.mul_(2.0);  // BUG(libtorch-detached-write)
    }
  }
  bool found_inf = false;

 private:
  int good_steps_ = 0;
  int growth_interval_ = 3;
};

class ScaleGuard {
 public:
  explicit ScaleGuard(DynamicLossScaler& s) : s_(s) {}
  ~ScaleGuard() { s_.update(s_.found_inf); }  // BUG(libtorch-detached-write)

 private:
  DynamicLossScaler& s_;
};

torch::Tensor scaled_loss(DynamicLossScaler& scaler, const torch::Tensor& loss) {
  ScaleGuard guard(scaler);  // BUG(libtorch-detached-write)
  return loss * scaler.scale;
}

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Linear(8, 32), torch::nn::GELU(), torch::nn::Linear(32, 1));
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(1e-2));
  DynamicLossScaler scaler;

  for (int step = 1; step <= 4; ++step) {
    auto x = torch::randn({16, 8}), y = torch::randn({16, 1});
    opt.zero_grad();
    auto loss = torch::mse_loss(net->forward(x), y);
    try {
      scaled_loss(scaler, loss).backward();  // BUG(libtorch-detached-write)
    } catch (const c10::Error& e) {
      std::string msg = e.what_without_backtrace();
      std::cout << "HARM: step " << step << " backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
      continue;
    }
    {
      torch::NoGradGuard no_grad;
      scaler.found_inf = false;
      for (auto& p : net->parameters()) {
        p.grad().div_(scaler.scale);
        scaler.found_inf = scaler.found_inf || !torch::isfinite(p.grad()).all().item<bool>();
      }
    }
    if (!scaler.found_inf) opt.step();
    std::cout << "step " << step << " loss " << loss.item<float>() << " scale " << scaler.scale.item<float>() << "\n";
  }
  return 0;
}
