// CASE: per-channel level-meter threads (POSIX threads with a start barrier)
//       get a pointer to the captured multichannel block; the main thread
//       peak-normalises the block in place for the recogniser before it
//       reaches the barrier that releases the meters
// SOURCE: the kind of pthread-based audio front end found in C/C++ speech
//         pipelines that moved their DSP to libtorch tensors
// KIND: bug
// HARM: the meter reports the level of the normalised signal (about -3 dBFS)
//       instead of the captured level (about -23 dBFS)
#include <pthread.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace frontend {

struct MeterJob {
  const torch::Tensor* block = nullptr;  // [channels, samples]
  int64_t channel = 0;
  pthread_barrier_t* start = nullptr;
  double dbfs = 0.0;
};

void* meter_main(void* arg) {
  auto* job = static_cast<MeterJob*>(arg);
  pthread_barrier_wait(job->start);
  const auto ch = job->block->select(0, job->channel);
  const double rms = ch.pow(2).mean().sqrt().item<double>();
  job->dbfs = 20.0 * std::log10(rms + 1e-12);
  return nullptr;
}

void peak_normalise_(torch::Tensor& block, double target = 1.0) {
  const auto peak = block.abs().amax(/*dim=*/1, /*keepdim=*/true).clamp_min(1e-6);
  block.mul_(target).div_(peak);  // BUG(libtorch-worker-missing-clone)
}

}  // namespace frontend

int main() {
  const int64_t channels = 2, samples = 1600;
  auto t = torch::arange(samples, torch::kDouble).div(16000.0);
  auto block = torch::stack({torch::sin(t * 2 * M_PI * 440), torch::sin(t * 2 * M_PI * 660)}).mul(0.1);
  const double captured_db = 20.0 * std::log10(block.select(0, 0).pow(2).mean().sqrt().item<double>());

  pthread_barrier_t start;
  pthread_barrier_init(&start, nullptr, static_cast<unsigned>(channels + 1));
  std::vector<frontend::MeterJob> jobs(channels);
  std::vector<pthread_t> meters(channels);
  for (int64_t c = 0; c < channels; ++c) {
    jobs[c] = frontend::MeterJob{&block, c, &start, 0.0};  // BUG(libtorch-worker-missing-clone)
    pthread_create(&meters[c], nullptr, &frontend::meter_main, &jobs[c]);  // BUG(libtorch-worker-missing-clone)
  }

  // recogniser input: peak-normalised, prepared while the meters spin up
  frontend::peak_normalise_(block);  // BUG(libtorch-worker-missing-clone)
  const auto features = block.unfold(1, 400, 160).pow(2).mean(-1);
  pthread_barrier_wait(&start);

  for (auto& th : meters) pthread_join(th, nullptr);
  pthread_barrier_destroy(&start);

  std::printf("channel 0: captured %.1f dBFS, meter shows %.1f dBFS (%lld feature frames)\n",
              captured_db, jobs[0].dbfs, static_cast<long long>(features.size(1)));
  if (std::abs(jobs[0].dbfs - captured_db) > 0.5)
    std::printf("HARM: the level meter shows %.1f dBFS for a block captured at %.1f dBFS\n",
                jobs[0].dbfs, captured_db);
  return 0;
}
