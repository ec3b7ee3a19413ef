// CASE: a question-answering retrieval head takes an optional query
//       projection and falls back to the encoder's own output projection
//       with value_or(); the model trains with Adam over parameters()
// SOURCE: the kind of code from dual-encoder retrieval heads where the query
//         side reuses the encoder projection by default; mlverse/torch#305
// KIND: near-miss
// WHY-OK: the fallback holder is kept as a plain member and registered only
//         when the caller supplied a separate projection, so parameters()
//         lists the shared Linear once
#include <torch/torch.h>

#include <iostream>
#include <optional>

struct PassageEncoderImpl : torch::nn::Module {
  PassageEncoderImpl(int64_t vocab, int64_t dim)
      : tok(register_module("tok", torch::nn::EmbeddingBag(
            torch::nn::EmbeddingBagOptions(vocab, dim).mode(torch::kSum)))),
        out_proj(register_module("out_proj", torch::nn::Linear(dim, dim))) {}
  torch::Tensor forward(const torch::Tensor& tokens) { return out_proj(torch::gelu(tok(tokens))); }
  torch::nn::EmbeddingBag tok;
  torch::nn::Linear out_proj;
};
TORCH_MODULE(PassageEncoder);

struct QAHeadImpl : torch::nn::Module {
  QAHeadImpl(PassageEncoder encoder, std::optional<torch::nn::Linear> query_proj)
      : enc(register_module("enc", encoder)), qproj(query_proj.value_or(encoder->out_proj)) {
    if (query_proj) register_module("qproj", qproj);
  }
  torch::Tensor score(const torch::Tensor& questions, const torch::Tensor& passages) {
    return qproj(enc->forward(questions)).mm(enc->forward(passages).t());
  }
  PassageEncoder enc;
  torch::nn::Linear qproj;
};
TORCH_MODULE(QAHead);

int main() {
  torch::manual_seed(79);
  const int64_t vocab = 400, dim = 20, batch = 12, len = 9;
  QAHead model(PassageEncoder(vocab, dim), std::nullopt);
  const double lr = 1e-2;
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr).amsgrad(true));

  auto questions = torch::randint(vocab, {batch, len}, torch::kLong);
  auto passages = torch::randint(vocab, {batch, len}, torch::kLong);
  auto before = model->enc->out_proj->weight.detach().clone();
  auto loss = torch::nn::functional::cross_entropy(model->score(questions, passages), torch::arange(batch));
  opt.zero_grad();
  loss.backward();
  opt.step();

  auto step = (model->enc->out_proj->weight.detach() - before).abs().max().item<double>();
  std::cout << "parameters listed: " << model->parameters().size()
            << ", largest first-step change of out_proj " << step << " (lr " << lr << ")\n";
  return 0;
}
