// CASE: a speech trainer's dataset keeps all log-mel spectrograms in one
//       member tensor and get() returns a row of it; a SpecAugment time-mask
//       transform, run by the DataLoader's worker threads, zeroes frames of
//       that row in place, so the stored training set (shared by every
//       worker's copy of the dataset and by the caller) collects masks epoch
//       after epoch
// SOURCE: libtorch speech/audio training pipelines (SpecAugment as a
//         TensorTransform over a map-style dataset with workers); the C++
//         DataLoader copies the dataset into each worker, which copies tensor
//         handles, not data
// KIND: bug
// HARM: after one epoch frames of the stored spectrograms are zero
#include <torch/torch.h>

#include <iostream>

class LogMelSet : public torch::data::datasets::Dataset<LogMelSet> {
 public:
  LogMelSet(torch::Tensor mels, torch::Tensor labels)
      : mels_(std::move(mels)), labels_(std::move(labels)) {}

  torch::data::Example<> get(size_t index) override {
    return {mels_[index], labels_[index]};  // BUG(libtorch-worker-missing-clone)
  }

  torch::optional<size_t> size() const override { return mels_.size(0); }

 private:
  torch::Tensor mels_;
  torch::Tensor labels_;
};

// SpecAugment time masking: hide `width` consecutive frames.
class TimeMask : public torch::data::transforms::TensorTransform<torch::Tensor> {
 public:
  explicit TimeMask(int64_t width) : width_(width) {}

  torch::Tensor operator()(torch::Tensor mel) override {
    const int64_t frames = mel.size(1);
    const int64_t start = torch::randint(0, frames - width_, {1}).item<int64_t>();
    mel.narrow(1, start, width_).zero_();  // BUG(libtorch-worker-missing-clone)
    return mel;
  }

 private:
  int64_t width_;
};

int main() {
  torch::manual_seed(0);
  const int64_t utterances = 8, bins = 4, frames = 20;
  // log-mel energies offset to stay strictly positive
  auto mels = torch::rand({utterances, bins, frames}) + 1.0;
  auto labels = torch::randint(0, 3, {utterances});

  auto dataset = LogMelSet(mels, labels)
                     .map(TimeMask(3))
                     .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(  // BUG(libtorch-worker-missing-clone)
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(2).workers(2));

  int64_t seen = 0;
  for (auto& batch : *loader) seen += batch.data.size(0);

  // every stored frame started >= 1; a zero means the epoch wrote the set
  auto zero_frames = (mels.sum(1) == 0).sum().item<int64_t>();
  std::cout << "one epoch over " << seen << " utterances, stored frames now zero: "
            << zero_frames << "\n";
  if (zero_frames > 0)
    std::cout << "HARM: " << zero_frames
              << " frames of the stored training spectrograms were masked in place by the workers\n";
  return 0;
}
