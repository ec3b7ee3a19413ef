// CASE: a sentence-encoder module posts each request to its own serial
//       executor from inside encode_async() and hands back a
//       std::shared_future<Tensor> whose value is the module's reusable
//       "pooled" buffer; the indexing client waits for each result and copies
//       it into its own embedding table before it submits the next request
// SOURCE: libtorch inference/retrieval servers that preallocate output
//         buffers per model (embedding services for semantic search)
// KIND: near-miss
// WHY-OK: every read of the shared buffer (get() + copy_ into the table)
//         finishes before the next request is submitted, so mm_out never
//         rewrites the buffer while a reader still needs it
#include <torch/torch.h>

#include <cmath>
#include <condition_variable>
#include <deque>
#include <future>
#include <iostream>
#include <mutex>
#include <thread>

template <class R>
class SerialExecutor {
 public:
  SerialExecutor() : worker_([this] { loop(); }) {}
  ~SerialExecutor() {
    { std::lock_guard<std::mutex> l(m_); stop_ = true; }
    cv_.notify_one();
    worker_.join();
  }
  std::shared_future<R> submit(std::function<R()> fn) {
    std::packaged_task<R()> task(std::move(fn));
    auto fut = task.get_future().share();
    { std::lock_guard<std::mutex> l(m_); q_.push_back(std::move(task)); }
    cv_.notify_one();
    return fut;
  }

 private:
  void loop() {
    for (;;) {
      std::packaged_task<R()> task;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [this] { return stop_ || !q_.empty(); });
        if (q_.empty()) return;
        task = std::move(q_.front());
        q_.pop_front();
      }
      task();
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<R()>> q_;
  bool stop_ = false;
  std::thread worker_;
};

struct SentenceEncoderImpl : torch::nn::Module {
  SentenceEncoderImpl(int64_t vocab, int64_t dim) {
    emb = register_module("emb", torch::nn::Embedding(vocab, dim));
    proj = register_parameter("proj", torch::randn({dim, dim}) / std::sqrt(double(dim)));
    pooled_ = register_buffer("pooled", torch::zeros({1, dim}));
  }
  torch::Tensor embed_now(const torch::Tensor& ids) {
    torch::NoGradGuard no_grad;
    return torch::mm(emb->forward(ids).mean(0, true), proj);
  }
  std::shared_future<torch::Tensor> encode_async(torch::Tensor ids) {
    return exec_.submit([this, ids] {
      torch::NoGradGuard no_grad;
      auto h = emb->forward(ids).mean(0, /*keepdim=*/true);
      torch::mm_out(pooled_, h, proj);
      return pooled_;
    });
  }
  torch::nn::Embedding emb{nullptr};
  torch::Tensor proj, pooled_;
  SerialExecutor<torch::Tensor> exec_;
};
TORCH_MODULE(SentenceEncoder);

int main() {
  torch::manual_seed(0);
  SentenceEncoder enc(100, 16);
  std::vector<torch::Tensor> corpus = {torch::tensor({3, 17, 42}, torch::kLong),
                                       torch::tensor({5, 6, 7, 8}, torch::kLong),
                                       torch::tensor({17, 42, 3}, torch::kLong),
                                       torch::tensor({90, 91}, torch::kLong)};

  auto table = torch::empty({int64_t(corpus.size()), 16});
  for (size_t i = 0; i < corpus.size(); ++i) {
    auto fut = enc->encode_async(corpus[i]);
    table[i].copy_(fut.get().squeeze(0));
  }

  auto q = table[0].unsqueeze(0);
  for (size_t i = 1; i < corpus.size(); ++i) {
    float got = torch::cosine_similarity(q, table[i].unsqueeze(0)).item<float>();
    float want = torch::cosine_similarity(enc->embed_now(corpus[0]), enc->embed_now(corpus[i])).item<float>();
    std::cout << "doc " << i << " score " << got << " (expected " << want << ")\n";
    if (std::abs(got - want) > 1e-4f)
      std::cout << "MISMATCH: doc " << i << " similarity " << got << " instead of " << want << "\n";
  }
  return 0;
}
