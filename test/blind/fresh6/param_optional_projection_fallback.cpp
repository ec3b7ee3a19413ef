// CASE: a sentence-retrieval head takes an optional query projection and,
//       when none is given, falls back to the encoder's own output
//       projection with value_or(); the holder it registers shares the
//       encoder's module, so parameters() lists that Linear twice under Adam
// SOURCE: the kind of code from dual-encoder retrieval heads where the query
//         side "reuses the encoder projection by default";
//         mlverse/torch#305 (a module assigned to two fields is listed twice)
// KIND: bug
// HARM: Adam moves the shared projection by two learning rates per element
//       on the first step instead of one
#include <torch/torch.h>

#include <iostream>
#include <optional>

struct EncoderImpl : torch::nn::Module {
  EncoderImpl(int64_t vocab, int64_t dim)
      : tok(register_module("tok", torch::nn::EmbeddingBag(
            torch::nn::EmbeddingBagOptions(vocab, dim).mode(torch::kMean)))),
        out_proj(register_module("out_proj", torch::nn::Linear(dim, dim))) {}
  torch::Tensor forward(const torch::Tensor& tokens) { return out_proj(torch::tanh(tok(tokens))); }
  torch::nn::EmbeddingBag tok;
  torch::nn::Linear out_proj;
};
TORCH_MODULE(Encoder);

struct RetrievalHeadImpl : torch::nn::Module {
  RetrievalHeadImpl(Encoder encoder, std::optional<torch::nn::Linear> query_proj)
      : enc(register_module("enc", encoder)),
        qproj(register_module("qproj", query_proj.value_or(encoder->out_proj))) {}  // BUG(libtorch-shared-parameter-update)
  torch::Tensor score(const torch::Tensor& queries, const torch::Tensor& docs) {
    auto q = qproj(enc->forward(queries));
    auto d = enc->forward(docs);
    return q.mm(d.t());
  }
  Encoder enc;
  torch::nn::Linear qproj;
};
TORCH_MODULE(RetrievalHead);

int main() {
  torch::manual_seed(29);
  const int64_t vocab = 500, dim = 24, batch = 16, len = 7;
  RetrievalHead model(Encoder(vocab, dim), std::nullopt);
  const double lr = 1e-2;
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr).amsgrad(true));  // BUG(libtorch-shared-parameter-update)

  auto queries = torch::randint(vocab, {batch, len}, torch::kLong);
  auto docs = torch::randint(vocab, {batch, len}, torch::kLong);
  auto before = model->enc->out_proj->weight.detach().clone();

  auto logits = model->score(queries, docs);
  auto loss = torch::nn::functional::cross_entropy(logits, torch::arange(batch));
  opt.zero_grad();
  loss.backward();
  opt.step();                                                     // BUG(libtorch-shared-parameter-update)

  auto step = (model->enc->out_proj->weight.detach() - before).abs().max().item<double>();
  std::cout << "parameters listed: " << model->parameters().size()
            << ", largest first-step change of out_proj " << step << " (lr " << lr << ")\n";
  if (step > 1.5 * lr)
    std::cout << "HARM: Adam's first step moved the shared projection by " << step
              << ", " << step / lr << " learning rates\n";
  return 0;
}
