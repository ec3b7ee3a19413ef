// CASE: a learner thread publishes new policy weights into a shared tensor
//       and actor threads read it, both only while holding the same mutex
// SOURCE: https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
//         (making concurrent in-place writes safe takes a lock the user adds)
// KIND: near-miss
// WHY-OK: every write and every read of the shared tensor happens under one
//         mutex, so an actor always sees one complete version
#include <torch/torch.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

struct PolicyStore {
  std::mutex m;
  torch::Tensor weights = torch::zeros({64});
};

int main() {
  PolicyStore store;
  std::atomic<int> torn{0};
  std::atomic<bool> stop{false};

  std::vector<std::thread> actors;
  for (int a = 0; a < 2; ++a) {
    actors.emplace_back([&] {
      while (!stop.load()) {
        std::lock_guard<std::mutex> lock(store.m);
        auto w = store.weights;
        if (w.min().item<float>() != w.max().item<float>()) ++torn;
      }
    });
  }

  std::thread learner([&] {
    for (int version = 1; version <= 200; ++version) {
      std::lock_guard<std::mutex> lock(store.m);
      store.weights.fill_(static_cast<float>(version));
    }
  });
  learner.join();
  stop = true;
  for (auto& t : actors) t.join();

  std::printf("final version %.0f, torn reads %d\n", store.weights[0].item<float>(), torn.load());
  if (torn.load() != 0) std::printf("HARM: an actor read a half-written policy\n");
  return 0;
}
