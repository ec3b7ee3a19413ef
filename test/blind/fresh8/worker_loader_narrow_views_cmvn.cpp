// CASE: a keyword-spotting dataset preloads the whole corpus into one tensor
//       and its get() hands out narrow() views of it; the training loop then
//       applies per-utterance CMVN to each example in place, writing into the
//       bank that the DataLoader's worker threads keep reading from
// SOURCE: the kind of code in libtorch speech-command trainers (corpus
//       preloaded into RAM, custom torch::data::Dataset without a Stack
//       collation, per-utterance mean/variance normalisation)
// KIND: bug
// HARM: on the second epoch the workers deliver clips that were already
//       normalised, so the raw input level the model sees collapses
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
    return {audio_.narrow(0, row, 1).squeeze(0),  // BUG(libtorch-worker-missing-clone)
            labels_.narrow(0, row, 1).squeeze(0)};
  }

  torch::optional<size_t> size() const override {
    return static_cast<size_t>(audio_.size(0));
  }

 private:
  torch::Tensor audio_;
  torch::Tensor labels_;
};

// Per-utterance cepstral mean and variance normalisation.
struct Cmvn {
  double eps = 1e-5;
  void operator()(torch::Tensor& clip) const {
    const auto mu = clip.mean();
    const auto sigma = clip.std();
    clip.sub_(mu).div_(sigma + eps);  // BUG(libtorch-worker-missing-clone)
  }
};

class Classifier : public torch::nn::Module {
 public:
  explicit Classifier(int64_t samples)
      : fc_(register_module("fc", torch::nn::Linear(samples, 4))) {}
  torch::Tensor forward(const torch::Tensor& x) { return fc_(x); }

 private:
  torch::nn::Linear fc_;
};

}  // namespace kws

int main() {
  torch::manual_seed(0);
  auto loader = torch::data::make_data_loader(
      kws::ClipBank(64, 400),
      torch::data::DataLoaderOptions().batch_size(8).workers(2));

  auto model = std::make_shared<kws::Classifier>(400);
  torch::optim::SGD opt(model->parameters(), 0.05);
  const kws::Cmvn cmvn;

  std::vector<double> raw_level;
  for (int epoch = 0; epoch < 2; ++epoch) {
    double level = 0.0;
    int64_t seen = 0;
    for (auto& batch : *loader) {
      std::vector<torch::Tensor> xs, ys;
      for (auto& example : batch) {
        level += example.data.mean().item<double>();
        ++seen;
        cmvn(example.data);  // BUG(libtorch-worker-missing-clone)
        xs.push_back(example.data);
        ys.push_back(example.target);
      }
      opt.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(model->forward(torch::stack(xs)),
                                                       torch::stack(ys));
      loss.backward();
      opt.step();
    }
    raw_level.push_back(level / static_cast<double>(seen));
    std::printf("epoch %d: mean raw level of the clips delivered %.3f\n", epoch,
                raw_level.back());
  }
  if (std::abs(raw_level[1] - raw_level[0]) > 0.1) {
    std::printf("HARM: epoch 1 received clips at level %.3f instead of %.3f: the loader's "
                "bank was normalised in place\n",
                raw_level[1], raw_level[0]);
  }
  return 0;
}
