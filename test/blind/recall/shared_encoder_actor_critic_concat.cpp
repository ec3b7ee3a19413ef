// CASE: actor and critic each register the same encoder module as a
//       submodule; a helper concatenates the parameters of both heads into
//       one optimizer, so the encoder's weights are stepped twice per update
// SOURCE: https://github.com/MishaLaskin/curl/issues/28 ("encoder updated twice",
//         the encoder's parameters are carried by two optimizers) and
//         https://github.com/huggingface/lerobot/issues/2470 (shared encoder
//         between actor and critic)
// KIND: bug
// HARM: the shared encoder weight moves by two SGD steps per update
#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <vector>

struct EncoderImpl : torch::nn::Module {
  EncoderImpl() { fc = register_module("fc", torch::nn::Linear(8, 16)); }
  torch::Tensor forward(const torch::Tensor& x) { return torch::relu(fc(x)); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Encoder);

struct ActorImpl : torch::nn::Module {
  explicit ActorImpl(Encoder enc) {
    encoder = register_module("encoder", enc);  // BUG(libtorch-shared-parameter-update)
    pi = register_module("pi", torch::nn::Linear(16, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) { return torch::tanh(pi(encoder(x))); }
  Encoder encoder{nullptr};
  torch::nn::Linear pi{nullptr};
};
TORCH_MODULE(Actor);

struct CriticImpl : torch::nn::Module {
  explicit CriticImpl(Encoder enc) {
    encoder = register_module("encoder", enc);  // BUG(libtorch-shared-parameter-update)
    q = register_module("q", torch::nn::Linear(16 + 2, 1));
  }
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& a) {
    return q(torch::cat({encoder(x), a}, 1));
  }
  Encoder encoder{nullptr};
  torch::nn::Linear q{nullptr};
};
TORCH_MODULE(Critic);

static std::vector<torch::Tensor> all_parameters(
    const std::vector<std::shared_ptr<torch::nn::Module>>& parts) {
  std::vector<torch::Tensor> out;
  for (const auto& part : parts) {
    for (auto& p : part->parameters()) out.push_back(p);  // BUG(libtorch-shared-parameter-update)
  }
  return out;
}

int main() {
  torch::manual_seed(12);
  Encoder encoder;
  Actor actor(encoder);
  Critic critic(encoder);
  const double lr = 0.05;
  torch::optim::SGD opt(all_parameters({actor.ptr(), critic.ptr()}), lr);  // BUG(libtorch-shared-parameter-update)

  auto obs = torch::randn({32, 8});
  opt.zero_grad();
  auto a = actor(obs);
  auto loss = -critic(obs, a).mean() + 0.1 * a.pow(2).mean();
  loss.backward();

  auto w = encoder->fc->weight;
  auto expected = (w - lr * w.grad()).detach();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  const double err = (w.detach() - expected).abs().max().item<double>();
  std::printf("encoder weight error after one step: %.6g\n", err);
  if (err > 1e-7) std::printf("HARM: shared encoder stepped twice (error %.6g)\n", err);
  return 0;
}
