// CASE: a sensor-monitoring job cuts the raw series into sliding windows
//       with unfold() for anomaly scoring, then winsorises the series in
//       place with clamp_() before fitting the forecaster, and scores the
//       windows it cut earlier
// SOURCE: the kind of code from time-series anomaly detection pipelines
//         (unfold-based windowing, as in the unfold tutorials at
//         https://errorhandle.ai/pytorch-sliding-window-with-unfold-fold);
//         unfold returns a view, not a copy
// KIND: bug
// HARM: the spike the detector exists to find is clipped away before the
//       windows are scored, so no window is flagged
#include <torch/torch.h>

#include <iostream>

struct Winsorizer {
  double lo_q = 0.01, hi_q = 0.99;
  void operator()(torch::Tensor& series) const {
    auto lo = series.quantile(lo_q).item<double>();
    auto hi = series.quantile(hi_q).item<double>();
    series.clamp_(lo, hi);                                       // BUG(libtorch-inplace-on-view)
  }
};

// Robust z-score of each window's peak against the window's own median/MAD.
torch::Tensor peak_scores(const torch::Tensor& windows) {
  auto med = std::get<0>(windows.median(1, /*keepdim=*/true));
  auto mad = std::get<0>((windows - med).abs().median(1, true)).clamp_min(1e-3);
  return std::get<0>(((windows - med).abs() / (1.4826 * mad)).max(1));
}

torch::Tensor fit_ar1(const torch::Tensor& s) {
  auto x = s.narrow(0, 0, s.size(0) - 1), y = s.narrow(0, 1, s.size(0) - 1);
  return (x * y).sum() / (x * x).sum();
}

int main() {
  torch::manual_seed(43);
  const int64_t T = 512, width = 32, stride = 16;
  auto t = torch::arange(T, torch::kFloat);
  auto series = torch::sin(t * 0.05) + 0.1 * torch::randn({T});
  series[300] += 6.0;  // the fault the detector should find
  auto raw_copy = series.clone();

  auto windows = series.unfold(0, width, stride);               // BUG(libtorch-inplace-on-view)

  Winsorizer winsorize;
  winsorize(series);                                             // BUG(libtorch-inplace-on-view)
  auto phi = fit_ar1(series);

  auto scores = peak_scores(windows);                            // BUG(libtorch-inplace-on-view)
  auto flagged = (scores > 8.0).nonzero().flatten();
  auto want = (peak_scores(raw_copy.unfold(0, width, stride)) > 8.0).nonzero().flatten();
  std::cout << "AR(1) coefficient " << phi.item<float>() << ", windows " << windows.size(0)
            << ", flagged " << flagged.numel() << " (expected " << want.numel() << ")\n";
  if (flagged.numel() != want.numel())
    std::cout << "HARM: " << flagged.numel() << " windows flagged instead of " << want.numel()
              << "; the peak score of window 18 fell to " << scores[18].item<float>() << "\n";
  return 0;
}
