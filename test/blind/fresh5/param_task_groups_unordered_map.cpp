// CASE: a multi-task vision trainer keeps its task heads in a
//       std::unordered_map<std::string, nn::Linear> and builds one SGD
//       parameter group per task with that task's learning rate; each group
//       is "backbone + head", so the shared backbone sits in every group and
//       one step() moves it once per task, sharing one momentum buffer
// SOURCE: multi-task perception models (box-regression + classification heads
//         on one trunk) trained from C++; a libtorch project's fix for
//         parameters added to the solver more than once:
//         https://github.com/jolibrain/deepdetect/pull/1258
// KIND: bug
// HARM: the backbone weight moves more than twice as far as one step at the
//       largest task learning rate
#include <torch/torch.h>

#include <iostream>
#include <unordered_map>

using torch::optim::OptimizerParamGroup;
using torch::optim::SGDOptions;

std::vector<OptimizerParamGroup> per_task_groups(torch::nn::Sequential& backbone,
                                                 std::unordered_map<std::string, torch::nn::Linear>& heads,
                                                 const std::unordered_map<std::string, double>& task_lr) {
  std::vector<OptimizerParamGroup> groups;
  for (auto& [task, head] : heads) {
    auto params = backbone->parameters();  // BUG(libtorch-shared-parameter-update)
    for (auto& p : head->parameters()) params.push_back(p);
    groups.emplace_back(params, std::make_unique<SGDOptions>(SGDOptions(task_lr.at(task)).momentum(0.9)));  // BUG(libtorch-shared-parameter-update)
  }
  return groups;
}

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential backbone(torch::nn::Linear(24, 48), torch::nn::ReLU(), torch::nn::Linear(48, 48),
                                 torch::nn::ReLU());
  std::unordered_map<std::string, torch::nn::Linear> heads;
  heads.emplace("boxes", torch::nn::Linear(48, 4));
  heads.emplace("classes", torch::nn::Linear(48, 6));
  std::unordered_map<std::string, double> task_lr{{"boxes", 0.02}, {"classes", 0.01}};

  torch::optim::SGD opt(per_task_groups(backbone, heads, task_lr), SGDOptions(0.01).momentum(0.9));  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({32, 24});
  auto boxes = torch::randn({32, 4});
  auto labels = torch::randint(0, 6, {32}, torch::kLong);
  auto w = backbone->named_parameters()["0.weight"];
  auto before = w.detach().clone();

  opt.zero_grad();
  auto feats = backbone->forward(x);
  auto loss = torch::smooth_l1_loss(heads.at("boxes")->forward(feats), boxes) +
              torch::nn::functional::cross_entropy(heads.at("classes")->forward(feats), labels);
  loss.backward();
  auto one_step = (0.02 * w.grad()).norm().item<float>();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  float moved = (w.detach() - before).norm().item<float>();
  std::cout << "backbone step " << moved << ", one step at the largest task lr " << one_step << "\n";
  if (moved > 1.01f * one_step)
    std::cout << "HARM: backbone moved " << moved / one_step
              << "x a single step at the largest task learning rate\n";
  return 0;
}
