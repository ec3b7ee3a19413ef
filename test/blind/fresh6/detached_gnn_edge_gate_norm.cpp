// CASE: a GNN learns edge gates with a sigmoid and a helper in a graph::norm
//       namespace applies the symmetric degree normalisation to the gate
//       tensor in place through .data(), "because the degrees are only
//       statistics", between the forward and loss.backward()
// SOURCE: the PyTorch 0.4 migration guide's example of a sigmoid output
//         changed through .data before backward (gradients "very, very
//         wrong"), quoted at https://e-com-net.com/article/1279942790742032384.htm;
//         the kind of code from GCN variants with learned edge weights
// KIND: bug
// HARM: the edge-logit gradient is computed from the normalised values, so
//       it differs from the gradient of the computation that was meant
#include <torch/torch.h>

#include <iostream>

namespace graph::norm {
// 1 / sqrt(deg(src) * deg(dst)) for every edge, with weighted in-degrees.
torch::Tensor degree_scale(const torch::Tensor& w, const torch::Tensor& src,
                           const torch::Tensor& dst, int64_t n) {
  auto deg = torch::zeros({n}).index_add_(0, dst, w).clamp_min(1e-6);
  return (deg.index_select(0, src) * deg.index_select(0, dst)).rsqrt();
}
void symmetric_(const torch::Tensor& w, const torch::Tensor& src, const torch::Tensor& dst, int64_t n) {
  auto raw = w.data();                                           // BUG(libtorch-detached-write)
  raw.mul_(degree_scale(raw, src, dst, n));                      // BUG(libtorch-detached-write)
}
}  // namespace graph::norm

torch::Tensor propagate(const torch::Tensor& h, const torch::Tensor& w, const torch::Tensor& src,
                        const torch::Tensor& dst, int64_t n) {
  auto msg = h.index_select(0, src) * w.unsqueeze(1);
  return torch::zeros({n, h.size(1)}).index_add(0, dst, msg);
}

struct EdgeGatedGCNImpl : torch::nn::Module {
  EdgeGatedGCNImpl(int64_t edges, int64_t in, int64_t classes)
      : lin(register_module("lin", torch::nn::Linear(in, classes))) {
    edge_logit = register_parameter("edge_logit", torch::randn({edges}));
  }
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& src, const torch::Tensor& dst) {
    auto gate = torch::sigmoid(edge_logit);                      // BUG(libtorch-detached-write)
    graph::norm::symmetric_(gate, src, dst, x.size(0));          // BUG(libtorch-detached-write)
    return propagate(lin(x), gate, src, dst, x.size(0));
  }
  torch::nn::Linear lin;
  torch::Tensor edge_logit;
};
TORCH_MODULE(EdgeGatedGCN);

int main() {
  torch::manual_seed(31);
  const int64_t n = 30, in = 8, classes = 3, random_edges = 120, edges = random_edges + n;
  auto self_loops = torch::arange(n, torch::kLong);
  auto src = torch::cat({torch::randint(n, {random_edges}, torch::kLong), self_loops});
  auto dst = torch::cat({torch::randint(n, {random_edges}, torch::kLong), self_loops});
  auto x = torch::randn({n, in});
  auto y = torch::randint(classes, {n}, torch::kLong);
  EdgeGatedGCN model(edges, in, classes);

  auto loss = torch::nn::functional::cross_entropy(model->forward(x, src, dst), y);
  loss.backward();
  auto got = model->edge_logit.grad().clone();

  // The computation the helper meant: gate * scale, with the scale held constant.
  auto logit = model->edge_logit.detach().clone().requires_grad_(true);
  auto s = torch::sigmoid(logit);
  auto gate = s * graph::norm::degree_scale(s.detach(), src, dst, n);
  auto ref_loss = torch::nn::functional::cross_entropy(
      propagate(model->lin(x).detach(), gate, src, dst, n), y);
  ref_loss.backward();
  auto want = logit.grad();

  auto err = (got - want).abs().max().item<double>();
  std::cout << "loss " << loss.item<double>() << " (meant " << ref_loss.item<double>()
            << "), max edge-gradient error " << err << "\n";
  if (err > 1e-6)
    std::cout << "HARM: the edge-logit gradient is off by up to " << err << " (|grad| max "
              << want.abs().max().item<double>() << ")\n";
  return 0;
}
