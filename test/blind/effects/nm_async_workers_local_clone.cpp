// CASE: the asynchronous actor-critic workers of the A3C-style setup make
//       their local model with global->clone() and sync it from the global
//       model under the mutex before each rollout
// SOURCE: the fix proposed in https://github.com/seungeunrho/minimalRL/issues/9
//         (a local model loaded from the shared one)
// KIND: near-miss
// WHY-OK: each worker steps its own deep copy; the global model changes only
//         through the pushes made under the mutex, so it equals
//         init + sum(deltas)
#include <torch/torch.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

struct ActorCriticImpl : torch::nn::Cloneable<ActorCriticImpl> {
  ActorCriticImpl() { reset(); }
  void reset() override {
    body = register_module("body", torch::nn::Linear(8, 32));
    pi = register_module("pi", torch::nn::Linear(32, 4));
    v = register_module("v", torch::nn::Linear(32, 1));
  }
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& s) {
    auto h = torch::tanh(body(s));
    return {torch::log_softmax(pi(h), 1), v(h)};
  }
  torch::nn::Linear body{nullptr}, pi{nullptr}, v{nullptr};
};
TORCH_MODULE(ActorCritic);

struct Shared {
  std::mutex mu;
  std::vector<std::vector<torch::Tensor>> deltas;
  std::vector<std::string> errors;
};

static void worker(ActorCritic global, int id, Shared* shared) {
  ActorCritic local{nullptr};
  {
    std::lock_guard<std::mutex> lock(shared->mu);
    local = ActorCritic(std::dynamic_pointer_cast<ActorCriticImpl>(global->clone()));
  }
  auto gen = at::detail::createCPUGenerator(100 + id);
  auto gparams = global->parameters();
  auto lparams = local->parameters();
  const double lr = 0.05;
  try {
    for (int update = 0; update < 5; ++update) {
      std::vector<torch::Tensor> start;
      {
        std::lock_guard<std::mutex> lock(shared->mu);
        torch::NoGradGuard no_grad;
        for (size_t i = 0; i < lparams.size(); ++i) lparams[i].copy_(gparams[i]);
        for (auto& p : lparams) start.push_back(p.detach().clone());
      }
      for (int k = 0; k < 4; ++k) {
        auto states = torch::randn({16, 8}, gen);
        auto actions = torch::randint(4, {16}, gen);
        auto returns = torch::randn({16, 1}, gen);
        auto [logp, value] = local(states);
        auto adv = (returns - value).detach();
        auto loss = -(logp.gather(1, actions.unsqueeze(1)) * adv).mean() +
                    0.5 * (returns - value).pow(2).mean();
        auto grads = torch::autograd::grad({loss}, lparams);
        torch::NoGradGuard no_grad;
        for (size_t i = 0; i < lparams.size(); ++i) lparams[i].sub_(lr * grads[i]);
      }
      std::lock_guard<std::mutex> lock(shared->mu);
      torch::NoGradGuard no_grad;
      std::vector<torch::Tensor> delta;
      for (size_t i = 0; i < lparams.size(); ++i) delta.push_back(lparams[i].detach() - start[i]);
      for (size_t i = 0; i < gparams.size(); ++i) gparams[i].add_(delta[i]);
      shared->deltas.push_back(delta);
    }
  } catch (const c10::Error& e) {
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->errors.push_back(e.what_without_backtrace());
  }
}

int main() {
  torch::manual_seed(22);
  ActorCritic global;
  std::vector<torch::Tensor> init;
  for (auto& p : global->parameters()) init.push_back(p.detach().clone());

  Shared shared;
  std::vector<std::thread> threads;
  for (int id = 0; id < 4; ++id) threads.emplace_back(worker, global, id, &shared);
  for (auto& t : threads) t.join();

  auto params = global->parameters();
  double err = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    auto expected = init[i].clone();
    for (auto& d : shared.deltas) expected += d[i];
    err = std::max(err, (params[i].detach() - expected).abs().max().item<double>());
  }
  std::printf("%zu deltas pushed, %zu worker errors, global vs init+sum(deltas): %.6g\n",
              shared.deltas.size(), shared.errors.size(), err);
  if (!shared.errors.empty()) std::printf("HARM: a worker failed: %s\n", shared.errors[0].c_str());
  if (err > 1e-4) std::printf("HARM: the global model drifted from init + sum(deltas) by %.6g\n", err);
  return 0;
}
