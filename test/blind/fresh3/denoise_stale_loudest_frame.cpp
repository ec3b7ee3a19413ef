// CASE: an audio denoiser records the loudest frame of a magnitude
//       spectrogram as a select() view in an analysis struct, then runs
//       spectral subtraction in place on the spectrogram in another
//       function; the voice-activity report later reads the struct's frame
//       as if it were the raw input
// SOURCE: the kind of code in libtorch audio preprocessing (spectral
//       subtraction / noise gating before a keyword-spotting model) that
//       keeps "references" into a spectrogram for later statistics
// KIND: bug
// HARM: the reported peak-frame energy is that of the denoised spectrogram
#include <torch/torch.h>

#include <cmath>
#include <iostream>

namespace {

struct Analysis {
  int64_t peak_index = -1;
  torch::Tensor peak_frame;  // [freq]
  torch::Tensor noise_floor;  // [freq]
};

Analysis analyse(const torch::Tensor& spec) {  // spec: [frames, freq]
  Analysis a;
  a.peak_index = spec.sum(1).argmax().item<int64_t>();
  a.peak_frame = spec.select(0, a.peak_index);  // BUG(libtorch-inplace-on-view)
  a.noise_floor = std::get<0>(spec.kthvalue(2, 0));
  return a;
}

void spectral_subtract(torch::Tensor& spec, const torch::Tensor& floor, double over) {
  spec.sub_(floor * over).clamp_min_(0.0);  // BUG(libtorch-inplace-on-view)
}

float frame_energy_db(const torch::Tensor& frame) {
  return 10.f * std::log10(frame.pow(2).sum().item<float>() + 1e-9f);
}

}  // namespace

int main() {
  torch::manual_seed(13);
  auto spec = torch::rand({20, 33}) * 0.2;  // background noise
  spec.narrow(0, 7, 3).add_(torch::linspace(1.0, 0.1, 33));  // a spoken syllable

  Analysis a = analyse(spec);
  float expected_db = frame_energy_db(spec.select(0, a.peak_index).clone());
  spectral_subtract(spec, a.noise_floor, 1.5);

  float reported_db = frame_energy_db(a.peak_frame);  // BUG(libtorch-inplace-on-view)
  std::cout << "peak frame " << a.peak_index << ": reported " << reported_db << " dB, raw input " << expected_db
            << " dB\n";
  if (std::abs(reported_db - expected_db) > 0.01f) {
    std::cout << "HARM: the VAD report read the peak frame after spectral subtraction (" << reported_db
              << " dB instead of " << expected_db << " dB)\n";
  }
  return 0;
}
