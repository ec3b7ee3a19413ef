// CASE: a seq2seq model initialises its source and target embeddings with
//       Embedding::from_pretrained(glove, freeze(false)) over one GloVe
//       tensor; from_pretrained keeps that tensor as the weight, so both
//       modules register it, and clip_grad_norm_ over model->parameters()
//       counts its gradient twice
// SOURCE: the kind of code in libtorch NMT/summarisation ports that load one
//         shared vocabulary's pretrained vectors into both embeddings
// KIND: bug
// HARM: the total norm reported and used for clipping is larger than the
//       gradient's norm, so the update is clipped harder than max_norm asks
#include <torch/torch.h>

#include <iostream>
#include <set>

namespace nmt {

struct Seq2SeqImpl : torch::nn::Module {
  explicit Seq2SeqImpl(const torch::Tensor& glove) {
    auto opts = torch::nn::EmbeddingFromPretrainedOptions().freeze(false);
    src_embed = register_module("src_embed", torch::nn::Embedding::from_pretrained(glove, opts));  // BUG(libtorch-shared-parameter-update)
    tgt_embed = register_module("tgt_embed", torch::nn::Embedding::from_pretrained(glove, opts));  // BUG(libtorch-shared-parameter-update)
    bridge = register_module("bridge", torch::nn::Linear(glove.size(1), glove.size(1)));
    out = register_module("out", torch::nn::Linear(glove.size(1), glove.size(0)));
  }
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& tgt_in) {
    auto ctx = torch::tanh(bridge(src_embed(src).mean(1, /*keepdim=*/true)));
    return out(tgt_embed(tgt_in) + ctx);
  }
  torch::nn::Embedding src_embed{nullptr}, tgt_embed{nullptr};
  torch::nn::Linear bridge{nullptr}, out{nullptr};
};
TORCH_MODULE(Seq2Seq);

}  // namespace nmt

int main() {
  torch::manual_seed(0);
  const int64_t vocab = 50, dim = 12;
  auto glove = torch::randn({vocab, dim});  // stands for the loaded vectors
  nmt::Seq2Seq model(glove);

  auto src = torch::randint(0, vocab, {8, 7});
  auto tgt = torch::randint(0, vocab, {8, 6});
  auto logits = model(src, tgt.slice(1, 0, 5));
  auto loss = torch::cross_entropy_loss(logits.reshape({-1, vocab}), tgt.slice(1, 1).reshape({-1}));
  loss.backward();

  // Reference: the norm over each distinct tensor once.
  double sq = 0;
  std::set<const c10::TensorImpl*> seen;
  for (const auto& p : model->parameters())
    if (seen.insert(p.unsafeGetTensorImpl()).second) sq += p.grad().pow(2).sum().item<double>();
  double expected = std::sqrt(sq);

  double reported = torch::nn::utils::clip_grad_norm_(model->parameters(), 0.5);  // BUG(libtorch-shared-parameter-update)
  std::cout << "clip_grad_norm_ total " << reported << ", distinct-gradient norm " << expected << "\n";
  if (std::abs(reported - expected) > 1e-4 * expected)
    std::cout << "HARM: gradient norm " << reported << " instead of " << expected
              << "; the shared embedding is counted twice\n";
  return 0;
}
