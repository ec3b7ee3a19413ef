// CASE: a dueling DQN shares one feature Linear between its value and
//       advantage streams (registered as "trunk" in both), so
//       net->parameters() yields the trunk's tensors twice; the trainer
//       filters the list with std::none_of + Tensor::is_same before a
//       hand-written SGD with L2 decay
// SOURCE: the kind of code in small libtorch DQN projects with a manual update
//         loop and a shared torso
// KIND: near-miss
// WHY-OK: is_same() compares the tensor identity, so every distinct tensor is
//         stepped exactly once
#include <torch/torch.h>

#include <algorithm>
#include <iostream>
#include <vector>

struct BranchImpl : torch::nn::Module {
  BranchImpl(torch::nn::Linear shared, int64_t out) {
    trunk = register_module("trunk", shared);
    head = register_module("head", torch::nn::Linear(shared->options.out_features(), out));
  }
  torch::Tensor forward(const torch::Tensor& x) { return head(torch::relu(trunk(x))); }
  torch::nn::Linear trunk{nullptr}, head{nullptr};
};
TORCH_MODULE(Branch);

struct DuelingNetImpl : torch::nn::Module {
  DuelingNetImpl(int64_t obs, int64_t actions) {
    torch::nn::Linear torso(obs, 24);
    v = register_module("v", Branch(torso, 1));
    a = register_module("a", Branch(torso, actions));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto adv = a(x);
    return v(x) + adv - adv.mean(1, /*keepdim=*/true);
  }
  Branch v{nullptr}, a{nullptr};
};
TORCH_MODULE(DuelingNet);

std::vector<torch::Tensor> distinct(const std::vector<torch::Tensor>& all) {
  std::vector<torch::Tensor> out;
  for (const auto& p : all)
    if (std::none_of(out.begin(), out.end(), [&](const torch::Tensor& q) { return q.is_same(p); }))
      out.push_back(p);
  return out;
}

int main() {
  torch::manual_seed(0);
  const double lr = 0.05, wd = 1e-2;
  DuelingNet net(6, 4);
  auto params = distinct(net->parameters());

  auto obs = torch::randn({32, 6});
  auto act = torch::randint(0, 4, {32, 1});
  auto td_target = torch::randn({32, 1});
  torch::smooth_l1_loss(net(obs).gather(1, act), td_target).backward();

  auto& w = net->v->trunk->weight;
  auto w0 = w.detach().clone();
  auto expected = w0 - lr * (w.grad() + wd * w0);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : params) p.sub_(lr * (p.grad() + wd * p));
  }
  std::cout << net->parameters().size() << " registered, " << params.size() << " stepped\n";
  double err = (w - expected).abs().max().item<double>();
  if (err > 1e-6)
    std::cout << "HARM: trunk weight off the single-step update by " << err << "\n";
  else
    std::cout << "trunk stepped once\n";
  return 0;
}
