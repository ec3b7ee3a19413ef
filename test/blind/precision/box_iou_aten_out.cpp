// CASE: an ATen-style `box_iou_out(out, boxes1, boxes2)` writes the IoU matrix
//       row by row into the at::Tensor& it is handed and returns it; the
//       functional `box_iou` allocates the result with at::empty and calls it,
//       and a tracker reuses one preallocated matrix across frames
// SOURCE: ATen's foo_out(out, ...) convention (aten/src/ATen/native/*.cpp,
//         e.g. addmm_out / cat_out) as mirrored by torchvision's box_iou and
//         mmcv's bbox_overlaps(bboxes1, bboxes2, ious, mode, aligned, offset)
// KIND: near-miss
// WHY-OK: `out` is the result argument of an _out function: callers hand in
//         a buffer allocated for the result and read it afterwards on purpose
#include <torch/torch.h>
#include <iostream>

at::Tensor box_area(const at::Tensor& b) {
  return (b.select(1, 2) - b.select(1, 0)).clamp_min(0) *
         (b.select(1, 3) - b.select(1, 1)).clamp_min(0);
}

at::Tensor& box_iou_out(at::Tensor& out, const at::Tensor& boxes1,
                        const at::Tensor& boxes2) {
  TORCH_CHECK(out.size(0) == boxes1.size(0) && out.size(1) == boxes2.size(0),
              "box_iou_out: out has the wrong shape");
  const auto area2 = box_area(boxes2);
  for (int64_t i = 0; i < boxes1.size(0); ++i) {
    const auto b = boxes1[i];
    auto lt_x = at::max(boxes2.select(1, 0), b[0]);
    auto lt_y = at::max(boxes2.select(1, 1), b[1]);
    auto rb_x = at::min(boxes2.select(1, 2), b[2]);
    auto rb_y = at::min(boxes2.select(1, 3), b[3]);
    auto inter = (rb_x - lt_x).clamp_min(0) * (rb_y - lt_y).clamp_min(0);
    auto area1 = (b[2] - b[0]) * (b[3] - b[1]);
    out.select(0, i).copy_(inter / (area1 + area2 - inter));
  }
  return out;
}

at::Tensor box_iou(const at::Tensor& boxes1, const at::Tensor& boxes2) {
  auto result = at::empty({boxes1.size(0), boxes2.size(0)}, boxes1.options());
  box_iou_out(result, boxes1, boxes2);
  return result;
}

int main() {
  auto gt = torch::tensor({{0.f, 0.f, 10.f, 10.f}, {20.f, 20.f, 30.f, 40.f}});
  auto det = torch::tensor({{0.f, 0.f, 10.f, 5.f}, {5.f, 5.f, 15.f, 15.f},
                            {20.f, 20.f, 30.f, 40.f}});
  auto iou = box_iou(gt, det);
  std::cout << "iou[0][0]=" << iou[0][0].item<float>()       // 0.5
            << " iou[1][2]=" << iou[1][2].item<float>() << "\n";  // 1

  // A tracker keeps one matrix and refills it every frame.
  auto cost = at::empty({gt.size(0), det.size(0)});
  for (int frame = 0; frame < 3; ++frame) {
    auto moved = det + frame;
    box_iou_out(cost, gt, moved);
    auto best = cost.argmax(1);
    std::cout << "frame " << frame << " best match for gt0: " << best[0].item<int64_t>()
              << " (iou " << cost[0][best[0].item<int64_t>()].item<float>() << ")\n";
  }
  return 0;
}
