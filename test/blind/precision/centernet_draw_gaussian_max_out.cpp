// CASE: a CenterNet target builder splats a Gaussian per object into a
//       heatmap with `at::maximum_out(region, region, gaussian * k)`, where
//       `region` is a narrow().narrow() window of the heatmap passed in, so
//       the out= argument is also the first input; the target builder
//       allocates the heatmap with torch::zeros and returns it
// SOURCE: the kind of code in xingyizhou/CenterNet src/lib/utils/image.py
//         (draw_umich_gaussian: np.maximum(masked_heatmap, masked_gaussian * k,
//         out=masked_heatmap)) as ported to libtorch data pipelines
// KIND: near-miss
// WHY-OK: maximum is elementwise and `out` is exactly the same window as its
//         input (full overlap, which PyTorch allows), and the heatmap is a
//         buffer its caller allocated to receive these splats
#include <torch/torch.h>
#include <algorithm>
#include <array>
#include <iostream>
#include <vector>

torch::Tensor gaussian2d(int64_t radius, double sigma) {
  auto r = torch::arange(-radius, radius + 1, torch::kFloat);
  auto g = torch::exp(-(r.view({-1, 1}).pow(2) + r.view({1, -1}).pow(2)) / (2 * sigma * sigma));
  return g.masked_fill_(g < 1e-7, 0);
}

torch::Tensor draw_gaussian(torch::Tensor heatmap, int64_t cx, int64_t cy, int64_t radius,
                            double k = 1.0) {
  auto gaussian = gaussian2d(radius, (2 * radius + 1) / 6.0);
  const int64_t h = heatmap.size(0), w = heatmap.size(1);
  const int64_t left = std::min(cx, radius), right = std::min(w - cx, radius + 1);
  const int64_t top = std::min(cy, radius), bottom = std::min(h - cy, radius + 1);
  auto region = heatmap.narrow(0, cy - top, top + bottom).narrow(1, cx - left, left + right);
  auto g = gaussian.narrow(0, radius - top, top + bottom).narrow(1, radius - left, left + right);
  at::maximum_out(region, region, g * k);
  return heatmap;
}

torch::Tensor build_heatmaps(const std::vector<std::array<int64_t, 3>>& objects,
                             int64_t num_classes, int64_t h, int64_t w) {
  auto hm = torch::zeros({num_classes, h, w});
  for (const auto& o : objects)  // class, cx, cy
    draw_gaussian(hm[o[0]], o[1], o[2], /*radius=*/2);
  return hm;
}

int main() {
  auto hm = build_heatmaps({{0, 3, 3}, {0, 4, 3}, {1, 0, 7}}, 2, 8, 8);
  std::cout << "peaks: " << hm[0][3][3].item<float>() << " " << hm[0][3][4].item<float>()
            << " " << hm[1][7][0].item<float>() << " (all 1)\n";
  std::cout << "overlap keeps the max, not the sum: " << std::boolalpha
            << (hm.max().item<float>() == 1.0f) << "\n";
  return 0;
}
