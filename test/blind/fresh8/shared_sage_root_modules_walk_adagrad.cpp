// CASE: a GraphSAGE stack shares one root transform across all its layers
//       (each layer registers the Linear it is given); the trainer collects
//       "each parameter once" by walking modules() and asking every module
//       for its own, non-recursive parameters, and steps them with a
//       hand-written Adagrad that keeps one accumulator per list entry
// SOURCE: the kind of code in C++ GNN trainers on libtorch (parameter-
//       efficient GraphSAGE variants with a shared self/root weight; custom
//       optimizers over a flat parameter list)
// KIND: bug
// HARM: the shared root weight is updated once per layer that registered it,
//       i.e. three Adagrad steps per iteration
#include <torch/torch.h>

#include <cstdio>
#include <string>
#include <vector>

namespace gnn {

class SageLayerImpl : public torch::nn::Module {
 public:
  SageLayerImpl(int64_t dim, torch::nn::Linear shared_root)
      : neigh(register_module("neigh", torch::nn::Linear(dim, dim))),
        root(register_module("root", std::move(shared_root))) {}

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mean_adj) {
    return torch::relu(root(x) + neigh(mean_adj.mm(x)));
  }

  torch::nn::Linear neigh, root;
};
TORCH_MODULE(SageLayer);

class SageNetImpl : public torch::nn::Module {
 public:
  SageNetImpl(int64_t dim, int64_t depth, int64_t classes)
      : root(torch::nn::Linear(dim, dim)),
        out(register_module("out", torch::nn::Linear(dim, classes))) {
    for (int64_t i = 0; i < depth; ++i)
      layers.push_back(register_module("layer" + std::to_string(i), SageLayer(dim, root)));  // BUG(libtorch-shared-parameter-update)
  }

  torch::Tensor forward(torch::Tensor x, const torch::Tensor& mean_adj) {
    for (auto& layer : layers) x = layer(x, mean_adj);
    return out(x);
  }

  torch::nn::Linear root;
  std::vector<SageLayer> layers;
  torch::nn::Linear out;
};
TORCH_MODULE(SageNet);

}  // namespace gnn

namespace train {

std::vector<torch::Tensor> own_parameters(const torch::nn::Module& net) {
  std::vector<torch::Tensor> flat;
  for (const auto& module : net.modules(/*include_self=*/false))
    for (const auto& p : module->parameters(/*recurse=*/false)) flat.push_back(p);  // BUG(libtorch-shared-parameter-update)
  return flat;
}

class Adagrad {
 public:
  Adagrad(std::vector<torch::Tensor> params, double lr) : params_(std::move(params)), lr_(lr) {
    for (const auto& p : params_) sums_.push_back(torch::zeros_like(p));
  }

  void zero_grad() {
    for (auto& p : params_)
      if (p.grad().defined()) p.mutable_grad().zero_();
  }

  void step() {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      const auto& g = params_[i].grad();
      if (!g.defined()) continue;
      sums_[i].addcmul_(g, g);
      params_[i].addcdiv_(g, sums_[i].sqrt().add_(1e-10), -lr_);  // BUG(libtorch-shared-parameter-update)
    }
  }

 private:
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> sums_;
  double lr_;
};

}  // namespace train

int main() {
  torch::manual_seed(2);
  constexpr double kLr = 0.01;
  constexpr int64_t kNodes = 12;
  gnn::SageNet net(8, 3, 4);

  auto adj = (torch::rand({kNodes, kNodes}) < 0.3).to(torch::kFloat);
  adj = adj / adj.sum(1, true).clamp_min(1.0);
  const auto x = torch::randn({kNodes, 8});
  const auto y = torch::randint(0, 4, {kNodes}, torch::kLong);

  train::Adagrad opt(train::own_parameters(*net), kLr);  // BUG(libtorch-shared-parameter-update)
  const auto before = net->root->weight.detach().clone();
  opt.zero_grad();
  const auto loss = torch::nn::functional::cross_entropy(net->forward(x, adj), y);
  loss.backward();
  opt.step();

  // Adagrad's first step moves every element with a nonzero gradient by lr.
  const double moved = (net->root->weight - before).abs().max().item<double>();
  std::printf("loss %.4f; shared root max step %.4f (lr %.4f)\n", loss.item<double>(), moved,
              kLr);
  if (moved > 1.5 * kLr) {
    std::printf("HARM: the shared root weight moved %.4f = %.1f Adagrad steps in one "
                "iteration\n",
                moved, moved / kLr);
  }
  return 0;
}
