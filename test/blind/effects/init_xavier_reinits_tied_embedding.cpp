// CASE: a language model ties its output projection to the embedding with
//       register_parameter("out_weight", embed->weight); the fine-tuning
//       script loads pretrained word vectors into the embedding and then runs
//       an init_weights() pass that skips "embed.*" but xavier-initialises
//       every other matrix
// SOURCE: the ordering of weight tying, loading and init_weights in
//         huggingface/transformers (https://github.com/huggingface/transformers/pull/9719);
//         a tied head is the embedding, so initialising it initialises both
// KIND: bug
// HARM: the pretrained embedding rows are overwritten by the xavier draw meant
//       for the output projection
#include <torch/torch.h>

#include <cstdio>
#include <string>

struct LMImpl : torch::nn::Module {
  LMImpl(int64_t vocab, int64_t dim) {
    embed = register_module("embed", torch::nn::Embedding(vocab, dim));
    body = register_module("body", torch::nn::Linear(dim, dim));
    out_weight = register_parameter("out_weight", embed->weight);  // BUG(libtorch-inplace-on-view)
    out_bias = register_parameter("out_bias", torch::zeros({vocab}));
  }
  torch::Tensor forward(const torch::Tensor& tok) {
    return torch::linear(torch::tanh(body(embed(tok))), out_weight, out_bias);
  }
  torch::nn::Embedding embed{nullptr};
  torch::nn::Linear body{nullptr};
  torch::Tensor out_weight, out_bias;
};
TORCH_MODULE(LM);

static void init_weights(LM& lm) {
  torch::NoGradGuard no_grad;
  for (auto& kv : lm->named_parameters()) {
    if (kv.key().rfind("embed.", 0) == 0) continue;  // word vectors are loaded, not drawn
    if (kv.value().dim() == 2)
      torch::nn::init::xavier_uniform_(kv.value());  // BUG(libtorch-inplace-on-view)
    else
      torch::nn::init::zeros_(kv.value());
  }
}

int main() {
  torch::manual_seed(15);
  const int64_t vocab = 30, dim = 12;
  auto pretrained = torch::randn({vocab, dim});  // stands in for word2vec vectors
  LM lm(vocab, dim);
  {
    torch::NoGradGuard no_grad;
    lm->embed->weight.copy_(pretrained);
  }
  init_weights(lm);
  const double err = (lm->embed->weight.detach() - pretrained).abs().max().item<double>();
  std::printf("embedding vs pretrained: max error %.4f\n", err);
  if (err > 0) std::printf("HARM: init_weights overwrote the pretrained embedding (max error %.4f)\n", err);
  return 0;
}
