// CASE: an audio feature extractor runs a noise gate per clip on
//       std::async tasks built with std::bind over a member function, keeping
//       the futures in a vector; the gate zeroes quiet samples of the clip it
//       was handed in place, and the caller later mixes the same "raw" clips
//       into the augmentation set
// SOURCE: libtorch audio recognition engines that fan feature extraction out
//         to threads (https://pytorch.org/blog/optimizing-libtorch/ describes
//         such a pipeline)
// KIND: bug
// HARM: the raw clips used for augmentation have lost their quiet samples
#include <torch/torch.h>

#include <functional>
#include <future>
#include <iostream>
#include <vector>

class NoiseGate {
 public:
  explicit NoiseGate(double threshold) : threshold_(threshold) {}

  // Returns the RMS of the gated clip, the feature the classifier uses.
  torch::Tensor gated_rms(torch::Tensor clip) const {
    clip.masked_fill_(clip.abs() < threshold_, 0.0);  // BUG(libtorch-worker-missing-clone)
    return clip.pow(2).mean().sqrt();
  }

 private:
  double threshold_;
};

torch::Tensor mix_at_snr(const torch::Tensor& speech, const torch::Tensor& noise, double snr_db) {
  auto p_speech = speech.pow(2).mean();
  auto p_noise = noise.pow(2).mean();
  auto scale = torch::sqrt(p_speech / (p_noise * std::pow(10.0, snr_db / 10.0)));
  return speech + scale * noise;
}

int main() {
  torch::manual_seed(0);
  std::vector<torch::Tensor> clips;
  for (int i = 0; i < 3; ++i) clips.push_back(torch::randn({1600}) * 0.2);
  const auto raw_energy = clips[0].pow(2).sum().item<double>();

  NoiseGate gate(0.05);
  std::vector<std::future<torch::Tensor>> pending;
  for (const auto& clip : clips)
    pending.push_back(std::async(std::launch::async,  // BUG(libtorch-worker-missing-clone)
                                 std::bind(&NoiseGate::gated_rms, &gate, clip)));  // BUG(libtorch-worker-missing-clone)

  std::vector<double> features;
  for (auto& f : pending) features.push_back(f.get().item<double>());

  // the augmentation set is built from the raw clips
  auto noisy = mix_at_snr(clips[0], torch::randn({1600}), 10.0);
  const auto zeros = (clips[0] == 0).sum().item<int64_t>();
  const auto energy_now = clips[0].pow(2).sum().item<double>();
  std::cout << "feature[0] " << features[0] << ", raw clip energy before " << raw_energy
            << ", at mixing " << energy_now << ", mixed rms " << noisy.pow(2).mean().sqrt().item<double>()
            << "\n";
  if (zeros > 0)
    std::cout << "HARM: the raw clip mixed for augmentation has " << zeros
              << " samples zeroed by the noise gate\n";
  return 0;
}
