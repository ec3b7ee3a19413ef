// CASE: a DETR-style target encoder converts ground-truth boxes to
//       (cx, cy, w, h) with an in-place helper `xyxy_to_cxcywh_` (writes
//       through select(-1, k) views and returns its argument); the matcher
//       passes the dataset's live `gt_boxes` to it and afterwards still
//       computes the IoU cost from `gt_boxes`, assuming they are xyxy
// SOURCE: the kind of code in libtorch ports of facebookresearch/detr
//         (util/box_ops.py box_xyxy_to_cxcywh + HungarianMatcher), where the
//         Python original is out of place
// KIND: bug
// HARM: after the call `gt_boxes` holds (cx, cy, w, h), so the IoU cost is
//       computed from wrong boxes and a perfect prediction gets IoU < 1
#include <torch/torch.h>
#include <iostream>

// Converts (x1, y1, x2, y2) to (cx, cy, w, h) in place; returns `b`.
torch::Tensor xyxy_to_cxcywh_(torch::Tensor b) {
  b.select(-1, 2).sub_(b.select(-1, 0)); // BUG(libtorch-inplace-on-view)
  b.select(-1, 3).sub_(b.select(-1, 1)); // BUG(libtorch-inplace-on-view)
  b.select(-1, 0).add_(b.select(-1, 2) / 2); // BUG(libtorch-inplace-on-view)
  b.select(-1, 1).add_(b.select(-1, 3) / 2); // BUG(libtorch-inplace-on-view)
  return b;
}

torch::Tensor pairwise_iou(const torch::Tensor& a, const torch::Tensor& b) {  // xyxy
  auto lt = torch::max(a.unsqueeze(1).narrow(-1, 0, 2), b.unsqueeze(0).narrow(-1, 0, 2));
  auto rb = torch::min(a.unsqueeze(1).narrow(-1, 2, 2), b.unsqueeze(0).narrow(-1, 2, 2));
  auto inter = (rb - lt).clamp_min(0).prod(-1);
  auto area = [](const torch::Tensor& x) { return (x.select(-1, 2) - x.select(-1, 0)) * (x.select(-1, 3) - x.select(-1, 1)); };
  return inter / (area(a).unsqueeze(1) + area(b).unsqueeze(0) - inter);
}

torch::Tensor matching_cost(const torch::Tensor& pred_xyxy, const torch::Tensor& pred_cxcywh,
                            torch::Tensor gt_boxes) {
  auto gt_cxcywh = xyxy_to_cxcywh_(gt_boxes); // BUG(libtorch-inplace-on-view)
  auto l1 = torch::cdist(pred_cxcywh, gt_cxcywh, 1);
  auto giou_like = -pairwise_iou(pred_xyxy, gt_boxes);
  return 5 * l1 + 2 * giou_like;
}

int main() {
  auto gt_boxes = torch::tensor({{10.f, 10.f, 50.f, 30.f}, {60.f, 20.f, 90.f, 80.f}});
  auto pred_xyxy = gt_boxes.clone();  // a perfect prediction
  auto pred_cxcywh = torch::tensor({{30.f, 20.f, 40.f, 20.f}, {75.f, 50.f, 30.f, 60.f}});
  auto cost = matching_cost(pred_xyxy, pred_cxcywh, gt_boxes);
  auto diag_iou = -(cost.diagonal() / 2);  // l1 part is 0 on the diagonal
  std::cout << "IoU of perfect predictions: " << diag_iou << "\n";
  if ((diag_iou < 0.999).any().item<bool>())
    std::cout << "HARM: gt_boxes were converted to cxcywh in place; the IoU of a perfect "
                 "prediction is " << diag_iou[0].item<float>() + 0.0f << " instead of 1\n";
  return 0;
}
