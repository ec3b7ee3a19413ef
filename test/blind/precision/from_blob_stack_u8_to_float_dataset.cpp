// CASE: a thumbnail dataset parses fixed-size 8x8 RGB images into a uint8
//       stack array inside its loading loop, wraps the array with
//       torch::from_blob and stores `.to(torch::kFloat).div_(255)` of it;
//       Dataset::get later returns the stored tensors
// SOURCE: the kind of code in libtorch custom-dataset tutorials
//         (torch::data::datasets::Dataset<...> with from_blob over raw pixel
//         buffers, e.g. the CIFAR/MNIST readers in pytorch/examples cpp)
// KIND: near-miss
// WHY-OK: converting uint8 to float always allocates a new tensor, so what is
//         stored never points into the stack array reused by the next image
#include <torch/torch.h>
#include <cstdint>
#include <iostream>
#include <vector>

constexpr int kSide = 8, kChannels = 3;

class ThumbnailDataset : public torch::data::datasets::Dataset<ThumbnailDataset> {
 public:
  explicit ThumbnailDataset(const std::vector<std::vector<uint8_t>>& files) {
    for (size_t i = 0; i < files.size(); ++i) {
      uint8_t pixels[kSide * kSide * kChannels];
      decode(files[i], pixels);
      auto img = torch::from_blob(pixels, {kSide, kSide, kChannels}, torch::kUInt8)
                     .to(torch::kFloat)
                     .div_(255.0);
      images_.push_back(img.permute({2, 0, 1}));
      labels_.push_back(torch::tensor(static_cast<int64_t>(i % 2)));
    }
  }
  torch::data::Example<> get(size_t index) override {
    return {images_.at(index), labels_.at(index)};
  }
  torch::optional<size_t> size() const override { return images_.size(); }

 private:
  // Stand-in for the PPM body parser: first byte is the fill value.
  static void decode(const std::vector<uint8_t>& file, uint8_t* out) {
    for (int i = 0; i < kSide * kSide * kChannels; ++i)
      out[i] = static_cast<uint8_t>(file[0] + i % kChannels);
  }
  std::vector<torch::Tensor> images_, labels_;
};

int main() {
  ThumbnailDataset ds({{0}, {100}, {250}});
  for (size_t i = 0; i < *ds.size(); ++i) {
    auto ex = ds.get(i);
    std::cout << "image " << i << " " << ex.data.sizes() << " first R="
              << ex.data[0][0][0].item<float>() * 255 << " G="
              << ex.data[1][0][0].item<float>() * 255 << "\n";
  }
  return 0;
}
