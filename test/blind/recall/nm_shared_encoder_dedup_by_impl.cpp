// CASE: actor and critic share one encoder module; the helper that
//       concatenates their parameters skips tensors whose TensorImpl it has
//       already collected, as Python's parameters() does
// SOURCE: https://github.com/MishaLaskin/curl/issues/28 (the fix direction: give
//         each shared parameter to the update once)
// KIND: near-miss
// WHY-OK: the optimizer list holds the shared encoder tensors once
#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <unordered_set>
#include <vector>

struct EncoderImpl : torch::nn::Module {
  EncoderImpl() { fc = register_module("fc", torch::nn::Linear(8, 16)); }
  torch::Tensor forward(const torch::Tensor& x) { return torch::relu(fc(x)); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Encoder);

struct HeadImpl : torch::nn::Module {
  HeadImpl(Encoder enc, int64_t out) {
    encoder = register_module("encoder", enc);
    fc = register_module("fc", torch::nn::Linear(16, out));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc(encoder(x)); }
  Encoder encoder{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Head);

static std::vector<torch::Tensor> unique_parameters(
    const std::vector<std::shared_ptr<torch::nn::Module>>& parts) {
  std::vector<torch::Tensor> out;
  std::unordered_set<const c10::TensorImpl*> seen;
  for (const auto& part : parts) {
    for (auto& p : part->parameters()) {
      if (seen.insert(p.unsafeGetTensorImpl()).second) out.push_back(p);
    }
  }
  return out;
}

int main() {
  torch::manual_seed(12);
  Encoder encoder;
  Head actor(encoder, 2), critic(encoder, 1);
  const double lr = 0.05;
  torch::optim::SGD opt(unique_parameters({actor.ptr(), critic.ptr()}), lr);

  auto obs = torch::randn({32, 8});
  opt.zero_grad();
  auto loss = actor(obs).pow(2).mean() + critic(obs).mean();
  loss.backward();
  auto w = encoder->fc->weight;
  auto expected = (w - lr * w.grad()).detach();
  opt.step();

  const double err = (w.detach() - expected).abs().max().item<double>();
  std::printf("encoder weight error after one step: %.6g\n", err);
  if (err > 1e-7) std::printf("HARM: shared encoder stepped twice\n");
  return 0;
}
