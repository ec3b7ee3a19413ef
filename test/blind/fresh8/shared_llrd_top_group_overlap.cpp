// CASE: layer-wise learning-rate decay for fine-tuning: one AdamW group per
//       encoder block with a geometrically decayed rate, plus a "top" group
//       that trains the classifier head together with the last block at the
//       head's rate; the loop over blocks also covers the last one
// SOURCE: LLRD as used in BERT/ELECTRA fine-tuning recipes, here in a libtorch
//       trainer building std::vector<torch::optim::OptimizerParamGroup>
// KIND: bug
// HARM: the last block is stepped by two groups each step and moves by the
//       sum of both rates
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

namespace model {

class BlockImpl : public torch::nn::Module {
 public:
  explicit BlockImpl(int64_t width)
      : ff(register_module("ff", torch::nn::Linear(width, width))),
        norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})))) {}
  torch::Tensor forward(const torch::Tensor& x) { return norm(x + torch::gelu(ff(x))); }

  torch::nn::Linear ff;
  torch::nn::LayerNorm norm;
};
TORCH_MODULE(Block);

class EncoderClassifierImpl : public torch::nn::Module {
 public:
  EncoderClassifierImpl(int64_t width, int64_t depth, int64_t classes)
      : blocks(register_module("blocks", torch::nn::ModuleList())),
        head(register_module("head", torch::nn::Linear(width, classes))) {
    for (int64_t i = 0; i < depth; ++i) blocks->push_back(Block(width));
  }
  torch::Tensor forward(torch::Tensor x) {
    for (const auto& block : *blocks) x = block->as<BlockImpl>()->forward(x);
    return head(x.mean(1));
  }

  torch::nn::ModuleList blocks;
  torch::nn::Linear head;
};
TORCH_MODULE(EncoderClassifier);

}  // namespace model

namespace finetune {

std::vector<torch::optim::OptimizerParamGroup> layerwise_groups(
    model::EncoderClassifier& net, double head_lr, double decay) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  const auto depth = net->blocks->size();
  for (size_t i = 0; i < depth; ++i) {
    const double lr = head_lr * 0.5 * std::pow(decay, static_cast<double>(depth - 1 - i));
    groups.emplace_back(net->blocks[i]->parameters(),  // BUG(libtorch-shared-parameter-update)
                        std::make_unique<torch::optim::AdamWOptions>(lr));
  }
  auto top = net->head->parameters();
  const auto last = net->blocks[depth - 1]->parameters();
  top.insert(top.end(), last.begin(), last.end());  // BUG(libtorch-shared-parameter-update)
  groups.emplace_back(top, std::make_unique<torch::optim::AdamWOptions>(head_lr));
  return groups;
}

}  // namespace finetune

int main() {
  torch::manual_seed(1);
  constexpr double kHeadLr = 1e-3;
  model::EncoderClassifier net(16, 4, 3);
  torch::optim::AdamW opt(finetune::layerwise_groups(net, kHeadLr, 0.8),  // BUG(libtorch-shared-parameter-update)
                          torch::optim::AdamWOptions(kHeadLr).weight_decay(0.0));

  auto* last = net->blocks[3]->as<model::BlockImpl>();
  const auto before = last->ff->weight.detach().clone();
  const auto x = torch::randn({8, 5, 16});
  const auto y = torch::randint(0, 3, {8}, torch::kLong);

  opt.zero_grad();
  const auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
  loss.backward();
  opt.step();

  const double moved = (last->ff->weight - before).abs().max().item<double>();
  std::printf("loss %.4f; last block max step %.2e (its block rate %.1e, head rate %.1e)\n",
              loss.item<double>(), moved, kHeadLr * 0.5, kHeadLr);
  if (moved > 1.1 * kHeadLr) {
    std::printf("HARM: the last block moved %.2e, more than any of its groups' rates: it "
                "is stepped by two groups\n",
                moved);
  }
  return 0;
}
