// Any standard container, pair or tuple of tensors handed to a worker shares
// the tensors' storage: maps, arrays, pairs, nested containers.
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <array>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

void consume(const torch::Tensor &t);
using Features = std::map<std::string, torch::Tensor>;

// A map copied into at::launch, normalised in place through its entries.
void PositiveMapEntries(Features feats) {
  at::launch([feats] { consume(feats.at("mel")); });
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: by-value capture 'feats' holds tensors that share their storage with worker entry point 'at::launch' and the spawner writes them in place before the worker is joined
  for (auto &kv : feats) {
    auto &t = kv.second;
    t.sub_(t.mean());
  }
}

// An unordered_map element written by key.
void PositiveMapByKey(std::unordered_map<std::string, torch::Tensor> cache) {
  std::thread worker([cache] { consume(cache.at("k")); });
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: by-value capture 'cache' holds tensors
  cache["k"].zero_();
  worker.join();
}

// A pair and a std::array of tensors as thread arguments.
void use_pair(std::pair<torch::Tensor, int> p) { consume(p.first); }
void use_array(std::array<torch::Tensor, 2> a) { consume(a[0]); }
void PositivePairAndArray(torch::Tensor x) {
  std::pair<torch::Tensor, int> p{x, 1};
  std::thread t1(use_pair, p);
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: argument 'p' holds tensors
  p.first.mul_(2);
  std::array<torch::Tensor, 2> a{x, x};
  std::thread t2(use_array, a);
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: argument 'a' holds tensors
  std::get<1>(a).add_(1);
  t1.join();
  t2.join();
}

// A vector of pairs, written through the pair's second.
void PositiveNested(std::vector<std::pair<std::string, torch::Tensor>> named) {
  std::thread t([named] { consume(named[0].second); });
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: by-value capture 'named' holds tensors
  for (auto &entry : named)
    entry.second.div_(2);
  t.join();
}

// Negative: the worker is joined before the write.
void NegativeJoined(Features feats) {
  std::thread t([feats] { consume(feats.at("mel")); });
  t.join();
  for (auto &kv : feats)
    kv.second.sub_(1);
}

// Negative: a map of plain values.
void NegativeNoTensors(std::map<std::string, int> counts) {
  std::thread t([counts] { (void)counts.size(); });
  counts["a"] += 1;
  t.join();
}

// Negative: the entries are replaced with fresh tensors, not written.
void NegativeReplaced(Features feats) {
  std::thread t([feats] { consume(feats.at("mel")); });
  for (auto &kv : feats)
    kv.second = kv.second * 2;
  t.join();
}
