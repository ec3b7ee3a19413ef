// CASE: a custom dataset decodes each sample into a local buffer, wraps it
//       with from_blob, clones it and normalises the clone in place with a
//       member mean tensor; the DataLoader runs two workers, each with a copy
//       of the dataset sharing the member mean
// SOURCE: https://github.com/mhubii/libtorch_custom_dataset/issues/1
// KIND: near-miss
// WHY-OK: every get() returns a freshly cloned tensor; the shared member
//         mean is only read, never written, by the workers
#include <torch/torch.h>

#include <iostream>
#include <vector>

constexpr int64_t kBins = 6;

class SpectrogramDataset
    : public torch::data::datasets::Dataset<SpectrogramDataset> {
 public:
  explicit SpectrogramDataset(size_t n)
      : n_(n), mean_(torch::full({kBins}, 1.0f)) {}

  torch::data::Example<> get(size_t index) override {
    std::vector<float> raw(kBins);
    decode(index, raw);
    auto sample = torch::from_blob(raw.data(), {kBins}).clone();
    sample.sub_(mean_);
    return {sample, torch::tensor(static_cast<int64_t>(index))};
  }

  torch::optional<size_t> size() const override { return n_; }

 private:
  static void decode(size_t index, std::vector<float>& out) {
    for (int64_t i = 0; i < kBins; ++i) {
      out[i] = static_cast<float>(index * 10 + i) + 1.0f;
    }
  }

  size_t n_;
  torch::Tensor mean_;
};

int main() {
  auto loader =
      torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
          SpectrogramDataset(8).map(torch::data::transforms::Stack<>()),
          torch::data::DataLoaderOptions().batch_size(4).workers(2));

  int64_t mismatched = 0;
  int64_t rows = 0;
  for (auto& batch : *loader) {
    for (int64_t r = 0; r < batch.data.size(0); ++r) {
      ++rows;
      float first_bin = batch.data[r][0].item<float>();
      int64_t label = batch.target[r].item<int64_t>();
      if (first_bin != static_cast<float>(label * 10)) {
        ++mismatched;
      }
    }
  }
  std::cout << mismatched << " of " << rows << " rows do not match their label\n";
  if (mismatched > 0) {
    std::cout << "HARM: " << mismatched
              << " samples carry another sample's features\n";
  }
  return 0;
}
