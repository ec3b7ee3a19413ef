// CASE: a small tied-embedding language model (output logits computed with
//       the embedding matrix, as in "Using the Output Embedding to Improve
//       Language Models") uses torch::nn::Embedding with max_norm and is
//       unrolled step by step with teacher forcing, backward() once at the end
// SOURCE: https://github.com/pytorch/pytorch/issues/26596 and the note under
//         torch.nn.Embedding ("when max_norm is not None, Embedding's forward
//         method will modify the weight tensor in-place")
// KIND: bug
// HARM: backward throws "modified by an inplace operation": step t+1's lookup
//       renormalises the weight that step t's tied projection saved
#include <torch/torch.h>

#include <cstdio>

struct TiedLMImpl : torch::nn::Module {
  TiedLMImpl(int64_t vocab, int64_t dim) {
    embed = register_module(
        "embed", torch::nn::Embedding(torch::nn::EmbeddingOptions(vocab, dim).max_norm(1.0)));  // BUG(libtorch-detached-write)
    cell = register_module("cell", torch::nn::GRUCell(dim, dim));
  }
  // One decoding step: returns logits over the vocabulary and the new state.
  std::pair<torch::Tensor, torch::Tensor> step(const torch::Tensor& tok, const torch::Tensor& h) {
    auto e = embed(tok);  // BUG(libtorch-detached-write)
    auto h2 = cell(e, h);
    auto logits = torch::matmul(h2, embed->weight.t());  // BUG(libtorch-detached-write)
    return {logits, h2};
  }
  torch::nn::Embedding embed{nullptr};
  torch::nn::GRUCell cell{nullptr};
};
TORCH_MODULE(TiedLM);

int main() {
  torch::manual_seed(11);
  const int64_t vocab = 20, dim = 8, T = 6, B = 4;
  TiedLM lm(vocab, dim);
  torch::optim::Adam opt(lm->parameters(), 1e-3);
  auto seq = torch::randint(vocab, {T + 1, B});

  opt.zero_grad();
  auto h = torch::zeros({B, dim});
  auto loss = torch::zeros({});
  for (int64_t t = 0; t < T; ++t) {
    auto [logits, h2] = lm->step(seq[t], h);
    h = h2;
    loss = loss + torch::cross_entropy_loss(logits, seq[t + 1]);
  }
  try {
    loss.backward();  // BUG(libtorch-detached-write)
    opt.step();
    std::printf("loss %.4f, backward succeeded\n", loss.item<float>());
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
