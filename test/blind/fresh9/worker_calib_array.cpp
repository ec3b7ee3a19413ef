// CASE: a multi-camera rig hands a std::array of per-camera keypoint tensors,
//       captured by copy into a reporter thread's lambda, and then converts the
//       same keypoints from pixels to normalised image coordinates in place
//       through a helper before the reporter reads them
// SOURCE: the kind of code in libtorch multi-view calibration / bundle
//         adjustment tools (a reprojection-error reporter thread beside the
//         solver); discuss.pytorch.org threads on "copying a tensor into a
//         lambda does not copy its data"
// KIND: bug
// HARM: the reporter's mean pixel coordinate per camera is the normalised one
//       (around 0) instead of the pixel one (around 300)
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

// Pixel -> normalised image coordinates, in place (the solver works in these).
void to_normalized_(torch::Tensor& kp, const Intrinsics& K) {
  kp.select(1, 0).sub_(K.cx).div_(K.fx);  // BUG(libtorch-worker-missing-clone)
  kp.select(1, 1).sub_(K.cy).div_(K.fy);  // BUG(libtorch-worker-missing-clone)
}

}  // namespace rig

int main() {
  torch::manual_seed(0);
  rig::Views views;
  for (auto& v : views) v = torch::rand({64, 2}) * 600;

  std::array<double, 3> expected{};
  for (size_t i = 0; i < views.size(); ++i) expected[i] = views[i].mean().item<double>();

  std::promise<void> solver_ready;
  std::shared_future<void> gate = solver_ready.get_future().share();
  std::array<double, 3> reported{};

  std::vector<std::thread> reporters;
  // the reporter gets "its own" array of keypoints
  reporters.emplace_back([views, gate, &reported] {  // BUG(libtorch-worker-missing-clone)
    gate.wait();
    for (size_t i = 0; i < views.size(); ++i) reported[i] = views[i].mean().item<double>();
  });

  const rig::Intrinsics K{520.0, 520.0, 320.0, 240.0};
  for (auto& v : views) rig::to_normalized_(v, K);  // BUG(libtorch-worker-missing-clone)
  solver_ready.set_value();
  for (auto& t : reporters) t.join();

  for (size_t i = 0; i < views.size(); ++i) {
    std::cout << "camera " << i << ": expected mean " << expected[i] << ", reported "
              << reported[i] << "\n";
    if (std::abs(reported[i] - expected[i]) > 1e-3) {
      std::cout << "HARM: reporter saw normalised keypoints of camera " << i << " (mean "
                << reported[i] << " instead of " << expected[i] << ")\n";
      break;
    }
  }
  return 0;
}
