// CASE: a batched HMM forward pass (per-sequence transition matrices for a
//       duration-dependent model) propagates the scaled forward variables
//       with torch::bmm_out(alpha, alpha, trans) to avoid an allocation per
//       frame
// SOURCE: the kind of code from HMM/CTC-style alignment in speech and
//         activity recognition; pytorch/pytorch#48900 (addmm with out=
//         aliasing an input returns an incorrect result)
// KIND: bug
// HARM: the log-likelihoods differ from the out-of-place computation
#include <torch/torch.h>

#include <iostream>

struct HmmBatch {
  torch::Tensor init;      // [B, 1, S]
  torch::Tensor trans;     // [B, S, S], rows sum to one
  torch::Tensor emission;  // [T, B, S] likelihoods p(x_t | s)
};

HmmBatch make_batch(int64_t B, int64_t S, int64_t T) {
  HmmBatch h;
  h.init = torch::softmax(torch::randn({B, 1, S}), -1);
  auto stay = torch::rand({B, S, 1}) * 0.5 + 0.4;
  auto move = torch::softmax(torch::randn({B, S, S}), -1) * (1 - stay);
  h.trans = move + torch::eye(S).unsqueeze(0) * stay;
  h.trans = h.trans / h.trans.sum(-1, true);
  h.emission = torch::rand({T, B, S}) + 0.05;
  return h;
}

torch::Tensor forward_loglik(const HmmBatch& h) {
  auto alpha = h.init * h.emission[0].unsqueeze(1);
  auto norm = alpha.sum(-1, true);
  alpha.div_(norm);
  auto loglik = norm.log().view({-1});
  for (int64_t t = 1; t < h.emission.size(0); ++t) {
    torch::bmm_out(alpha, alpha, h.trans);                       // BUG(libtorch-overlapping-inplace)
    alpha.mul_(h.emission[t].unsqueeze(1));
    norm = alpha.sum(-1, true);
    alpha.div_(norm);
    loglik += norm.log().view({-1});
  }
  return loglik;
}

torch::Tensor forward_loglik_reference(const HmmBatch& h) {
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
  torch::manual_seed(59);
  auto batch = make_batch(/*B=*/6, /*S=*/5, /*T=*/40);
  auto got = forward_loglik(batch);
  auto want = forward_loglik_reference(batch);
  std::cout << "log-likelihoods: " << got.slice(0, 0, 3) << "\nreference: " << want.slice(0, 0, 3) << "\n";
  auto err = (got - want).abs().max().item<double>();
  if (err > 1e-3)
    std::cout << "HARM: bmm_out into its own input changed the log-likelihoods by up to " << err << "\n";
  return 0;
}
