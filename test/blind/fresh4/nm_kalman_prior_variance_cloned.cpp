// CASE: a multi-object tracker (SORT-style Kalman filter in libtorch) saves
//       the prior variance of a track before the measurement update, which
//       rewrites P in place, and reports how much the update reduced the
//       uncertainty
// SOURCE: libtorch ports of SORT/DeepSORT trackers (Kalman predict/update on
//         tensors)
// KIND: near-miss
// WHY-OK: the prior variance is P.diagonal().clone(), a copy taken before
//         the in-place update
#include <torch/torch.h>

#include <iostream>

struct Track {
  torch::Tensor x;  // state: position and velocity in 2-D
  torch::Tensor P;  // covariance
};

void kalman_predict(Track& track, const torch::Tensor& F, const torch::Tensor& Q) {
  track.x = F.mm(track.x);
  track.P = F.mm(track.P).mm(F.t()) + Q;
}

void kalman_update(Track& track, const torch::Tensor& z, const torch::Tensor& H, const torch::Tensor& R) {
  auto S = H.mm(track.P).mm(H.t()) + R;
  auto K = track.P.mm(H.t()).mm(torch::inverse(S));
  track.x.add_(K.mm(z - H.mm(track.x)));
  track.P.sub_(K.mm(H).mm(track.P));
}

int main() {
  Track track{torch::zeros({4, 1}), torch::eye(4) * 10.0};
  auto F = torch::tensor({{1.0f, 0.0f, 1.0f, 0.0f},
                          {0.0f, 1.0f, 0.0f, 1.0f},
                          {0.0f, 0.0f, 1.0f, 0.0f},
                          {0.0f, 0.0f, 0.0f, 1.0f}});
  auto H = torch::tensor({{1.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f, 0.0f}});
  auto Q = torch::eye(4) * 0.01;
  auto R = torch::eye(2) * 1.0;

  for (const auto& z : {torch::tensor({{3.0f}, {-1.0f}}), torch::tensor({{4.1f}, {-1.9f}})}) {
    kalman_predict(track, F, Q);
    auto prior_var = track.P.diagonal().clone();
    kalman_update(track, z, H, R);
    auto reduction = (prior_var - track.P.diagonal()).sum().item<double>();
    std::cout << "uncertainty reduction " << reduction << "\n";
    if (reduction <= 0) std::cout << "HARM: no uncertainty reduction reported\n";
  }
  return 0;
}
