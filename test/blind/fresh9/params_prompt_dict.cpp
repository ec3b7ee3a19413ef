// CASE: multi-task prompt tuning keeps one soft prompt per task in a
//       torch::nn::ParameterDict; RTE reuses the MNLI prompt by inserting the
//       same tensor under a second key, and Adam steps bank->parameters()
// SOURCE: the kind of code in libtorch ports of prompt/prefix tuning
//         (multi-task soft prompts over a frozen encoder, tasks of one family
//         sharing a prompt)
// KIND: bug
// HARM: after one Adam step the shared prompt moved 2*lr per element while
//       every other prompt moved lr (Adam stepped it twice)
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <vector>

struct PromptBankImpl : torch::nn::Module {
  PromptBankImpl(int64_t len, int64_t dim) {
    for (const std::string task : {"sst2", "mnli"})
      prompts->insert(task, (torch::randn({len, dim}) * 0.02).requires_grad_());
    prompts->insert("rte", prompts["mnli"]);  // BUG(libtorch-shared-parameter-update)
    register_module("prompts", prompts);
  }
  torch::Tensor prepend(const std::string& task, const torch::Tensor& tokens) {
    auto p = prompts[task].unsqueeze(0).expand({tokens.size(0), -1, -1});
    return torch::cat({p, tokens}, 1);
  }
  torch::nn::ParameterDict prompts;
};
TORCH_MODULE(PromptBank);

int main() {
  torch::manual_seed(0);
  const int64_t len = 4, dim = 8;
  PromptBank bank(len, dim);
  torch::nn::Linear frozen_encoder(dim, 2);
  for (auto& p : frozen_encoder->parameters()) p.requires_grad_(false);

  const double lr = 1e-2;
  torch::optim::Adam opt(bank->parameters(), torch::optim::AdamOptions(lr));  // BUG(libtorch-shared-parameter-update)
  const auto before_mnli = bank->prompts["mnli"].detach().clone();
  const auto before_sst2 = bank->prompts["sst2"].detach().clone();

  torch::Tensor loss = torch::zeros({});
  for (const std::string task : {"sst2", "mnli", "rte"}) {
    auto tokens = torch::randn({3, 5, dim});
    auto logits = frozen_encoder(bank->prepend(task, tokens)).mean(1);
    loss = loss + torch::nn::functional::cross_entropy(logits, torch::randint(2, {3}));
  }
  opt.zero_grad();
  loss.backward();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  const double moved_sst2 = (bank->prompts["sst2"] - before_sst2).abs().max().item<double>();
  const double moved_mnli = (bank->prompts["mnli"] - before_mnli).abs().max().item<double>();
  std::cout << "largest move: sst2 " << moved_sst2 << ", mnli/rte " << moved_mnli << "\n";
  if (moved_mnli > 1.5 * lr)
    std::cout << "HARM: the shared MNLI/RTE prompt took two Adam steps (moved " << moved_mnli
              << ", lr " << lr << ")\n";
  return 0;
}
