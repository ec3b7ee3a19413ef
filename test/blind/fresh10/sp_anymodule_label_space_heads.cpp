// CASE: a multi-dataset classifier keeps one AnyModule head per dataset in a
//       std::map and lets datasets with the same label space share a head;
//       every dataset's head is registered under its own name, so the shared
//       Linear is listed twice in parameters() and SGD with momentum steps it
//       twice per step
// SOURCE: the kind of multi-domain training code (CIFAR-10 / CINIC-10 with one
//         label space) ported to the C++ frontend with AnyModule heads
// KIND: bug
// HARM: the shared head moves 2.9 times the momentum-SGD step its gradient asks
//       for on the first iteration
#include <torch/torch.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

struct DatasetSpec { std::string name; int64_t classes; };

class MultiSetNetImpl : public torch::nn::Module {
 public:
  explicit MultiSetNetImpl(const std::vector<DatasetSpec>& specs) {
    backbone_ = register_module("backbone", torch::nn::Sequential(torch::nn::Linear(12, 24), torch::nn::ReLU()));
    std::map<int64_t, torch::nn::AnyModule> by_label_space;
    for (const auto& spec : specs) {
      auto it = by_label_space.find(spec.classes);
      if (it == by_label_space.end())
        it = by_label_space.emplace(spec.classes, torch::nn::AnyModule(torch::nn::Linear(24, spec.classes))).first;
      heads_.emplace(spec.name, it->second);
      register_module("head_" + spec.name, heads_.at(spec.name).ptr());  // BUG(libtorch-shared-parameter-update)
    }
  }
  torch::Tensor forward(const torch::Tensor& x, const std::string& dataset) {
    return heads_.at(dataset).forward(backbone_->forward(x));
  }
  torch::Tensor head_weight(const std::string& dataset) {
    return heads_.at(dataset).get<torch::nn::Linear>()->weight;
  }

 private:
  torch::nn::Sequential backbone_{nullptr};
  std::map<std::string, torch::nn::AnyModule> heads_;
};
TORCH_MODULE(MultiSetNet);

int main() {
  torch::manual_seed(1);
  MultiSetNet net(std::vector<DatasetSpec>{{"cifar10", 10}, {"cinic10", 10}, {"cifar100", 100}});
  const double lr = 0.05;
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(lr).momentum(0.9));  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({16, 12});
  auto y = torch::randint(0, 10, {16});
  const auto before = net->head_weight("cifar10").detach().clone();

  opt.zero_grad();
  auto loss = torch::nn::functional::cross_entropy(net->forward(x, "cifar10"), y);
  loss.backward();
  const auto grad = net->head_weight("cifar10").grad().clone();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  const auto moved = (before - net->head_weight("cifar10").detach()).norm().item<double>();
  const auto asked = (lr * grad).norm().item<double>();
  std::printf("loss %.4f; head step %.5f, gradient step %.5f (ratio %.2f)\n", loss.item<double>(), moved,
              asked, moved / asked);
  if (moved / asked > 1.01)
    std::printf("HARM: the shared head moved %.2fx the first momentum-SGD step\n", moved / asked);
  return 0;
}
