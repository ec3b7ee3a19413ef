// CASE: early-stopping loop that remembers the best epoch in a struct whose
//       params member holds detach().clone() of each parameter, then
//       restores it after training
// SOURCE: the PyTorch transfer learning tutorial's
//         best_model_wts = copy.deepcopy(model.state_dict()) pattern, as
//         written in libtorch
// KIND: near-miss
// WHY-OK: each snapshot entry is a clone with its own storage, so later
//         optimizer steps leave it at the best epoch's values
#include <torch/torch.h>

#include <iostream>
#include <limits>
#include <vector>

struct Best {
  double val_loss;
  int epoch;
  std::vector<torch::Tensor> params;
};

int main() {
  torch::manual_seed(0);
  torch::nn::Linear model(torch::nn::LinearOptions(1, 1).bias(false));
  {
    torch::NoGradGuard no_grad;
    model->weight.zero_();
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05));
  auto x_train = torch::randn({64, 1});
  auto y_train = 2.0 * x_train;
  auto x_val = torch::randn({64, 1});
  auto y_val = x_val;

  auto evaluate = [&] {
    torch::NoGradGuard no_grad;
    return torch::mse_loss(model(x_val), y_val).item<double>();
  };

  Best best{std::numeric_limits<double>::infinity(), -1, {}};
  for (int epoch = 0; epoch < 30; ++epoch) {
    opt.zero_grad();
    torch::mse_loss(model(x_train), y_train).backward();
    opt.step();
    double val = evaluate();
    if (val < best.val_loss) {
      std::vector<torch::Tensor> snapshot;
      for (const auto& p : model->parameters()) snapshot.push_back(p.detach().clone());
      best = Best{val, epoch, snapshot};
    }
  }

  {
    torch::NoGradGuard no_grad;
    auto params = model->parameters();
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(best.params[i]);
  }
  double restored = evaluate();
  std::cout << (std::abs(restored - best.val_loss) < 1e-6 ? "ok: " : "MISMATCH: ")
            << "restored val loss " << restored << " (best epoch " << best.epoch
            << ")\n";
  return 0;
}
