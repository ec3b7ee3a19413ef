// CASE: the two-tower recommender scores every item with a clone of the item
//       matrix and then does the max_norm lookup, as the torch.nn.Embedding
//       documentation prescribes
// SOURCE: the note under torch.nn.Embedding: "performing a differentiable
//         operation on Embedding.weight before calling Embedding's forward
//         method requires cloning Embedding.weight when max_norm is not None"
// KIND: near-miss
// WHY-OK: the matmul saves the clone, which the renormalisation does not
//         touch; gradients still reach the item matrix through the clone
#include <torch/torch.h>

#include <cstdio>

struct RecommenderImpl : torch::nn::Module {
  RecommenderImpl(int64_t users, int64_t items, int64_t dim) {
    user_emb = register_module("user_emb", torch::nn::Embedding(users, dim));
    item_emb = register_module(
        "item_emb", torch::nn::Embedding(torch::nn::EmbeddingOptions(items, dim).max_norm(1.0)));
  }
  torch::Tensor forward(const torch::Tensor& users, const torch::Tensor& pos_items) {
    auto u = user_emb(users);
    auto all_scores = torch::mm(u, item_emb->weight.clone().t());
    auto p = item_emb(pos_items);
    return (torch::logsumexp(all_scores, 1) - (u * p).sum(1)).mean();
  }
  torch::nn::Embedding user_emb{nullptr}, item_emb{nullptr};
};
TORCH_MODULE(Recommender);

int main() {
  torch::manual_seed(12);
  Recommender model(10, 50, 16);
  torch::optim::SGD opt(model->parameters(), 0.05);
  auto users = torch::randint(10, {8});
  auto pos = torch::randint(50, {8});
  opt.zero_grad();
  auto loss = model(users, pos);
  try {
    loss.backward();
    const double g = model->item_emb->weight.grad().abs().sum().item<double>();
    opt.step();
    std::printf("loss %.4f, item grad mass %.4f\n", loss.item<float>(), g);
    if (!(g > 0)) std::printf("HARM: no gradient reached the item matrix\n");
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
