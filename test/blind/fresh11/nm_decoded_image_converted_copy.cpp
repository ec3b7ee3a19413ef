// CASE: an image decoder returns a DecodedImage that owns its pixel buffer
//       (std::unique_ptr<uint8_t[]>) and builds its CHW tensor with
//       torch::from_blob(...).permute(...).to(torch::kFloat).div_(255); the
//       batch builder keeps only the tensor while each DecodedImage dies at
//       the end of the loop iteration
// SOURCE: the kind of code in C++ inference servers and data loaders that
//         wrap decoder output with from_blob and normalise it at once
// KIND: near-miss
// WHY-OK: the dtype conversion copies the pixels into a tensor that owns its
//         storage; the from_blob view never leaves decode()
#include <torch/torch.h>
#include <cstdint>
#include <iostream>
#include <memory>
#include <vector>

namespace imgio {

struct DecodedImage {
  int64_t h = 0, w = 0, c = 3;
  std::unique_ptr<uint8_t[]> pixels;  // HWC, owned
  torch::Tensor chw;                  // float CHW in [0, 1]
};

DecodedImage decode(uint8_t value, int64_t h, int64_t w) {
  DecodedImage img;
  img.h = h; img.w = w;
  img.pixels = std::make_unique<uint8_t[]>(h * w * img.c);
  std::fill_n(img.pixels.get(), h * w * img.c, value);
  img.chw = torch::from_blob(img.pixels.get(), {h, w, img.c}, torch::kUInt8)
                .permute({2, 0, 1})
                .to(torch::kFloat)
                .div_(255.0);
  return img;
}

class BatchBuilder {
 public:
  void add(uint8_t value) {
    DecodedImage img = decode(value, 32, 32);
    images_.push_back(img.chw);
  }
  torch::Tensor collate() const { return torch::stack(images_); }
 private:
  std::vector<torch::Tensor> images_;
};

}  // namespace imgio

int main() {
  imgio::BatchBuilder builder;
  const std::vector<uint8_t> colours = {40, 200, 120};
  for (auto v : colours) builder.add(v);
  auto batch = builder.collate();
  for (size_t i = 0; i < colours.size(); ++i) {
    double got = batch[i].mean().item<double>() * 255.0;
    std::cout << "image " << i << ": mean " << got << " (decoded " << int(colours[i]) << ")\n";
    if (std::abs(got - colours[i]) > 0.5)
      std::cout << "HARM: image " << i << " no longer holds its decoded pixels\n";
  }
  return 0;
}
