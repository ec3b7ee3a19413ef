// CASE: a hand-written Lookahead wrapper keeps slow copies of the tensors a
//       variadic params_of(...) helper collects with a fold expression; the
//       caller passes the whole classifier and, "to be sure", its head,
//       which is already one of the classifier's submodules
// SOURCE: the kind of code from image-classification training scripts that
//         port Lookahead (Zhang et al. 2019) to libtorch by hand;
//         torch/torch7#716 (shared weights updated twice by a per-tensor
//         update loop)
// KIND: bug
// HARM: at the first synchronisation the head is pulled to alpha^2 of the
//       way between its slow and fast weights instead of alpha
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct SmallConvNetImpl : torch::nn::Module {
  explicit SmallConvNetImpl(int64_t classes)
      : features(register_module("features", torch::nn::Sequential(
            torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)), torch::nn::ReLU(),
            torch::nn::MaxPool2d(2),
            torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 16, 3).padding(1)), torch::nn::ReLU(),
            torch::nn::AdaptiveAvgPool2d(1)))),
        head(register_module("head", torch::nn::Linear(16, classes))) {}
  torch::Tensor forward(const torch::Tensor& x) { return head(features->forward(x).flatten(1)); }
  torch::nn::Sequential features;
  torch::nn::Linear head;
};
TORCH_MODULE(SmallConvNet);

template <class... Modules>
std::vector<torch::Tensor> params_of(const Modules&... modules) {
  std::vector<torch::Tensor> out;
  auto append = [&out](std::vector<torch::Tensor> ps) { out.insert(out.end(), ps.begin(), ps.end()); };
  (append(modules->parameters()), ...);                          // BUG(libtorch-shared-parameter-update)
  return out;
}

class Lookahead {
 public:
  Lookahead(std::vector<torch::Tensor> fast, double alpha, int k)
      : fast_(std::move(fast)), alpha_(alpha), k_(k) {
    for (auto& p : fast_) slow_.push_back(p.detach().clone());
  }
  // Call after every inner optimizer step.
  void step() {
    if (++count_ % k_ != 0) return;
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < fast_.size(); ++i) {
      slow_[i].add_(fast_[i] - slow_[i], alpha_);               // BUG(libtorch-shared-parameter-update)
      fast_[i].copy_(slow_[i]);                                  // BUG(libtorch-shared-parameter-update)
    }
  }

 private:
  std::vector<torch::Tensor> fast_, slow_;
  double alpha_;
  int k_, count_ = 0;
};

int main() {
  torch::manual_seed(23);
  SmallConvNet net(5);
  torch::optim::Adam inner(net->parameters(), torch::optim::AdamOptions(1e-2));
  auto tracked = params_of(net, net->head);                      // BUG(libtorch-shared-parameter-update)
  Lookahead lookahead(tracked, /*alpha=*/0.5, /*k=*/3);          // BUG(libtorch-shared-parameter-update)

  auto images = torch::rand({16, 3, 16, 16});
  auto labels = torch::randint(5, {16}, torch::kLong);
  auto start = net->head->weight.detach().clone();
  torch::Tensor fast_before_sync;
  for (int it = 0; it < 3; ++it) {
    auto loss = torch::nn::functional::cross_entropy(net->forward(images), labels);
    inner.zero_grad();
    loss.backward();
    inner.step();
    if (it == 2) fast_before_sync = net->head->weight.detach().clone();
    lookahead.step();                                            // BUG(libtorch-shared-parameter-update)
  }

  auto want = start + 0.5 * (fast_before_sync - start);
  auto got = net->head->weight.detach();
  auto frac = ((got - start).norm() / (fast_before_sync - start).norm()).item<double>();
  std::cout << "tracked " << tracked.size() << " tensors; head moved " << frac
            << " of the way to its fast weights (alpha 0.5)\n";
  if ((got - want).abs().max().item<double>() > 1e-6)
    std::cout << "HARM: after the sync the head sits " << frac
              << " of the way from slow to fast weights instead of 0.5\n";
  return 0;
}
