// CASE: a multi-camera rig hands a std::array of per-camera keypoint tensors,
//       captured by copy into a reporter thread's lambda, and converts them to
//       normalised image coordinates in place through a helper only after the
//       reporter has been joined
// SOURCE: the kind of code in libtorch multi-view calibration / bundle
//         adjustment tools (a reprojection-error reporter thread beside the
//         solver)
// KIND: near-miss
// WHY-OK: every reporter thread is joined before the in-place conversion, so
//         no other thread can still read the shared keypoint storage
#include <torch/torch.h>

#include <array>
#include <cmath>
#include <future>
#include <iostream>
#include <thread>
#include <vector>

namespace rig {

struct Intrinsics {
  double fx, fy, cx, cy;
};

using Views = std::array<torch::Tensor, 3>;

void to_normalized_(torch::Tensor& kp, const Intrinsics& K) {
  kp.select(1, 0).sub_(K.cx).div_(K.fx);
  kp.select(1, 1).sub_(K.cy).div_(K.fy);
}

}  // namespace rig

int main() {
  torch::manual_seed(0);
  rig::Views views;
  for (auto& v : views) v = torch::rand({64, 2}) * 600;

  std::array<double, 3> expected{};
  for (size_t i = 0; i < views.size(); ++i) expected[i] = views[i].mean().item<double>();

  std::promise<void> frames_captured;
  std::shared_future<void> gate = frames_captured.get_future().share();
  std::array<double, 3> reported{};

  std::vector<std::thread> reporters;
  reporters.emplace_back([views, gate, &reported] {
    gate.wait();
    for (size_t i = 0; i < views.size(); ++i) reported[i] = views[i].mean().item<double>();
  });

  frames_captured.set_value();
  for (auto& t : reporters) t.join();  // the reporter is done with the pixels

  const rig::Intrinsics K{520.0, 520.0, 320.0, 240.0};
  for (auto& v : views) rig::to_normalized_(v, K);

  for (size_t i = 0; i < views.size(); ++i) {
    std::cout << "camera " << i << ": expected mean " << expected[i] << ", reported "
              << reported[i] << ", solver mean " << views[i].mean().item<double>() << "\n";
    if (std::abs(reported[i] - expected[i]) > 1e-3)
      std::cout << "HARM: reporter saw normalised keypoints of camera " << i << "\n";
  }
  return 0;
}
