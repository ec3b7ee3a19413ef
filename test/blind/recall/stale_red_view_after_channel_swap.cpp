// CASE: an image pipeline keeps `red = img.select(2, 0)` for a red-dominance
//       mask, then converts the HWC image from BGR to RGB in place by
//       swapping channels 0 and 2, and later reads `red` as the red channel
// SOURCE: https://theneuralbase.com/torchvision/learn/beginner/channel-order-rgb-vs-bgr/
//         (BGR/RGB mix-ups silently swap red and blue) and
//         https://applied-material-modeling.github.io/neml2/tutorials-tensors-tensor-view.html
//         ("Who touched my data?": a view reflects later writes to its base)
// KIND: bug
// HARM: the "red" mask is computed from the blue channel
#include <torch/torch.h>

#include <cstdio>

static void bgr_to_rgb_inplace(torch::Tensor& img) {
  auto tmp = img.select(2, 0).clone();
  img.select(2, 0).copy_(img.select(2, 2));  // BUG(libtorch-inplace-on-view)
  img.select(2, 2).copy_(tmp);  // BUG(libtorch-inplace-on-view)
}

int main() {
  // A 4x4 BGR image (as decoded by OpenCV): blue 200, green 50, red 10.
  auto img = torch::empty({4, 4, 3});
  img.select(2, 0).fill_(200.0);
  img.select(2, 1).fill_(50.0);
  img.select(2, 2).fill_(10.0);

  auto red = img.select(2, 2);  // channel 2 is red while the image is BGR  // BUG(libtorch-inplace-on-view)
  const float red_before = red.mean().item<float>();
  bgr_to_rgb_inplace(img);

  auto red_mask = red > 100.0;  // BUG(libtorch-inplace-on-view)
  const float red_after = red.mean().item<float>();
  std::printf("red channel mean: %.1f before conversion, %.1f when used\n", red_before, red_after);
  if (red_mask.any().item<bool>()) {
    std::printf("HARM: the red mask fires on a blue image (\"red\" now reads %.1f)\n", red_after);
  }
  return 0;
}
