// CASE: an image decoder returns a DecodedImage that owns its pixel buffer
//       (std::unique_ptr<uint8_t[]>) and exposes a zero-copy CHW tensor made
//       with torch::from_blob over it; the batch builder keeps only the
//       tensor, so each DecodedImage (and its buffer) dies at the end of the
//       loop iteration while the tensor sits in the batch vector
// SOURCE: the kind of code in C++ inference servers and data loaders that
//         wrap decoder output (stb_image / libjpeg buffers) with from_blob
// KIND: bug
// HARM: the first image of the batch shows freed / reused memory instead of
//       its pixels
#include <torch/torch.h>
#include <cstdint>
#include <iostream>
#include <memory>
#include <vector>

namespace imgio {

struct DecodedImage {
  int64_t h = 0, w = 0, c = 3;
  std::unique_ptr<uint8_t[]> pixels;   // HWC, owned
  torch::Tensor chw;                   // zero-copy view of pixels
};

// stand-in for a JPEG decode: a flat colour per image
DecodedImage decode(uint8_t value, int64_t h, int64_t w) {
  DecodedImage img;
  img.h = h; img.w = w;
  img.pixels = std::make_unique<uint8_t[]>(h * w * img.c);
  std::fill_n(img.pixels.get(), h * w * img.c, value);
  img.chw = torch::from_blob(img.pixels.get(), {h, w, img.c}, torch::kUInt8)  // BUG(libtorch-from-blob-escape)
                .permute({2, 0, 1});
  return img;
}

class BatchBuilder {
 public:
  void add(uint8_t value) {
    DecodedImage img = decode(value, 32, 32);
    images_.push_back(img.chw);  // BUG(libtorch-from-blob-escape)
  }  // img.pixels is freed here
  torch::Tensor collate() const {
    std::vector<torch::Tensor> fl;
    for (const auto& t : images_) fl.push_back(t.to(torch::kFloat).div(255.0));
    return torch::stack(fl);
  }
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
    if (std::abs(got - colours[i]) > 0.5) {
      std::cout << "HARM: image " << i << " no longer holds its decoded pixels\n";
      break;
    }
  }
  return 0;
}
