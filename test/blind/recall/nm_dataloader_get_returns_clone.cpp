// CASE: the in-memory dataset's get() returns clones of its member tensors,
//       so the DataLoader workers' in-place normalisation touches only the
//       sample copies
// SOURCE: https://github.com/mhubii/libtorch_custom_dataset/issues/1 (get()
//         returning clone() of its tensors)
// KIND: near-miss
// WHY-OK: the in-place transform writes a fresh tensor per sample; the dataset
//         members are never written
#include <torch/torch.h>

#include <cmath>
#include <cstdio>

class InMemoryImages : public torch::data::datasets::Dataset<InMemoryImages> {
 public:
  InMemoryImages() : images_(torch::rand({8, 3, 4, 4}) * 255.0), labels_(torch::arange(8)) {}
  torch::data::Example<> get(size_t index) override {
    return {images_[index].clone(), labels_[index].clone()};
  }
  torch::optional<size_t> size() const override { return images_.size(0); }

 private:
  torch::Tensor images_;
  torch::Tensor labels_;
};

int main() {
  torch::manual_seed(6);
  auto dataset = InMemoryImages()
                     .map(torch::data::transforms::TensorLambda<>([](torch::Tensor img) {
                       return img.div_(255.0).sub_(0.5);
                     }))
                     .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(4).workers(2));

  double epoch_sum[2] = {0.0, 0.0};
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (auto& batch : *loader) epoch_sum[epoch] += batch.data.sum().item<double>();
  }
  std::printf("epoch 0 pixel sum %.3f, epoch 1 pixel sum %.3f\n", epoch_sum[0], epoch_sum[1]);
  if (std::fabs(epoch_sum[0] - epoch_sum[1]) > 1e-3) std::printf("HARM: epochs differ\n");
  return 0;
}
