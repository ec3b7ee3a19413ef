// CASE: Poincare embeddings (hyperbolic link prediction) compute the ranking
//       loss from rows of the embedding table, then a train step projects the
//       table back into the unit ball in place through weight.detach() before
//       calling backward
// SOURCE: the kind of code in libtorch ports of Poincare embeddings
//         (Nickel & Kiela 2017; facebookresearch/poincare-embeddings keeps
//         points inside the ball by renormalising rows)
// KIND: bug
// HARM: backward throws: a row view that pow() saved was modified in place
//       (detach() shares the version counter)
#include <torch/torch.h>

#include <iostream>
#include <vector>

class PoincareImpl : public torch::nn::Module {
 public:
  PoincareImpl(int64_t n, int64_t dim) {
    weight = register_parameter("weight", torch::rand({n, dim}).sub_(0.5).mul_(0.2));
  }
  torch::Tensor dist(int64_t u, int64_t v) {
    auto a = weight[u], b = weight[v];
    auto sq = (a - b).pow(2).sum();
    auto alpha = 1 - a.pow(2).sum(), beta = 1 - b.pow(2).sum();
    return torch::acosh(1 + 2 * sq / (alpha * beta));
  }
  // keep every point strictly inside the ball
  void project_(double eps = 1e-5) {
    auto w = weight.detach();
    auto n = w.norm(2, {1}, /*keepdim=*/true);
    w.mul_(torch::where(n >= 1 - eps, (1 - eps) / n, torch::ones_like(n)));  // BUG(libtorch-detached-write)
  }
  torch::Tensor weight;
};
TORCH_MODULE(Poincare);

double train_step(Poincare& model, torch::optim::Optimizer& opt, int64_t u, int64_t pos,
                  const std::vector<int64_t>& negs) {
  std::vector<torch::Tensor> scores{-model->dist(u, pos)};
  for (auto v : negs) scores.push_back(-model->dist(u, v));
  auto logits = torch::stack(scores).unsqueeze(0);
  auto loss = torch::nn::functional::cross_entropy(logits, torch::zeros({1}, torch::kLong));
  model->project_();  // BUG(libtorch-detached-write)
  opt.zero_grad();
  loss.backward();  // BUG(libtorch-detached-write)
  opt.step();
  return loss.item<double>();
}

int main() {
  torch::manual_seed(0);
  Poincare model(20, 2);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  try {
    const double loss = train_step(model, opt, 0, 1, {5, 7, 11});
    std::cout << "loss " << loss << "\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: backward failed: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
