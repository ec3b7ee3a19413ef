// CASE: a GraphSAGE-style hop launches one std::async mean-aggregation per
//       neighbour shard with the node features passed through std::cref, then
//       decays the node state in place for the residual before the shards run
// SOURCE: the kind of code in libtorch GNN samplers/aggregators that shard
//         neighbourhood aggregation over std::async (PyG-style C++ ports)
// KIND: bug
// HARM: the aggregated neighbour features are half of what they should be
#include <torch/torch.h>

#include <algorithm>
#include <functional>
#include <future>
#include <iostream>
#include <vector>

namespace gnn {

// x: [N, F]; nbrs: [n, fanout] neighbour ids of n target nodes
torch::Tensor mean_aggregate(const torch::Tensor& x, torch::Tensor nbrs,
                             std::shared_future<void> start) {
  start.wait();  // all shards are released together
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
    pending.push_back(std::async(std::launch::async, gnn::mean_aggregate, std::cref(x), s,  // BUG(libtorch-worker-missing-clone)
                                 start));

  x.mul_(0.5);  // BUG(libtorch-worker-missing-clone)
  release.set_value();

  std::vector<torch::Tensor> parts(pending.size());
  std::transform(pending.begin(), pending.end(), parts.begin(), [](auto& f) { return f.get(); });
  const auto aggregated = torch::cat(parts);
  const double err = (aggregated - reference).abs().max().item<double>();
  std::cout << "max deviation from the hop's neighbour means: " << err << "\n";
  if (err > 1e-5)
    std::cout << "HARM: shards aggregated the decayed node state (max deviation " << err
              << ")\n";
  return 0;
}
