// CASE: a CLIP-style contrastive trainer divides the similarity matrix by a
//       learnable temperature and keeps the temperature in range with a
//       helper that clamps it through .data(); the helper is called right
//       after the loss is computed and before backward, so the gradients are
//       computed with a temperature the forward never used
// SOURCE: https://github.com/openai/CLIP/issues/46 (clipping the learned
//         temperature); libtorch ports of contrastive image-text / audio-text
//         trainers
// KIND: bug
// HARM: the embedding gradients differ from the gradients of the loss that
//       was computed
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
  head->temperature.data().clamp_(lo, hi);  // BUG(libtorch-detached-write)
}

torch::Tensor clip_loss(const torch::Tensor& logits) {
  auto targets = torch::arange(logits.size(0));
  return 0.5 * (torch::cross_entropy_loss(logits, targets) + torch::cross_entropy_loss(logits.t(), targets));
}

int main() {
  torch::manual_seed(0);
  ContrastiveHead head(0.02);  // restored from a checkpoint that drifted below the floor
  auto image_emb = torch::randn({6, 8}, torch::requires_grad());
  auto text_emb = torch::randn({6, 8});

  // what backward should produce for this forward
  auto reference = image_emb.detach().clone().requires_grad_(true);
  auto ref_sim = F::normalize(reference, F::NormalizeFuncOptions().dim(1))
                     .mm(F::normalize(text_emb, F::NormalizeFuncOptions().dim(1)).t());
  clip_loss(ref_sim / 0.02).backward();

  auto loss = clip_loss(head->forward(image_emb, text_emb));
  clamp_temperature(head, 0.05, 1.0);  // BUG(libtorch-detached-write)
  loss.backward();

  const double error = (image_emb.grad() - reference.grad()).abs().max().item<double>();
  std::cout << "loss " << loss.item<double>() << ", temperature now " << head->temperature.item<double>()
            << ", gradient error " << error << "\n";
  if (error > 1e-5)
    std::cout << "HARM: image embedding gradient is off by " << error
              << ": backward used the clamped temperature, the loss did not\n";
  return 0;
}
