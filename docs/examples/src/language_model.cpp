// A tiny language model whose output projection is tied to its embedding, as
// in Press & Wolf (2017). In C++ the tie registers the embedding's weight a
// second time, parameters() returns it twice, and the optimizer steps it
// twice: libtorch-shared-parameter-update reports the optimizer.
#include "example.h"

struct TiedLanguageModelImpl : torch::nn::Module {
  TiedLanguageModelImpl(int64_t vocab, int64_t dim) {
    embedding = register_module("embedding", torch::nn::Embedding(vocab, dim));
    decoder_weight = register_parameter("decoder_weight", embedding->weight);
  }
  torch::Tensor forward(const torch::Tensor &tokens) {
    return torch::matmul(embedding(tokens), decoder_weight.t());
  }
  torch::nn::Embedding embedding{nullptr};
  torch::Tensor decoder_weight;
};
TORCH_MODULE(TiedLanguageModel);

float train_language_model() {
  TiedLanguageModel model(16, 4);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  auto tokens = torch::arange(8) % 16;
  auto logits = model->forward(tokens);
  auto loss = torch::nn::functional::cross_entropy(logits, tokens);
  optimizer.zero_grad();
  loss.backward();
  optimizer.step();
  return loss.item<float>();
}
