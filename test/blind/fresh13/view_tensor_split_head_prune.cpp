// CASE: attention-head pruning during fine-tuning: the attention module
//       splits its softmax probabilities into per-head views with
//       tensor_split() and zeroes the pruned heads' views in place before
//       the value matmul; softmax saved its output for backward
// SOURCE: the kind of code in C++ ports of head-pruning / head-masking
//         (Michel et al. "Are Sixteen Heads Really Better than One?")
// KIND: bug
// HARM: backward() throws "modified by an inplace operation"

#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <set>

struct PrunableAttentionImpl : torch::nn::Module {
  PrunableAttentionImpl(int64_t dim, int64_t heads)
      : heads_(heads),
        qkv(register_module("qkv", torch::nn::Linear(dim, 3 * dim))),
        proj(register_module("proj", torch::nn::Linear(dim, dim))) {}

  void prune(int64_t head) { pruned_.insert(head); }

  torch::Tensor forward(const torch::Tensor& x) {
    const int64_t B = x.size(0), L = x.size(1), D = x.size(2), hd = D / heads_;
    auto parts = qkv->forward(x).view({B, L, 3, heads_, hd}).permute({2, 0, 3, 1, 4});
    auto q = parts[0], k = parts[1], v = parts[2];
    auto probs = torch::softmax(q.matmul(k.transpose(-2, -1)) / std::sqrt(double(hd)), -1);
    if (!pruned_.empty()) {
      std::vector<torch::Tensor> per_head = probs.tensor_split(heads_, /*dim=*/1);  // BUG(libtorch-inplace-on-view)
      for (int64_t h : pruned_) per_head[h].zero_();  // BUG(libtorch-inplace-on-view)
    }
    auto ctx = probs.matmul(v).transpose(1, 2).reshape({B, L, D});
    return proj->forward(ctx);
  }

  int64_t heads_;
  std::set<int64_t> pruned_;
  torch::nn::Linear qkv, proj;
};
TORCH_MODULE(PrunableAttention);

int main() {
  torch::manual_seed(0);
  PrunableAttention attn(32, 4);
  torch::nn::Linear cls(32, 2);
  std::vector<torch::Tensor> params = attn->parameters();
  for (auto& p : cls->parameters()) params.push_back(p);
  torch::optim::AdamW opt(params, torch::optim::AdamWOptions(1e-3));

  auto x = torch::randn({8, 10, 32});
  auto y = torch::randint(0, 2, {8});
  attn->prune(1);
  attn->prune(3);

  opt.zero_grad();
  auto logits = cls->forward(attn->forward(x).mean(1));
  auto loss = torch::nn::functional::cross_entropy(logits, y);
  try {
    loss.backward();
    opt.step();
    std::printf("pruned fine-tuning step done, loss %.4f\n", loss.item<float>());
  } catch (const c10::Error& e) {
    std::string what = e.what_without_backtrace();
    std::printf("HARM: backward failed: %s\n", what.substr(0, what.find('.')).c_str());
  }
  return 0;
}
