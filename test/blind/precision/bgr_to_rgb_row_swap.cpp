// CASE: an OpenCV-to-libtorch preprocessing step converts a decoded BGR
//       CHW image to RGB by swapping planes 0 and 2 of its own float copy
//       (`tmp = img[0].clone(); img[0].copy_(img[2]); img[2].copy_(tmp);`),
//       then normalises each plane in place with select(0, c)
// SOURCE: the kind of code in libtorch inference demos (OpenCV cv::Mat ->
//         torch::Tensor -> model, e.g. YOLOv5 / ResNet C++ deployment
//         examples) and discuss.pytorch.org threads on BGR->RGB in C++
// KIND: near-miss
// WHY-OK: planes 0 and 2 are different elements of one tensor (constant
//         indices on the same dimension), the temp is cloned, and `img` is
//         this function's own result of a division (a new tensor)
#include <torch/torch.h>
#include <iostream>

torch::Tensor to_model_input(const torch::Tensor& bgr_hwc_u8) {
  auto img = bgr_hwc_u8.permute({2, 0, 1}).to(torch::kFloat) / 255.0;
  auto tmp = img[0].clone();
  img[0].copy_(img[2]);
  img[2].copy_(tmp);
  const float mean[3] = {0.485f, 0.456f, 0.406f};
  const float stdv[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c) img.select(0, c).sub_(mean[c]).div_(stdv[c]);
  return img.unsqueeze(0);
}

int main() {
  // A 2x2 "decoded frame": pure blue in BGR order at every pixel.
  auto frame = torch::zeros({2, 2, 3}, torch::kUInt8);
  frame.select(2, 0).fill_(255);
  auto frame_copy = frame.clone();
  auto x = to_model_input(frame);
  // After the swap, blue must land in the last (B of RGB) plane.
  float b = x[0][2][0][0].item<float>(), r = x[0][0][0][0].item<float>();
  std::cout << "input " << x.sizes() << " R=" << r << " (expected "
            << (0 - 0.485f) / 0.229f << ") B=" << b << " (expected " << (1 - 0.406f) / 0.225f
            << ")\n";
  std::cout << "frame untouched: " << std::boolalpha << frame.equal(frame_copy) << "\n";
  return 0;
}
