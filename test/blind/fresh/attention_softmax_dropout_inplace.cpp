// CASE: a self-attention module that drops attention probabilities with an
//       in-place Dropout straight after the softmax
// SOURCE: the kind of code in hand-written transformer blocks
//         (attn_drop = nn.Dropout(p, inplace=True)); error as in the
//         "modified by an inplace operation" threads on discuss.pytorch.org
// KIND: bug
// HARM: backward throws "modified by an inplace operation": softmax saved
//       its result, which the in-place dropout then scaled and zeroed
#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <string>

struct SelfAttentionImpl : torch::nn::Module {
  explicit SelfAttentionImpl(int64_t dim) : dim_(dim) {
    qkv = register_module("qkv", torch::nn::Linear(dim, 3 * dim));
    proj = register_module("proj", torch::nn::Linear(dim, dim));
    attn_drop = register_module(
        "attn_drop", torch::nn::Dropout(torch::nn::DropoutOptions(0.1).inplace(true)));  // BUG(libtorch-detached-write)
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto parts = qkv(x).chunk(3, -1);
    auto scores = parts[0].matmul(parts[1].transpose(-2, -1)) / std::sqrt(double(dim_));
    auto attn = torch::softmax(scores, -1);  // BUG(libtorch-detached-write)
    attn = attn_drop(attn);  // BUG(libtorch-detached-write)
    return proj(attn.matmul(parts[2]));
  }
  int64_t dim_;
  torch::nn::Linear qkv{nullptr}, proj{nullptr};
  torch::nn::Dropout attn_drop{nullptr};
};
TORCH_MODULE(SelfAttention);

int main() {
  torch::manual_seed(0);
  SelfAttention block(16);
  torch::optim::AdamW opt(block->parameters(), torch::optim::AdamWOptions(1e-3));
  auto x = torch::randn({4, 10, 16});
  auto target = torch::randn({4, 10, 16});
  try {
    opt.zero_grad();
    auto loss = torch::mse_loss(block(x), target);  // BUG(libtorch-detached-write)
    loss.backward();  // BUG(libtorch-detached-write)
    opt.step();
    std::cout << "step ran\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::cout << "HARM: backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
