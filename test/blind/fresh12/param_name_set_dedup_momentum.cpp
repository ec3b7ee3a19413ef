// CASE: a multi-task trainer merges the named_parameters() of a tagger and a
//       parser, skipping names it has already seen with a std::set<string>,
//       and steps the result with a hand-written momentum SGD keyed by name;
//       the shared encoder is registered as "encoder" in one task and
//       "backbone" in the other, so the name filter lets it through twice
// SOURCE: the kind of code in libtorch multi-task NLP trainers (a shared
//         encoder under task heads, a custom optimizer loop with per-name
//         state)
// KIND: bug
// HARM: the shared encoder gets two momentum buffers and two updates per step
#include <torch/torch.h>

#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mtl {

struct TaggerImpl : torch::nn::Module {
  explicit TaggerImpl(torch::nn::Linear shared) {
    encoder = register_module("encoder", shared);
    tag_head = register_module("tag_head", torch::nn::Linear(16, 5));
  }
  torch::Tensor forward(const torch::Tensor& x) { return tag_head(torch::relu(encoder(x))); }
  torch::nn::Linear encoder{nullptr}, tag_head{nullptr};
};
TORCH_MODULE(Tagger);

struct ParserImpl : torch::nn::Module {
  explicit ParserImpl(torch::nn::Linear shared) {
    backbone = register_module("backbone", shared);
    arc_head = register_module("arc_head", torch::nn::Linear(16, 3));
  }
  torch::Tensor forward(const torch::Tensor& x) { return arc_head(torch::relu(backbone(x))); }
  torch::nn::Linear backbone{nullptr}, arc_head{nullptr};
};
TORCH_MODULE(Parser);

using Named = std::vector<std::pair<std::string, torch::Tensor>>;

template <class... Tasks>
Named merge_trainable(const Tasks&... tasks) {
  Named out;
  std::set<std::string> seen;
  auto add = [&](const torch::nn::Module& m) {
    for (const auto& kv : m.named_parameters())
      if (seen.insert(kv.key()).second) out.emplace_back(kv.key(), kv.value());  // BUG(libtorch-shared-parameter-update)
  };
  (add(*tasks), ...);
  return out;
}

struct MomentumSGD {
  double lr, mu;
  std::map<std::string, torch::Tensor> velocity;
  void step(const Named& params) {
    torch::NoGradGuard no_grad;
    for (const auto& [name, p] : params) {
      auto& v = velocity[name];
      v = v.defined() ? v.mul_(mu).add_(p.grad()) : p.grad().clone();
      p.sub_(lr * v);  // BUG(libtorch-shared-parameter-update)
    }
  }
};

}  // namespace mtl

int main() {
  torch::manual_seed(0);
  torch::nn::Linear shared(10, 16);
  mtl::Tagger tagger(shared);
  mtl::Parser parser(shared);
  auto params = mtl::merge_trainable(tagger, parser);  // BUG(libtorch-shared-parameter-update)
  mtl::MomentumSGD opt{0.1, 0.9, {}};

  auto x = torch::randn({20, 10});
  auto loss = torch::cross_entropy_loss(tagger(x), torch::randint(0, 5, {20})) +
              torch::cross_entropy_loss(parser(x), torch::randint(0, 3, {20}));
  loss.backward();
  auto w0 = shared->weight.detach().clone();
  auto expected = w0 - 0.1 * shared->weight.grad();
  opt.step(params);  // BUG(libtorch-shared-parameter-update)

  std::cout << params.size() << " entries in the merged list\n";
  if (!torch::allclose(shared->weight, expected))
    std::cout << "HARM: encoder moved " << (shared->weight - w0).abs().max().item<double>()
              << " in one step, expected " << (expected - w0).abs().max().item<double>() << "\n";
  return 0;
}
