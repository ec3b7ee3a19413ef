// CASE: a CTR model's hand-written SGD buckets named_parameters() by tags
//       (decay / no_decay / head) into a std::unordered_map of lists; a tagger
//       that returns several tags puts every head parameter in two buckets,
//       and the per-bucket update loop over structured bindings steps them twice
// SOURCE: the kind of code in libtorch recommendation trainers (DeepFM/DCN
//         ports) with "head at 10x learning rate, no decay on biases" rules
// KIND: bug
// HARM: the head's weight moved by (lr + head_lr) * grad instead of
//       head_lr * grad
#include <torch/torch.h>

#include <iostream>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

struct CtrNetImpl : torch::nn::Module {
  CtrNetImpl() {
    emb = register_module("emb", torch::nn::Embedding(50, 8));
    mlp = register_module("mlp", torch::nn::Linear(24, 16));
    head = register_module("head", torch::nn::Linear(16, 1));
  }
  torch::Tensor forward(const torch::Tensor& fields) {  // [B, 3] ids
    auto x = emb(fields).flatten(1);
    return head(torch::relu(mlp(x))).squeeze(1);
  }
  torch::nn::Embedding emb{nullptr};
  torch::nn::Linear mlp{nullptr}, head{nullptr};
};
TORCH_MODULE(CtrNet);

namespace train {

std::vector<std::string> tags_of(const std::string& name) {
  std::vector<std::string> tags;
  tags.push_back(name.find("bias") != std::string::npos ? "no_decay" : "decay");
  if (name.rfind("head.", 0) == 0) tags.push_back("head");
  return tags;
}

const std::map<std::string, std::pair<double, double>> kRules{  // tag -> (lr, weight decay)
    {"decay", {1e-2, 1e-4}}, {"no_decay", {1e-2, 0.0}}, {"head", {1e-1, 0.0}}};

void sgd_step(CtrNet& net) {
  std::unordered_map<std::string, std::vector<torch::Tensor>> buckets;
  for (const auto& item : net->named_parameters())
    for (const auto& tag : tags_of(item.key()))
      buckets[tag].push_back(item.value());  // BUG(libtorch-shared-parameter-update)

  torch::NoGradGuard ng;
  for (auto& [tag, params] : buckets) {
    const auto [lr, wd] = kRules.at(tag);
    for (auto& p : params) {
      if (wd > 0) p.mul_(1 - lr * wd);  // BUG(libtorch-shared-parameter-update)
      p.sub_(p.grad(), lr);  // BUG(libtorch-shared-parameter-update)
    }
  }
}

}  // namespace train

int main() {
  torch::manual_seed(0);
  CtrNet net;
  auto fields = torch::randint(50, {32, 3}, torch::kLong);
  auto clicks = torch::randint(2, {32}).to(torch::kFloat);

  auto loss = torch::binary_cross_entropy_with_logits(net(fields), clicks);
  loss.backward();
  const auto w0 = net->head->weight.detach().clone();
  const auto g = net->head->weight.grad().clone();
  train::sgd_step(net);

  const auto intended = w0 - 1e-1 * g;
  const double err = (net->head->weight - intended).abs().max().item<double>();
  std::cout << "head weight deviation from one head-rate step: " << err << "\n";
  if (err > 1e-6)
    std::cout << "HARM: the head was stepped in two buckets (deviation " << err << ")\n";
  return 0;
}
