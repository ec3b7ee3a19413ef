// CASE: a multi-object tracker (SORT-style Kalman filter in libtorch) keeps
//       the prior variance of a track as P.diagonal() before the measurement
//       update, then reports how much the update reduced the uncertainty;
//       the update rewrites P in place, so the kept diagonal is the posterior
// SOURCE: libtorch ports of SORT/DeepSORT trackers (Kalman predict/update on
//         tensors); Kalman filters in PyTorch, e.g.
//         https://github.com/mone27/meteo_imp
// KIND: bug
// HARM: the reported uncertainty reduction is zero
#include <torch/torch.h>

#include <iostream>

struct Track {
  torch::Tensor x;  // state: position and velocity in 2-D
  torch::Tensor P;  // covariance
};

void kalman_update(Track& track, const torch::Tensor& z, const torch::Tensor& H, const torch::Tensor& R) {
  auto S = H.mm(track.P).mm(H.t()) + R;
  auto K = track.P.mm(H.t()).mm(torch::inverse(S));
  track.x.add_(K.mm(z - H.mm(track.x)));
  track.P.sub_(K.mm(H).mm(track.P));  // BUG(libtorch-inplace-on-view)
}

int main() {
  Track track{torch::zeros({4, 1}), torch::eye(4) * 10.0};
  auto H = torch::tensor({{1.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f, 0.0f}});
  auto R = torch::eye(2) * 1.0;
  auto z = torch::tensor({{3.0f}, {-1.0f}});

  auto expected_prior = track.P.diagonal().clone();
  auto prior_var = track.P.diagonal();  // BUG(libtorch-inplace-on-view)
  kalman_update(track, z, H, R);  // BUG(libtorch-inplace-on-view)
  auto reduction = (prior_var - track.P.diagonal()).sum().item<double>();  // BUG(libtorch-inplace-on-view)

  auto expected = (expected_prior - track.P.diagonal()).sum().item<double>();
  std::cout << "state " << track.x.view({-1}) << "\nuncertainty reduction reported " << reduction
            << ", actual " << expected << "\n";
  if (std::abs(reduction - expected) > 1e-6)
    std::cout << "HARM: the tracker reports an uncertainty reduction of " << reduction << " instead of "
              << expected << "\n";
  return 0;
}
