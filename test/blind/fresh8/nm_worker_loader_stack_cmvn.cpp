// CASE: a keyword-spotting dataset preloads the corpus into one tensor and
//       its get() hands out narrow() views of it to the DataLoader's worker
//       threads; the training loop applies CMVN to the batch in place
// SOURCE: the kind of code in libtorch speech-command trainers (corpus
//       preloaded into RAM, per-utterance mean/variance normalisation)
// KIND: near-miss
// WHY-OK: the loader collates with Stack<>, which copies the examples into a
//       fresh batch tensor, so the in-place CMVN never reaches the bank
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace kws {

class ClipBank : public torch::data::datasets::Dataset<ClipBank> {
 public:
  ClipBank(int64_t clips, int64_t samples)
      : audio_(torch::randn({clips, samples}) * 0.25 + 0.5),
        labels_(torch::randint(0, 4, {clips}, torch::kLong)) {}

  torch::data::Example<> get(size_t index) override {
    const auto row = static_cast<int64_t>(index);
    return {audio_.narrow(0, row, 1).squeeze(0), labels_.narrow(0, row, 1).squeeze(0)};
  }

  torch::optional<size_t> size() const override {
    return static_cast<size_t>(audio_.size(0));
  }

 private:
  torch::Tensor audio_;
  torch::Tensor labels_;
};

// Per-utterance mean and variance normalisation over a [B, T] batch.
struct Cmvn {
  double eps = 1e-5;
  void operator()(torch::Tensor& clips) const {
    const auto mu = clips.mean(1, true);
    const auto sigma = clips.std(1, true, true);
    clips.sub_(mu).div_(sigma + eps);
  }
};

}  // namespace kws

int main() {
  torch::manual_seed(0);
  auto loader = torch::data::make_data_loader(
      kws::ClipBank(64, 400).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(8).workers(2));

  torch::nn::Linear classifier(400, 4);
  torch::optim::SGD opt(classifier->parameters(), 0.05);
  const kws::Cmvn cmvn;

  std::vector<double> raw_level;
  for (int epoch = 0; epoch < 2; ++epoch) {
    double level = 0.0;
    int64_t batches = 0;
    for (auto& batch : *loader) {
      level += batch.data.mean().item<double>();
      ++batches;
      cmvn(batch.data);
      opt.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(classifier(batch.data), batch.target);
      loss.backward();
      opt.step();
    }
    raw_level.push_back(level / static_cast<double>(batches));
    std::printf("epoch %d: mean raw level of the clips delivered %.3f\n", epoch,
                raw_level.back());
  }
  std::printf("raw level drift between epochs %.4f\n", std::abs(raw_level[1] - raw_level[0]));
  return 0;
}
