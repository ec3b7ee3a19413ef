// Ground truth for Note [libtorch's own containers] and Note [Callbacks of a
// future] on the real c10::Dict and c10::ivalue::Future.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %real_torch

#include <torch/torch.h>

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>

#include <string>
#include <thread>
#include <vector>

using FeatureDict = c10::Dict<std::string, at::Tensor>;

void ExportThenPropagate(FeatureDict feats, double &out) {
  std::thread exporter([feats, &out] { out = feats.at("user").norm().item<double>(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: by-value capture 'feats' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  auto user = feats.at("user");
  user.mul_(0.5);
  exporter.join();
}

void CallbackThenRefill(torch::Tensor logits, const torch::Tensor &next, double &out) {
  auto fut = c10::make_intrusive<c10::ivalue::Future>(c10::NoneType::get());
  fut->addCallback([logits, &out](c10::ivalue::Future &) { out = logits.sum().item<double>(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: by-value capture 'logits' shares its storage with worker entry point 'c10::ivalue::Future::addCallback' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-FIXES: fut->addCallback([logits = logits.clone(), &out](c10::ivalue::Future &) { out = logits.sum().item<double>(); });
  logits.copy_(next);
  fut->markCompleted();
}

void CompleteThenRefill(torch::Tensor logits, const torch::Tensor &next, double &out) {
  auto fut = c10::make_intrusive<c10::ivalue::Future>(c10::NoneType::get());
  fut->addCallback([logits, &out](c10::ivalue::Future &) { out = logits.sum().item<double>(); });
  fut->markCompleted();
  logits.copy_(next);
}

// Note [Workers that outlive their method]: a reply callback per call,
// capturing a handle copy of a reused buffer that the next call refills.
class Batcher {
public:
  c10::intrusive_ptr<c10::ivalue::Future> run(const torch::Tensor &batch,
                                              std::vector<int64_t> &reply) {
    logits_.copy_(batch);
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'copy_' writes member 'logits_' in place while the worker that the previous call of 'run' started may still read it: nothing waits for it before 'run' returns [libtorch-worker-missing-clone]
    auto fut = c10::make_intrusive<c10::ivalue::Future>(c10::NoneType::get());
    auto logits = logits_;
    fut->addCallback([logits, &reply](c10::ivalue::Future &) {
      reply.push_back(logits.argmax().item<int64_t>());
    });
    return fut;
  }
  void runWaited(const torch::Tensor &batch, std::vector<int64_t> &reply) {
    scores_.copy_(batch);
    auto fut = c10::make_intrusive<c10::ivalue::Future>(c10::NoneType::get());
    auto scores = scores_;
    fut->addCallback([scores, &reply](c10::ivalue::Future &) {
      reply.push_back(scores.argmax().item<int64_t>());
    });
    fut->markCompleted(c10::IValue());
  }

private:
  torch::Tensor logits_ = torch::zeros({2, 5});
  torch::Tensor scores_ = torch::zeros({2, 5});
};
