// CASE: a custom dataset decodes each sample into a member scratch tensor
//       (to avoid an allocation per sample) and returns that member from
//       get(); the DataLoader runs two workers, each with a copy of the
//       dataset whose scratch handle still points at the same storage, and
//       Stack collates the returned handles after the whole batch was decoded
// SOURCE: https://github.com/mhubii/libtorch_custom_dataset/issues/1
// KIND: bug
// HARM: every row of a batch holds the last sample decoded into the scratch
//       buffer, so features no longer match their labels
#include <torch/torch.h>

#include <iostream>
#include <vector>

constexpr int64_t kBins = 6;

class SpectrogramDataset
    : public torch::data::datasets::Dataset<SpectrogramDataset> {
 public:
  explicit SpectrogramDataset(size_t n)
      : n_(n), scratch_(torch::empty({kBins})) {}

  torch::data::Example<> get(size_t index) override {
    std::vector<float> raw(kBins);
    decode(index, raw);
    scratch_.copy_(torch::from_blob(raw.data(), {kBins}));  // BUG(libtorch-worker-missing-clone)
    return {scratch_, torch::tensor(static_cast<int64_t>(index))};  // BUG(libtorch-worker-missing-clone)
  }

  torch::optional<size_t> size() const override { return n_; }

 private:
  // Stands in for reading and transforming one audio clip.
  static void decode(size_t index, std::vector<float>& out) {
    for (int64_t i = 0; i < kBins; ++i) {
      out[i] = static_cast<float>(index * 10 + i);
    }
  }

  size_t n_;
  torch::Tensor scratch_;
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
