// CASE: an audio front end standardises a 16-bit PCM clip for the model: it
//       converts to float (scaling to [-1, 1) in place), flattens, and
//       subtracts the mean / divides by the std in place through the
//       flattened view, while the VAD gate keeps reading the raw PCM clip
// SOURCE: speech pipelines in libtorch (VAD gate on raw int16 audio,
//         standardised float input for the acoustic model)
// KIND: near-miss
// WHY-OK: to(kFloat) on an int16 tensor always allocates a new tensor, so
//         the view written in place belongs to that fresh buffer, not to the
//         caller's clip
#include <torch/torch.h>

#include <iostream>

namespace audio {

torch::Tensor standardised(const torch::Tensor& pcm) {
  auto flat = pcm.to(torch::kFloat).div_(32768.0).flatten();
  flat.sub_(flat.mean()).div_(flat.std() + 1e-5);
  return flat.view(pcm.sizes());
}

bool voice_active(const torch::Tensor& pcm, double threshold) {
  auto x = pcm.to(torch::kFloat) / 32768.0;
  return x.pow(2).mean().item<double>() > threshold;
}

}  // namespace audio

int main() {
  torch::manual_seed(0);
  const int64_t sr = 16000;
  auto t = torch::arange(sr, torch::kFloat) / double(sr);
  auto wave = 0.02 * torch::sin(2 * M_PI * 220.0 * t) + 0.001 * torch::randn({sr});
  auto pcm = (wave * 32767.0).round().to(torch::kShort).unsqueeze(0).repeat({2, 1});
  const double vad_threshold = 1e-3;

  auto checksum_before = pcm.to(torch::kLong).abs().sum().item<int64_t>();
  auto features = audio::standardised(pcm);
  torch::nn::Conv1d acoustic(torch::nn::Conv1dOptions(2, 8, 400).stride(160));
  auto frames = acoustic->forward(features.unsqueeze(0));

  auto checksum_after = pcm.to(torch::kLong).abs().sum().item<int64_t>();
  bool active = audio::voice_active(pcm, vad_threshold);
  std::cout << "frames " << frames.sizes() << ", features std " << features.std().item<float>()
            << ", raw checksum " << checksum_before << " -> " << checksum_after << ", VAD active " << active
            << "\n";
  if (checksum_after != checksum_before) std::cout << "MISMATCH: raw clip changed\n";
  return 0;
}
