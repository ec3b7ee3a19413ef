// CASE: a ShuffleNetV2-style unit concatenates its two branches, shuffles
//       channels with view/transpose, rebinds the local to the contiguous()
//       result, then scales the first half of the channels in place through
//       narrow(); the caller reads both branch tensors afterwards
// SOURCE: the kind of code in torchvision/models/shufflenetv2.py
//         (channel_shuffle: view -> transpose -> contiguous -> view) as ported
//         to libtorch C++ model zoos, with an SE-style gate on one half
// KIND: near-miss
// WHY-OK: `x` starts as the fresh result of torch::cat; transpose/contiguous/
//         view only ever give views or copies of that local buffer, so the
//         in-place mul_ cannot reach `left`, `right` or any caller tensor
#include <torch/torch.h>
#include <iostream>

torch::Tensor shuffle_channels(torch::Tensor x, int64_t groups) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  x = x.view({n, groups, c / groups, h, w}).transpose(1, 2);
  x = x.contiguous();
  return x.view({n, c, h, w});
}

torch::Tensor shuffle_unit(const torch::Tensor& left, const torch::Tensor& right,
                           const torch::Tensor& gate) {
  torch::Tensor x = torch::cat({left, right}, 1);
  x = shuffle_channels(x, 2);
  x = x.contiguous();
  const int64_t half = x.size(1) / 2;
  x.narrow(1, 0, half).mul_(gate.sigmoid().view({1, half, 1, 1}));
  return x;
}

int main() {
  torch::manual_seed(0);
  auto left = torch::randn({2, 4, 5, 5});
  auto right = torch::randn({2, 4, 5, 5});
  auto gate = torch::zeros({4});  // sigmoid(0) = 0.5
  auto left_before = left.clone(), right_before = right.clone();
  auto y = shuffle_unit(left, right, gate);
  // After the shuffle channel 0 is left[0], channel 1 is right[0]; both halved.
  std::cout << "y " << y.sizes() << " ch0 ok: " << std::boolalpha
            << torch::allclose(y.select(1, 0), left.select(1, 0) * 0.5)
            << " ch1 ok: " << torch::allclose(y.select(1, 1), right.select(1, 0) * 0.5) << "\n";
  std::cout << "branches untouched: " << (left.equal(left_before) && right.equal(right_before))
            << "\n";
  return 0;
}
