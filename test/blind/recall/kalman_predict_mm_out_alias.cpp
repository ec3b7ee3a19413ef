// CASE: a Kalman filter's predict step propagates the covariance in place
//       with at::mm_out, writing F*P and then (F*P)*F^T straight back into P,
//       which is also an operand of each product
// SOURCE: https://github.com/pytorch/pytorch/issues/48900 (addmm with out= an
//         input returns an incorrect result) and
//         https://github.com/pytorch/pytorch/issues/114350 (matmul out= an
//         input gives zeros on CPU)
// KIND: bug
// HARM: the predicted covariance is wrong (measured: silently, no error)
#include <torch/torch.h>

#include <cstdio>

struct KalmanFilter {
  torch::Tensor x;  // state [n, 1]
  torch::Tensor P;  // covariance [n, n]
  torch::Tensor F;  // transition [n, n]
  torch::Tensor Q;  // process noise [n, n]

  void predict() {
    x = torch::mm(F, x);
    at::mm_out(P, F, P);        // BUG(libtorch-overlapping-inplace)
    at::mm_out(P, P, F.t());    // BUG(libtorch-overlapping-inplace)
    P.add_(Q);
  }
};

int main() {
  const double dt = 0.1;
  KalmanFilter kf;
  kf.x = torch::tensor({{0.0}, {1.0}, {0.0}, {1.0}});
  kf.F = torch::eye(4);
  kf.F.index_put_({0, 1}, dt);
  kf.F.index_put_({2, 3}, dt);
  kf.P = torch::diag(torch::tensor({1.0, 2.0, 1.0, 2.0}));
  kf.Q = torch::eye(4) * 0.01;

  auto expected = kf.F.mm(kf.P).mm(kf.F.t()) + kf.Q;
  try {
    kf.predict();
  } catch (const c10::Error& e) {
    std::printf("HARM: predict threw: %s\n", e.what_without_backtrace());
    return 0;
  }
  const double err = (kf.P - expected).abs().max().item<double>();
  std::printf("max |P - expected| = %.6g\n", err);
  if (err > 1e-6) std::printf("HARM: covariance propagated through aliased mm_out is wrong (error %.6g)\n", err);
  return 0;
}
