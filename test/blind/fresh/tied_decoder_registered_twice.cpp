// CASE: a tied-weight autoencoder that registers the encoder's weight a
//       second time as the decoder's parameter, then hands
//       model->parameters() to SGD
// SOURCE: the kind of code in tied-weight autoencoders and language models
//         (decoder weight = encoder/embedding weight) ported to libtorch,
//         where Module::parameters() lists both names
// KIND: bug
// HARM: the optimizer holds the shared weight twice and steps it twice per
//       step: the update is twice what SGD should apply
#include <torch/torch.h>

#include <iostream>

struct TiedAutoencoderImpl : torch::nn::Module {
  TiedAutoencoderImpl(int64_t in, int64_t code) {
    enc = register_module("enc", torch::nn::Linear(in, code));
    dec_w = register_parameter("dec_w", enc->weight);  // BUG(libtorch-shared-parameter-update)
    dec_b = register_parameter("dec_b", torch::zeros({in}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto h = torch::tanh(enc->forward(x));
    return torch::nn::functional::linear(h, dec_w.t(), dec_b);
  }
  torch::nn::Linear enc{nullptr};
  torch::Tensor dec_w, dec_b;
};
TORCH_MODULE(TiedAutoencoder);

int main() {
  torch::manual_seed(0);
  const double lr = 0.1;
  TiedAutoencoder model(8, 3);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(lr));  // BUG(libtorch-shared-parameter-update)
  auto x = torch::randn({32, 8});

  opt.zero_grad();
  auto loss = torch::mse_loss(model(x), x);
  loss.backward();
  auto before = model->enc->weight.detach().clone();
  auto grad = model->enc->weight.grad().clone();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  auto applied = model->enc->weight.detach() - before;
  auto expected = -lr * grad;
  double ratio = applied.norm().item<double>() / expected.norm().item<double>();
  if (std::abs(ratio - 1.0) > 1e-3) {
    std::cout << "HARM: the tied weight moved " << ratio
              << "x the SGD update (stepped once per registered name)\n";
  } else {
    std::cout << "tied weight stepped once\n";
  }
  return 0;
}
