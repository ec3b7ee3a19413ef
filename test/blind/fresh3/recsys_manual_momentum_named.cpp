// CASE: a two-tower recommendation model registers one feature-crossing
//       layer in both its user tower and its item tower; the trainer's own
//       momentum SGD walks model->named_parameters() with a velocity per
//       name, so the crossing layer gets two velocities and two steps
// SOURCE: the kind of code in libtorch recommender prototypes (two-tower
//       retrieval with a shared cross/interaction layer) that keep a
//       hand-written optimizer; duplicate entries are stepped twice:
//       https://github.com/pytorch/pytorch/issues/40967
// KIND: bug
// HARM: the shared crossing layer moves twice as far as plain momentum SGD
#include <torch/torch.h>

#include <iostream>
#include <map>
#include <string>
#include <unordered_set>

namespace {

struct TowerImpl : torch::nn::Module {
  TowerImpl(int64_t vocab, torch::nn::Linear shared_cross) {
    embed = register_module("embed", torch::nn::Embedding(vocab, 8));
    cross = register_module("cross", shared_cross);
  }
  torch::Tensor forward(const torch::Tensor& ids) {
    return torch::nn::functional::normalize(cross->forward(embed->forward(ids)),
                                            torch::nn::functional::NormalizeFuncOptions().dim(1));
  }
  torch::nn::Embedding embed{nullptr};
  torch::nn::Linear cross{nullptr};
};
TORCH_MODULE(Tower);

struct TwoTowerImpl : torch::nn::Module {
  TwoTowerImpl() {
    torch::nn::Linear cross(8, 8);
    users = register_module("users", Tower(20, cross));
    items = register_module("items", Tower(30, cross));
  }
  torch::Tensor forward(const torch::Tensor& u, const torch::Tensor& i) {
    return (users->forward(u) * items->forward(i)).sum(1);
  }
  Tower users{nullptr}, items{nullptr};
};
TORCH_MODULE(TwoTower);

class MomentumSGD {
 public:
  MomentumSGD(double lr, double mu) : lr_(lr), mu_(mu) {}

  void step(torch::nn::Module& model) {
    torch::NoGradGuard no_grad;
    for (auto& item : model.named_parameters()) {  // BUG(libtorch-shared-parameter-update)
      auto& p = item.value();
      if (!p.grad().defined()) continue;
      auto& v = velocity_[item.key()];
      if (!v.defined()) v = torch::zeros_like(p);
      v.mul_(mu_).add_(p.grad());
      p.sub_(v * lr_);  // BUG(libtorch-shared-parameter-update)
    }
  }

 private:
  double lr_, mu_;
  std::map<std::string, torch::Tensor> velocity_;
};

void train(TwoTower& model, bool dedup) {
  MomentumSGD opt(0.1, 0.9);
  torch::manual_seed(2);
  for (int step = 0; step < 3; ++step) {
    auto u = torch::randint(0, 20, {32});
    auto i = torch::randint(0, 30, {32});
    auto label = (u % 3 == i % 3).to(torch::kFloat);
    auto loss = torch::binary_cross_entropy_with_logits(model->forward(u, i) * 5, label);
    model->zero_grad();
    loss.backward();
    if (!dedup) {
      opt.step(*model);  // BUG(libtorch-shared-parameter-update)
    } else {
      // reference: the same rule, once per distinct tensor
      torch::NoGradGuard no_grad;
      static std::map<const void*, torch::Tensor> vel;
      std::unordered_set<const void*> seen;
      for (auto& p : model->parameters()) {
        if (!seen.insert(p.unsafeGetTensorImpl()).second || !p.grad().defined()) continue;
        auto& v = vel[p.unsafeGetTensorImpl()];
        if (!v.defined()) v = torch::zeros_like(p);
        v.mul_(0.9).add_(p.grad());
        p.sub_(v * 0.1);
      }
    }
  }
}

}  // namespace

int main() {
  torch::manual_seed(9);
  TwoTower model;
  torch::manual_seed(9);
  TwoTower reference;
  auto before = model->users->cross->weight.detach().clone();

  train(model, /*dedup=*/false);
  train(reference, /*dedup=*/true);

  auto moved = (model->users->cross->weight.detach() - before).norm().item<float>();
  auto ref_moved = (reference->users->cross->weight.detach() - before).norm().item<float>();
  std::cout << "named parameters: " << model->named_parameters().size() << "; crossing layer moved " << moved
            << " (reference " << ref_moved << ")\n";
  if (!torch::allclose(model->users->cross->weight, reference->users->cross->weight, 1e-5, 1e-6)) {
    std::cout << "HARM: the crossing layer shared by both towers took two momentum steps per iteration\n";
  }
  return 0;
}
