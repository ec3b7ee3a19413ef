// CASE: a freeze-aware collector walks the model with the named apply() and,
//       for every module that is not frozen, appends m.parameters(); that
//       call recurses by default, so every nested layer's tensors are added
//       once per ancestor and Adam steps them two or three times
// SOURCE: fine-tuning code for keyword-spotting / speech-command models in
//         libtorch that freezes a pretrained frontend by module name; shared
//         parameters listed twice: https://github.com/mlverse/torch/issues/305
// KIND: bug
// HARM: a nested encoder weight moves three learning rates in one Adam step
#include <torch/torch.h>

#include <iostream>
#include <set>

struct KwsNetImpl : torch::nn::Module {
  KwsNetImpl() {
    frontend = register_module("frontend", torch::nn::Linear(40, 40));
    encoder = register_module("encoder", torch::nn::Sequential(torch::nn::Linear(40, 32), torch::nn::ReLU(),
                                                               torch::nn::Linear(32, 32)));
    head = register_module("head", torch::nn::Linear(32, 10));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return head->forward(torch::relu(encoder->forward(frontend->forward(x))));
  }
  torch::nn::Linear frontend{nullptr}, head{nullptr};
  torch::nn::Sequential encoder{nullptr};
};
TORCH_MODULE(KwsNet);

namespace finetune {
std::vector<torch::Tensor> trainable_parameters(torch::nn::Module& root, const std::set<std::string>& frozen) {
  std::vector<torch::Tensor> out;
  root.apply([&](const std::string& name, torch::nn::Module& m) {
    if (frozen.count(name)) return;
    for (auto& p : m.parameters()) out.push_back(p);  // BUG(libtorch-shared-parameter-update)
  });
  return out;
}
}  // namespace finetune

int main() {
  torch::manual_seed(0);
  KwsNet net;
  const double lr = 1e-3;
  auto params = finetune::trainable_parameters(*net, {"frontend"});
  for (auto& p : net->frontend->parameters()) p.set_requires_grad(false);
  torch::optim::Adam opt(params, torch::optim::AdamOptions(lr));  // BUG(libtorch-shared-parameter-update)

  auto enc_w = net->encoder->named_parameters()["0.weight"];
  auto before = enc_w.detach().clone();
  auto x = torch::randn({64, 40});
  auto y = torch::randint(0, 10, {64}, torch::kLong);
  opt.zero_grad();
  torch::nn::functional::cross_entropy(net->forward(x), y).backward();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  float moved = (enc_w.detach() - before).abs().max().item<float>();
  std::cout << "listed tensors: " << params.size() << " (model has " << net->parameters().size()
            << " of which 2 frozen)\n";
  std::cout << "encoder.0.weight largest change " << moved << " with lr " << lr << "\n";
  if (moved > 1.5 * lr)
    std::cout << "HARM: one Adam step moved encoder.0.weight by " << moved << " (~" << moved / lr
              << " x lr)\n";
  return 0;
}
