// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch
// A view of an object's member, read after a helper given the object wrote
// that member in place (Note [Members of an argument written by a helper]).

#include <torch/torch.h>

struct Track {
  torch::Tensor x;
  torch::Tensor P;
};

void kalman_update(Track &track, const torch::Tensor &K) {
  track.x.add_(K);
  track.P.sub_(K * track.P);
}

void predict(Track *track) { track->P.mul_(2); }

double PositiveDiagonalBeforeUpdate(Track &track, const torch::Tensor &K) {
  auto prior_var = track.P.diagonal();
  kalman_update(track, K);
  return (prior_var - track.P.diagonal()).sum().item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'prior_var' is read after 'kalman_update' wrote member 'P' in place; 'prior_var' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'kalman_update' writes member 'P' in place here
  // CHECK-NOTES: :14:11: note: 'kalman_update' writes member 'P' here
  // CHECK-NOTES: :[[@LINE-6]]:28: note: 'prior_var' is a view of 'P' taken here; clone it to keep the values
}

double PositiveThroughAPointer(Track &track) {
  auto first = track.P.select(0, 0);
  predict(&track);
  return first.sum().item<double>();
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'first' is read after 'predict' wrote member 'P' in place; 'first' holds a view of part of it, so it reads the new values, not the ones it was taken from [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: 'predict' writes member 'P' in place here
  // CHECK-NOTES: :17:39: note: 'predict' writes member 'P' here
  // CHECK-NOTES: :[[@LINE-6]]:24: note: 'first' is a view of 'P' taken here; clone it to keep the values
}

// A clone keeps the values.
double NegativeClonedBeforeUpdate(Track &track, const torch::Tensor &K) {
  auto prior_var = track.P.diagonal().clone();
  kalman_update(track, K);
  return (prior_var - track.P.diagonal()).sum().item<double>();
}

// Another object's member is not written.
double NegativeOtherTrack(Track &a, Track &b, const torch::Tensor &K) {
  auto prior_var = a.P.diagonal();
  kalman_update(b, K);
  return prior_var.sum().item<double>();
}

// The helper writes another member.
double NegativeOtherMember(Track &track, const torch::Tensor &K) {
  auto position = track.x.select(0, 0);
  predict(&track);
  return position.sum().item<double>();
}

// Not read after the update.
void NegativeNotReadAfter(Track &track, const torch::Tensor &K) {
  auto prior_var = track.P.diagonal();
  double before = prior_var.sum().item<double>();
  kalman_update(track, K);
  (void)before;
}
