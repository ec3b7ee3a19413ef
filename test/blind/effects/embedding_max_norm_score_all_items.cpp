// CASE: a two-tower recommender scores the user against every item with the
//       item embedding matrix (full softmax), then looks up the positive items
//       with torch::nn::functional::embedding and max_norm to keep item
//       vectors on the unit ball
// SOURCE: https://github.com/pytorch/pytorch/issues/26596 (the matrix used in
//         a matmul, then in a max_norm lookup: "Line a" before "Line b")
// KIND: bug
// HARM: backward throws "modified by an inplace operation": the max_norm
//       lookup renormalises rows of the matrix the scoring matmul saved
#include <torch/torch.h>

#include <cstdio>

namespace F = torch::nn::functional;

struct TwoTowerImpl : torch::nn::Module {
  TwoTowerImpl(int64_t users, int64_t items, int64_t dim) {
    user_table = register_parameter("user_table", torch::randn({users, dim}));
    item_table = register_parameter("item_table", torch::randn({items, dim}));
  }
  torch::Tensor forward(const torch::Tensor& users, const torch::Tensor& pos_items) {
    auto u = F::embedding(users, user_table);
    auto all_scores = torch::mm(u, item_table.t());  // BUG(libtorch-detached-write)
    auto p = F::embedding(pos_items, item_table, F::EmbeddingFuncOptions().max_norm(1.0));  // BUG(libtorch-detached-write)
    auto pos_scores = (u * p).sum(1);
    // sampled-softmax style loss: log-sum-exp over all items minus the positive
    return (torch::logsumexp(all_scores, 1) - pos_scores).mean();
  }
  torch::Tensor user_table, item_table;
};
TORCH_MODULE(TwoTower);

int main() {
  torch::manual_seed(12);
  TwoTower model(10, 50, 16);
  torch::optim::SGD opt(model->parameters(), 0.05);
  auto users = torch::randint(10, {8});
  auto pos = torch::randint(50, {8});
  opt.zero_grad();
  auto loss = model(users, pos);
  try {
    loss.backward();  // BUG(libtorch-detached-write)
    opt.step();
    std::printf("loss %.4f, backward succeeded\n", loss.item<float>());
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
