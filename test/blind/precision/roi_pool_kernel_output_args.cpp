// CASE: an mmcv-style RoI max-pool CPU kernel fills the output and argmax
//       tensors it is handed, bin by bin, through select/narrow views; the
//       launcher allocates both with at::zeros just before the call and
//       returns them
// SOURCE: the kind of code in mmcv/ops/csrc/pytorch/cpu/roi_pool*.cpp and
//         torchvision/csrc/ops/cpu/roi_pool_kernel.cpp (kernel + launcher)
// KIND: near-miss
// WHY-OK: output and argmax are fresh buffers the launcher allocated for this
//         call; filling them is the kernel's whole job
#include <torch/torch.h>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <tuple>

using at::Tensor;

void roi_pool_forward_impl(Tensor input, Tensor rois, Tensor output,
                           Tensor argmax, int pooled_height, int pooled_width,
                           float spatial_scale) {
  const int64_t num_rois = rois.size(0);
  const int64_t height = input.size(2), width = input.size(3);
  auto rois_a = rois.accessor<float, 2>();
  for (int64_t n = 0; n < num_rois; ++n) {
    const auto batch = static_cast<int64_t>(rois_a[n][0]);
    const int64_t x1 = std::lround(rois_a[n][1] * spatial_scale);
    const int64_t y1 = std::lround(rois_a[n][2] * spatial_scale);
    const int64_t x2 = std::lround(rois_a[n][3] * spatial_scale);
    const int64_t y2 = std::lround(rois_a[n][4] * spatial_scale);
    const double bin_h = std::max<int64_t>(y2 - y1 + 1, 1) / double(pooled_height);
    const double bin_w = std::max<int64_t>(x2 - x1 + 1, 1) / double(pooled_width);
    Tensor feat = input[batch];  // C x H x W
    Tensor out_roi = output[n];
    Tensor arg_roi = argmax[n];
    for (int ph = 0; ph < pooled_height; ++ph) {
      int64_t hs = std::clamp<int64_t>(std::floor(ph * bin_h) + y1, 0, height);
      int64_t he = std::clamp<int64_t>(std::ceil((ph + 1) * bin_h) + y1, 0, height);
      for (int pw = 0; pw < pooled_width; ++pw) {
        int64_t ws = std::clamp<int64_t>(std::floor(pw * bin_w) + x1, 0, width);
        int64_t we = std::clamp<int64_t>(std::ceil((pw + 1) * bin_w) + x1, 0, width);
        if (he <= hs || we <= ws) continue;  // empty bin stays 0, argmax -1
        Tensor bin = feat.narrow(1, hs, he - hs).narrow(2, ws, we - ws);
        auto best = bin.flatten(1).max(1);
        out_roi.select(1, ph).select(1, pw).copy_(std::get<0>(best));
        arg_roi.select(1, ph).select(1, pw).copy_(std::get<1>(best).to(at::kInt));
      }
    }
  }
}

std::tuple<Tensor, Tensor> roi_pool_forward(const Tensor& input, const Tensor& rois,
                                            int pooled_height, int pooled_width,
                                            float spatial_scale) {
  TORCH_CHECK(input.dim() == 4 && rois.size(1) == 5, "bad shapes");
  auto output = at::zeros({rois.size(0), input.size(1), pooled_height, pooled_width},
                          input.options());
  auto argmax = at::full({rois.size(0), input.size(1), pooled_height, pooled_width},
                         -1, input.options().dtype(at::kInt));
  roi_pool_forward_impl(input, rois, output, argmax, pooled_height, pooled_width,
                        spatial_scale);
  return std::make_tuple(output, argmax);
}

int main() {
  torch::manual_seed(0);
  auto features = torch::rand({2, 3, 16, 16});
  auto rois = torch::tensor({{0.f, 0.f, 0.f, 15.f, 15.f},
                             {1.f, 4.f, 4.f, 11.f, 9.f}});
  auto before = features.clone();
  Tensor pooled, argmax;
  std::tie(pooled, argmax) = roi_pool_forward(features, rois, 2, 2, 1.0f);
  // The whole-image RoI's top-left bin is the max of the top-left quadrant.
  double expect = features[0].narrow(1, 0, 8).narrow(2, 0, 8).amax({1, 2})[1].item<double>();
  std::cout << "pooled " << pooled.sizes() << " bin(0,1,0,0)="
            << pooled[0][1][0][0].item<double>() << " expected " << expect << "\n";
  std::cout << "features untouched: " << std::boolalpha << features.equal(before) << "\n";
  return 0;
}
