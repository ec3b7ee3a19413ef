// CASE: a batched HMM forward pass keeps the whole trellis of scaled
//       forward variables for posterior decoding and fills it row by row
//       with torch::bmm_out(trellis[t], trellis[t - 1], trans)
// SOURCE: the kind of code from HMM alignment in speech and activity
//         recognition; pytorch/pytorch#48900 (out= aliasing an input)
// KIND: near-miss
// WHY-OK: the output row and the input row are different frames of the
//         trellis, disjoint regions of one buffer, so no input element is
//         overwritten while the product reads it
#include <torch/torch.h>

#include <iostream>

struct HmmBatch {
  torch::Tensor init, trans, emission;  // [B,1,S], [B,S,S], [T,B,S]
};

HmmBatch make_batch(int64_t B, int64_t S, int64_t T) {
  HmmBatch h;
  h.init = torch::softmax(torch::randn({B, 1, S}), -1);
  auto stay = torch::rand({B, S, 1}) * 0.5 + 0.4;
  h.trans = torch::softmax(torch::randn({B, S, S}), -1) * (1 - stay) + torch::eye(S).unsqueeze(0) * stay;
  h.trans = h.trans / h.trans.sum(-1, true);
  h.emission = torch::rand({T, B, S}) + 0.05;
  return h;
}

std::pair<torch::Tensor, torch::Tensor> forward_trellis(const HmmBatch& h) {
  const int64_t T = h.emission.size(0), B = h.init.size(0), S = h.init.size(2);
  auto trellis = torch::empty({T, B, 1, S});
  auto loglik = torch::zeros({B});
  trellis[0].copy_(h.init * h.emission[0].unsqueeze(1));
  for (int64_t t = 0; t < T; ++t) {
    auto row = trellis[t];
    if (t > 0) {
      torch::bmm_out(row, trellis[t - 1], h.trans);
      row.mul_(h.emission[t].unsqueeze(1));
    }
    auto norm = row.sum(-1, true);
    row.div_(norm);
    loglik += norm.log().view({-1});
  }
  return {trellis, loglik};
}

torch::Tensor reference_loglik(const HmmBatch& h) {
  auto alpha = h.init * h.emission[0].unsqueeze(1);
  auto loglik = alpha.sum(-1).log().view({-1});
  alpha = alpha / alpha.sum(-1, true);
  for (int64_t t = 1; t < h.emission.size(0); ++t) {
    alpha = torch::bmm(alpha, h.trans) * h.emission[t].unsqueeze(1);
    auto norm = alpha.sum(-1, true);
    alpha = alpha / norm;
    loglik = loglik + norm.log().view({-1});
  }
  return loglik;
}

int main() {
  torch::manual_seed(97);
  auto batch = make_batch(/*B=*/6, /*S=*/5, /*T=*/40);
  auto [trellis, loglik] = forward_trellis(batch);
  auto want = reference_loglik(batch);
  auto map_states = trellis.squeeze(2).argmax(-1);  // filtered MAP state per frame
  std::cout << "log-likelihoods " << loglik.slice(0, 0, 3) << "\nreference " << want.slice(0, 0, 3)
            << "\nmax error " << (loglik - want).abs().max().item<double>()
            << ", MAP states of sequence 0 at t<8: " << map_states.select(1, 0).slice(0, 0, 8) << "\n";
  return 0;
}
