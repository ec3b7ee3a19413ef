// CASE: a triplet-loss embedding trainer keeps its anchor, positive and
//       negative branches in a std::vector of shared_ptrs that all point at
//       one network (weight sharing by construction); gather_params() walks
//       the branches and appends each branch's parameters(), and the
//       hand-written SGD-with-weight-decay step updates every listed tensor
// SOURCE: metric-learning / face-verification trainers in libtorch (siamese
//         and triplet networks); double-counted shared branches as in
//         https://github.com/amarczew/pytorch_model_summary/issues/3
// KIND: bug
// HARM: every weight moves three SGD steps per update
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <vector>

struct EmbedNetImpl : torch::nn::Module {
  EmbedNetImpl(int64_t in, int64_t out)
      : fc1(register_module("fc1", torch::nn::Linear(in, 32))),
        fc2(register_module("fc2", torch::nn::Linear(32, out))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::nn::functional::normalize(fc2(torch::relu(fc1(x))),
                                            torch::nn::functional::NormalizeFuncOptions().dim(1));
  }
  torch::nn::Linear fc1, fc2;
};
using Branch = std::shared_ptr<EmbedNetImpl>;

std::vector<torch::Tensor> gather_params(const std::vector<Branch>& branches) {
  std::vector<torch::Tensor> params;
  for (const auto& branch : branches)
    for (const auto& p : branch->parameters()) params.push_back(p);  // BUG(libtorch-shared-parameter-update)
  return params;
}

void sgd_step(const std::vector<torch::Tensor>& params, double lr, double weight_decay) {
  torch::NoGradGuard no_grad;
  for (auto p : params) {
    if (!p.grad().defined()) continue;
    p.add_(p.grad() + weight_decay * p, -lr);  // BUG(libtorch-shared-parameter-update)
  }
}

int main() {
  torch::manual_seed(0);
  const double lr = 0.1, weight_decay = 1e-4;
  auto net = std::make_shared<EmbedNetImpl>(16, 8);
  std::vector<Branch> branches{net, net, net};  // anchor, positive, negative
  auto params = gather_params(branches);  // BUG(libtorch-shared-parameter-update)

  auto anchor = torch::randn({10, 16});
  auto positive = anchor + 0.1 * torch::randn({10, 16});
  auto negative = torch::randn({10, 16});
  auto loss = torch::triplet_margin_loss(branches[0]->forward(anchor), branches[1]->forward(positive),
                                         branches[2]->forward(negative), /*margin=*/1.0, /*p=*/2,
                                         /*eps=*/1e-6, /*swap=*/false, at::Reduction::Mean);
  loss.backward();

  auto before = net->fc2->weight.detach().clone();
  auto expected = before - lr * (net->fc2->weight.grad() + weight_decay * before);
  sgd_step(params, lr, weight_decay);  // BUG(libtorch-shared-parameter-update)

  const double error = (net->fc2->weight - expected).abs().max().item<double>();
  const double one_step = (expected - before).abs().max().item<double>();
  std::cout << "listed tensors " << params.size() << " (network has " << net->parameters().size()
            << "); fc2 off the one-step update by " << error << ", one step moves " << one_step << "\n";
  if (error > 1e-6)
    std::cout << "HARM: the shared branch weights moved " << (net->fc2->weight - before).abs().max().item<double>()
              << ", one SGD step moves " << one_step << "\n";
  return 0;
}
