// CASE: the Kalman predict step writes F*P into a scratch buffer with
//       at::mm_out and the full product into a second scratch buffer, then
//       copies the result back into P
// SOURCE: https://github.com/pytorch/pytorch/issues/48900 (out= must not be an
//         input; use a separate output)
// KIND: near-miss
// WHY-OK: no out= argument is also an operand of the same call
#include <torch/torch.h>

#include <cstdio>

struct KalmanFilter {
  torch::Tensor x, P, F, Q;
  torch::Tensor FP = torch::empty({4, 4});
  torch::Tensor FPFt = torch::empty({4, 4});

  void predict() {
    x = torch::mm(F, x);
    at::mm_out(FP, F, P);
    at::mm_out(FPFt, FP, F.t());
    P.copy_(FPFt).add_(Q);
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
  kf.predict();
  const double err = (kf.P - expected).abs().max().item<double>();
  std::printf("max |P - expected| = %.6g\n", err);
  if (err > 1e-6) std::printf("HARM: covariance is wrong\n");
  return 0;
}
