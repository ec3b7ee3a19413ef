// CASE: a small language model ties its output projection to its token
//       embedding (the decoder registers the embedding's weight as its own
//       parameter); fine-tuning builds layer-wise learning-rate groups
//       (embedding, each block, head) from named_parameters(), skipping any
//       tensor already placed through a set of TensorImpl pointers
// SOURCE: layer-wise LR decay for BERT-style fine-tuning with tied input and
//       output embeddings, ported to libtorch; dedup as in
//       https://github.com/tinygrad/tinygrad/pull/1047
// KIND: near-miss
// WHY-OK: every distinct tensor lands in exactly one group; the tied weight
//       is stepped once per iteration
#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

constexpr int64_t kVocab = 16, kDim = 8;

struct TinyLMImpl : torch::nn::Module {
  TinyLMImpl() {
    embed = register_module("embed", torch::nn::Embedding(kVocab, kDim));
    for (int i = 0; i < 2; ++i) blocks->push_back(torch::nn::Linear(kDim, kDim));
    register_module("blocks", blocks);
    head_weight = register_parameter("head_weight", embed->weight);  // tied
    head_bias = register_parameter("head_bias", torch::zeros({kVocab}));
  }
  torch::Tensor forward(const torch::Tensor& ids) {
    auto h = embed->forward(ids);
    for (const auto& b : *blocks) h = h + torch::tanh(b->as<torch::nn::Linear>()->forward(h));
    return torch::nn::functional::linear(h, head_weight, head_bias);
  }
  torch::nn::Embedding embed{nullptr};
  torch::nn::ModuleList blocks;
  torch::Tensor head_weight, head_bias;
};
TORCH_MODULE(TinyLM);

int depth_of(const std::string& name) {
  if (name.rfind("embed.", 0) == 0) return 0;
  if (name.rfind("blocks.", 0) == 0) return 1 + std::stoi(name.substr(7));
  return 3;  // head
}

std::vector<torch::optim::OptimizerParamGroup> layerwise_groups(TinyLM& model, double lr, double decay) {
  std::map<int, std::vector<torch::Tensor>> by_depth;
  std::unordered_set<const void*> placed;
  for (const auto& item : model->named_parameters()) {
    if (!placed.insert(item.value().unsafeGetTensorImpl()).second) continue;  // tied: already placed
    by_depth[depth_of(item.key())].push_back(item.value());
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  for (auto& [depth, params] : by_depth) {
    double group_lr = lr * std::pow(decay, 3 - depth);
    groups.emplace_back(params, std::make_unique<torch::optim::SGDOptions>(group_lr));
  }
  return groups;
}

}  // namespace

int main() {
  torch::manual_seed(22);
  TinyLM model;
  torch::optim::SGD opt(layerwise_groups(model, 0.5, 0.8), torch::optim::SGDOptions(0.5));

  auto ids = torch::randint(0, kVocab, {4, 5});
  auto logits = model->forward(ids);
  auto loss = torch::nn::functional::cross_entropy(logits.reshape({-1, kVocab}), ids.roll(1, 1).reshape({-1}));
  opt.zero_grad();
  loss.backward();

  auto before = model->embed->weight.detach().clone();
  auto grad = model->embed->weight.grad().clone();
  opt.step();

  double tied_lr = 0.0;  // the rate of the one group that holds the tied tensor
  for (auto& group : opt.param_groups())
    for (auto& p : group.params())
      if (p.is_same(model->embed->weight)) tied_lr = static_cast<torch::optim::SGDOptions&>(group.options()).lr();
  auto expected = before - grad * tied_lr;  // one step at that rate
  auto err = (model->embed->weight.detach() - expected).abs().max().item<float>();
  std::cout << "groups: " << opt.param_groups().size() << "; tied weight error vs one step: " << err << "\n";
  if (err > 1e-6f) std::cout << "HARM: the tied weight was stepped more than once\n";
  return 0;
}
