// CASE: a graph autoencoder's inner-product decoder reconstructs the
//       adjacency with sigmoid(Z Z^T) and removes self-loops by zeroing the
//       diagonal() view of that output before the BCE reconstruction loss
// SOURCE: GAE/VGAE (Kipf & Welling) link-prediction code ported to libtorch,
//       with self-loops dropped from the reconstruction
// KIND: bug
// HARM: backward throws: sigmoid saved its output, which the diagonal write
//       modified
#include <torch/torch.h>

#include <cstdio>
#include <string>

namespace gae {

class GcnEncoderImpl : public torch::nn::Module {
 public:
  GcnEncoderImpl(int64_t in, int64_t hidden, int64_t latent)
      : l1(register_module("l1", torch::nn::Linear(in, hidden))),
        l2(register_module("l2", torch::nn::Linear(hidden, latent))) {}
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& a_hat) {
    return a_hat.mm(l2(torch::relu(a_hat.mm(l1(x)))));
  }
  torch::nn::Linear l1, l2;
};
TORCH_MODULE(GcnEncoder);

struct InnerProductDecoder {
  torch::Tensor operator()(const torch::Tensor& z) const {
    auto adj = torch::sigmoid(z.mm(z.t()));
    adj.diagonal().zero_();  // BUG(libtorch-inplace-on-view)
    return adj;
  }
};

torch::Tensor normalise(const torch::Tensor& a) {
  const auto with_loops = a + torch::eye(a.size(0));
  const auto d = with_loops.sum(1).pow(-0.5);
  return d.unsqueeze(1) * with_loops * d.unsqueeze(0);
}

}  // namespace gae

int main() {
  torch::manual_seed(9);
  constexpr int64_t kNodes = 15;
  auto a = (torch::rand({kNodes, kNodes}) < 0.2).to(torch::kFloat);
  a = ((a + a.t()) > 0).to(torch::kFloat);
  a.fill_diagonal_(0);
  const auto a_hat = gae::normalise(a);
  const auto x = torch::randn({kNodes, 5});

  gae::GcnEncoder encoder(5, 16, 4);
  const gae::InnerProductDecoder decode;
  torch::optim::Adam opt(encoder->parameters(), 0.01);

  for (int epoch = 0; epoch < 3; ++epoch) {
    opt.zero_grad();
    const auto recon = decode(encoder->forward(x, a_hat));
    const auto loss = torch::binary_cross_entropy(recon, a);
    try {
      loss.backward();
      opt.step();
      std::printf("epoch %d: reconstruction loss %.4f\n", epoch, loss.item<double>());
    } catch (const c10::Error& e) {
      const std::string what = e.what();
      std::printf("HARM: GAE backward failed: %s\n", what.substr(0, what.find('\n')).c_str());
      break;
    }
  }
  return 0;
}
