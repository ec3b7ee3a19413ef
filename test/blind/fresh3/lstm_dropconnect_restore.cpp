// CASE: a hand-written LSTM language model applies DropConnect to its
//       recurrent matrix by masking the parameter in place for the length
//       of one sequence, and a scope guard restores the saved weights when
//       the forward helper returns, i.e. before the loss's backward
// SOURCE: AWD-LSTM's WeightDrop (weight dropout on W_hh) re-implemented in
//       libtorch by masking the parameter in place "to avoid a copy"; cf.
//       the many "modified by an inplace operation" reports such as
//       https://github.com/pytorch/pytorch/issues/96265
// KIND: bug
// HARM: backward() throws: the recurrent weight the matmuls saved was
//       overwritten by the restore
#include <torch/torch.h>

#include <functional>
#include <iostream>

namespace {

constexpr int64_t kIn = 6, kHid = 5;

struct ScopeExit {
  std::function<void()> fn;
  ~ScopeExit() { fn(); }
};

struct DropConnectLSTMImpl : torch::nn::Module {
  DropConnectLSTMImpl() {
    w_ih = register_parameter("w_ih", torch::randn({4 * kHid, kIn}) * 0.2);
    w_hh = register_parameter("w_hh", torch::randn({4 * kHid, kHid}) * 0.2);
    b = register_parameter("b", torch::zeros({4 * kHid}));
  }

  std::pair<torch::Tensor, torch::Tensor> cell(const torch::Tensor& x, const torch::Tensor& h, const torch::Tensor& c) {
    auto gates = torch::addmm(b, x, w_ih.t()) + torch::mm(h, w_hh.t());
    auto parts = gates.chunk(4, 1);
    auto i = torch::sigmoid(parts[0]), f = torch::sigmoid(parts[1]);
    auto g = torch::tanh(parts[2]), o = torch::sigmoid(parts[3]);
    auto c2 = f * c + i * g;
    return {o * torch::tanh(c2), c2};
  }

  // seq: [T, B, kIn]; returns the hidden states [T, B, kHid]
  torch::Tensor forward_dropconnect(const torch::Tensor& seq, double p) {
    auto saved = w_hh.detach().clone();
    ScopeExit restore{[&] {
      torch::NoGradGuard no_grad;
      w_hh.copy_(saved);  // BUG(libtorch-detached-write)
    }};
    {
      torch::NoGradGuard no_grad;
      auto keep = torch::bernoulli(torch::full_like(w_hh, 1 - p)) / (1 - p);
      w_hh.mul_(keep);
    }
    auto h = torch::zeros({seq.size(1), kHid});
    auto c = torch::zeros({seq.size(1), kHid});
    std::vector<torch::Tensor> outs;
    for (int64_t t = 0; t < seq.size(0); ++t) {
      std::tie(h, c) = cell(seq[t], h, c);
      outs.push_back(h);
    }
    return torch::stack(outs);
  }  // BUG(libtorch-detached-write)

  torch::Tensor w_ih, w_hh, b;
};
TORCH_MODULE(DropConnectLSTM);

}  // namespace

int main() {
  torch::manual_seed(8);
  DropConnectLSTM lm;
  torch::nn::Linear decoder(kHid, 10);
  torch::optim::SGD opt(lm->parameters(), torch::optim::SGDOptions(0.1));

  auto seq = torch::randn({4, 3, kIn});
  auto targets = torch::randint(0, 10, {4 * 3});
  try {
    auto hs = lm->forward_dropconnect(seq, 0.5);  // BUG(libtorch-detached-write)
    auto loss = torch::nn::functional::cross_entropy(decoder->forward(hs).reshape({-1, 10}), targets);
    opt.zero_grad();
    loss.backward();
    opt.step();
    std::cout << "language-model step done, loss " << loss.item<float>() << "\n";
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::cout << "HARM: backward after the DropConnect restore failed: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
