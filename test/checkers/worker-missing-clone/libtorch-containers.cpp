// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// libtorch's own containers hold handles (Note [libtorch's own containers]),
// an element taken from a map is one of its tensors, and a future's
// callbacks run on the thread that completes it (Note [Callbacks of a
// future]).

#include <torch/jit.h>
#include <torch/torch.h>

#include <map>
#include <string>
#include <thread>

using FeatureDict = c10::Dict<std::string, at::Tensor>;

void export_features(FeatureDict feats, double &out) {
  out = feats.at("user").sum().item<double>();
}

// A c10::Dict copied into the worker, then an entry written through a local.
void PositiveDictCopiedIntoThread(FeatureDict feats, double &out) {
  std::thread exporter(export_features, feats, std::ref(out));
  // CHECK-NOTES: :[[@LINE-1]]:41: warning: argument 'feats' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+2]]:8: note: 'mul_' writes a tensor of 'feats' in place here
  auto user = feats.at("user");
  user.mul_(0.5);
  exporter.join();
}

// A std::map captured by value, an element written through a local.
void PositiveMapElementThroughLocal(std::map<std::string, torch::Tensor> feats,
                                    double &out) {
  std::thread exporter([feats, &out] { out = feats.at("item").sum().item<double>(); });
  // CHECK-NOTES: :[[@LINE-1]]:25: warning: by-value capture 'feats' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+2]]:8: note: 'add_' writes a tensor of 'feats' in place here
  auto item = feats.at("item");
  item.add_(1);
  exporter.join();
}

// A c10::List captured by value, then an element written in place.
void PositiveListCapture(c10::List<at::Tensor> frames, double &out) {
  std::thread t([frames, &out] { out = frames.get(0).sum().item<double>(); });
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: by-value capture 'frames' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+2]]:9: note: 'zero_' writes a tensor of 'frames' in place here
  auto first = frames.get(0);
  first.zero_();
  t.join();
}

// A future's callback captures the logits; they are refilled before the
// future is completed.
void PositiveCallbackBeforeCompletion(c10::ivalue::Future &fut, torch::Tensor logits,
                                      const torch::Tensor &next, double &out) {
  fut.addCallback([logits, &out](c10::ivalue::Future &) { out = logits.sum().item<double>(); });
  // CHECK-NOTES: :[[@LINE-1]]:20: warning: by-value capture 'logits' shares its storage with worker entry point 'c10::ivalue::Future::addCallback' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-FIXES: fut.addCallback([logits = logits.clone(), &out](c10::ivalue::Future &) { out = logits.sum().item<double>(); });
  // CHECK-NOTES: :[[@LINE+1]]:10: note: 'copy_' writes 'logits' in place here
  logits.copy_(next);
  fut.markCompleted();
}

// Joined before the write.
void NegativeJoinedDict(FeatureDict feats, double &out) {
  std::thread exporter(export_features, feats, std::ref(out));
  exporter.join();
  auto user = feats.at("user");
  user.mul_(0.5);
}

// The callbacks have run once markCompleted returns.
void NegativeWriteAfterCompletion(c10::ivalue::Future &fut, torch::Tensor logits,
                                  const torch::Tensor &next, double &out) {
  fut.addCallback([logits, &out](c10::ivalue::Future &) { out = logits.sum().item<double>(); });
  fut.markCompleted();
  logits.copy_(next);
}

// The callback is given a clone.
void NegativeClonedIntoCallback(c10::ivalue::Future &fut, torch::Tensor logits,
                                const torch::Tensor &next, double &out) {
  fut.addCallback([snapshot = logits.clone(), &out](c10::ivalue::Future &) {
    out = snapshot.sum().item<double>();
  });
  logits.copy_(next);
  fut.markCompleted();
}
