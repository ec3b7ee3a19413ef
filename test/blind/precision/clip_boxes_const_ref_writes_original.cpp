// CASE: `clip_boxes_to_image(const at::Tensor& boxes, ...)` is meant to be
//       pure: it clones the boxes, clamps the clone column by column, and
//       reads the original again to report which boxes were clipped; one
//       clamp_ line names `boxes` instead of `clipped`, so it clamps a view of
//       the caller's tensor
// SOURCE: the kind of code in torchvision/csrc and detectron2
//         (Boxes.clip / box_ops.clip_boxes_to_image) ported to a libtorch
//         detector; the const& signature hides the write (in-place methods
//         are const in TensorBody.h)
// KIND: bug
// HARM: the caller's proposals lose their original y2 values, and the
//       returned boxes still reach past the bottom of the image
#include <torch/torch.h>
#include <iostream>
#include <utility>

std::pair<at::Tensor, at::Tensor> clip_boxes_to_image(const at::Tensor& boxes, int64_t height,
                                                      int64_t width) {
  auto clipped = boxes.clone();
  clipped.select(-1, 0).clamp_(0, width);
  clipped.select(-1, 1).clamp_(0, height);
  clipped.select(-1, 2).clamp_(0, width);
  boxes.select(-1, 3).clamp_(0, height); // BUG(libtorch-inplace-on-view)
  auto was_clipped = (clipped != boxes).any(-1);
  return {clipped, was_clipped};
}

int main() {
  auto proposals = torch::tensor({{10.f, 10.f, 50.f, 50.f},
                                  {-5.f, 20.f, 40.f, 60.f},
                                  {30.f, 30.f, 60.f, 140.f}});  // y2 beyond 100
  auto original = proposals.clone();
  auto [clipped, was_clipped] = clip_boxes_to_image(proposals, 100, 80);
  std::cout << "was_clipped: " << was_clipped << "\n";
  if (!proposals.equal(original))
    std::cout << "HARM: the caller's proposals changed: y2 of box 2 is now "
              << proposals[2][3].item<float>() << " (was 140)\n";
  if (clipped[2][3].item<float>() > 100)
    std::cout << "HARM: the returned box 2 still ends at y2 = " << clipped[2][3].item<float>()
              << ", past the image\n";
  return 0;
}
