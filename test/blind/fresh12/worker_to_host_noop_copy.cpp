// CASE: an embedding server written for CUDA "copies the batch to the host"
//       with .to(host_) before handing it to an std::async writer that streams
//       the raw embeddings to the feature store, then L2-normalises the batch
//       in place for the similarity search; on a CPU build .to(kCPU) returns
//       the same tensor
// SOURCE: the kind of code in libtorch retrieval/inference servers that run
//         with device = kCPU in tests or CPU-only deployments
// KIND: bug
// HARM: the feature store receives unit-norm vectors instead of the raw
//       embeddings
#include <torch/torch.h>

#include <future>
#include <iostream>
#include <vector>

namespace serve {

struct EmbeddingServer {
  torch::Device host_{torch::kCPU};
  torch::nn::Linear encoder{torch::nn::LinearOptions(16, 8)};
  std::vector<float> store_;

  std::future<size_t> export_raw(torch::Tensor rows, std::shared_future<void> disk_ready) {
    return std::async(std::launch::async, [this, rows, disk_ready] {  // BUG(libtorch-worker-missing-clone)
      disk_ready.wait();
      auto flat = rows.contiguous().view({-1});
      store_.assign(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
      return static_cast<size_t>(rows.size(0));
    });
  }

  torch::Tensor handle(const torch::Tensor& queries, std::shared_future<void> disk_ready,
                       std::future<size_t>* pending) {
    torch::NoGradGuard no_grad;
    auto emb = encoder(queries);
    auto on_host = emb.to(host_);  // BUG(libtorch-worker-missing-clone)
    *pending = export_raw(on_host, disk_ready);  // BUG(libtorch-worker-missing-clone)
    emb.div_(emb.norm(2, {1}, true));  // BUG(libtorch-worker-missing-clone)
    return emb.mm(emb.t());
  }
};

}  // namespace serve

int main() {
  torch::manual_seed(0);
  serve::EmbeddingServer server;
  auto queries = torch::randn({4, 16}) * 6;
  torch::Tensor expected;
  {
    torch::NoGradGuard no_grad;
    expected = server.encoder(queries).clone();
  }

  std::promise<void> disk;
  std::future<size_t> pending;
  auto sims = server.handle(queries, disk.get_future().share(), &pending);
  disk.set_value();
  size_t n = pending.get();

  auto stored = torch::tensor(server.store_).view({static_cast<int64_t>(n), 8});
  std::cout << "self-similarity " << sims[0][0].item<float>() << "\n";
  if (!torch::allclose(stored, expected))
    std::cout << "HARM: stored row norm " << stored[0].norm().item<float>() << ", raw embedding norm "
              << expected[0].norm().item<float>() << "\n";
  else
    std::cout << "store holds the raw embeddings\n";
  return 0;
}
