// CASE: a RetinaNet/FCOS-style post-process: sigmoid scores (a new tensor)
//       get their background column zeroed and low foreground scores masked
//       with `fg.masked_fill_(fg < thresh, 0)` through a narrow() view;
//       decoded boxes are built in an empty_like buffer via select(1, k)
//       writes, and degenerate rows are zeroed with index_put_({mask})
// SOURCE: the kind of code in detection deployment repos (mmdeploy /
//         TensorRT-free libtorch ports of torchvision's RetinaNet
//         postprocess_detections and BoxCoder.decode)
// KIND: near-miss
// WHY-OK: `scores` and `pred` are results this function computed; the mask
//         `fg < thresh` is a new bool tensor, not a view of `fg`; the network
//         outputs passed in are only read
#include <torch/torch.h>
#include <iostream>

torch::Tensor decode(const torch::Tensor& anchors, const torch::Tensor& deltas) {
  auto wa = anchors.select(1, 2) - anchors.select(1, 0);
  auto ha = anchors.select(1, 3) - anchors.select(1, 1);
  auto cx = anchors.select(1, 0) + 0.5 * wa + deltas.select(1, 0) * wa;
  auto cy = anchors.select(1, 1) + 0.5 * ha + deltas.select(1, 1) * ha;
  auto w = wa * deltas.select(1, 2).exp(), h = ha * deltas.select(1, 3).exp();
  auto pred = torch::empty_like(deltas);
  pred.select(1, 0).copy_(cx - 0.5 * w);
  pred.select(1, 1).copy_(cy - 0.5 * h);
  pred.select(1, 2).copy_(cx + 0.5 * w);
  pred.select(1, 3).copy_(cy + 0.5 * h);
  return pred;
}

std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> postprocess(
    const torch::Tensor& cls_logits, const torch::Tensor& box_deltas,
    const torch::Tensor& anchors, double score_thresh) {
  auto scores = cls_logits.sigmoid();
  scores.select(1, 0).zero_();  // class 0 is background
  auto fg = scores.narrow(1, 1, scores.size(1) - 1);
  fg.masked_fill_(fg < score_thresh, 0.0);
  auto boxes = decode(anchors, box_deltas);
  auto degenerate = (boxes.select(1, 2) <= boxes.select(1, 0)) |
                    (boxes.select(1, 3) <= boxes.select(1, 1));
  boxes.index_put_({degenerate}, 0.0);
  auto best = scores.max(1);
  auto keep = std::get<0>(best) > 0;
  return {boxes.index({keep}), std::get<0>(best).index({keep}), std::get<1>(best).index({keep})};
}

int main() {
  auto anchors = torch::tensor({{0.f, 0.f, 10.f, 10.f}, {10.f, 10.f, 30.f, 30.f},
                                {0.f, 0.f, 4.f, 4.f}});
  auto deltas = torch::zeros({3, 4});
  auto logits = torch::tensor({{5.f, -3.f, 2.f}, {0.f, 3.f, -1.f}, {0.f, -4.f, -4.f}});
  auto logits_before = logits.clone();
  auto [boxes, scores, labels] = postprocess(logits, deltas, anchors, 0.3);
  std::cout << "kept " << boxes.size(0) << " detections, labels " << labels
            << " scores " << scores << "\n";
  std::cout << "logits untouched: " << std::boolalpha << logits.equal(logits_before) << "\n";
  return 0;
}
