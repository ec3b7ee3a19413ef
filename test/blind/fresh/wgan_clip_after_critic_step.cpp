// CASE: WGAN loop in the usual order: critic loss on detached fakes,
//       backward, step, then weight clipping through .data(); the generator
//       loss is built afterwards through the clipped critic
// SOURCE: the training loop of github.com/martinarjovsky/WassersteinGAN
//         (main.py) and its C++ ports
// KIND: near-miss
// WHY-OK: the clip runs after the critic's backward and step, and the
//         generator's loss is a fresh forward through the clipped critic, so
//         no pending backward saved the clipped weights
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential G(torch::nn::Linear(2, 16), torch::nn::ReLU(),
                          torch::nn::Linear(16, 2));
  torch::nn::Sequential D(torch::nn::Linear(2, 16),
                          torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
                          torch::nn::Linear(16, 1));
  torch::optim::RMSprop optG(G->parameters(), torch::optim::RMSpropOptions(5e-5));
  torch::optim::RMSprop optD(D->parameters(), torch::optim::RMSpropOptions(5e-5));
  const double clip = 0.01;

  double worst = 0.0;
  for (int it = 0; it < 5; ++it) {
    auto real = torch::randn({32, 2}) * 0.5 + 1.0;
    auto z = torch::randn({32, 2});
    auto fake = G->forward(z);

    auto d_loss = D->forward(fake.detach()).mean() - D->forward(real).mean();
    optD.zero_grad();
    d_loss.backward();
    optD.step();
    for (auto& p : D->parameters()) p.data().clamp_(-clip, clip);

    auto g_loss = -D->forward(fake).mean();
    optG.zero_grad();
    g_loss.backward();

    // Check: the generator gradient equals one from a fresh graph.
    auto w = G->parameters()[0];
    auto ref = torch::autograd::grad({-D->forward(G->forward(z)).mean()}, {w})[0];
    worst = std::max(worst, (w.grad() - ref).abs().max().item<double>());
    optG.step();
  }
  std::cout << (worst < 1e-6 ? "ok: " : "MISMATCH: ")
            << "generator gradients consistent (max diff " << worst << ")\n";
  return 0;
}
