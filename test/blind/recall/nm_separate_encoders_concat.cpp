// CASE: actor and critic each construct their own encoder, and the trainer
//       concatenates both modules' parameters() into one optimizer
// SOURCE: https://github.com/nicklashansen/dmcontrol-generalization-benchmark/issues/5
//         (which encoder layers each optimizer updates in actor-critic agents)
// KIND: near-miss
// WHY-OK: the two parameter lists are disjoint, so each tensor is stepped once
#include <torch/torch.h>

#include <cstdio>
#include <vector>

struct PolicyImpl : torch::nn::Module {
  explicit PolicyImpl(int64_t out) {
    encoder = register_module("encoder", torch::nn::Linear(8, 16));
    head = register_module("head", torch::nn::Linear(16, out));
  }
  torch::Tensor forward(const torch::Tensor& x) { return head(torch::relu(encoder(x))); }
  torch::nn::Linear encoder{nullptr}, head{nullptr};
};
TORCH_MODULE(Policy);

int main() {
  torch::manual_seed(22);
  Policy actor(2), critic(1);
  std::vector<torch::Tensor> params = actor->parameters();
  auto critic_params = critic->parameters();
  params.insert(params.end(), critic_params.begin(), critic_params.end());
  const double lr = 0.05;
  torch::optim::SGD opt(params, lr);

  auto obs = torch::randn({32, 8});
  opt.zero_grad();
  (actor(obs).pow(2).mean() + critic(obs).mean()).backward();
  auto w = actor->encoder->weight;
  auto expected = (w - lr * w.grad()).detach();
  opt.step();

  const double err = (w.detach() - expected).abs().max().item<double>();
  std::printf("actor encoder error after one step: %.6g\n", err);
  if (err > 1e-7) std::printf("HARM: a parameter was stepped twice\n");
  return 0;
}
