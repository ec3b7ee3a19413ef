// CASE: multi-task prompt tuning keeps soft prompts in a
//       torch::nn::ParameterDict; RTE and MNLI share a prompt through a task
//       -> key alias map, so the shared tensor is inserted once, and Adam
//       steps bank->parameters()
// SOURCE: the kind of code in libtorch ports of prompt/prefix tuning
//         (multi-task soft prompts over a frozen encoder, tasks of one family
//         sharing a prompt)
// KIND: near-miss
// WHY-OK: the shared prompt is registered under one key only ("nli"); the
//         sharing happens in the lookup, so the optimizer's list holds each
//         tensor once
#include <torch/torch.h>

#include <iostream>
#include <map>
#include <string>

struct PromptBankImpl : torch::nn::Module {
  PromptBankImpl(int64_t len, int64_t dim) {
    for (const std::string key : {"sst2", "nli"})
      prompts->insert(key, (torch::randn({len, dim}) * 0.02).requires_grad_());
    register_module("prompts", prompts);
  }
  torch::Tensor prepend(const std::string& task, const torch::Tensor& tokens) {
    auto p = prompts[key_of.at(task)].unsqueeze(0).expand({tokens.size(0), -1, -1});
    return torch::cat({p, tokens}, 1);
  }
  torch::nn::ParameterDict prompts;
  const std::map<std::string, std::string> key_of{
      {"sst2", "sst2"}, {"mnli", "nli"}, {"rte", "nli"}};
};
TORCH_MODULE(PromptBank);

int main() {
  torch::manual_seed(0);
  const int64_t len = 4, dim = 8;
  PromptBank bank(len, dim);
  torch::nn::Linear frozen_encoder(dim, 2);
  for (auto& p : frozen_encoder->parameters()) p.requires_grad_(false);

  const double lr = 1e-2;
  torch::optim::Adam opt(bank->parameters(), torch::optim::AdamOptions(lr));
  const auto before_nli = bank->prompts["nli"].detach().clone();
  const auto before_sst2 = bank->prompts["sst2"].detach().clone();

  torch::Tensor loss = torch::zeros({});
  for (const std::string task : {"sst2", "mnli", "rte"}) {
    auto tokens = torch::randn({3, 5, dim});
    auto logits = frozen_encoder(bank->prepend(task, tokens)).mean(1);
    loss = loss + torch::nn::functional::cross_entropy(logits, torch::randint(2, {3}));
  }
  opt.zero_grad();
  loss.backward();
  opt.step();

  const double moved_sst2 = (bank->prompts["sst2"] - before_sst2).abs().max().item<double>();
  const double moved_nli = (bank->prompts["nli"] - before_nli).abs().max().item<double>();
  std::cout << "largest move: sst2 " << moved_sst2 << ", nli " << moved_nli << "\n";
  if (moved_nli > 1.5 * lr)
    std::cout << "HARM: the shared NLI prompt took two Adam steps (moved " << moved_nli
              << ", lr " << lr << ")\n";
  return 0;
}
