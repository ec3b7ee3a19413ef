// CASE: an audio front end computes log-mel features into one preallocated
//       feature tensor with *_out calls and hands that tensor to a recogniser
//       thread through a queue, then computes the next window into it
// SOURCE: https://github.com/meta-pytorch/torchrec/pull/3974 (a snapshot handed
//         to a compute thread was later mutated by the update thread; fixed by
//         cloning at the hand-off)
// KIND: bug
// HARM: every queued window carries the features of the last window
#include <torch/torch.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

struct FeatureChannel {
  std::mutex m;
  std::condition_variable cv;
  std::deque<torch::Tensor> items;
  bool done = false;
};

int main() {
  torch::manual_seed(7);
  auto mel_basis = torch::rand({16, 10});  // 16 spectrum bins -> 10 mel bands
  std::vector<torch::Tensor> windows;
  for (int i = 0; i < 3; ++i) windows.push_back(torch::rand({1, 16}) * (i + 1) * 10.0);

  std::vector<torch::Tensor> expected;
  for (auto& w : windows) expected.push_back(torch::log1p(torch::mm(w, mel_basis)));

  FeatureChannel chan;
  torch::Tensor features = torch::empty({1, 10});  // reused output buffer

  for (auto& w : windows) {
    at::mm_out(features, w, mel_basis);  // BUG(libtorch-worker-missing-clone)
    at::log1p_out(features, features);   // BUG(libtorch-worker-missing-clone)
    std::lock_guard<std::mutex> l(chan.m);
    chan.items.push_back(features);  // BUG(libtorch-worker-missing-clone)
  }
  {
    std::lock_guard<std::mutex> l(chan.m);
    chan.done = true;
  }

  std::vector<torch::Tensor> decoded;
  std::thread recogniser([&] {
    std::unique_lock<std::mutex> l(chan.m);
    chan.cv.wait(l, [&] { return chan.done; });
    while (!chan.items.empty()) {
      decoded.push_back(chan.items.front().sum());
      chan.items.pop_front();
    }
  });
  chan.cv.notify_all();
  recogniser.join();

  const float got0 = decoded[0].item<float>();
  const float want0 = expected[0].sum().item<float>();
  std::printf("window 0 feature sum: got %.4f expected %.4f\n", got0, want0);
  if (std::abs(got0 - want0) > 1e-4) {
    std::printf("HARM: window 0 reached the recogniser with window 2's features\n");
  }
  return 0;
}
