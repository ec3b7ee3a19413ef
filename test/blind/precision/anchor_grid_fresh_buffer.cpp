// CASE: a detectron2-style anchor generator allocates an (H, W, A, 4) buffer
//       with torch::empty, fills x1/y1 and x2/y2 through select(-1, k) and
//       index_put_({"...", Slice(2, 4)}) views of it, and returns it
//       flattened to (H*W*A, 4)
// SOURCE: the kind of code in detectron2/modeling/anchor_generator.py
//         (DefaultAnchorGenerator.grid_anchors) ported to C++ for a libtorch
//         inference server
// KIND: near-miss
// WHY-OK: every write goes through a view of a buffer this function
//         allocated a few lines above; nothing else can see it yet
#include <torch/torch.h>
#include <iostream>
#include <vector>

using namespace torch::indexing;

torch::Tensor cell_anchors(const std::vector<double>& sizes,
                           const std::vector<double>& ratios) {
  std::vector<float> wh;
  for (double s : sizes)
    for (double r : ratios) {
      wh.push_back(static_cast<float>(s / std::sqrt(r)));
      wh.push_back(static_cast<float>(s * std::sqrt(r)));
    }
  return torch::tensor(wh).view({-1, 2});  // (A, 2): width, height
}

torch::Tensor grid_anchors(const torch::Tensor& base_wh, int64_t grid_h, int64_t grid_w,
                           double stride) {
  const int64_t A = base_wh.size(0);
  auto anchors = torch::empty({grid_h, grid_w, A, 4});
  auto cx = (torch::arange(grid_w, torch::kFloat) + 0.5) * stride;  // (W)
  auto cy = (torch::arange(grid_h, torch::kFloat) + 0.5) * stride;  // (H)
  auto half_w = base_wh.select(1, 0) / 2;                            // (A)
  auto half_h = base_wh.select(1, 1) / 2;
  anchors.select(-1, 0).copy_(cx.view({1, grid_w, 1}) - half_w.view({1, 1, A}));
  anchors.select(-1, 1).copy_(cy.view({grid_h, 1, 1}) - half_h.view({1, 1, A}));
  // x2, y2 = x1, y1 + (w, h)
  anchors.index_put_({"...", Slice(2, 4)},
                     anchors.index({"...", Slice(0, 2)}) + base_wh.view({1, 1, A, 2}));
  return anchors.view({-1, 4});
}

int main() {
  auto base = cell_anchors({32.0, 64.0}, {0.5, 1.0, 2.0});
  auto anchors = grid_anchors(base, 4, 5, 16.0);
  std::cout << "anchors: " << anchors.sizes() << "\n";
  auto widths = anchors.select(1, 2) - anchors.select(1, 0);
  auto centres_x = (anchors.select(1, 2) + anchors.select(1, 0)) / 2;
  std::cout << "first anchor " << anchors[0] << "\n";
  std::cout << "width check: " << std::boolalpha
            << torch::allclose(widths.view({4, 5, -1})[2][3], base.select(1, 0)) << "\n";
  std::cout << "centre of cell (2,3): " << centres_x.view({4, 5, -1})[2][3][0].item<float>()
            << " (expected " << (3 + 0.5) * 16 << ")\n";
  return 0;
}
