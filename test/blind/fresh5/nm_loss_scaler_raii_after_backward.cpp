// CASE: a hand-written dynamic loss scaler is driven by an RAII ScaleGuard
//       (like apex's scale_loss context) whose destructor calls update(),
//       which grows the scale tensor in place (mul_); the guard's scope in the
//       training step encloses the backward and the unscaling
// SOURCE: mixed-precision training loops ported to libtorch, which has no
//         GradScaler in C++ (hand-written dynamic loss scaling)
// KIND: near-miss
// WHY-OK: the destructor's mul_ on the saved scale runs after backward has
//         consumed the graph, and the next step multiplies by the new value
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
      scale.mul_(2.0);
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
  ~ScaleGuard() { s_.update(s_.found_inf); }

 private:
  DynamicLossScaler& s_;
};

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Linear(8, 32), torch::nn::GELU(), torch::nn::Linear(32, 1));
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(1e-2));
  DynamicLossScaler scaler;

  for (int step = 1; step <= 4; ++step) {
    auto x = torch::randn({16, 8}), y = torch::randn({16, 1});
    opt.zero_grad();
    auto loss = torch::mse_loss(net->forward(x), y);
    {
      ScaleGuard guard(scaler);
      (loss * scaler.scale).backward();
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
