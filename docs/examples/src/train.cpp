#include "example.h"

#include <iostream>

float train_step(TinyNet &net, const torch::Tensor &batch) {
  auto probs = torch::softmax(net->forward(batch), 1);
  // Bug: meant to keep the log away from zero, but clamps, behind autograd's
  // back, the probabilities softmax saved for backward: the gradients are
  // silently wrong.
  probs.data().clamp_(1e-6, 1);
  auto loss = -probs.log().mean();
  loss.backward();
  return loss.item<float>();
}

int main() {
  torch::manual_seed(0);
  TinyNet net;
  auto images = torch::rand({4, 8});
  auto batch = normalize_batch(augment(images));
  std::cout << net->first_row_spread() << "\n";
  std::cout << net->forward(batch).sum().item<float>() << "\n";
  std::cout << train_step(net, batch) << "\n";
  auto history = torch::zeros({4, 3, 8});
  roll_history(history, batch);
  std::cout << history.sum().item<float>() << "\n";
  std::cout << train_language_model() << "\n";
  std::cout << prepare_batch(4).sum().item<float>() << "\n";
  std::cout << scaled_pixel_sum(2) << "\n";
  return 0;
}
