// CASE: a detector hands the network-size frame and its boxes tensor to a
//       painter thread through std::thread's argument list, then rescales the
//       same boxes in place to camera resolution for the tracker
// SOURCE: the kind of code in libtorch YOLO demos (overlay drawn on a side
//       thread, boxes scaled back with an in-place scale_coords / mul_(gain))
// KIND: bug
// HARM: the painter receives camera-resolution boxes for a 320x320 canvas and
//       has to drop boxes that fall outside it
#include <torch/torch.h>

#include <cstdio>
#include <future>
#include <thread>
#include <vector>

namespace det {

constexpr int64_t kNet = 320;

struct Detections {
  torch::Tensor boxes;   // [N, 4] x1 y1 x2 y2 in network pixels
  torch::Tensor scores;  // [N]
};

class BoxHead : public torch::nn::Module {
 public:
  explicit BoxHead(int64_t anchors)
      : anchors_(anchors),
        fc_(register_module("fc", torch::nn::Linear(3 * 8 * 8, anchors * 5))) {}

  Detections detect(const torch::Tensor& image) {
    torch::NoGradGuard no_grad;
    const auto pooled = torch::adaptive_avg_pool2d(image.unsqueeze(0), {8, 8}).flatten();
    const auto raw = torch::sigmoid(fc_(pooled * 40.0)).view({anchors_, 5});
    const auto corners = raw.narrow(1, 0, 4).view({anchors_, 2, 2}) * kNet;
    const auto lo = std::get<0>(corners.min(1));
    const auto hi = std::get<0>(corners.max(1));
    return {torch::cat({lo, hi}, 1), raw.select(1, 4)};
  }

 private:
  int64_t anchors_;
  torch::nn::Linear fc_;
};

}  // namespace det

namespace viz {

// Draws box outlines onto the canvas once the display is ready for a frame.
void paint(torch::Tensor canvas, torch::Tensor boxes, std::shared_future<void> vsync,
           std::promise<int64_t> dropped) {
  vsync.wait();
  const auto h = canvas.size(1), w = canvas.size(2);
  const auto b = boxes.round().to(torch::kLong);
  int64_t outside = 0;
  for (int64_t i = 0; i < b.size(0); ++i) {
    const auto x1 = b[i][0].item<int64_t>(), y1 = b[i][1].item<int64_t>();
    const auto x2 = b[i][2].item<int64_t>(), y2 = b[i][3].item<int64_t>();
    if (x2 > w || y2 > h) {
      ++outside;
      continue;
    }
    canvas.select(0, 1).slice(0, y1, y2).slice(1, x1, std::min(x1 + 1, w)).fill_(1.0);
    canvas.select(0, 1).slice(0, y1, std::min(y1 + 1, h)).slice(1, x1, x2).fill_(1.0);
  }
  dropped.set_value(outside);
}

}  // namespace viz

int main() {
  torch::manual_seed(3);
  det::BoxHead head(6);
  const auto camera = torch::rand({3, 720, 1280});
  const auto net_in = torch::nn::functional::interpolate(
                          camera.unsqueeze(0),
                          torch::nn::functional::InterpolateFuncOptions()
                              .size(std::vector<int64_t>{det::kNet, det::kNet})
                              .mode(torch::kBilinear)
                              .align_corners(false))
                          .squeeze(0);
  auto dets = head.detect(net_in);

  std::promise<void> vsync;
  std::promise<int64_t> dropped;
  auto dropped_count = dropped.get_future();
  std::thread painter(viz::paint, net_in, dets.boxes, vsync.get_future().share(),  // BUG(libtorch-worker-missing-clone)
                      std::move(dropped));

  // The tracker works in camera pixels.
  const auto gain = torch::tensor({1280.0f / det::kNet, 720.0f / det::kNet,
                                   1280.0f / det::kNet, 720.0f / det::kNet});
  dets.boxes.mul_(gain);  // BUG(libtorch-worker-missing-clone)
  std::vector<torch::Tensor> tracks{dets.boxes};

  vsync.set_value();
  painter.join();
  const auto outside = dropped_count.get();
  std::printf("tracker got %zu track sets; painter dropped %ld of %ld boxes\n", tracks.size(),
              static_cast<long>(outside), static_cast<long>(dets.boxes.size(0)));
  if (outside > 0) {
    std::printf("HARM: painter got camera-space boxes for a %ldx%ld canvas and dropped %ld\n",
                static_cast<long>(det::kNet), static_cast<long>(det::kNet),
                static_cast<long>(outside));
  }
  return 0;
}
