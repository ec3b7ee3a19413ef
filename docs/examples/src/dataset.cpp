// An in-memory dataset served through a DataLoader.
#include "example.h"

#include <torch/data.h>

namespace {
struct PixelDataset : torch::data::datasets::Dataset<PixelDataset> {
  PixelDataset()
      : images_(torch::rand({16, 8}) * 255), labels_(torch::rand({16})) {}
  // Each example is a row of the dataset's own tensors, not a copy.
  torch::data::Example<> get(size_t i) override {
    return {images_[i], labels_[i]};
  }
  torch::optional<size_t> size() const override { return 16; }
  torch::Tensor images_, labels_;
};
} // namespace

float scaled_pixel_sum(int epochs) {
  auto loader = torch::data::make_data_loader<
      torch::data::samplers::SequentialSampler>(PixelDataset(), 4);
  float total = 0;
  for (int epoch = 0; epoch < epochs; ++epoch)
    for (auto &batch : *loader)
      for (auto &example : batch) {
        // Bug: 'example.data' is a row of the dataset's images, so this
        // divides the dataset itself; the next epoch divides it again.
        example.data.div_(255);
        total += example.data.sum().item<float>();
      }
  return total;
}
