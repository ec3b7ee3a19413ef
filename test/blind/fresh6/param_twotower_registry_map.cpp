// CASE: a two-tower recommender shares one category Embedding between the
//       user and item towers; the trainer builds a name -> tensor registry
//       in an unordered_map with per-tower prefixes and hands its values to
//       SGD with momentum
// SOURCE: the kind of code from two-tower retrieval models with shared
//         side-feature tables; mlverse/torch#305 (shared weights listed twice
//         in parameters), torch/torch7#716 (shared weights updated twice)
// KIND: bug
// HARM: the shared category table moves 2.9x as far as one momentum-SGD
//       step should move it
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

struct TowerImpl : torch::nn::Module {
  TowerImpl(int64_t n_ids, torch::nn::Embedding shared_category, int64_t dim)
      : id_emb(register_module("id_emb", torch::nn::Embedding(n_ids, dim))),
        category(register_module("category", std::move(shared_category))),
        mlp(register_module("mlp", torch::nn::Linear(2 * dim, dim))) {}
  torch::Tensor forward(const torch::Tensor& ids, const torch::Tensor& cats) {
    auto x = torch::cat({id_emb(ids), category(cats)}, 1);
    return torch::nn::functional::normalize(mlp(x), torch::nn::functional::NormalizeFuncOptions().dim(1));
  }
  torch::nn::Embedding id_emb, category;
  torch::nn::Linear mlp;
};
TORCH_MODULE(Tower);

using Registry = std::unordered_map<std::string, torch::Tensor>;

void register_tower(Registry& reg, const std::string& prefix, Tower& tower) {
  for (const auto& item : tower->named_parameters()) {
    reg.emplace(prefix + "." + item.key(), item.value());       // BUG(libtorch-shared-parameter-update)
  }
}

int main() {
  torch::manual_seed(13);
  const int64_t n_users = 100, n_items = 200, n_cats = 12, dim = 16, batch = 32;
  torch::nn::Embedding category(n_cats, dim);
  Tower users(n_users, category, dim), items(n_items, category, dim);

  Registry registry;
  register_tower(registry, "user", users);
  register_tower(registry, "item", items);
  std::vector<torch::Tensor> params;
  for (auto& [name, tensor] : registry) params.push_back(tensor);  // BUG(libtorch-shared-parameter-update)
  const double lr = 0.05;
  torch::optim::SGD opt(params, torch::optim::SGDOptions(lr).momentum(0.9));  // BUG(libtorch-shared-parameter-update)

  auto uid = torch::randint(n_users, {batch}, torch::kLong);
  auto ucat = torch::randint(n_cats, {batch}, torch::kLong);
  auto iid = torch::randint(n_items, {batch}, torch::kLong);
  auto icat = torch::randint(n_cats, {batch}, torch::kLong);

  auto before = category->weight.detach().clone();
  auto logits = users->forward(uid, ucat).mm(items->forward(iid, icat).t()) / 0.1;
  auto loss = torch::nn::functional::cross_entropy(logits, torch::arange(batch));
  opt.zero_grad();
  loss.backward();
  auto one_step = category->weight.grad().clone() * lr;
  opt.step();                                                     // BUG(libtorch-shared-parameter-update)

  auto moved = (before - category->weight.detach()).norm().item<double>();
  auto should = one_step.norm().item<double>();
  std::cout << "params listed: " << params.size() << ", category table moved " << moved
            << ", one step is " << should << "\n";
  if (moved > 1.5 * should)
    std::cout << "HARM: the shared category table moved " << moved / should
              << "x the size of one SGD step\n";
  return 0;
}
