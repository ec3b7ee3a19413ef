// CASE: a dueling DQN passes one feature Linear to both its value and its
//       advantage stream (each stream keeps it as `trunk`), and the trainer
//       spells out the trainable tensors in a braced
//       std::vector<std::reference_wrapper<Tensor>> through the streams, so
//       the trunk is listed once per stream; a hand-written SGD with L2 decay
//       walks that list
// SOURCE: the kind of code in small libtorch DQN projects with a manual update
//         loop (Rainbow/dueling ports on GitHub)
// KIND: bug
// HARM: the shared trunk receives two gradient steps and two decays per update
#include <torch/torch.h>

#include <functional>
#include <iostream>
#include <vector>

struct StreamImpl : torch::nn::Module {
  StreamImpl(torch::nn::Linear shared_trunk, int64_t out) {
    trunk = register_module("trunk", shared_trunk);
    head = register_module("head", torch::nn::Linear(shared_trunk->options.out_features(), out));
  }
  torch::Tensor forward(const torch::Tensor& x) { return head(torch::relu(trunk(x))); }
  torch::nn::Linear trunk{nullptr}, head{nullptr};
};
TORCH_MODULE(Stream);

struct DuelingQImpl : torch::nn::Module {
  DuelingQImpl(int64_t obs, int64_t actions) {
    torch::nn::Linear features(obs, 24);
    value = register_module("value", Stream(features, 1));
    advantage = register_module("advantage", Stream(features, actions));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto a = advantage(x);
    return value(x) + a - a.mean(1, /*keepdim=*/true);
  }
  Stream value{nullptr}, advantage{nullptr};
};
TORCH_MODULE(DuelingQ);

int main() {
  torch::manual_seed(0);
  const double lr = 0.05, wd = 1e-2;
  DuelingQ net(6, 4);

  const std::vector<std::reference_wrapper<torch::Tensor>> trainable{
      net->value->trunk->weight,     net->value->trunk->bias,      // BUG(libtorch-shared-parameter-update)
      net->value->head->weight,      net->value->head->bias,
      net->advantage->trunk->weight, net->advantage->trunk->bias,  // BUG(libtorch-shared-parameter-update)
      net->advantage->head->weight,  net->advantage->head->bias};

  auto obs = torch::randn({32, 6});
  auto act = torch::randint(0, 4, {32, 1});
  auto td_target = torch::randn({32, 1});
  auto q = net(obs).gather(1, act);
  torch::smooth_l1_loss(q, td_target).backward();

  auto& w = net->value->trunk->weight;
  auto w0 = w.detach().clone();
  auto expected = w0 - lr * (w.grad() + wd * w0);
  {
    torch::NoGradGuard no_grad;
    for (torch::Tensor& p : trainable) p.sub_(lr * (p.grad() + wd * p));  // BUG(libtorch-shared-parameter-update)
  }
  double err = (w - expected).abs().max().item<double>();
  if (err > 1e-6)
    std::cout << "HARM: trunk weight off the single-step update by " << err << "\n";
  else
    std::cout << "trunk stepped once\n";
  return 0;
}
