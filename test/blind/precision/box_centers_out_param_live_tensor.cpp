// CASE: a tracker's `box_centers_out(boxes, out_centers)` fills its
//       output-named by-value parameter through select(1, k) views; to save
//       an allocation per frame the update step "keeps" the old centres in a
//       local (`auto last_centers = tracks.prev_centers;`, a handle copy),
//       refills the track table's `prev_centers` in place, and computes the
//       velocity as `prev_centers - last_centers`
// SOURCE: the kind of code in C++ multi-object trackers (SORT / DeepSORT
//         libtorch ports) that reuse buffers across frames; an _out-style
//         name does not make the caller's tensor a scratch buffer
// KIND: bug
// HARM: the previous centres are overwritten before they are read, so every
//       track's velocity comes out as zero
#include <torch/torch.h>
#include <iostream>

void box_centers_out(const at::Tensor& boxes, at::Tensor out_centers) {
  TORCH_CHECK(out_centers.size(0) == boxes.size(0) && out_centers.size(1) == 2, "bad out");
  out_centers.select(1, 0).copy_((boxes.select(1, 0) + boxes.select(1, 2)) / 2); // BUG(libtorch-inplace-on-view)
  out_centers.select(1, 1).copy_((boxes.select(1, 1) + boxes.select(1, 3)) / 2); // BUG(libtorch-inplace-on-view)
}

struct TrackTable {
  at::Tensor prev_centers;  // (N, 2), centres at the previous frame
  at::Tensor velocity;      // (N, 2)
};

TrackTable start_tracks(const at::Tensor& boxes) {
  TrackTable t{at::empty({boxes.size(0), 2}), at::zeros({boxes.size(0), 2})};
  box_centers_out(boxes, t.prev_centers);
  return t;
}

void update_tracks(TrackTable& tracks, const at::Tensor& boxes) {
  auto last_centers = tracks.prev_centers;  // "keep" last frame's centres
  box_centers_out(boxes, tracks.prev_centers); // BUG(libtorch-inplace-on-view)
  tracks.velocity = tracks.prev_centers - last_centers;
}

int main() {
  auto frame0 = torch::tensor({{0.f, 0.f, 10.f, 10.f}, {50.f, 50.f, 70.f, 90.f}});
  auto frame1 = frame0 + torch::tensor({3.f, 1.f, 3.f, 1.f});  // everything moves (+3, +1)
  auto tracks = start_tracks(frame0);
  update_tracks(tracks, frame1);
  std::cout << "velocity:\n" << tracks.velocity << "\n";
  if (tracks.velocity.abs().sum().item<float>() == 0.0f)
    std::cout << "HARM: the refill of prev_centers overwrote last_centers too; velocity is zero "
                 "instead of (3, 1)\n";
  return 0;
}
