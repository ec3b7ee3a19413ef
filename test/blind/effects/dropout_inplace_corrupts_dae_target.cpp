// CASE: a denoising autoencoder corrupts its input with an in-place Dropout
//       module and then uses the same input tensor as the reconstruction
//       target
// SOURCE: the kind of code in denoising-autoencoder examples where an
//         in-place dropout is the corruption step; compare
//         https://github.com/intel/ipex-llm/issues/1896 ("if inplace change is
//         used as the first layer, user's direct input will be changed")
// KIND: bug
// HARM: the target is the corrupted input: a quarter of its entries are 0 and
//       the rest are scaled by 1/(1-p)
#include <torch/torch.h>

#include <cstdio>

struct DAEImpl : torch::nn::Module {
  DAEImpl() {
    corrupt = register_module("corrupt", torch::nn::Dropout(torch::nn::DropoutOptions(0.25).inplace(true)));
    enc = register_module("enc", torch::nn::Linear(20, 8));
    dec = register_module("dec", torch::nn::Linear(8, 20));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto noisy = corrupt(x);  // BUG(libtorch-inplace-on-view)
    return dec(torch::relu(enc(noisy)));
  }
  torch::nn::Dropout corrupt{nullptr};
  torch::nn::Linear enc{nullptr}, dec{nullptr};
};
TORCH_MODULE(DAE);

int main() {
  torch::manual_seed(17);
  DAE dae;
  dae->train();
  torch::optim::Adam opt(dae->parameters(), 1e-3);
  auto batch = torch::rand({64, 20}) + 0.5;  // all entries in [0.5, 1.5)
  const auto clean_sum = batch.sum().item<double>();
  opt.zero_grad();
  auto recon = dae(batch);
  auto loss = torch::mse_loss(recon, batch);  // BUG(libtorch-inplace-on-view)
  loss.backward();
  opt.step();
  const double zero_frac = (batch == 0).to(torch::kFloat).mean().item<double>();
  std::printf("target zero fraction %.3f, target sum %.2f (clean %.2f)\n", zero_frac,
              batch.sum().item<double>(), clean_sum);
  if (zero_frac > 0)
    std::printf("HARM: the reconstruction target was corrupted in place (%.1f%% zeros)\n",
                100 * zero_frac);
  return 0;
}
