// CASE: GAN loop that builds both losses up front, steps the discriminator,
//       then runs the generator loss's backward through the discriminator
//       that was just stepped
// SOURCE: the GAN training loops that broke with PyTorch 1.5 ("one of the
//         variables needed for gradient computation has been modified by an
//         inplace operation" after optimizerD.step(); PyTorch GitHub issues
//         and discuss.pytorch.org threads from May 2020)
// KIND: bug
// HARM: the generator's backward throws "modified by an inplace operation":
//       optD.step() changed D's weights that g_loss's graph saved
#include <torch/torch.h>

#include <iostream>
#include <string>

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential G(torch::nn::Linear(2, 16), torch::nn::ReLU(),
                          torch::nn::Linear(16, 2));
  torch::nn::Sequential D(torch::nn::Linear(2, 16),
                          torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
                          torch::nn::Linear(16, 1));
  torch::optim::Adam optG(G->parameters(), torch::optim::AdamOptions(2e-4));
  torch::optim::Adam optD(D->parameters(), torch::optim::AdamOptions(2e-4));
  namespace F = torch::nn::functional;

  try {
    for (int it = 0; it < 3; ++it) {
      auto real = torch::randn({32, 2}) * 0.5 + 1.0;
      auto z = torch::randn({32, 2});
      auto ones = torch::ones({32, 1});
      auto zeros = torch::zeros({32, 1});

      auto fake = G->forward(z);
      auto d_loss = F::binary_cross_entropy_with_logits(D->forward(real), ones) +
                    F::binary_cross_entropy_with_logits(D->forward(fake.detach()), zeros);
      auto g_loss = F::binary_cross_entropy_with_logits(D->forward(fake), ones);  // BUG(libtorch-detached-write)

      optD.zero_grad();
      d_loss.backward();
      optD.step();  // BUG(libtorch-detached-write)

      optG.zero_grad();
      g_loss.backward();  // BUG(libtorch-detached-write)
      optG.step();
    }
    std::cout << "GAN ran\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::cout << "HARM: generator backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
