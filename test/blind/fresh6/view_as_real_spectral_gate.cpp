// CASE: a speech-enhancement evaluator passes the noisy STFT to a dsp::
//       spectral gate that converts it to the (re, im) layout with
//       torch::view_as_real, attenuates that in place and returns it as
//       complex again; the evaluator then measures the noise energy removed
//       against the spec it believes is still the noisy reference
// SOURCE: the kind of code from denoising front ends that moved from the
//         old (..., 2) real STFT layout to view_as_real of complex STFTs
//         (pytorch/audio#1096 recommends view_as_real(stft(...,
//         return_complex=True))); view_as_real shares the complex storage
// KIND: bug
// HARM: the noisy reference is gated too, so the reported noise reduction
//       is 0 dB
#include <torch/torch.h>

#include <cmath>
#include <iostream>

namespace dsp {
// Returns the spectrum with every bin whose magnitude is below `floor_ratio`
// times the frame's median magnitude attenuated by `reduction`; the gain is
// applied to the (re, im) layout.
torch::Tensor spectral_gate(const torch::Tensor& spec, double floor_ratio, double reduction) {
  auto ri = torch::view_as_real(spec);                           // BUG(libtorch-inplace-on-view)
  auto mag = spec.abs();
  auto median = std::get<0>(mag.median(0, /*keepdim=*/true));
  auto keep = (mag > floor_ratio * median).to(torch::kFloat);
  auto gain = keep + (1 - keep) * reduction;
  ri.mul_(gain.unsqueeze(-1));                                   // BUG(libtorch-inplace-on-view)
  return torch::view_as_complex(ri);
}
}  // namespace dsp

double energy_db(const torch::Tensor& spec) {
  return 10 * std::log10(spec.abs().pow(2).sum().item<double>());
}

int main() {
  torch::manual_seed(47);
  const int64_t sr = 16000, n = sr / 2, n_fft = 512, hop = 128;
  auto t = torch::arange(n, torch::kFloat) / sr;
  auto speechy = 0.5 * torch::sin(2 * M_PI * 300 * t) * (torch::sin(2 * M_PI * 3 * t) > 0).to(torch::kFloat);
  auto noisy = speechy + 0.2 * torch::randn({n});
  auto window = torch::hann_window(n_fft);

  auto spec = torch::stft(noisy, n_fft, hop, n_fft, window, /*normalized=*/false,
                          /*onesided=*/true, /*return_complex=*/true);
  auto before_db = energy_db(spec);

  auto enhanced = dsp::spectral_gate(spec, 2.0, 0.1);            // BUG(libtorch-inplace-on-view)
  auto out = torch::istft(enhanced, n_fft, hop, n_fft, window);

  // Noise energy removed: noisy reference minus enhanced, per bin.
  auto removed_db = energy_db(spec) - energy_db(enhanced);
  std::cout << "noisy " << before_db << " dB, enhanced " << energy_db(enhanced)
            << " dB, reported reduction " << removed_db << " dB, output " << out.numel() << " samples\n";
  if (std::abs(removed_db) < 1e-6 && before_db - energy_db(enhanced) > 0.5)
    std::cout << "HARM: the noisy reference was gated too: reported reduction " << removed_db
              << " dB, real reduction " << before_db - energy_db(enhanced) << " dB\n";
  return 0;
}
