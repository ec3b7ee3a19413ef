// CASE: a news recommender's reader and article towers share one topic
//       Embedding; the trainer builds a prefixed name -> tensor registry in
//       an unordered_map and gives its values to Adagrad
// SOURCE: the kind of code from two-tower retrieval models with shared
//         side-feature tables; mlverse/torch#305 (shared weights listed twice)
// KIND: near-miss
// WHY-OK: the values are filtered through a set of TensorImpl pointers
//         before the optimizer is built, so the shared table is listed once
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

struct TowerImpl : torch::nn::Module {
  TowerImpl(int64_t n_ids, torch::nn::Embedding shared_topic, int64_t dim)
      : id_emb(register_module("id_emb", torch::nn::Embedding(n_ids, dim))),
        topic(register_module("topic", std::move(shared_topic))),
        mix(register_module("mix", torch::nn::Linear(2 * dim, dim))) {}
  torch::Tensor forward(const torch::Tensor& ids, const torch::Tensor& topics) {
    return torch::tanh(mix(torch::cat({id_emb(ids), topic(topics)}, 1)));
  }
  torch::nn::Embedding id_emb, topic;
  torch::nn::Linear mix;
};
TORCH_MODULE(Tower);

using Registry = std::unordered_map<std::string, torch::Tensor>;

void register_tower(Registry& reg, const std::string& prefix, Tower& tower) {
  for (const auto& item : tower->named_parameters()) reg.emplace(prefix + "." + item.key(), item.value());
}

std::vector<torch::Tensor> unique_tensors(const Registry& reg) {
  std::unordered_set<c10::TensorImpl*> seen;
  std::vector<torch::Tensor> out;
  for (const auto& [name, tensor] : reg) {
    if (seen.insert(tensor.unsafeGetTensorImpl()).second) out.push_back(tensor);
  }
  return out;
}

int main() {
  torch::manual_seed(73);
  const int64_t n_readers = 80, n_articles = 300, n_topics = 20, dim = 16, batch = 32;
  torch::nn::Embedding topic(n_topics, dim);
  Tower readers(n_readers, topic, dim), articles(n_articles, topic, dim);

  Registry registry;
  register_tower(registry, "reader", readers);
  register_tower(registry, "article", articles);
  auto params = unique_tensors(registry);
  const double lr = 0.05;
  torch::optim::Adagrad opt(params, torch::optim::AdagradOptions(lr));

  auto rid = torch::randint(n_readers, {batch}, torch::kLong);
  auto rtop = torch::randint(n_topics, {batch}, torch::kLong);
  auto aid = torch::randint(n_articles, {batch}, torch::kLong);
  auto atop = torch::randint(n_topics, {batch}, torch::kLong);

  auto before = topic->weight.detach().clone();
  auto logits = readers->forward(rid, rtop).mm(articles->forward(aid, atop).t());
  auto loss = torch::nn::functional::cross_entropy(logits, torch::arange(batch));
  opt.zero_grad();
  loss.backward();
  opt.step();

  auto largest = (topic->weight.detach() - before).abs().max().item<double>();
  std::cout << "registry " << registry.size() << " names, " << params.size()
            << " tensors; largest topic update " << largest << " (lr " << lr << ")\n";
  return 0;
}
