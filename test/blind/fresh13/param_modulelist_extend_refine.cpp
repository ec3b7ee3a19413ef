// CASE: a Perceiver-style refiner builds its unrolled stack with
//       ModuleList::extend over the same shared latent blocks once per
//       iteration ("weights shared across iterations"), so
//       model->parameters() lists each shared block `iters` times; the
//       trainer clips with clip_grad_norm_ and steps torch::optim::Adam
// SOURCE: the kind of code in C++ ports of Perceiver / universal-transformer
//         models that share blocks across iterations
// KIND: bug
// HARM: the clipping norm counts the shared gradients three times, and Adam
//       moves the shared blocks about three times the learning rate per step

#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <set>

struct LatentBlockImpl : torch::nn::Module {
  explicit LatentBlockImpl(int64_t d)
      : norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})))),
        mlp(register_module("mlp", torch::nn::Linear(d, d))) {}
  torch::Tensor forward(torch::Tensor z) { return z + torch::gelu(mlp->forward(norm->forward(z))); }
  torch::nn::LayerNorm norm;
  torch::nn::Linear mlp;
};
TORCH_MODULE(LatentBlock);

struct RefinerImpl : torch::nn::Module {
  RefinerImpl(int64_t in, int64_t d, int64_t blocks_per_iter, int64_t iters) {
    embed = register_module("embed", torch::nn::Linear(in, d));
    torch::nn::ModuleList shared;
    for (int64_t b = 0; b < blocks_per_iter; ++b) shared->push_back(LatentBlock(d));
    unrolled = register_module("unrolled", torch::nn::ModuleList());
    for (int64_t i = 0; i < iters; ++i) unrolled->extend(*shared);  // BUG(libtorch-shared-parameter-update)
    out = register_module("out", torch::nn::Linear(d, 1));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto z = embed->forward(x);
    for (const auto& block : *unrolled) z = block->as<LatentBlock>()->forward(z);
    return out->forward(z);
  }
  torch::nn::Linear embed{nullptr}, out{nullptr};
  torch::nn::ModuleList unrolled{nullptr};
};
TORCH_MODULE(Refiner);

int main() {
  torch::manual_seed(0);
  const double lr = 1e-3;
  Refiner model(6, 16, 2, 3);
  auto params = model->parameters();
  torch::optim::Adam opt(params, torch::optim::AdamOptions(lr));  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({32, 6});
  auto y = x.sum(1, true);
  opt.zero_grad();
  torch::mse_loss(model->forward(x), y).backward();

  // Norm over the distinct tensors, for comparison.
  std::set<c10::TensorImpl*> seen;
  double sq = 0.0;
  for (const auto& p : params)
    if (seen.insert(p.unsafeGetTensorImpl()).second) sq += p.grad().pow(2).sum().item<double>();
  const double true_norm = std::sqrt(sq);
  double clip_norm = torch::nn::utils::clip_grad_norm_(params, 1e6);  // BUG(libtorch-shared-parameter-update)

  auto w = model->unrolled[0]->as<LatentBlock>()->mlp->weight;
  auto before = w.detach().clone();
  opt.step();  // BUG(libtorch-shared-parameter-update)
  double moved = (w.detach() - before).abs().max().item<double>();

  std::printf("%zu entries for %d distinct tensors; clip norm %.4f vs %.4f\n",
              params.size(), static_cast<int>(seen.size()), clip_norm, true_norm);
  std::printf("shared block weight moved up to %.2e with lr %.0e\n", moved, lr);
  if (moved > 1.5 * lr)
    std::printf("HARM: Adam moved the shared block by %.2e (%.1f x lr) and the "
                "clip norm was %.4f instead of %.4f\n", moved, moved / lr, clip_norm, true_norm);
  return 0;
}
