// CASE: an audio front end standardises a clip for the model through
//       flatten(), which the author took for a copy; on the contiguous
//       (channels, samples) clip flatten() returns a view, so sub_/div_
//       rewrite the caller's raw clip that the energy-based voice-activity
//       gate and the clip writer still use
// SOURCE: speech pipelines in libtorch (VAD gate on raw audio, standardised
//         input for the acoustic model); reshape/flatten view-or-copy
//         semantics: https://stackoverflow.com/questions/49643225/whats-the-difference-between-reshape-and-view-in-pytorch/49644300
// KIND: bug
// HARM: the raw clip's energy drops to ~1 after standardisation, so the VAD
//       gate sees a different signal
#include <torch/torch.h>

#include <iostream>

namespace audio {

torch::Tensor standardised(const torch::Tensor& clip) {
  auto flat = clip.flatten();                            // BUG(libtorch-inplace-on-view)
  flat.sub_(flat.mean()).div_(flat.std() + 1e-5);        // BUG(libtorch-inplace-on-view)
  return flat.view_as(clip);
}

bool voice_active(const torch::Tensor& raw, double threshold) {
  return raw.pow(2).mean().item<double>() > threshold;
}

}  // namespace audio

int main() {
  torch::manual_seed(0);
  const int64_t sr = 16000;
  auto t = torch::arange(sr, torch::kFloat) / double(sr);
  auto raw = (0.02 * torch::sin(2 * M_PI * 220.0 * t) + 0.001 * torch::randn({sr})).unsqueeze(0).repeat({2, 1});
  const double vad_threshold = 1e-3;  // quiet clip: energy ~2e-4

  double energy_before = raw.pow(2).mean().item<double>();
  auto features = audio::standardised(raw);  // BUG(libtorch-inplace-on-view)
  torch::nn::Conv1d acoustic(torch::nn::Conv1dOptions(2, 8, 400).stride(160));
  auto frames = acoustic->forward(features.unsqueeze(0));

  double energy_after = raw.pow(2).mean().item<double>();
  bool active = audio::voice_active(raw, vad_threshold);
  std::cout << "frames " << frames.sizes() << ", raw energy " << energy_before << " -> " << energy_after
            << ", VAD active " << active << "\n";
  if (std::abs(energy_after - energy_before) > 1e-6)
    std::cout << "HARM: standardising the model input rewrote the raw clip (energy " << energy_before << " -> "
              << energy_after << "), VAD gate now " << (active ? "open" : "closed") << " on a quiet clip\n";
  return 0;
}
