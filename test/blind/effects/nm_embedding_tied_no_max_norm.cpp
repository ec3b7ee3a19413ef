// CASE: the step-by-step tied-embedding language model, with a plain
//       torch::nn::Embedding (no max_norm) and the output logits computed
//       with the embedding matrix at every step
// SOURCE: the usual weight-tying recipe (Press & Wolf 2017) in libtorch
// KIND: near-miss
// WHY-OK: without max_norm the lookup only reads the weight; every step's
//         projection saves the same unmodified matrix and backward runs
#include <torch/torch.h>

#include <cstdio>

struct TiedDecoderImpl : torch::nn::Module {
  TiedDecoderImpl(int64_t vocab, int64_t dim) {
    embed = register_module("embed", torch::nn::Embedding(vocab, dim));
    cell = register_module("cell", torch::nn::GRUCell(dim, dim));
  }
  torch::Tensor forward(const torch::Tensor& seq) {  // seq: [T+1, B]
    auto h = torch::zeros({seq.size(1), embed->options.embedding_dim()});
    auto loss = torch::zeros({});
    for (int64_t t = 0; t + 1 < seq.size(0); ++t) {
      h = cell(embed(seq[t]), h);
      loss = loss + torch::cross_entropy_loss(h.matmul(embed->weight.t()), seq[t + 1]);
    }
    return loss;
  }
  torch::nn::Embedding embed{nullptr};
  torch::nn::GRUCell cell{nullptr};
};
TORCH_MODULE(TiedDecoder);

int main() {
  torch::manual_seed(11);
  TiedDecoder lm(20, 8);
  torch::optim::Adam opt(lm->parameters(), 1e-3);
  auto seq = torch::randint(20, {7, 4});
  opt.zero_grad();
  auto loss = lm(seq);
  try {
    loss.backward();
    opt.step();
    std::printf("loss %.4f, backward succeeded\n", loss.item<float>());
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
