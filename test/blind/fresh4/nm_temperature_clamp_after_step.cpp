// CASE: a CLIP-style contrastive trainer divides the similarity matrix by a
//       learnable temperature and keeps it in range with a helper that
//       clamps it through .data(); the helper runs after backward and the
//       optimizer step, as in the reference training loops
// SOURCE: https://github.com/openai/CLIP/issues/46 (clipping the learned
//         temperature); libtorch ports of contrastive trainers
// KIND: near-miss
// WHY-OK: the clamp happens after the backward that needed the saved
//         temperature, and the next forward builds a fresh graph
#include <torch/torch.h>

#include <iostream>

namespace F = torch::nn::functional;

struct ContrastiveHeadImpl : torch::nn::Module {
  explicit ContrastiveHeadImpl(double init_temperature) {
    temperature = register_parameter("temperature", torch::full({1}, init_temperature));
  }
  torch::Tensor forward(const torch::Tensor& a, const torch::Tensor& b) {
    auto sim = F::normalize(a, F::NormalizeFuncOptions().dim(1))
                   .mm(F::normalize(b, F::NormalizeFuncOptions().dim(1)).t());
    return sim / temperature;
  }
  torch::Tensor temperature;
};
TORCH_MODULE(ContrastiveHead);

void clamp_temperature(ContrastiveHead& head, double lo, double hi) {
  head->temperature.data().clamp_(lo, hi);
}

torch::Tensor clip_loss(const torch::Tensor& logits) {
  auto targets = torch::arange(logits.size(0));
  return 0.5 * (torch::cross_entropy_loss(logits, targets) + torch::cross_entropy_loss(logits.t(), targets));
}

int main() {
  torch::manual_seed(0);
  ContrastiveHead head(0.07);
  torch::nn::Linear image_proj(8, 8);
  std::vector<torch::Tensor> params = image_proj->parameters();
  params.push_back(head->temperature);
  torch::optim::SGD optimizer(params, 1e-4);

  auto images = torch::randn({6, 8});
  auto texts = torch::randn({6, 8});

  for (int step = 0; step < 2; ++step) {
    // what backward should produce for this forward
    auto w_ref = image_proj->weight.detach().clone().requires_grad_(true);
    const double t = head->temperature.item<double>();
    auto ref_sim = F::normalize(torch::linear(images, w_ref, image_proj->bias.detach()),
                                F::NormalizeFuncOptions().dim(1))
                       .mm(F::normalize(texts, F::NormalizeFuncOptions().dim(1)).t());
    clip_loss(ref_sim / t).backward();

    optimizer.zero_grad();
    auto loss = clip_loss(head->forward(image_proj->forward(images), texts));
    loss.backward();
    const double error = (image_proj->weight.grad() - w_ref.grad()).abs().max().item<double>();
    optimizer.step();
    clamp_temperature(head, 0.01, 1.0);

    std::cout << "step " << step << " loss " << loss.item<double>() << ", temperature now "
              << head->temperature.item<double>() << ", gradient error " << error << "\n";
    if (error > 1e-5) std::cout << "HARM: gradient off by " << error << "\n";
  }
  return 0;
}
