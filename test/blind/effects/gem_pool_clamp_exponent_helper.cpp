// CASE: an image-retrieval net ends in generalized-mean (GeM) pooling with a
//       learnable exponent p; a helper that keeps p in [1, 6] is called from
//       the training step right after the forward pass, reaching the
//       parameter through the model's pool member
// SOURCE: GeM pooling as in filipradenovic/cnnimageretrieval-pytorch, with
//         the projection step of a constrained parameter placed before
//         backward() instead of after opt.step()
// KIND: bug
// HARM: backward throws "modified by an inplace operation": pow(x, p) saved p
//       and the clamp rewrote it
#include <torch/torch.h>

#include <cstdio>

struct GeMImpl : torch::nn::Module {
  GeMImpl() { p = register_parameter("p", torch::full({1}, 3.0)); }
  torch::Tensor forward(const torch::Tensor& x) {
    return x.clamp_min(1e-6).pow(p).mean({2, 3}).pow(1.0 / p);  // BUG(libtorch-detached-write)
  }
  torch::Tensor p;
};
TORCH_MODULE(GeM);

struct RetrievalNetImpl : torch::nn::Module {
  RetrievalNetImpl() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)));
    pool = register_module("pool", GeM());
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::nn::functional::normalize(pool(torch::relu(conv(x))));
  }
  torch::nn::Conv2d conv{nullptr};
  GeM pool{nullptr};
};
TORCH_MODULE(RetrievalNet);

static void constrain(RetrievalNet& net) {
  torch::NoGradGuard no_grad;
  net->pool->p.clamp_(1.0, 6.0);  // BUG(libtorch-detached-write)
}

int main() {
  torch::manual_seed(14);
  RetrievalNet net;
  torch::optim::Adam opt(net->parameters(), 1e-3);
  auto anchor = torch::randn({4, 3, 16, 16});
  auto positive = anchor + 0.1 * torch::randn({4, 3, 16, 16});
  try {
    opt.zero_grad();
    auto a = net(anchor), b = net(positive);
    auto loss = (1 - (a * b).sum(1)).mean();
    constrain(net);  // BUG(libtorch-detached-write)
    loss.backward();  // BUG(libtorch-detached-write)
    opt.step();
    std::printf("step ran, p = %.4f\n", net->pool->p.item<float>());
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
