// A local container, struct or optional built from tensors holds their
// handles, so it shares their storage with whatever it is handed to (Note
// [Holders built from tensors]).
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/torch.h>

#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

void consume(const torch::Tensor &t);

struct Batch {
  torch::Tensor obs, act;
};

struct Transition {
  Transition(torch::Tensor o, torch::Tensor r) : obs(o), reward(r) {}
  torch::Tensor obs, reward;
};

// A struct built from the spawner's tensors, captured by copy; the spawner
// then normalises one of them.
void PositiveAggregateCaptured(torch::Tensor obs, torch::Tensor act) {
  Batch b{obs, act};
  std::thread t([b] { consume(b.obs); });
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: by-value capture 'b' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-3]]:9: note: 'b.obs' holds 'obs' from here
  // CHECK-NOTES: :[[@LINE+1]]:7: note: 'div_' writes 'obs' in place here
  obs.div_(255);
  t.join();
}

// An optional that holds the tensor.
void PositiveOptionalHeld(torch::Tensor x) {
  std::optional<torch::Tensor> held = x;
  auto fut = std::async(std::launch::async, [held] { consume(*held); });
  // CHECK-NOTES: :[[@LINE-1]]:46: warning: by-value capture 'held' holds tensors that share their storage with worker entry point 'std::async' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-3]]:32: note: 'held' holds 'x' from here
  // CHECK-NOTES: :[[@LINE+1]]:5: note: 'mul_' writes 'x' in place here
  x.mul_(2);
  fut.get();
}

// A map filled by key, handed over as an argument.
void readAll(std::map<std::string, torch::Tensor> feats);
void PositiveMapStoredByKey(torch::Tensor mel, torch::Tensor pitch) {
  std::map<std::string, torch::Tensor> feats;
  feats["mel"] = mel;
  feats["pitch"] = pitch;
  std::thread t(readAll, feats);
  // CHECK-NOTES: :[[@LINE-1]]:26: warning: argument 'feats' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'feats' holds 'mel' from here
  // CHECK-NOTES: :[[@LINE+1]]:7: note: 'sub_' writes 'mel' in place here
  mel.sub_(mel.mean());
  t.join();
}

// A user constructor that binds its parameters to members; the worker
// writes the member and the spawner still reads the tensor.
void PositiveWorkerWritesThroughConstructedMember(torch::Tensor obs,
                                                  torch::Tensor reward) {
  Transition tr(obs, reward);
  std::thread t([tr]() mutable { tr.reward.clamp_(-1, 1); });
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: by-value capture 'tr' holds tensors that share their storage with worker entry point 'std::thread' and the worker writes them in place while the spawner still uses them [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-2]]:44: note: 'clamp_' writes 'tr.reward' in place here
  // CHECK-NOTES: :[[@LINE-4]]:14: note: 'tr.reward' holds 'reward' from here
  // CHECK-NOTES: :[[@LINE+1]]:11: note: the spawner uses 'reward' here, before any join
  consume(reward);
  t.join();
}

// A vector of structs that hold the tensor: holders of holders.
void PositiveNestedHolders(torch::Tensor obs, torch::Tensor act) {
  Batch b{obs, act};
  std::vector<Batch> batches;
  batches.push_back(b);
  std::thread t([batches] { consume(batches[0].obs); });
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: by-value capture 'batches' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-5]]:9: note: 'b.act' holds 'act' from here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'batches' holds 'b' from here
  // CHECK-NOTES: :[[@LINE+1]]:7: note: 'zero_' writes 'act' in place here
  act.zero_();
  t.join();
}

// A pair made by make_pair.
void PositivePair(torch::Tensor k, torch::Tensor v) {
  auto kv = std::make_pair(k, v);
  std::thread t([kv] { consume(kv.second); });
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: by-value capture 'kv' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-3]]:8: note: 'kv' holds 'v' from here
  // CHECK-NOTES: :[[@LINE+1]]:5: note: 'add_' writes 'v' in place here
  v.add_(1);
  t.join();
}

// Negative: the struct holds a copy.
void NegativeClonedIntoStruct(torch::Tensor obs, torch::Tensor act) {
  Batch b{obs.clone(), act.clone()};
  std::thread t([b] { consume(b.obs); });
  obs.div_(255);
  t.join();
}

// Negative: the worker reads only the member that does not hold the tensor
// written.
void NegativeOtherMember(torch::Tensor obs, torch::Tensor act) {
  Batch b{obs, act};
  std::thread t([b] { consume(b.act); });
  obs.div_(255);
  t.join();
}

// Negative: the tensor's variable is given a new tensor before the write.
void NegativeRebound(torch::Tensor x) {
  std::optional<torch::Tensor> held = x;
  std::thread t([held] { consume(*held); });
  x = torch::zeros({4});
  x.mul_(2);
  t.join();
}

// Negative: the write comes after the join.
void NegativeJoinedFirst(torch::Tensor mel) {
  std::map<std::string, torch::Tensor> feats;
  feats["mel"] = mel;
  std::thread t(readAll, feats);
  t.join();
  mel.sub_(mel.mean());
}

// Negative: the spawner writes the struct's other member itself.
void NegativeOtherMemberWrittenDirectly(torch::Tensor obs, torch::Tensor act) {
  Batch b{obs, act};
  std::thread t([b] { consume(b.act); });
  b.obs.div_(255);
  t.join();
}

// A pointer to a struct of tensors shares the struct: the worker holds the
// same object the spawner normalises through its own pointer.
void PositiveSharedPointerCaptured(std::shared_ptr<Batch> batch) {
  std::thread t([batch] { consume(batch->obs); });
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: by-value capture 'batch' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+1]]:14: note: 'div_' writes 'batch.obs' in place here
  batch->obs.div_(255);
  t.join();
}

// The pointer moved into a method that starts the worker and keeps it.
struct Preview {
  std::thread worker_;
  void show(std::shared_ptr<const Batch> batch) {
    worker_ = std::thread([this, batch = std::move(batch)] { consume(batch->obs); });
  }
  void finish() { worker_.join(); }
};

void PositivePointerHandedToMethod(Preview &preview) {
  auto batch = std::make_shared<Batch>();
  batch->obs = torch::rand({4});
  preview.show(batch);
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: argument 'batch' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-10]]:15: note: 'show' starts this worker with them and returns without joining it
  // CHECK-NOTES: :[[@LINE+1]]:14: note: 'sub_' writes 'batch.obs' in place here
  batch->obs.sub_(0.5);
  preview.finish();
}

// Negative: through the pointer, the spawner writes a member the worker
// does not read.
void NegativePointerOtherMember(std::shared_ptr<Batch> batch) {
  std::thread t([batch] { consume(batch->act); });
  batch->obs.div_(255);
  t.join();
}

// Negative: a raw pointer to a struct, joined before the write.
void NegativeRawPointerJoined(Batch *batch) {
  std::thread t([batch] { consume(batch->obs); });
  t.join();
  batch->obs.div_(255);
}
