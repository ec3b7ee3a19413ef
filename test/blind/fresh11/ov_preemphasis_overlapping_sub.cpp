// CASE: an ASR feature frontend applies pre-emphasis y[t] = x[t] - a*x[t-1]
//       in place, as the NumPy idiom x[1:] -= a * x[:-1], over two
//       overlapping slices of the same waveform tensor
// SOURCE: the kind of code in Kaldi-style / torchaudio-style C++ frontends
//         (pre-emphasis, dithering and framing on a batch of waveforms)
// KIND: bug
// HARM: on a [B, T] batch the overlapping sub_ runs element by element and
//       compounds the filter: the features differ from true pre-emphasis
#include <torch/torch.h>
#include <iostream>

namespace asr {

struct FrontendOptions {
  double preemph = 0.97;
  double dither = 0.0;
  int64_t frame_length = 400;
  int64_t hop = 160;
};

class Frontend {
 public:
  explicit Frontend(FrontendOptions o) : opt_(o) {}

  torch::Tensor operator()(torch::Tensor wav) const {  // wav: [B, T]
    wav = wav - wav.mean(-1, /*keepdim=*/true);  // remove DC offset (fresh tensor)
    if (opt_.dither > 0) wav.add_(torch::randn_like(wav), opt_.dither);
    preemphasis_(wav);  // BUG(libtorch-overlapping-inplace)
    auto frames = wav.unfold(-1, opt_.frame_length, opt_.hop);  // [B, n, L]
    auto window = torch::hann_window(opt_.frame_length, /*periodic=*/false);
    auto spec = torch::fft_rfft(frames * window, c10::nullopt, -1);
    return torch::log(spec.abs().pow(2) + 1e-10);
  }

 private:
  void preemphasis_(torch::Tensor& wav) const {
    auto T = wav.size(-1);
    wav.slice(-1, 1, T).sub_(wav.slice(-1, 0, T - 1), opt_.preemph);  // BUG(libtorch-overlapping-inplace)
  }
  FrontendOptions opt_;
};

}  // namespace asr

int main() {
  torch::manual_seed(0);
  asr::Frontend fe(asr::FrontendOptions{});
  auto t = torch::arange(16000, torch::kFloat) / 16000.0;
  auto wav = torch::stack({torch::sin(2 * 3.14159265358979 * 440 * t), torch::sin(2 * 3.14159265358979 * 220 * t)});
  // reference: the same frontend with an out-of-place pre-emphasis
  auto centred = wav - wav.mean(-1, true);
  auto ref_emph = torch::cat({centred.slice(-1, 0, 1),
                              centred.slice(-1, 1) - 0.97 * centred.slice(-1, 0, -1)}, -1);
  auto frames = ref_emph.unfold(-1, 400, 160) * torch::hann_window(400, false);
  auto ref = torch::log(torch::fft_rfft(frames, c10::nullopt, -1).abs().pow(2) + 1e-10);
  try {
    auto feats = fe(wav);
    double err = (feats - ref).abs().max().item<double>();
    std::cout << "features " << feats.sizes() << ", max |feats - ref| = " << err << "\n";
    if (err > 1.0)  // log-power: float noise in near-silent bins stays well below 1
      std::cout << "HARM: the in-place pre-emphasis compounded over overlapping slices (error "
                << err << ")\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what();
    std::cout << "HARM: pre-emphasis threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
