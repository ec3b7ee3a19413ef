// The notes of libtorch-worker-missing-clone, and the fix-its offered on
// notes (applied with --fix-notes).
// RUN: %check_clang_tidy --fix-notes %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/data.h>
#include <torch/torch.h>

#include <thread>
#include <vector>

void consume(const torch::Tensor &t);

void halve_all(std::vector<torch::Tensor> v) {
  for (auto &t : v)
    t.div_(2);
}

struct Batch {
  torch::Tensor images, labels;
};

void PositiveVectorLoopWrites(std::vector<torch::Tensor> batch) {
  std::thread t(halve_all, batch);
  // CHECK-NOTES: :[[@LINE-1]]:28: warning: argument 'batch' holds tensors that share their storage with worker entry point 'std::thread' and the worker writes them in place while the spawner still uses them [libtorch-worker-missing-clone]
  // CHECK-NOTES: :15:7: note: 'div_' writes a tensor of 'batch' in place here
  // CHECK-NOTES: :[[@LINE+1]]:11: note: the spawner uses 'batch' here, before any join
  consume(batch[0]);
  t.join();
}

void PositiveStructSpawnerWrites() {
  Batch b{torch::rand({4}), torch::rand({4})};
  std::thread t([&b] { consume(b.images); });
  // CHECK-NOTES: :[[@LINE-1]]:19: warning: by-reference capture 'b' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined
  b.images.div_(255);
  // CHECK-NOTES: :[[@LINE-1]]:12: note: 'div_' writes 'b.images' in place here
  t.join();
}

void PositiveCopyUpdatedInWorker(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  std::thread t([&] {
    auto local = global;
    // CHECK-NOTES: :[[@LINE-2]]:18: warning: by-reference capture 'global' shares its module with worker entry point 'std::thread' and the worker updates its parameters in place while the spawner still uses it
    // CHECK-NOTES: :[[@LINE-2]]:18: note: the worker first uses 'global' here, captured by reference
    // CHECK-NOTES: :[[@LINE-3]]:10: note: 'local' is a copy of the ModuleHolder 'global', not of the module
    // CHECK-FIXES: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
    for (auto &p : local->parameters())
      p.add_(0.1);
    // CHECK-NOTES: :[[@LINE-1]]:9: note: 'add_' updates the parameters of 'global' in place here
  });
  consume(global->forward(x));
  // CHECK-NOTES: :[[@LINE-1]]:11: note: the spawner uses 'global' here, before any join
  t.join();
}

struct ViewDataset : torch::data::datasets::Dataset<ViewDataset> {
  torch::data::Example<> get(size_t i) override {
    return {images_[i], labels_[i]};
    // CHECK-FIXES: return {images_[i].clone(), labels_[i]};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor images_, labels_;
};

void PositiveLoaderLoop() {
  auto loader = torch::data::make_data_loader(ViewDataset(), 4);
  for (auto &batch : *loader)
    for (auto &ex : batch)
      ex.data.div_(255);
  // CHECK-NOTES: :[[@LINE-1]]:15: warning: 'div_' writes example 'ex' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()': every epoch sees the data already written
  // CHECK-NOTES: :[[@LINE-13]]:13: note: 'get()' returns a view of member 'images_' here
}
