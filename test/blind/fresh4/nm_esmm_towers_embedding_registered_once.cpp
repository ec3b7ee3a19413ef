// CASE: an ESMM-style recommender keeps its CTR and CVR towers in a
//       std::map by task name and both towers use one item Embedding; the
//       embedding is registered once, on the model, the towers keep an
//       unregistered handle to it, and Adagrad is built from
//       model->parameters()
// SOURCE: recommender training in libtorch (multi-task towers over a shared
//         embedding, Adagrad as in most CTR trainers)
// KIND: near-miss
// WHY-OK: each tensor appears once in model->parameters(): the towers only
//         register their own heads
#include <torch/torch.h>

#include <iostream>
#include <map>
#include <string>

struct TowerImpl : torch::nn::Module {
  TowerImpl(torch::nn::Embedding shared, int64_t dim)
      : items(shared), head(register_module("head", torch::nn::Linear(dim, 1))) {}

  torch::Tensor forward(const torch::Tensor& item_ids) {
    return torch::sigmoid(head(items(item_ids).mean(1))).squeeze(1);
  }

  torch::nn::Embedding items;  // not registered: owned by the model
  torch::nn::Linear head;
};
TORCH_MODULE(Tower);

struct EsmmImpl : torch::nn::Module {
  EsmmImpl(int64_t n_items, int64_t dim)
      : item_table(register_module("item_table", torch::nn::Embedding(n_items, dim))) {
    for (const std::string task : {"ctr", "cvr"})
      towers.emplace(task, register_module(task, Tower(item_table, dim)));
  }
  torch::nn::Embedding item_table;
  std::map<std::string, Tower> towers;
};
TORCH_MODULE(Esmm);

int main() {
  torch::manual_seed(0);
  const double lr = 0.05;
  Esmm model(50, 8);
  torch::optim::Adagrad optimizer(model->parameters(), torch::optim::AdagradOptions(lr));

  auto item_ids = torch::randint(0, 50, {16, 5});
  auto clicked = torch::randint(0, 2, {16}).to(torch::kFloat);
  auto converted = clicked * torch::randint(0, 2, {16}).to(torch::kFloat);

  auto p_ctr = model->towers.at("ctr")->forward(item_ids);
  auto p_ctcvr = p_ctr * model->towers.at("cvr")->forward(item_ids);
  auto loss = torch::binary_cross_entropy(p_ctr, clicked) +
              torch::binary_cross_entropy(p_ctcvr, converted);

  auto table_before = model->item_table->weight.detach().clone();
  optimizer.zero_grad();
  loss.backward();
  optimizer.step();

  const auto row = item_ids[0][0].item<int64_t>();
  const double table_step = (model->item_table->weight[row] - table_before[row]).abs().max().item<double>();
  std::cout << "listed tensors " << model->parameters().size() << ", largest move of item row " << table_step
            << " (lr " << lr << ")\n";
  if (table_step > 1.3 * lr)
    std::cout << "HARM: one Adagrad step moved the shared item embedding by " << table_step << "\n";
  return 0;
}
