// CASE: an inference server's connection handler decodes every request into
//       one reusable input tensor and queues that handle, inside a request
//       struct, on a std::deque drained by a dynamic-batching thread; the
//       batcher waits for a full batch, so by then every queued handle shows
//       the last decoded payload
// SOURCE: libtorch inference servers with dynamic batching (request structs
//         in a condition-variable queue); the thread-safety answer in
//         https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
// KIND: bug
// HARM: request 0 is answered with request 1's score
#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

struct Request {
  int id;
  torch::Tensor input;
};

class BatchQueue {
 public:
  explicit BatchQueue(size_t max_batch) : max_batch_(max_batch) {}

  void submit(Request request) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.push_back(std::move(request));
    }
    ready_.notify_one();
  }

  // Blocks until a full batch is queued (the server's batching window).
  std::vector<Request> next_batch() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return pending_.size() >= max_batch_; });
    std::vector<Request> batch(pending_.begin(), pending_.begin() + max_batch_);
    pending_.erase(pending_.begin(), pending_.begin() + max_batch_);
    return batch;
  }

 private:
  size_t max_batch_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Request> pending_;
};

class Connection {
 public:
  explicit Connection(BatchQueue& queue) : queue_(queue), decoded_(torch::empty({4})) {}

  void on_message(int id, const std::vector<float>& payload) {
    // decode into the connection's buffer to avoid an allocation per request
    decoded_.copy_(torch::tensor(payload));  // BUG(libtorch-worker-missing-clone)
    queue_.submit(Request{id, decoded_});  // BUG(libtorch-worker-missing-clone)
  }

 private:
  BatchQueue& queue_;
  torch::Tensor decoded_;
};

int main() {
  torch::manual_seed(0);
  torch::nn::Linear scorer(4, 1);
  BatchQueue queue(2);
  std::vector<float> answers(2, 0.f);

  std::thread batcher([&] {
    auto batch = queue.next_batch();
    std::vector<torch::Tensor> inputs;
    for (const auto& request : batch) inputs.push_back(request.input);
    torch::NoGradGuard no_grad;
    auto scores = scorer->forward(torch::stack(inputs)).squeeze(1);
    for (size_t i = 0; i < batch.size(); ++i)
      answers[batch[i].id] = scores[i].item<float>();
  });

  const std::vector<std::vector<float>> payloads = {{1, 0, 0, 0}, {0, 0, 0, 5}};
  Connection connection(queue);
  for (int id = 0; id < 2; ++id) connection.on_message(id, payloads[id]);
  batcher.join();

  torch::NoGradGuard no_grad;
  float expected0 = scorer->forward(torch::tensor(payloads[0]).unsqueeze(0)).item<float>();
  std::cout << "request 0 answered " << answers[0] << ", its own score is " << expected0
            << ", request 1 answered " << answers[1] << "\n";
  if (std::abs(answers[0] - expected0) > 1e-5)
    std::cout << "HARM: request 0 got score " << answers[0] << " (request 1's) instead of "
              << expected0 << "\n";
  return 0;
}
