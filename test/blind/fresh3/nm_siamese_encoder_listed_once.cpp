// CASE: a Siamese speaker-verification model keeps two branch holders that
//       share one encoder impl (a ModuleHolder copy) and a comparison head;
//       the optimizer and clip_grad_norm_ are given the encoder's and the
//       head's parameters, listing the shared encoder once
// SOURCE: Siamese / contrastive verification networks in libtorch where
//       both branches are the same module
// KIND: near-miss
// WHY-OK: the parameter list is built from the shared encoder itself, not
//       from each branch, so no tensor appears twice
#include <torch/torch.h>

#include <iostream>
#include <unordered_set>
#include <vector>

namespace {

struct SiameseImpl : torch::nn::Module {
  SiameseImpl() {
    encoder = register_module("encoder", torch::nn::Sequential(torch::nn::Linear(10, 16), torch::nn::ReLU(),
                                                               torch::nn::Linear(16, 8)));
    left = encoder;   // both branches are the same impl
    right = encoder;
    head = register_module("head", torch::nn::Linear(8, 1));
  }
  torch::Tensor forward(const torch::Tensor& a, const torch::Tensor& b) {
    return head->forward((left->forward(a) - right->forward(b)).abs()).squeeze(1);
  }
  torch::nn::Sequential encoder{nullptr}, left{nullptr}, right{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Siamese);

}  // namespace

int main() {
  torch::manual_seed(23);
  Siamese net;
  std::vector<torch::Tensor> params = net->encoder->parameters();
  auto head_params = net->head->parameters();
  params.insert(params.end(), head_params.begin(), head_params.end());

  std::unordered_set<const void*> distinct;
  for (auto& p : params) distinct.insert(p.unsafeGetTensorImpl());

  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.05));
  auto a = torch::randn({12, 10}), b = torch::randn({12, 10});
  auto same = torch::randint(0, 2, {12}).to(torch::kFloat);
  auto loss = torch::binary_cross_entropy_with_logits(net->forward(a, b), same);
  opt.zero_grad();
  loss.backward();
  torch::nn::utils::clip_grad_norm_(params, 1.0);

  auto first = net->encoder->parameters()[0];
  auto before = first.detach().clone();
  auto grad = first.grad().clone();
  opt.step();
  auto err = (first.detach() - (before - 0.05 * grad)).abs().max().item<float>();
  std::cout << params.size() << " entries, " << distinct.size() << " distinct; encoder step error " << err << "\n";
  if (params.size() != distinct.size() || err > 1e-6f) std::cout << "HARM: a shared tensor was stepped twice\n";
  return 0;
}
