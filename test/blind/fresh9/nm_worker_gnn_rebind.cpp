// CASE: a GraphSAGE-style hop launches one std::async mean-aggregation per
//       neighbour shard with the node features passed by value, then decays
//       the node state out of place (rebinding x) before the shards run
// SOURCE: the kind of code in libtorch GNN samplers/aggregators that shard
//         neighbourhood aggregation over std::async (PyG-style C++ ports)
// KIND: near-miss
// WHY-OK: each task holds its own handle to the old feature storage and the
//         decay x = x * 0.5 allocates a new tensor, so nothing the shards read
//         is written
#include <torch/torch.h>

#include <algorithm>
#include <future>
#include <iostream>
#include <vector>

namespace gnn {

torch::Tensor mean_aggregate(torch::Tensor x, torch::Tensor nbrs, std::shared_future<void> start) {
  start.wait();
  return x.index_select(0, nbrs.flatten()).view({nbrs.size(0), nbrs.size(1), -1}).mean(1);
}

}  // namespace gnn

int main() {
  torch::manual_seed(0);
  const int64_t N = 100, F = 16, fanout = 5;
  torch::Tensor x = torch::randn({N, F});
  std::vector<torch::Tensor> shards = torch::randint(N, {40, fanout}, torch::kLong).chunk(4);

  std::vector<torch::Tensor> ref_parts;
  for (const auto& s : shards)
    ref_parts.push_back(x.index_select(0, s.flatten()).view({s.size(0), fanout, F}).mean(1));
  const auto reference = torch::cat(ref_parts);

  std::promise<void> release;
  auto start = release.get_future().share();
  std::vector<std::future<torch::Tensor>> pending;
  for (const auto& s : shards)
    pending.push_back(std::async(std::launch::async, gnn::mean_aggregate, x, s, start));

  x = x * 0.5;  // residual decay for the next hop: a new tensor
  release.set_value();

  std::vector<torch::Tensor> parts(pending.size());
  std::transform(pending.begin(), pending.end(), parts.begin(), [](auto& f) { return f.get(); });
  const auto aggregated = torch::cat(parts);
  const double err = (aggregated - reference).abs().max().item<double>();
  std::cout << "max deviation from the hop's neighbour means: " << err
            << ", decayed state norm " << x.norm().item<double>() << "\n";
  if (err > 1e-5)
    std::cout << "HARM: shards aggregated the decayed node state (max deviation " << err
              << ")\n";
  return 0;
}
