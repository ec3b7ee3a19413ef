// CASE: a small GPT ties its output projection to the token embedding through
//       a head module whose constructor registers the embedding's weight as
//       its own parameter; Adam is built from model->parameters(), which in
//       libtorch lists the tied matrix under both wte.weight and
//       lm_head.weight
// SOURCE: weight tying (Press & Wolf) in libtorch ports of minGPT / nanoGPT;
//       PyTorch's parameters() deduplicates shared tensors, libtorch's does not
// KIND: bug
// HARM: one Adam step moves the tied matrix about twice as far as the
//       learning rate allows, unlike every other parameter
#include <torch/torch.h>

#include <cstdio>

namespace gpt {

class TiedLmHeadImpl : public torch::nn::Module {
 public:
  explicit TiedLmHeadImpl(const torch::nn::Embedding& wte)
      : weight(register_parameter("weight", wte->weight)) {}  // BUG(libtorch-shared-parameter-update)

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
        lm_head(register_module("lm_head", TiedLmHead(wte))) {}  // BUG(libtorch-shared-parameter-update)

  torch::Tensor forward(const torch::Tensor& idx) {
    const auto pos = torch::arange(idx.size(1), torch::kLong);
    auto h = wte(idx) + wpe(pos);
    h = h + mlp->forward(h);
    return lm_head(ln_f(h));
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
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(kLr));  // BUG(libtorch-shared-parameter-update)

  const auto tokens = torch::randint(0, 50, {4, 9}, torch::kLong);
  const auto inputs = tokens.narrow(1, 0, 8), targets = tokens.narrow(1, 1, 8);

  const auto wte_before = model->wte->weight.detach().clone();
  const auto fc_before = model->mlp[0]->as<torch::nn::Linear>()->weight.detach().clone();

  opt.zero_grad();
  const auto logits = model->forward(inputs);
  const auto loss = torch::nn::functional::cross_entropy(logits.reshape({-1, 50}),
                                                         targets.reshape({-1}));
  loss.backward();
  opt.step();

  const double tied_move = (model->wte->weight - wte_before).abs().max().item<double>();
  const double fc_move =
      (model->mlp[0]->as<torch::nn::Linear>()->weight - fc_before).abs().max().item<double>();
  std::printf("loss %.4f; max step: tied embedding %.2e, mlp %.2e (lr %.0e)\n",
              loss.item<double>(), tied_move, fc_move, kLr);
  if (tied_move > 1.5 * kLr) {
    std::printf("HARM: the tied embedding moved %.2e in one Adam step, %.1fx the learning "
                "rate: it was stepped twice\n",
                tied_move, tied_move / kLr);
  }
  return 0;
}
