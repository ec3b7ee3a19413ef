// CASE: a small GPT ties its output projection to the token embedding through
//       a head module whose constructor registers the embedding's weight as
//       its own parameter, so named_parameters() lists the tied matrix twice
// SOURCE: weight tying (Press & Wolf) in libtorch ports of minGPT / nanoGPT
// KIND: near-miss
// WHY-OK: the optimizer's list is built from named_parameters() skipping the
//       alias "lm_head.weight", so the tied matrix is stepped once, through
//       wte.weight
#include <torch/torch.h>

#include <cstdio>
#include <vector>

namespace gpt {

class TiedLmHeadImpl : public torch::nn::Module {
 public:
  explicit TiedLmHeadImpl(const torch::nn::Embedding& wte)
      : weight(register_parameter("weight", wte->weight)) {}

  torch::Tensor forward(const torch::Tensor& h) {
    return torch::nn::functional::linear(h, weight);
  }

  torch::Tensor weight;
};
TORCH_MODULE(TiedLmHead);

class TinyGptImpl : public torch::nn::Module {
 public:
  TinyGptImpl(int64_t vocab, int64_t width, int64_t context)
      : wte(register_module("wte", torch::nn::Embedding(vocab, width))),
        wpe(register_module("wpe", torch::nn::Embedding(context, width))),
        mlp(register_module("mlp", torch::nn::Sequential(torch::nn::Linear(width, 4 * width),
                                                         torch::nn::GELU(),
                                                         torch::nn::Linear(4 * width, width)))),
        ln_f(register_module("ln_f",
                             torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})))),
        lm_head(register_module("lm_head", TiedLmHead(wte))) {}

  torch::Tensor forward(const torch::Tensor& idx) {
    const auto pos = torch::arange(idx.size(1), torch::kLong);
    auto h = wte(idx) + wpe(pos);
    h = h + mlp->forward(h);
    return lm_head(ln_f(h));
  }

  // Tied aliases are owned by the embedding; the optimizer must see them once.
  std::vector<torch::Tensor> trainable() const {
    std::vector<torch::Tensor> out;
    for (const auto& item : named_parameters())
      if (item.key() != "lm_head.weight") out.push_back(item.value());
    return out;
  }

  torch::nn::Embedding wte, wpe;
  torch::nn::Sequential mlp;
  torch::nn::LayerNorm ln_f;
  TiedLmHead lm_head;
};
TORCH_MODULE(TinyGpt);

}  // namespace gpt

int main() {
  torch::manual_seed(0);
  constexpr double kLr = 1e-3;
  gpt::TinyGpt model(50, 16, 8);
  torch::optim::Adam opt(model->trainable(), torch::optim::AdamOptions(kLr));

  const auto tokens = torch::randint(0, 50, {4, 9}, torch::kLong);
  const auto inputs = tokens.narrow(1, 0, 8), targets = tokens.narrow(1, 1, 8);
  const auto wte_before = model->wte->weight.detach().clone();

  opt.zero_grad();
  const auto logits = model->forward(inputs);
  const auto loss = torch::nn::functional::cross_entropy(logits.reshape({-1, 50}),
                                                         targets.reshape({-1}));
  loss.backward();
  opt.step();

  const double tied_move = (model->wte->weight - wte_before).abs().max().item<double>();
  std::printf("loss %.4f; tied embedding max step %.2e (lr %.0e)\n", loss.item<double>(),
              tied_move, kLr);
  return 0;
}
