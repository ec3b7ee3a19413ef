// CASE: early stopping keeps the best model as
//       std::pair<double, std::vector<torch::Tensor>>{val_loss, model->parameters()}
//       and restores it with copy_() at the end of training
// SOURCE: the C++ form of the `best_state = model.state_dict()` mistake
//         (https://joneswong.github.io/daily/python/pytorch/2022/03/16/pytorch-mistakes-people-ignored.html,
//         "state_dict() is shallow copy"): parameters() returns handles to the
//         live tensors, which opt.step() updates in place
// KIND: bug
// HARM: the "restored" model is the last one, not the best: its validation
//       loss differs from the recorded best
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

int main() {
  torch::manual_seed(21);
  torch::nn::Linear model(4, 1);
  torch::optim::SGD opt(model->parameters(), 0.2);
  auto x = torch::randn({64, 4}), y = x.sum(1, true) + 0.5 * torch::randn({64, 1});
  auto xv = torch::randn({32, 4}), yv = xv.sum(1, true);
  auto val_loss = [&] {
    torch::NoGradGuard no_grad;
    return torch::mse_loss(model(xv), yv).item<double>();
  };

  std::pair<double, std::vector<torch::Tensor>> best{1e30, {}};
  int best_step = -1;
  for (int step = 0; step < 35; ++step) {
    // SGDR-style warm restarts every 10 steps: the val loss jumps after each restart
    const double lr = 0.02 + 0.1 * (1 + std::cos(M_PI * (step % 10) / 10.0));
    opt.param_groups()[0].options().set_lr(lr);
    auto idx = torch::randint(64, {4}, torch::kLong);
    opt.zero_grad();
    torch::mse_loss(model(x.index_select(0, idx)), y.index_select(0, idx)).backward();
    opt.step();  // BUG(libtorch-inplace-on-view)
    const double v = val_loss();
    if (v < best.first) {
      best = {v, model->parameters()};  // BUG(libtorch-inplace-on-view)
      best_step = step;
    }
  }
  {
    torch::NoGradGuard no_grad;
    auto params = model->parameters();
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(best.second[i]);  // BUG(libtorch-inplace-on-view)
  }
  const double restored = val_loss();
  std::printf("best at step %d: recorded val loss %.6f, restored model's val loss %.6f\n", best_step, best.first, restored);
  if (std::abs(restored - best.first) > 1e-9)
    std::printf("HARM: restored val loss %.6f != best %.6f\n", restored, best.first);
  return 0;
}
