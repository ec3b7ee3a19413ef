// CASE: an R-GCN layer keeps one transform per relation in a ModuleDict and
//       maps each relation's inverse ("cites" / "cites_inv") to the same
//       Linear, since the relations are symmetric; the model is trained with
//       Nesterov SGD over model->parameters()
// SOURCE: the kind of code in knowledge-graph completion models ported to
//       libtorch (R-GCN with inverse edges added for message passing, weights
//       tied between a relation and its inverse)
// KIND: bug
// HARM: each tied transform gets two momentum-SGD updates per step and ends
//       far from the single update its gradient calls for
#include <torch/torch.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kg {

using Adjacency = std::map<std::string, torch::Tensor>;

class RelationalLayerImpl : public torch::nn::Module {
 public:
  RelationalLayerImpl(int64_t dim, const std::vector<std::string>& relations) {
    std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>> table;
    for (const auto& rel : relations) {
      torch::nn::Linear w(torch::nn::LinearOptions(dim, dim).bias(false));
      table.emplace_back(rel, w.ptr());
      table.emplace_back(rel + "_inv", w.ptr());  // BUG(libtorch-shared-parameter-update)
    }
    transforms = register_module("transforms", torch::nn::ModuleDict(table));  // BUG(libtorch-shared-parameter-update)
    self_loop = register_module("self_loop", torch::nn::Linear(dim, dim));
  }

  torch::Tensor forward(const torch::Tensor& x, const Adjacency& edges) {
    auto h = self_loop(x);
    for (const auto& [rel, adj] : edges)
      h = h + adj.mm(transforms[rel]->as<torch::nn::Linear>()->forward(x));
    return torch::relu(h);
  }

  torch::nn::ModuleDict transforms{nullptr};
  torch::nn::Linear self_loop{nullptr};
};
TORCH_MODULE(RelationalLayer);

}  // namespace kg

int main() {
  torch::manual_seed(4);
  constexpr int64_t kNodes = 10, kDim = 6;
  constexpr double kLr = 0.1, kMomentum = 0.9;
  kg::RelationalLayer model(kDim, std::vector<std::string>{"cites", "authored"});

  kg::Adjacency edges;
  for (const std::string rel : {"cites", "authored"}) {
    const auto a = (torch::rand({kNodes, kNodes}) < 0.25).to(torch::kFloat);
    edges[rel] = a / a.sum(1, true).clamp_min(1.0);
    const auto at = a.t();
    edges[rel + "_inv"] = at / at.sum(1, true).clamp_min(1.0);
  }
  const auto x = torch::randn({kNodes, kDim});
  const auto target = torch::randn({kNodes, kDim});

  torch::optim::SGD opt(model->parameters(),  // BUG(libtorch-shared-parameter-update)
                        torch::optim::SGDOptions(kLr).momentum(kMomentum).nesterov(true));
  auto cites = model->transforms["cites"]->as<torch::nn::Linear>()->weight;
  const auto before = cites.detach().clone();

  opt.zero_grad();
  const auto loss = torch::mse_loss(model->forward(x, edges), target);
  loss.backward();
  const auto g = cites.grad().clone();
  opt.step();

  // First Nesterov step: buf = g, update = g + momentum * buf.
  const auto expected = before - kLr * (g + kMomentum * g);
  const double off = (cites.detach() - expected).abs().max().item<double>();
  std::printf("loss %.4f; 'cites' transform off its single-step value by %.4f\n",
              loss.item<double>(), off);
  if (off > 1e-5) {
    std::printf("HARM: the relation transform shared with its inverse was stepped twice "
                "(%.4f away from one Nesterov step)\n",
                off);
  }
  return 0;
}
