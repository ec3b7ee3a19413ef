// CASE: a SimCLR-style augmenter builds its first view by transposing the
//       cached image (a mirror across the diagonal) and applying contrast
//       jitter to that transpose in place; the second view is cropped from
//       the same cached image afterwards
// SOURCE: the kind of code from contrastive-learning data pipelines ported
//         to libtorch that keep decoded images in memory; transpose()
//         returns a view (see the in-place transpose_ notes at
//         https://torchjs.org/docs/torch.js/generated/torch.Tensor.Tensor.transpose_)
// KIND: bug
// HARM: the cached dataset image is jittered by every epoch, and the second
//       view is cropped from the jittered pixels
#include <torch/torch.h>

#include <iostream>
#include <utility>
#include <vector>

class ContrastiveAugment {
 public:
  explicit ContrastiveAugment(uint64_t seed) { gen_ = at::detail::createCPUGenerator(seed); }

  std::pair<torch::Tensor, torch::Tensor> views(const torch::Tensor& img) {
    return {mirrored_jitter(img), crop(img)};
  }

 private:
  torch::Tensor mirrored_jitter(const torch::Tensor& img) {
    auto v = img.transpose(1, 2);                                // BUG(libtorch-inplace-on-view)
    double contrast = 1.5 + uniform();
    auto mean = v.mean();
    v.sub_(mean).mul_(contrast).add_(mean).clamp_(0.0, 1.0);     // BUG(libtorch-inplace-on-view)
    return v;
  }
  torch::Tensor crop(const torch::Tensor& img) {
    int64_t size = img.size(1) * 3 / 4;
    int64_t top = static_cast<int64_t>(uniform() * (img.size(1) - size));
    int64_t left = static_cast<int64_t>(uniform() * (img.size(2) - size));
    auto patch = img.narrow(1, top, size).narrow(2, left, size).unsqueeze(0);
    return torch::nn::functional::interpolate(
               patch, torch::nn::functional::InterpolateFuncOptions()
                          .size(std::vector<int64_t>{img.size(1), img.size(2)})
                          .mode(torch::kBilinear).align_corners(false))
        .squeeze(0);
  }
  double uniform() { return torch::rand({1}, gen_).item<double>(); }
  at::Generator gen_;
};

int main() {
  torch::manual_seed(53);
  std::vector<torch::Tensor> cache;  // decoded once, reused every epoch
  for (int i = 0; i < 8; ++i) cache.push_back(torch::rand({3, 24, 24}) * 0.5 + 0.25);
  std::vector<double> decoded_mean;
  for (auto& img : cache) decoded_mean.push_back(img.mean().item<double>());
  auto pristine = cache[0].clone();

  ContrastiveAugment augment(7);
  for (int epoch = 0; epoch < 3; ++epoch) {
    double pair_sim = 0;
    for (auto& img : cache) {
      auto [a, b] = augment.views(img);                          // BUG(libtorch-inplace-on-view)
      pair_sim += torch::cosine_similarity(a.flatten(), b.flatten(), 0).item<double>();
    }
    std::cout << "epoch " << epoch << ": mean view similarity " << pair_sim / cache.size() << "\n";
  }

  auto drift = (cache[0] - pristine).abs().max().item<double>();
  std::cout << "image 0 mean " << cache[0].mean().item<double>() << " (decoded " << decoded_mean[0] << ")\n";
  if (drift > 1e-6)
    std::cout << "HARM: the cached image 0 changed by up to " << drift
              << " after three epochs of augmentation\n";
  return 0;
}
