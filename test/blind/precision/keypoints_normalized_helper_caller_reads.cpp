// CASE: a pose-estimation pipeline's `normalized_keypoints(kpts, w, h)`
//       looks like a pure function (it returns a tensor and takes `kpts` by
//       value) but divides the x and y columns of its argument in place
//       through select(-1, k) views; the caller feeds the result to the
//       pose classifier and then draws the original pixel keypoints
// SOURCE: the kind of code in libtorch ports of OpenPose / MediaPipe-style
//         keypoint post-processing (a by-value at::Tensor parameter is the
//         caller's tensor, not a copy)
// KIND: bug
// HARM: the overlay is drawn with coordinates in [0, 1] instead of pixels,
//       so every skeleton collapses into the top-left corner
#include <torch/torch.h>
#include <iostream>

torch::Tensor normalized_keypoints(torch::Tensor kpts, int64_t width, int64_t height) {
  kpts.select(-1, 0).div_(width); // BUG(libtorch-inplace-on-view)
  kpts.select(-1, 1).div_(height); // BUG(libtorch-inplace-on-view)
  return kpts;
}

torch::Tensor classify_pose(const torch::Tensor& unit_kpts) {
  // Stand-in for a small MLP: mean keypoint height decides "standing".
  return (unit_kpts.select(-1, 1).mean(-1) < 0.6).to(torch::kLong);
}

void draw_skeleton(const torch::Tensor& pixel_kpts, int64_t width, int64_t height) {
  auto xs = pixel_kpts.select(-1, 0), ys = pixel_kpts.select(-1, 1);
  std::cout << "drawing " << pixel_kpts.size(0) << " joints, x range [" << xs.min().item<float>()
            << ", " << xs.max().item<float>() << "] on a " << width << "x" << height << " frame\n";
  if (xs.max().item<float>() <= 1.0f && ys.max().item<float>() <= 1.0f)
    std::cout << "HARM: the pixel keypoints were normalised in place; the overlay "
                 "lands in the top-left pixel\n";
}

int main() {
  const int64_t W = 640, H = 480;
  auto keypoints = torch::tensor({{320.f, 100.f, 0.9f},   // head
                                  {300.f, 200.f, 0.8f},   // shoulder
                                  {340.f, 400.f, 0.7f}});  // ankle (x, y, conf)
  auto label = classify_pose(normalized_keypoints(keypoints, W, H)); // BUG(libtorch-inplace-on-view)
  std::cout << "pose label: " << label.item<int64_t>() << "\n";
  draw_skeleton(keypoints, W, H);
  return 0;
}
