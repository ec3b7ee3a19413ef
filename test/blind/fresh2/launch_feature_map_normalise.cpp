// CASE: a speech front end copies its std::map of feature tensors into an
//       at::launch task that logs the utterance energy, then normalises every
//       feature in place in a range-for loop over the map before running the
//       acoustic model
// SOURCE: https://discuss.pytorch.org/t/implication-of-multithreading-with-a-model-without-mutexes-in-libtorch/119347
// KIND: bug
// HARM: the logged energy is the energy of the normalised features
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <future>
#include <iostream>
#include <map>
#include <string>
#include <thread>

using Features = std::map<std::string, torch::Tensor>;

static Features extract_features() {
  Features f;
  f["mel"] = torch::arange(0, 16, torch::kFloat).reshape({4, 4});
  f["pitch"] = torch::linspace(100, 200, 4);
  return f;
}

int main() {
  Features feats = extract_features();
  const double expected = feats.at("mel").pow(2).sum().item<double>();

  std::promise<double> energy_promise;
  auto energy = energy_promise.get_future();
  at::launch([feats, &energy_promise] {  // BUG(libtorch-worker-missing-clone)
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // behind other inter-op work
    energy_promise.set_value(feats.at("mel").pow(2).sum().item<double>());
  });

  // Per-utterance normalisation for the acoustic model.
  for (auto& kv : feats) {
    auto& t = kv.second;
    t.sub_(t.mean()).div_(t.std());  // BUG(libtorch-worker-missing-clone)
  }

  double got = energy.get();
  std::cout << "logged mel energy " << got << " (expected " << expected << ")\n";
  if (std::abs(got - expected) > 1e-3) {
    std::cout << "HARM: the logged energy was read after normalisation\n";
  }
  return 0;
}
