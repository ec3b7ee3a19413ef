// A dataset whose get() returns views of its own storage: writing an example
// in place rewrites the dataset, every epoch.
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/data.h>
#include <torch/torch.h>

#include <vector>

void consume(const torch::Tensor &t);

struct ViewDataset : torch::data::datasets::Dataset<ViewDataset> {
  ViewDataset() : images_(torch::rand({8, 4})), labels_(torch::rand({8})) {}
  torch::data::Example<> get(size_t i) override {
    return {images_[i], labels_[i]};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor images_, labels_;
};

// Positive: the loop writes the batch of examples in place.

void PositiveLoaderLoop() {
  auto loader = torch::data::make_data_loader(ViewDataset(), 4);
  for (auto &batch : *loader)
    for (auto &ex : batch)
      ex.data.div_(255);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'div_' writes example 'ex' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()': every epoch sees the data already written [libtorch-worker-missing-clone]
}

void PositiveBatchIndex(ViewDataset ds) {
  auto loader = torch::data::make_data_loader(
      std::move(ds), torch::data::DataLoaderOptions().batch_size(4));
  for (auto &batch : *loader)
    batch[0].target.sub_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'sub_' writes example 'batch' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()'
}

void PositiveDirectGet(ViewDataset &ds) {
  auto ex = ds.get(0);
  ex.data.div_(255);
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'div_' writes example 'ex' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()'
  consume(ex.data);
}

void PositiveViewOfExample(ViewDataset &ds) {
  auto ex = ds.get(1);
  ex.data.narrow(0, 0, 2).zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'zero_' writes example 'ex' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()'
}

// Positive: a transform mapped onto the dataset writes what get() returned.

void PositiveTensorLambdaTransform() {
  auto dataset = ViewDataset()
                     .map(torch::data::transforms::TensorLambda<>(
                         [](torch::Tensor img) { return img.mul_(2); }))
                     .map(torch::data::transforms::Stack<>());
  // CHECK-MESSAGES: :[[@LINE-2]]:61: warning: 'mul_' writes example 'img' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()': every epoch sees the data already written [libtorch-worker-missing-clone]
  auto loader = torch::data::make_data_loader(std::move(dataset), 4);
}

void PositiveExampleLambdaTransform() {
  auto dataset = ViewDataset().map(
      torch::data::transforms::Lambda<torch::data::Example<>>(
          [](torch::data::Example<> ex) {
            ex.target.add_(1);
            return ex;
          }));
  // CHECK-MESSAGES: :[[@LINE-3]]:23: warning: 'add_' writes example 'ex' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()'
}

// Negative: the transform computes a new tensor, or maps a stacked batch.

void NegativeOutOfPlaceTransform() {
  auto dataset = ViewDataset().map(torch::data::transforms::TensorLambda<>(
      [](torch::Tensor img) { return img * 2; }));
}

// Negative: Stack<> makes a fresh batch.

void NegativeStacked() {
  auto loader = torch::data::make_data_loader(
      ViewDataset().map(torch::data::transforms::Stack<>()), 4);
  for (auto &batch : *loader)
    batch.data.div_(255);
}

// Negative: get() returns clones or fresh tensors.

struct CloneDataset : torch::data::datasets::Dataset<CloneDataset> {
  torch::data::Example<> get(size_t i) override {
    return {images_[i].clone(), labels_[i].clone()};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor images_, labels_;
};

struct FreshDataset : torch::data::datasets::Dataset<FreshDataset> {
  torch::data::Example<> get(size_t i) override {
    return {images_[i].to(torch::kFloat).div(255), torch::zeros({1})};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor images_;
};

// Only the data is a view: writing the target is harmless.
struct DataViewDataset : torch::data::datasets::Dataset<DataViewDataset> {
  torch::data::Example<> get(size_t i) override {
    return {images_[i], torch::zeros({1})};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor images_;
};

void NegativeFreshTarget(DataViewDataset &ds) {
  auto ex = ds.get(0);
  ex.target.add_(1);
}

void NegativeCloneDataset() {
  auto loader = torch::data::make_data_loader(CloneDataset(), 4);
  for (auto &batch : *loader)
    for (auto &ex : batch)
      ex.data.div_(255);
}

void NegativeFreshDataset(FreshDataset &ds) {
  auto ex = ds.get(0);
  ex.data.div_(255);
  ex.target.add_(1);
}

// Negative: the example is read, or rebound to a fresh tensor, not written.

void NegativeReadOnly() {
  auto loader = torch::data::make_data_loader(ViewDataset(), 4);
  for (auto &batch : *loader)
    for (auto &ex : batch)
      consume(ex.data.div(255));
}

void NegativeOutOfPlace(ViewDataset &ds) {
  auto ex = ds.get(0);
  auto scaled = ex.data.div(255);
  scaled.add_(1);
}

// A transform class of the file: a TensorTransform's operator() and a
// Transform's apply() run on what get() returned.

struct TimeMask : torch::data::transforms::TensorTransform<torch::Tensor> {
  torch::Tensor operator()(torch::Tensor mel) override {
    mel.narrow(0, 0, 2).zero_();
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'zero_' writes example 'mel' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()': every epoch sees the data already written [libtorch-worker-missing-clone]
    return mel;
  }
};

struct ShiftLabels
    : torch::data::transforms::Transform<torch::data::Example<>,
                                         torch::data::Example<>> {
  torch::data::Example<> apply(torch::data::Example<> ex) override {
    ex.target.sub_(1);
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'sub_' writes example 'ex' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()'
    return ex;
  }
};

struct Scale : torch::data::transforms::TensorTransform<torch::Tensor> {
  torch::Tensor operator()(torch::Tensor img) override { return img * 2; }
};

void PositiveTransformClasses() {
  auto masked = ViewDataset().map(TimeMask()).map(torch::data::transforms::Stack<>());
  auto shifted = ViewDataset().map(ShiftLabels());
}

// Negative: the class computes a new tensor.
void NegativeOutOfPlaceTransformClass() {
  auto scaled = ViewDataset().map(Scale());
}
