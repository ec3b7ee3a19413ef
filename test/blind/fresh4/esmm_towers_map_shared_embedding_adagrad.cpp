// CASE: an ESMM-style recommender keeps its CTR and CVR towers in a
//       std::map by task name; both towers register the same item Embedding
//       (one holder, one impl), and the Adagrad parameter list is built by a
//       helper that walks the map and appends each tower's parameters(), so
//       the embedding table is listed, and stepped, twice
// SOURCE: recommender training in libtorch (multi-task towers over a shared
//         embedding, Adagrad as in most CTR trainers);
//         https://github.com/pytorch/pytorch/issues/40967 (a parameter twice
//         in one group is updated twice)
// KIND: bug
// HARM: the shared embedding rows move about 1.7x as far as one Adagrad step
#include <torch/torch.h>

#include <iostream>
#include <map>
#include <string>

struct TowerImpl : torch::nn::Module {
  TowerImpl(torch::nn::Embedding shared, int64_t dim)
      : items(register_module("items", shared)),
        head(register_module("head", torch::nn::Linear(dim, 1))) {}

  torch::Tensor forward(const torch::Tensor& item_ids) {
    return torch::sigmoid(head(items(item_ids).mean(1))).squeeze(1);
  }

  torch::nn::Embedding items;
  torch::nn::Linear head;
};
TORCH_MODULE(Tower);

std::vector<torch::Tensor> trainable(const std::map<std::string, Tower>& towers) {
  std::vector<torch::Tensor> params;
  for (const auto& entry : towers) {
    auto tower_params = entry.second->parameters();  // BUG(libtorch-shared-parameter-update)
    params.insert(params.end(), tower_params.begin(), tower_params.end());  // BUG(libtorch-shared-parameter-update)
  }
  return params;
}

int main() {
  torch::manual_seed(0);
  const double lr = 0.05;
  torch::nn::Embedding item_table(50, 8);
  std::map<std::string, Tower> towers;
  towers.emplace("ctr", Tower(item_table, 8));
  towers.emplace("cvr", Tower(item_table, 8));

  torch::optim::Adagrad optimizer(trainable(towers), torch::optim::AdagradOptions(lr));  // BUG(libtorch-shared-parameter-update)

  auto item_ids = torch::randint(0, 50, {16, 5});
  auto clicked = torch::randint(0, 2, {16}).to(torch::kFloat);
  auto converted = clicked * torch::randint(0, 2, {16}).to(torch::kFloat);

  auto p_ctr = towers.at("ctr")->forward(item_ids);
  auto p_ctcvr = p_ctr * towers.at("cvr")->forward(item_ids);
  auto loss = torch::binary_cross_entropy(p_ctr, clicked) +
              torch::binary_cross_entropy(p_ctcvr, converted);

  auto table_before = item_table->weight.detach().clone();
  auto head_before = towers.at("ctr")->head->weight.detach().clone();
  optimizer.zero_grad();
  loss.backward();
  optimizer.step();  // BUG(libtorch-shared-parameter-update)

  const auto row = item_ids[0][0].item<int64_t>();
  const double table_step = (item_table->weight[row] - table_before[row]).abs().max().item<double>();
  const double head_step = (towers.at("ctr")->head->weight - head_before).abs().max().item<double>();
  std::cout << "largest move: item row " << table_step << ", ctr head " << head_step << " (lr " << lr << ")\n";
  if (table_step > 1.3 * lr)
    std::cout << "HARM: one Adagrad step moved the shared item embedding by " << table_step
              << ", more than the step size " << lr << "\n";
  return 0;
}
