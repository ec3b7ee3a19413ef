// CASE: a contrastive (hardest-negative) loss masks each anchor's distance to
//       itself through the flat-stride diagonal view
//       d2.view({-1}).slice(0, 0, n * n, n + 1).fill_(...) and only then takes
//       clamp_min(...).sqrt()
// SOURCE: the kind of code in libtorch metric-learning ports (numpy's
//         flat[::n+1] diagonal idiom on a distance matrix)
// KIND: near-miss
// WHY-OK: the diagonal is written on the squared distances, an add/sub result
//         that no backward function has saved yet; clamp_min and sqrt save
//         their tensors after the write
#include <torch/torch.h>

#include <iostream>

namespace metric {

torch::Tensor squared_dist(const torch::Tensor& e) {
  auto sq = e.pow(2).sum(1);
  return sq.unsqueeze(1) + sq.unsqueeze(0) - 2 * e.mm(e.t());
}

torch::Tensor hardest_negative_loss(const torch::Tensor& emb, const torch::Tensor& labels, double margin) {
  const int64_t n = emb.size(0);
  auto d2 = squared_dist(emb);
  d2.view({-1}).slice(0, 0, n * n, n + 1).fill_(1e8);
  auto dist = d2.clamp_min(1e-12).sqrt();
  auto same = labels.unsqueeze(0) == labels.unsqueeze(1);
  auto pos = dist.masked_fill(~same | (dist > 1e3), 0.0).sum(1) / (same.sum(1) - 1).clamp_min(1);
  auto neg = dist.masked_fill(same, 1e4).amin(1);
  return torch::relu(pos - neg + margin).mean();
}

}  // namespace metric

int main() {
  torch::manual_seed(0);
  torch::nn::Linear embed(10, 4);
  auto x = torch::randn({8, 10});
  auto labels = torch::tensor({0, 0, 1, 1, 2, 2, 3, 3});

  // Reference: the same loss with the diagonal masked out of place.
  auto w = embed->weight.detach().clone().requires_grad_(true);
  auto e = torch::addmm(embed->bias.detach(), x, w.t());
  auto d2 = metric::squared_dist(e).masked_fill(torch::eye(8, torch::kBool), 1e8);
  auto dist = d2.clamp_min(1e-12).sqrt();
  auto same = labels.unsqueeze(0) == labels.unsqueeze(1);
  auto pos = dist.masked_fill(~same | (dist > 1e3), 0.0).sum(1) / (same.sum(1) - 1).clamp_min(1);
  auto neg = dist.masked_fill(same, 1e4).amin(1);
  auto g_ref = torch::autograd::grad({torch::relu(pos - neg + 1.0).mean()}, {w})[0];

  auto loss = metric::hardest_negative_loss(embed(x), labels, 1.0);
  try {
    loss.backward();
    auto g = embed->weight.grad();
    if (!torch::allclose(g, g_ref, 1e-4, 1e-5))
      std::cout << "HARM: gradient differs from the out-of-place mask by "
                << (g - g_ref).abs().max().item<float>() << "\n";
    else
      std::cout << "loss " << loss.item<float>() << ", grad norm " << g.norm().item<float>() << "\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: backward failed: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
