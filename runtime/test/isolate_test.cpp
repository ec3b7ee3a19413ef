// isolate() and its container forms, on real CPU tensors.
#include "torchalias/isolate.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <thread>
#include <unordered_map>

namespace torchalias {
namespace {

// Fresh storage: no byte shared, values equal.
void expect_isolated(const at::Tensor &copy, const at::Tensor &original) {
  ASSERT_TRUE(copy.defined());
  EXPECT_FALSE(copy.is_alias_of(original));
  EXPECT_TRUE(torch::equal(copy, original));
}

TEST(Isolate, GivesFreshStorageAndCutsHistory) {
  auto weight = torch::randn({3, 4}, torch::requires_grad());
  auto activations = weight * 2;
  auto copy = isolate(activations);
  expect_isolated(copy, activations);
  EXPECT_FALSE(copy.requires_grad());
  EXPECT_TRUE(copy.is_leaf());
  copy.add_(1);
  EXPECT_TRUE(torch::equal(activations, weight * 2));
}

TEST(Isolate, KeepRequiresGradGivesALeaf) {
  auto weight = torch::randn({3}, torch::requires_grad());
  auto copy = isolate(weight, {/*keep_requires_grad=*/true});
  expect_isolated(copy, weight);
  EXPECT_TRUE(copy.requires_grad());
  EXPECT_TRUE(copy.is_leaf());
  EXPECT_FALSE(isolate(weight).requires_grad());
}

TEST(Isolate, ViewOfCallersTensorNoLongerWritesThrough) {
  auto input = torch::zeros({4, 4});
  auto head = isolate(input.narrow(0, 0, 2));
  head.fill_(7);
  EXPECT_EQ(input.sum().item<float>(), 0.0f);
  EXPECT_EQ(head.sizes(), (std::vector<int64_t>{2, 4}));
}

TEST(Isolate, KeepsChannelsLast) {
  auto image = torch::randn({2, 3, 4, 5})
                   .contiguous(at::MemoryFormat::ChannelsLast);
  auto copy = isolate(image);
  expect_isolated(copy, image);
  EXPECT_EQ(copy.strides(), image.strides());
  EXPECT_TRUE(copy.is_contiguous(at::MemoryFormat::ChannelsLast));
}

TEST(Isolate, MaterialisesExpandedTensors) {
  auto row = torch::arange(4.0);
  auto grid = row.expand({3, 4});
  auto copy = isolate(grid);
  expect_isolated(copy, grid);
  EXPECT_EQ(copy.stride(0), 4);
  copy.index_put_({0, 0}, 100.0); // would corrupt every row of `grid`
  EXPECT_EQ(row[0].item<double>(), 0.0);
  EXPECT_EQ(copy[1][0].item<double>(), 0.0);
}

TEST(Isolate, UndefinedStaysUndefined) {
  EXPECT_FALSE(isolate(at::Tensor()).defined());
}

TEST(Isolate, VectorAndList) {
  std::vector<at::Tensor> tensors{torch::ones({2}), torch::zeros({3})};
  auto copies = isolate(tensors);
  ASSERT_EQ(copies.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    expect_isolated(copies[i], tensors[i]);

  c10::List<at::Tensor> list({torch::ones({2}), torch::ones({1})});
  auto list_copy = isolate(list);
  ASSERT_EQ(list_copy.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    expect_isolated(list_copy.get(i), list.get(i));
}

TEST(Isolate, TupleIsolatesTensorsAndCopiesTheRest) {
  auto t = torch::ones({2});
  std::tuple<at::Tensor, int, std::string> args{t, 5, "name"};
  auto copy = isolate(args);
  expect_isolated(std::get<0>(copy), t);
  EXPECT_EQ(std::get<1>(copy), 5);
  EXPECT_EQ(std::get<2>(copy), "name");
}

TEST(Isolate, StringKeyedMaps) {
  auto a = torch::ones({2}), b = torch::zeros({2});
  std::map<std::string, at::Tensor> ordered{{"a", a}, {"b", b}};
  auto ordered_copy = isolate(ordered);
  expect_isolated(ordered_copy.at("a"), a);
  expect_isolated(ordered_copy.at("b"), b);

  std::unordered_map<std::string, std::vector<at::Tensor>> hashed{
      {"both", {a, b}}};
  auto hashed_copy = isolate(hashed);
  expect_isolated(hashed_copy.at("both")[1], b);

  torch::nn::Linear linear(2, 2);
  auto state = isolate(linear->named_parameters());
  ASSERT_EQ(state.size(), 2u);
  EXPECT_EQ(state.keys(), linear->named_parameters().keys());
  expect_isolated(state["weight"], linear->weight);
}

TEST(Isolate, DataLoaderExamples) {
  torch::data::Example<> example(torch::ones({2, 2}), torch::zeros({2}));
  auto copy = isolate(example);
  expect_isolated(copy.data, example.data);
  expect_isolated(copy.target, example.target);

  torch::data::TensorExample unlabeled(torch::ones({3}));
  expect_isolated(isolate(unlabeled).data, unlabeled.data);
}

TEST(Isolate, IValueRecursively) {
  auto a = torch::ones({2}), b = torch::zeros({3}), c = torch::full({1}, 4.0);
  c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
  dict.insert("c", c);
  c10::IValue value = c10::ivalue::Tuple::create(
      {c10::IValue(a), c10::IValue(c10::List<at::Tensor>({b})),
       c10::IValue(dict), c10::IValue(int64_t{3})});
  c10::IValue copy = isolate(value);
  const auto &elements = copy.toTupleRef().elements();
  ASSERT_EQ(elements.size(), 4u);
  expect_isolated(elements[0].toTensor(), a);
  expect_isolated(elements[1].toTensorList().get(0), b);
  expect_isolated(elements[2].toGenericDict().at("c").toTensor(), c);
  EXPECT_EQ(elements[3].toInt(), 3);
}

TEST(Isolate, GenericListOfTensorLists) {
  auto a = torch::ones({2});
  c10::impl::GenericList outer(c10::ListType::ofTensors());
  outer.push_back(c10::List<at::Tensor>({a}));
  c10::IValue copy = isolate(c10::IValue(outer));
  expect_isolated(copy.toList().get(0).toTensorList().get(0), a);
}

void worker(at::Tensor batch, int scale) { batch.mul_(scale); }

TEST(IsolateArgs, SpawnSiteArgumentsNoLongerShareWithTheWorker) {
  auto batch = torch::ones({1000});
  auto args = isolate_args(batch, 3);
  static_assert(std::is_same_v<decltype(args), std::tuple<at::Tensor, int>>);
  std::thread spawned(
      [](at::Tensor b, int s) { worker(std::move(b), s); },
      std::get<0>(args), std::get<1>(args));
  spawned.join();
  EXPECT_EQ(batch.sum().item<float>(), 1000.0f);
  EXPECT_EQ(std::get<0>(args).sum().item<float>(), 3000.0f);
}

TEST(IsolateArgs, WithoutIsolationTheWorkerWritesThrough) {
  auto batch = torch::ones({1000});
  std::thread spawned(worker, batch, 3);
  spawned.join();
  EXPECT_EQ(batch.sum().item<float>(), 3000.0f);
}

} // namespace
} // namespace torchalias
