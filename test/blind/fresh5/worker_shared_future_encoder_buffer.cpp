// CASE: a sentence-encoder module posts each request to its own serial
//       executor from inside encode_async() and hands back a
//       std::shared_future<Tensor> whose value is the module's reusable
//       "pooled" buffer, which every later request rewrites with mm_out
// SOURCE: libtorch inference/retrieval servers that preallocate output
//         buffers per model to avoid allocations (embedding services for
//         semantic search); cf. https://discuss.pytorch.org/t/implication-of-multithreading-with-a-model-without-mutexes-in-libtorch/119347
// KIND: bug
// HARM: the query and every document resolve to the same embedding, so all
//       similarity scores come out as 1
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
    return exec_.submit([this, ids] {  // BUG(libtorch-worker-missing-clone)
      torch::NoGradGuard no_grad;
      auto h = emb->forward(ids).mean(0, /*keepdim=*/true);
      torch::mm_out(pooled_, h, proj);  // BUG(libtorch-worker-missing-clone)
      return pooled_;                   // BUG(libtorch-worker-missing-clone)
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
  auto query = torch::tensor({3, 17, 42}, torch::kLong);
  std::vector<torch::Tensor> docs = {torch::tensor({5, 6, 7, 8}, torch::kLong),
                                     torch::tensor({17, 42, 3}, torch::kLong),
                                     torch::tensor({90, 91}, torch::kLong)};

  auto qf = enc->encode_async(query);
  std::vector<std::shared_future<torch::Tensor>> df;
  for (const auto& d : docs) df.push_back(enc->encode_async(d));
  df.back().wait();  // FIFO executor: every earlier request is done too

  auto qv = qf.get();  // BUG(libtorch-worker-missing-clone)
  for (size_t i = 0; i < docs.size(); ++i) {
    float got = torch::cosine_similarity(qv, df[i].get()).item<float>();  // BUG(libtorch-worker-missing-clone)
    float want = torch::cosine_similarity(enc->embed_now(query), enc->embed_now(docs[i])).item<float>();
    std::cout << "doc " << i << " score " << got << " (expected " << want << ")\n";
    if (std::abs(got - want) > 1e-4f)
      std::cout << "HARM: doc " << i << " similarity " << got << " instead of " << want << "\n";
  }
  return 0;
}
