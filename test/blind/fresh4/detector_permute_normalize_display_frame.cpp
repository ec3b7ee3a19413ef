// CASE: a video detector keeps each captured frame (HWC, 0..255 floats) in
//       a struct that the annotator later draws boxes on; preprocessing turns
//       it into the model's CHW layout with permute() and normalises that
//       view in place, which rewrites the frame the annotator shows
// SOURCE: libtorch/OpenCV detection pipelines (from_blob over the frame,
//         permute({2, 0, 1}), normalise), e.g.
//         https://www.codetd.com/article/14503799 and
//         https://e-com-net.com/article/1595368947857858560.htm
// KIND: bug
// HARM: the displayed frame holds normalised values instead of pixels
#include <torch/torch.h>

#include <iostream>

struct Frame {
  int64_t timestamp;
  torch::Tensor pixels;  // H x W x 3, RGB in [0, 255]
};

torch::Tensor preprocess(Frame& frame, const torch::Tensor& mean, const torch::Tensor& stddev) {
  auto chw = frame.pixels.permute({2, 0, 1});  // BUG(libtorch-inplace-on-view)
  chw.div_(255.0).sub_(mean).div_(stddev);  // BUG(libtorch-inplace-on-view)
  return chw.unsqueeze(0);
}

std::vector<float> annotate(const Frame& frame, int64_t y, int64_t x) {
  // read the pixel under the box corner to pick a contrasting outline colour
  auto px = frame.pixels[y][x];
  return {px[0].item<float>(), px[1].item<float>(), px[2].item<float>()};
}

int main() {
  torch::manual_seed(0);
  const int64_t h = 24, w = 32;
  Frame frame{1000, torch::randint(0, 256, {h, w, 3}).to(torch::kFloat)};
  const float captured = frame.pixels[5][7][0].item<float>();

  auto mean = torch::tensor({0.485f, 0.456f, 0.406f}).view({3, 1, 1});
  auto stddev = torch::tensor({0.229f, 0.224f, 0.225f}).view({3, 1, 1});
  torch::nn::Conv2d detector(torch::nn::Conv2dOptions(3, 4, 3).padding(1));
  auto input = preprocess(frame, mean, stddev);
  auto scores = detector->forward(input).amax({2, 3});

  auto colour = annotate(frame, 5, 7);
  std::cout << "scores " << scores.sizes() << ", pixel (5,7) red captured " << captured << ", at annotation "
            << colour[0] << "\n";
  if (colour[0] != captured)
    std::cout << "HARM: the annotator draws on a frame whose pixel (5,7) is " << colour[0]
              << " instead of " << captured << "\n";
  return 0;
}
