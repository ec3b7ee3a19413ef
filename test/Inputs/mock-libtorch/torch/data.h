// Mock of <torch/data.h> (torch/data/example.h, datasets/base.h,
// transforms/stack.h) for the lit tests; see ATen/ATen.h for the rules.
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <vector>

namespace torch {
namespace data {
template <typename Data = Tensor, typename Target = Tensor> struct Example {
  using DataType = Data;
  using TargetType = Target;
  Example() = default;
  Example(Data data, Target target)
      : data(std::move(data)), target(std::move(target)) {}
  Data data;
  Target target;
};
namespace datasets {
template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = c10::ArrayRef<size_t>>
class BatchDataset {
public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  virtual ~BatchDataset() = default;
  virtual Batch get_batch(BatchRequest request) = 0;
  virtual c10::optional<size_t> size() const = 0;
};
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
public:
  using ExampleType = SingleExample;
  virtual ExampleType get(size_t index) = 0;
  std::vector<ExampleType> get_batch(c10::ArrayRef<size_t> indices) override;
};
} // namespace datasets
} // namespace data
} // namespace torch
