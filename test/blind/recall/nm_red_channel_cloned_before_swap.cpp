// CASE: the image pipeline copies the red channel with clone() before the
//       in-place BGR-to-RGB swap and uses the copy afterwards
// SOURCE: https://applied-material-modeling.github.io/neml2/tutorials-tensors-tensor-view.html
//         (declare ownership with a copy when the base will change)
// KIND: near-miss
// WHY-OK: `red` owns its storage, so the swap cannot change it
#include <torch/torch.h>

#include <cstdio>

static void bgr_to_rgb_inplace(torch::Tensor& img) {
  auto tmp = img.select(2, 0).clone();
  img.select(2, 0).copy_(img.select(2, 2));
  img.select(2, 2).copy_(tmp);
}

int main() {
  auto img = torch::empty({4, 4, 3});
  img.select(2, 0).fill_(200.0);
  img.select(2, 1).fill_(50.0);
  img.select(2, 2).fill_(10.0);

  auto red = img.select(2, 2).clone();
  bgr_to_rgb_inplace(img);
  auto red_mask = red > 100.0;
  std::printf("red mean %.1f, rgb red channel mean %.1f\n", red.mean().item<float>(),
              img.select(2, 0).mean().item<float>());
  if (red_mask.any().item<bool>()) std::printf("HARM: the red mask fires on a blue image\n");
  return 0;
}
