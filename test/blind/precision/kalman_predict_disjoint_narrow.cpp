// CASE: a SORT/ByteTrack-style batched Kalman predict: the constant-velocity
//       state is (N, 8) = [cx, cy, a, h, vcx, vcy, va, vh]; the position half
//       is advanced in place from the velocity half of the same tensor with
//       `mean.narrow(1, 0, 4).add_(mean.narrow(1, 4, 4), dt)`, and the
//       covariance is rebuilt from matmuls
// SOURCE: the kind of code in abewley/sort and ifzhang/ByteTrack
//         (kalman_filter.py multi_predict) ported to libtorch for a C++ tracker
// KIND: near-miss
// WHY-OK: columns [0, 4) and [4, 8) of one row never share an element, and
//         `mean` is the function's own clone, not the tracks' stored state
#include <torch/torch.h>
#include <iostream>
#include <tuple>

std::tuple<torch::Tensor, torch::Tensor> multi_predict(const torch::Tensor& track_mean,
                                                       const torch::Tensor& track_cov,
                                                       double dt) {
  const double std_pos = 1.0 / 20, std_vel = 1.0 / 160;
  auto mean = track_mean.clone();
  mean.narrow(1, 0, 4).add_(mean.narrow(1, 4, 4), dt);

  auto motion = torch::eye(8);
  motion.narrow(0, 0, 4).narrow(1, 4, 4).copy_(torch::eye(4) * dt);
  auto h = track_mean.select(1, 3).unsqueeze(1);  // (N, 1)
  auto sd = torch::cat({(h * std_pos).expand({-1, 4}), (h * std_vel).expand({-1, 4})}, 1);
  sd.select(1, 2).fill_(1e-2);
  sd.select(1, 6).fill_(1e-5);
  auto process_noise = torch::diag_embed(sd.pow(2));
  auto cov = motion.matmul(track_cov).matmul(motion.t()) + process_noise;
  return {mean, cov};
}

int main() {
  auto mean = torch::tensor({{100.f, 50.f, 0.5f, 80.f, 2.f, -1.f, 0.f, 0.5f},
                             {10.f, 10.f, 1.0f, 40.f, 0.f, 3.f, 0.f, 0.f}});
  auto cov = torch::eye(8).expand({2, 8, 8}).clone();
  auto stored = mean.clone();
  torch::Tensor pred_mean, pred_cov;
  std::tie(pred_mean, pred_cov) = multi_predict(mean, cov, 1.0);
  std::cout << "predicted:\n" << pred_mean << "\n";
  std::cout << "cx " << pred_mean[0][0].item<float>() << " (expected 102), cy "
            << pred_mean[1][1].item<float>() << " (expected 13)\n";
  std::cout << "track state untouched: " << std::boolalpha << mean.equal(stored) << "\n";
  return 0;
}
