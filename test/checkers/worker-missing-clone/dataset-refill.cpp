// A dataset whose get() refills a member buffer in place and returns it:
// every example is one storage (Note [A member refilled by get()]).
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/data.h>
#include <torch/torch.h>

#include <vector>

void decode(size_t index, std::vector<float> &out);

// Decoded into a scratch member with copy_, returned as the data.
struct ScratchDataset : torch::data::datasets::Dataset<ScratchDataset> {
  ScratchDataset() : scratch_(torch::empty({6})) {}
  torch::data::Example<> get(size_t index) override {
    std::vector<float> raw(6);
    decode(index, raw);
    scratch_.copy_(torch::from_blob(raw.data(), {6}));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'copy_' refills member 'scratch_' in place in 'get()', which returns it: every example shares one storage, so a batch's examples all hold the last sample, and the DataLoader's workers, each with a copy of dataset 'ScratchDataset', write it at once [libtorch-worker-missing-clone]
    return {scratch_, torch::zeros({1})};
    // CHECK-FIXES: return {scratch_.clone(), torch::zeros({1})};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor scratch_;
};

// A label buffer filled in place and returned, through a view of it.
struct LabelDataset : torch::data::datasets::Dataset<LabelDataset> {
  LabelDataset() : images_(torch::rand({8, 4})), label_(torch::zeros({1, 1})) {}
  torch::data::Example<> get(size_t index) override {
    label_.fill_(static_cast<double>(index));
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'fill_' refills member 'label_' in place in 'get()', which returns it
    return {images_[index].clone(), label_.view({1})};
    // CHECK-FIXES: return {images_[index].clone(), label_.view({1}).clone()};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor images_, label_;
};

// Negative: the refilled buffer is cloned on the way out.
struct CloneOutDataset : torch::data::datasets::Dataset<CloneOutDataset> {
  torch::data::Example<> get(size_t index) override {
    scratch_.fill_(static_cast<double>(index));
    return {scratch_.clone(), torch::zeros({1})};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor scratch_;
};

// Negative: a member only read, the example fresh.
struct MeanDataset : torch::data::datasets::Dataset<MeanDataset> {
  torch::data::Example<> get(size_t index) override {
    auto sample = torch::rand({6});
    sample.sub_(mean_);
    return {sample, torch::zeros({1})};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor mean_;
};

// Negative: a counter member is written, but another tensor is returned.
struct CountingDataset : torch::data::datasets::Dataset<CountingDataset> {
  torch::data::Example<> get(size_t index) override {
    seen_.add_(1);
    return {images_[index].clone(), torch::zeros({1})};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor seen_, images_;
};

// Negative: not a dataset's get().
struct Decoder {
  torch::Tensor get(size_t index) {
    scratch_.fill_(static_cast<double>(index));
    return scratch_;
  }
  torch::Tensor scratch_;
};
