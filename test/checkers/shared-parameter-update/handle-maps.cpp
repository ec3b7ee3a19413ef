// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Maps of module handles (Note [Maps of module handles]): one handle per
// distinct key, reached in a loop as `entry.second` or `auto &[name, m]`.

#include <torch/torch.h>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

struct TowerImpl : torch::nn::Module {
  explicit TowerImpl(torch::nn::Linear shared)
      : items(register_module("items", shared)),
        head(register_module("head", torch::nn::Linear(4, 1))) {}
  torch::nn::Linear items, head;
};
TORCH_MODULE(Tower);

std::vector<torch::Tensor> trainable(const std::map<std::string, Tower> &towers) {
  std::vector<torch::Tensor> params;
  for (const auto &entry : towers) {
    auto tower_params = entry.second->parameters();
    params.insert(params.end(), tower_params.begin(), tower_params.end());
  }
  return params;
}

void PositiveTowersShareAnEmbedding() {
  torch::nn::Linear table(4, 4);
  std::map<std::string, Tower> towers;
  towers.emplace("ctr", Tower(table));
  towers.emplace("cvr", Tower(table));
  torch::optim::Adam opt(trainable(towers), torch::optim::AdamOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'items.weight' twice; each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-4]]:10: note: one path to the shared module starts here
  // CHECK-NOTES: :[[@LINE-4]]:10: note: another starts here
  // CHECK-NOTES: :13:15: note: both reach this registration of 'items' with the same module
}

void PositiveStructuredBinding() {
  torch::nn::Linear table(4, 4);
  std::unordered_map<std::string, Tower> heads;
  heads.try_emplace("click", Tower(table));
  heads.try_emplace("buy", Tower(table));
  std::vector<torch::Tensor> params;
  for (auto &[name, tower] : heads) {
    auto own = tower->parameters();
    params.insert(params.end(), own.begin(), own.end());
  }
  torch::nn::utils::clip_grad_norm_(params, 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter 'items.weight' twice; the total norm counts it twice and its gradient is scaled twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-9]]:9: note: one path to the shared module starts here
  // CHECK-NOTES: :[[@LINE-9]]:9: note: another starts here
  // CHECK-NOTES: :13:15: note: both reach this registration of 'items' with the same module
}

// An emplace under a key already there inserts nothing.
void NegativeSameKeyTwice() {
  torch::nn::Linear table(4, 4);
  std::map<std::string, Tower> towers;
  towers.emplace("ctr", Tower(table));
  towers.emplace("ctr", Tower(table));
  torch::optim::Adam opt(trainable(towers), torch::optim::AdamOptions(0.1));
}

// Each tower has its own table.
void NegativeOwnTables() {
  std::map<std::string, Tower> towers;
  towers.emplace("ctr", Tower(torch::nn::Linear(4, 4)));
  towers.emplace("cvr", Tower(torch::nn::Linear(4, 4)));
  torch::optim::Adam opt(trainable(towers), torch::optim::AdamOptions(0.1));
}

// Keys the code does not show may repeat: the map is not followed.
void NegativeKeysNotShown(const std::vector<std::string> &names) {
  torch::nn::Linear table(4, 4);
  std::map<std::string, Tower> towers;
  for (const auto &name : names)
    towers.emplace(name, Tower(table));
  torch::optim::Adam opt(trainable(towers), torch::optim::AdamOptions(0.1));
}
