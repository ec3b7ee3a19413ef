// CASE: a GNN recommendation service answers a neighbourhood query on
//       std::async through a helper in a serving namespace, keeps the
//       future in a std::optional, and meanwhile ingests fresh node
//       embeddings into the same table with index_copy_
// SOURCE: the kind of code from online GraphSAGE/PinSage-style serving
//         (query answered asynchronously while the embedding table is
//         refreshed in place); https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
// KIND: bug
// HARM: the answer mixes in embeddings ingested after the query was issued
#include <torch/torch.h>

#include <chrono>
#include <future>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

using Adjacency = std::vector<std::vector<int64_t>>;

namespace graph {
// Mean of each query node's neighbours' embeddings, concatenated with its own.
torch::Tensor sage_readout(const torch::Tensor& emb, const Adjacency& adj,
                           const std::vector<int64_t>& nodes) {
  std::vector<torch::Tensor> rows;
  for (auto n : nodes) {
    auto nbrs = torch::tensor(adj[n], torch::kLong);
    rows.push_back(torch::cat({emb[n], emb.index_select(0, nbrs).mean(0)}));
  }
  return torch::stack(rows);
}
}  // namespace graph

namespace serving {
std::future<torch::Tensor> answer_async(torch::Tensor table, const Adjacency& adj,
                                        std::vector<int64_t> nodes) {
  return std::async(std::launch::async, [table, &adj, nodes] {   // BUG(libtorch-worker-missing-clone)
    std::this_thread::sleep_for(std::chrono::milliseconds(80));  // feature-store lookup
    return graph::sage_readout(table, adj, nodes);
  });
}
}  // namespace serving

Adjacency ring_with_chords(int64_t n) {
  Adjacency adj(n);
  for (int64_t i = 0; i < n; ++i) {
    adj[i] = {(i + 1) % n, (i + n - 1) % n, (i + n / 2) % n};
  }
  return adj;
}

int main() {
  torch::manual_seed(21);
  const int64_t n_nodes = 64, dim = 8;
  auto table = torch::randn({n_nodes, dim});
  auto adj = ring_with_chords(n_nodes);
  std::vector<int64_t> query = {3, 17, 40};

  auto expected = graph::sage_readout(table, adj, query);

  std::optional<std::future<torch::Tensor>> inflight;
  inflight = serving::answer_async(table, adj, query);             // BUG(libtorch-worker-missing-clone)

  // The ingestion tick: nodes whose embeddings were recomputed by the
  // offline job since the last tick.
  auto updated = torch::arange(0, n_nodes, 2, torch::kLong);
  auto fresh_rows = torch::randn({updated.size(0), dim});
  table.index_copy_(0, updated, fresh_rows);                       // BUG(libtorch-worker-missing-clone)

  auto answer = inflight->get();
  inflight.reset();
  auto diff = (answer - expected).abs().max().item<float>();
  std::cout << "answered " << answer.size(0) << " queries, max diff vs issue-time table " << diff << "\n";
  if (diff > 1e-6f)
    std::cout << "HARM: the async answer differs from the table at query time by " << diff << "\n";
  return 0;
}
