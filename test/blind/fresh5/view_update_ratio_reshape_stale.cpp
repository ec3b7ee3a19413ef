// CASE: an update-to-weight ratio monitor records each parameter before the
//       optimizer step as p.reshape({-1}) and compares after the step; on the
//       contiguous parameters reshape() returns a view, so the "before"
//       entries are read after step() has overwritten their base
// SOURCE: training-health monitors in libtorch trainers (the ~1e-3
//         update/weight rule of thumb logged per layer); view-or-copy of
//         reshape: https://stackoverflow.com/questions/49643225/whats-the-difference-between-reshape-and-view-in-pytorch/49644300
// KIND: bug
// HARM: every layer reports an update ratio of 0 although the weights moved
#include <torch/torch.h>

#include <iostream>
#include <map>

class UpdateRatioMonitor {
 public:
  void before_step(const torch::nn::Module& m) {
    before_.clear();
    for (const auto& kv : m.named_parameters())
      before_[kv.key()] = kv.value().detach().reshape({-1});  // BUG(libtorch-inplace-on-view)
  }
  std::map<std::string, double> after_step(const torch::nn::Module& m) const {
    std::map<std::string, double> ratios;
    for (const auto& kv : m.named_parameters()) {
      const auto& prev = before_.at(kv.key());
      auto cur = kv.value().detach().reshape({-1});
      ratios[kv.key()] = ((cur - prev).norm() / (prev.norm() + 1e-12)).item<double>();  // BUG(libtorch-inplace-on-view)
    }
    return ratios;
  }

 private:
  std::map<std::string, torch::Tensor> before_;
};

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Linear(10, 32), torch::nn::ReLU(), torch::nn::Linear(32, 2));
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-2));
  UpdateRatioMonitor monitor;

  auto x = torch::randn({64, 10});
  auto y = torch::randint(0, 2, {64}, torch::kLong);
  auto w0 = net->named_parameters()["0.weight"];
  auto reference = w0.detach().clone();

  opt.zero_grad();
  torch::nn::functional::cross_entropy(net->forward(x), y).backward();
  monitor.before_step(*net);  // BUG(libtorch-inplace-on-view)
  opt.step();  // BUG(libtorch-inplace-on-view)
  auto ratios = monitor.after_step(*net);  // BUG(libtorch-inplace-on-view)

  double true_ratio = ((w0.detach() - reference).norm() / reference.norm()).item<double>();
  for (const auto& [name, r] : ratios) std::cout << name << " update ratio " << r << "\n";
  std::cout << "0.weight true ratio " << true_ratio << "\n";
  if (ratios["0.weight"] < 1e-9 && true_ratio > 1e-6)
    std::cout << "HARM: monitor logs update ratio " << ratios["0.weight"] << " for 0.weight, true ratio "
              << true_ratio << "\n";
  return 0;
}
