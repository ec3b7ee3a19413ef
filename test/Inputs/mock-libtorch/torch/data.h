// Mock of <torch/data.h> (torch/data/example.h, datasets/base.h,
// datasets/map.h, transforms/base.h, transforms/collate.h,
// transforms/stack.h, samplers/random.h, dataloader_options.h, iterator.h,
// dataloader/base.h, dataloader/stateless.h, dataloader.h) for the lit tests;
// see ATen/ATen.h for the rules.
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <memory>
#include <type_traits>
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
template <typename S, typename T> class MapDataset;
template <typename D, typename T> MapDataset<D, T> map(D, T);
template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = c10::ArrayRef<size_t>>
class BatchDataset {
public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  constexpr static bool is_stateful = false;
  virtual ~BatchDataset() = default;
  virtual Batch get_batch(BatchRequest request) = 0;
  virtual c10::optional<size_t> size() const = 0;
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self &>(*this), std::move(transform));
  }
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self &>(*this)),
                         std::move(transform));
  }
};
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
public:
  using ExampleType = SingleExample;
  virtual ExampleType get(size_t index) = 0;
  std::vector<ExampleType> get_batch(c10::ArrayRef<size_t> indices) override;
};
template <typename SourceDataset, typename AppliedTransform>
class MapDataset
    : public BatchDataset<MapDataset<SourceDataset, AppliedTransform>,
                          typename AppliedTransform::OutputBatchType,
                          typename SourceDataset::BatchRequestType> {
public:
  using DatasetType = SourceDataset;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename SourceDataset::BatchRequestType;
  using OutputBatchType = typename AppliedTransform::OutputBatchType;
  MapDataset(SourceDataset dataset, AppliedTransform transform);
  OutputBatchType get_batch(BatchRequestType indices) override;
  c10::optional<size_t> size() const noexcept override;
};
template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset,
                                           TransformType transform);
} // namespace datasets
namespace transforms {
template <typename InputBatch, typename OutputBatch> class BatchTransform {
public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;
  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};
template <typename T, typename BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;
template <typename T = Example<>> struct Stack;
template <> struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override;
};
// torch/data/transforms/base.h, lambda.h and tensor.h: transforms applied
// to each example (Lambda) or to its data (TensorLambda).
template <typename Input, typename Output>
class Transform
    : public BatchTransform<std::vector<Input>, std::vector<Output>> {
public:
  using InputType = Input;
  using OutputType = Output;
  virtual OutputType apply(InputType input) = 0;
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override;
};
template <typename Input, typename Output = Input>
class Lambda : public Transform<Input, Output> {
public:
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function);
  Output apply(Input input) override;
};
template <typename Target = Tensor>
class TensorTransform
    : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
public:
  using E = Example<Tensor, Target>;
  virtual Tensor operator()(Tensor input) = 0;
  E apply(E input) override;
};
template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
public:
  using FunctionType = std::function<Tensor(Tensor)>;
  explicit TensorLambda(FunctionType function);
  Tensor operator()(Tensor input) override;
};
} // namespace transforms
namespace samplers {
template <typename BatchRequest = std::vector<size_t>> class Sampler {
public:
  using BatchRequestType = BatchRequest;
  virtual ~Sampler() = default;
  virtual void reset(c10::optional<size_t> new_size) = 0;
  virtual c10::optional<BatchRequest> next(size_t batch_size) = 0;
};
class RandomSampler : public Sampler<> {
public:
  explicit RandomSampler(int64_t size);
  void reset(c10::optional<size_t> new_size = c10::nullopt) override;
  c10::optional<std::vector<size_t>> next(size_t batch_size) override;
};
class SequentialSampler : public Sampler<> {
public:
  explicit SequentialSampler(size_t size);
  void reset(c10::optional<size_t> new_size = c10::nullopt) override;
  c10::optional<std::vector<size_t>> next(size_t batch_size) override;
};
} // namespace samplers
struct DataLoaderOptions {
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size);
  DataLoaderOptions &batch_size(size_t value);
  DataLoaderOptions &workers(size_t value);
};
template <typename Batch> class Iterator {
public:
  Iterator &operator++();
  Batch &operator*();
  Batch *operator->();
  bool operator==(const Iterator &other) const;
  bool operator!=(const Iterator &other) const;
};
template <typename Dataset, typename Batch, typename BatchRequest>
class DataLoaderBase {
public:
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  virtual ~DataLoaderBase() = default;
  Iterator<Batch> begin();
  Iterator<Batch> end();
};
template <typename Dataset, typename Sampler>
class StatelessDataLoader
    : public DataLoaderBase<Dataset, typename Dataset::BatchType,
                            typename Sampler::BatchRequestType> {
public:
  StatelessDataLoader(Dataset dataset, Sampler sampler,
                      DataLoaderOptions options);
};
template <typename Dataset, typename Sampler>
std::enable_if_t<!Dataset::is_stateful,
                 std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>>
make_data_loader(Dataset dataset, Sampler sampler, DataLoaderOptions options);
template <typename Sampler = samplers::RandomSampler, typename Dataset>
std::enable_if_t<!(Dataset::is_stateful ||
                   !std::is_constructible<Sampler, size_t>::value),
                 std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>>
make_data_loader(Dataset dataset, DataLoaderOptions options = DataLoaderOptions());
} // namespace data
} // namespace torch
