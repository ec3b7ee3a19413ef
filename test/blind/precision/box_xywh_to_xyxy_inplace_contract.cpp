// CASE: a COCO loader's `xywh_to_xyxy_` converts boxes in place (x2 = x + w,
//       y2 = y + h through select(-1, k) views, then a direct clamp_ of the
//       whole tensor) and returns the tensor it updated; every caller passes
//       a fresh tensor (the parser's result, a .to(kFloat) of int data, a
//       clone) and uses only the returned value
// SOURCE: the kind of code in detection data pipelines (torchvision
//         box_convert / detectron2 BoxMode.convert, YOLO xywh2xyxy) written
//         as an in-place libtorch helper to avoid a copy per image
// KIND: near-miss
// WHY-OK: converting its argument in place is the helper's documented
//         contract, and no caller keeps or reads the pre-conversion tensor
#include <torch/torch.h>
#include <iostream>
#include <vector>

// Converts (x, y, w, h) boxes to (x1, y1, x2, y2) in place; returns `boxes`.
torch::Tensor xywh_to_xyxy_(torch::Tensor boxes, double img_w, double img_h) {
  boxes.select(-1, 2) += boxes.select(-1, 0);
  boxes.select(-1, 3) += boxes.select(-1, 1);
  boxes.clamp_min_(0);
  boxes.select(-1, 2).clamp_max_(img_w);
  boxes.select(-1, 3).clamp_max_(img_h);
  return boxes;
}

// Stand-in for the JSON annotation parser: builds a new tensor per image.
torch::Tensor parse_annotations(const std::vector<std::vector<float>>& anns) {
  auto out = torch::empty({static_cast<int64_t>(anns.size()), 4});
  for (size_t i = 0; i < anns.size(); ++i)
    out[i] = torch::tensor(anns[i]);
  return out;
}

int main() {
  auto gt = xywh_to_xyxy_(parse_annotations({{10, 20, 30, 40}, {600, 5, 100, 10}}), 640, 480);
  std::cout << "gt xyxy:\n" << gt << "\n";

  // Integer boxes from a label file: .to(kFloat) makes a new tensor.
  auto raw = torch::tensor({{1, 2, 3, 4}}, torch::kInt);
  auto labels = xywh_to_xyxy_(raw.to(torch::kFloat), 640, 480);
  std::cout << "labels: " << labels << "  raw still xywh: " << raw[0][2].item<int>() << "\n";

  // Network head output is kept for the loss, so convert a clone of it.
  auto head = torch::tensor({{5.f, 5.f, 10.f, 10.f}});
  auto decoded = xywh_to_xyxy_(head.clone(), 640, 480);
  std::cout << "decoded x2=" << decoded[0][2].item<float>()
            << " head w=" << head[0][2].item<float>() << "\n";
  return 0;
}
