// CASE: a re-identification head's `l2_normalized_embeddings(const
//       at::Tensor& feats)` flattens the (N, C, H, W) backbone features with
//       flatten(1) and divides the result by its row norms in place; the
//       backbone output is contiguous, so flatten returns a view and the
//       division rewrites the caller's feature map, which the detection head
//       reads next
// SOURCE: the kind of code in libtorch ports of FairMOT / JDE (shared
//         backbone feeding a detection head and an embedding head);
//         flatten/reshape return a view when the layout allows it
// KIND: bug
// HARM: the detection head sees L2-normalised features instead of the
//       backbone's, and its scores change
#include <torch/torch.h>
#include <iostream>

at::Tensor l2_normalized_embeddings(const at::Tensor& feats) {
  auto emb = feats.flatten(1); // BUG(libtorch-inplace-on-view)
  emb.div_(emb.norm(2, /*dim=*/1, /*keepdim=*/true).clamp_min(1e-12)); // BUG(libtorch-inplace-on-view)
  return emb;
}

at::Tensor detection_scores(const at::Tensor& feats, const at::Tensor& w) {
  return (feats * w.view({1, -1, 1, 1})).sum(1).sigmoid();  // (N, H, W) objectness
}

int main() {
  torch::manual_seed(0);
  auto backbone_out = torch::randn({2, 4, 3, 3}) * 5;  // contiguous, as conv outputs are
  auto w = torch::randn({4});
  auto expected = detection_scores(backbone_out.clone(), w);

  auto emb = l2_normalized_embeddings(backbone_out);
  auto scores = detection_scores(backbone_out, w);
  std::cout << "embedding " << emb.sizes() << " norm " << emb[0].norm().item<float>() << "\n";
  auto diff = (scores - expected).abs().max().item<float>();
  if (diff > 1e-4)
    std::cout << "HARM: the embedding head normalised the shared feature map in place; "
                 "detection scores moved by up to " << diff << "\n";
  return 0;
}
