#include "example.h"

#include <iostream>

float train_step(TinyNet &net, const torch::Tensor &batch) {
  auto probs = torch::softmax(net->fc->forward(batch), 1);
  // Bug: meant to keep the log away from zero, but clamps, behind autograd's
  // back, the probabilities softmax saved for backward: the gradients are
  // silently wrong.
  probs.data().clamp_(1e-6, 1);
  auto loss = -probs.log().mean();
  loss.backward();
  return loss.item<float>();
}

// PyTorch rejects some of these bugs when it can see them (model.cpp's
// expanded write throws); the example reports that and goes on, so that
// every site runs.
template <class Step> void run(const char *name, Step step) {
  try {
    step();
  } catch (const c10::Error &e) {
    std::string what = e.what();
    std::cout << name << ": PyTorch rejected it: " << what.substr(0, what.find('\n')) << "\n";
  }
}

// `train transposed` hands augment() a batch whose last two dimensions are
// transposed: reshape() then has to copy instead of returning a view
// (scripts/demo-instrument.sh runs both layouts).
int main(int argc, char **argv) {
  torch::manual_seed(0);
  TinyNet net;
  const bool transposed = argc > 1 && std::string(argv[1]) == "transposed";
  auto images = transposed ? torch::rand({4, 4, 2}).transpose(1, 2) : torch::rand({4, 2, 4});
  auto batch = normalize_batch(augment(images)).reshape({4, 8});
  run("first_row_spread", [&] { std::cout << net->first_row_spread() << "\n"; });
  run("forward", [&] { std::cout << net->forward(batch).sum().item<float>() << "\n"; });
  run("train_step", [&] { std::cout << train_step(net, batch) << "\n"; });
  auto history = torch::zeros({4, 3, 8});
  run("roll_history", [&] {
    roll_history(history, batch);
    std::cout << history.sum().item<float>() << "\n";
  });
  run("train_language_model", [&] { std::cout << train_language_model() << "\n"; });
  run("prepare_batch", [&] { std::cout << prepare_batch(4).sum().item<float>() << "\n"; });
  run("scaled_pixel_sum", [&] { std::cout << scaled_pixel_sum(2) << "\n"; });
  run("decode_frame", [&] {
    // Both frames wrap freed memory; only their shapes are safe to print.
    auto first = decode_frame();
    auto second = decode_frame();
    std::cout << first.sizes() << " " << second.sizes() << "\n";
  });
  return 0;
}
