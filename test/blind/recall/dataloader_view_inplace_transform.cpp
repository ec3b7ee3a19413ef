// CASE: an in-memory dataset returns views of its member tensor from get(),
//       and the DataLoader's worker threads apply an in-place normalisation
//       transform, so each epoch renormalises the dataset itself
// SOURCE: https://github.com/mhubii/libtorch_custom_dataset/issues/1 (why the
//         custom dataset's get() returns clone() of its tensors)
// KIND: bug
// HARM: the second epoch's batches differ from the first epoch's
#include <torch/torch.h>

#include <cstdio>

class InMemoryImages : public torch::data::datasets::Dataset<InMemoryImages> {
 public:
  InMemoryImages() : images_(torch::rand({8, 3, 4, 4}) * 255.0), labels_(torch::arange(8)) {}

  torch::data::Example<> get(size_t index) override {
    return {images_[index], labels_[index]};  // BUG(libtorch-worker-missing-clone)
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
                       return img.div_(255.0).sub_(0.5);  // BUG(libtorch-worker-missing-clone)
                     }))
                     .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(  // BUG(libtorch-worker-missing-clone)
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(4).workers(2));

  double epoch_sum[2] = {0.0, 0.0};
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (auto& batch : *loader) epoch_sum[epoch] += batch.data.sum().item<double>();
  }
  std::printf("epoch 0 pixel sum %.3f, epoch 1 pixel sum %.3f\n", epoch_sum[0], epoch_sum[1]);
  if (std::abs(epoch_sum[0] - epoch_sum[1]) > 1e-3) {
    std::printf("HARM: epoch 1 saw re-normalised images (sum %.3f vs %.3f)\n", epoch_sum[1],
                epoch_sum[0]);
  }
  return 0;
}
