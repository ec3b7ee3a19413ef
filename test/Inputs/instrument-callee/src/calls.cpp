// Findings whose written tensor is an argument that a function of this file
// writes in place (test/check/instrument-callee.test; Note [Arguments a
// callee writes]): the call passes more than one tensor, or is a method call.
#include <torch/torch.h>

void sequence_mask(torch::Tensor x, const torch::Tensor &lengths) { x.mul_(lengths); }

struct Utils {
  static void floor_at(torch::Tensor x, const torch::Tensor &lo) { x.add_(lo); }
};

struct Framer {
  torch::Tensor window;
  void taper(torch::Tensor frames) { frames.mul_(window); }
  torch::Tensor prepare(const torch::Tensor &signal) {
    auto frames = signal.narrow(0, 0, 4);
    taper(frames);
    return frames;
  }
};

void masks(const torch::Tensor &X, const torch::Tensor &lengths) {
  sequence_mask(X.reshape({-1}), lengths);
}

void floors(const torch::Tensor &X, const torch::Tensor &lo) {
  Utils::floor_at(X.reshape({-1}), lo);
}

void apply(Framer &framer, const torch::Tensor &signal) {
  auto head = signal.narrow(0, 0, 1);
  framer.taper(head);
}
