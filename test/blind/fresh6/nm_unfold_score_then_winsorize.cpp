// CASE: a sensor-monitoring job cuts the series into sliding windows with
//       unfold(), winsorises the series in place with clamp_(), and uses
//       the windows both for anomaly scores and as forecaster training
//       inputs
// SOURCE: the kind of code from time-series anomaly detection pipelines
//         (unfold-based windowing,
//         https://errorhandle.ai/pytorch-sliding-window-with-unfold-fold)
// KIND: near-miss
// WHY-OK: the anomaly scores are computed from the windows before the
//         clamp_; afterwards the windows are read on purpose as a live view
//         of the clipped series, which is what the forecaster should see
#include <torch/torch.h>

#include <iostream>

struct Winsorizer {
  double lo_q = 0.01, hi_q = 0.99;
  double hi = 0;
  void operator()(torch::Tensor& series) {
    auto lo = series.quantile(lo_q).item<double>();
    hi = series.quantile(hi_q).item<double>();
    series.clamp_(lo, hi);
  }
};

// Least-squares AR fit: predicts the last sample of each window from the
// `order` samples before it; returns the residual mean squared error.
double ar_fit_mse(const torch::Tensor& windows, int64_t order) {
  const int64_t width = windows.size(1);
  auto inputs = windows.narrow(1, width - 1 - order, order);
  auto targets = windows.select(1, width - 1).unsqueeze(1);
  auto sol = std::get<0>(torch::linalg_lstsq(inputs, targets));
  return (inputs.mm(sol) - targets).pow(2).mean().item<double>();
}

torch::Tensor peak_scores(const torch::Tensor& windows) {
  auto med = std::get<0>(windows.median(1, /*keepdim=*/true));
  auto mad = std::get<0>((windows - med).abs().median(1, true)).clamp_min(1e-3);
  return std::get<0>(((windows - med).abs() / (1.4826 * mad)).max(1));
}

int main() {
  torch::manual_seed(89);
  const int64_t T = 512, width = 32, stride = 16;
  auto t = torch::arange(T, torch::kFloat);
  auto series = torch::sin(t * 0.05) + 0.1 * torch::randn({T});
  series[300] += 6.0;

  auto windows = series.unfold(0, width, stride);
  auto scores = peak_scores(windows);
  auto flagged = (scores > 8.0).nonzero().flatten();

  Winsorizer winsorize;
  winsorize(series);

  // The forecaster trains on the clipped windows.
  auto mse = ar_fit_mse(windows, 4);
  std::cout << "flagged windows: " << flagged.numel() << " (first " << flagged[0].item<int64_t>()
            << "), clipped max " << windows.max().item<double>() << " <= " << winsorize.hi
            << ", forecaster mse " << mse << "\n";
  return 0;
}
