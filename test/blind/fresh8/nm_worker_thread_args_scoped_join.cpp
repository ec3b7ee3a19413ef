// CASE: a detector hands the network-size frame and its boxes tensor to a
//       painter thread through std::thread's argument list, and rescales the
//       boxes in place to camera resolution for the tracker
// SOURCE: the kind of code in libtorch YOLO demos (overlay drawn on a side
//       thread, boxes scaled back in place with mul_(gain))
// KIND: near-miss
// WHY-OK: the painter is owned by a joining RAII wrapper whose scope closes
//       before the rescale, so the thread has finished reading the boxes
//       when mul_ writes them
#include <torch/torch.h>

#include <cstdio>
#include <future>
#include <thread>
#include <vector>

namespace det {

constexpr int64_t kNet = 320;

struct Detections {
  torch::Tensor boxes;
  torch::Tensor scores;
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
    return {torch::cat({std::get<0>(corners.min(1)), std::get<0>(corners.max(1))}, 1),
            raw.select(1, 4)};
  }

 private:
  int64_t anchors_;
  torch::nn::Linear fc_;
};

}  // namespace det

namespace util {

class JoiningThread {
 public:
  explicit JoiningThread(std::thread t) : t_(std::move(t)) {}
  JoiningThread(const JoiningThread&) = delete;
  JoiningThread& operator=(const JoiningThread&) = delete;
  ~JoiningThread() {
    if (t_.joinable()) t_.join();
  }

 private:
  std::thread t_;
};

}  // namespace util

namespace viz {

void paint(torch::Tensor canvas, torch::Tensor boxes, std::promise<int64_t> dropped) {
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

  std::promise<int64_t> dropped;
  auto dropped_count = dropped.get_future();
  {
    util::JoiningThread painter(std::thread(viz::paint, net_in, dets.boxes, std::move(dropped)));
  }

  const auto gain = torch::tensor({1280.0f / det::kNet, 720.0f / det::kNet,
                                   1280.0f / det::kNet, 720.0f / det::kNet});
  dets.boxes.mul_(gain);
  std::vector<torch::Tensor> tracks{dets.boxes};
  std::printf("tracker got %zu track sets; painter dropped %ld of %ld boxes\n", tracks.size(),
              static_cast<long>(dropped_count.get()), static_cast<long>(dets.boxes.size(0)));
  return 0;
}
