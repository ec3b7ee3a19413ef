// CASE: a seq2seq model with a joint source/target vocabulary registers one
//       Embedding in both its encoder and its decoder; Adam is built from
//       model->parameters(), which lists the embedding table twice
// SOURCE: shared source/target embeddings as in OpenNMT's
//       --share_embeddings (https://github.com/OpenNMT/OpenNMT-tf/issues/462),
//       ported to libtorch modules; duplicate parameters in an optimizer:
//       https://github.com/pytorch/pytorch/issues/40967
// KIND: bug
// HARM: the shared embedding table moves twice as far per step as Adam's
//       learning rate allows
#include <torch/torch.h>

#include <iostream>
#include <unordered_set>

namespace {

constexpr int64_t kVocab = 12;
constexpr int64_t kDim = 6;

struct EncoderImpl : torch::nn::Module {
  explicit EncoderImpl(torch::nn::Embedding shared) {
    embed = register_module("embed", shared);  // BUG(libtorch-shared-parameter-update)
    rnn = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(kDim, kDim)));
  }
  torch::Tensor forward(const torch::Tensor& src) {
    auto out = rnn->forward(embed->forward(src).transpose(0, 1));
    return std::get<1>(out);  // [1, B, D]
  }
  torch::nn::Embedding embed{nullptr};
  torch::nn::GRU rnn{nullptr};
};
TORCH_MODULE(Encoder);

struct DecoderImpl : torch::nn::Module {
  explicit DecoderImpl(torch::nn::Embedding shared) {
    embed = register_module("embed", shared);  // BUG(libtorch-shared-parameter-update)
    rnn = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(kDim, kDim)));
    out = register_module("out", torch::nn::Linear(kDim, kVocab));
  }
  torch::Tensor forward(const torch::Tensor& tgt, const torch::Tensor& h0) {
    auto y = rnn->forward(embed->forward(tgt).transpose(0, 1), h0);
    return out->forward(std::get<0>(y)).transpose(0, 1);  // [B, T, V]
  }
  torch::nn::Embedding embed{nullptr};
  torch::nn::GRU rnn{nullptr};
  torch::nn::Linear out{nullptr};
};
TORCH_MODULE(Decoder);

struct Seq2SeqImpl : torch::nn::Module {
  Seq2SeqImpl() {
    torch::nn::Embedding shared(kVocab, kDim);
    encoder = register_module("encoder", Encoder(shared));
    decoder = register_module("decoder", Decoder(shared));
  }
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& tgt) {
    return decoder->forward(tgt, encoder->forward(src));
  }
  Encoder encoder{nullptr};
  Decoder decoder{nullptr};
};
TORCH_MODULE(Seq2Seq);

std::vector<torch::Tensor> unique_params(const std::vector<torch::Tensor>& ps) {
  std::unordered_set<const void*> seen;
  std::vector<torch::Tensor> out;
  for (const auto& p : ps)
    if (seen.insert(p.unsafeGetTensorImpl()).second) out.push_back(p);
  return out;
}

torch::Tensor train_step(Seq2Seq& model, torch::optim::Optimizer& opt) {
  auto src = torch::tensor({{1, 4, 5, 2}, {3, 3, 7, 9}});
  auto tgt_in = torch::tensor({{0, 6, 8}, {0, 2, 11}});
  auto tgt_out = torch::tensor({{6, 8, 1}, {2, 11, 1}});
  auto logits = model->forward(src, tgt_in);
  auto loss = torch::nn::functional::cross_entropy(logits.reshape({-1, kVocab}), tgt_out.reshape({-1}));
  opt.zero_grad();
  loss.backward();
  opt.step();  // BUG(libtorch-shared-parameter-update)
  return model->encoder->embed->weight.detach().clone();
}

}  // namespace

int main() {
  torch::manual_seed(3);
  Seq2Seq model;
  torch::manual_seed(3);
  Seq2Seq reference;

  const double lr = 0.01;
  auto before = model->encoder->embed->weight.detach().clone();
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr));  // BUG(libtorch-shared-parameter-update)
  torch::optim::Adam ref_opt(unique_params(reference->parameters()), torch::optim::AdamOptions(lr));

  std::cout << "parameters listed: " << model->parameters().size() << ", distinct: "
            << unique_params(model->parameters()).size() << "\n";
  auto got = train_step(model, opt);
  auto want = train_step(reference, ref_opt);

  auto moved = (got - before).abs().max().item<double>();
  auto ref_moved = (want - before).abs().max().item<double>();
  std::cout << "largest embedding move: " << moved << " (reference " << ref_moved << ", lr " << lr << ")\n";
  if (!torch::allclose(got, want, 1e-5, 1e-7)) {
    std::cout << "HARM: the shared embedding was stepped twice per iteration (moved " << moved
              << " instead of " << ref_moved << ")\n";
  }
  return 0;
}
