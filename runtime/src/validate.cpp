#include "torchalias/validate.h"

#include "json_text.h"

#include "torchalias/fingerprint.h"
#include "torchalias/parameters.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/core/grad_mode.h>

#include <cstdio>
#include <iostream>

namespace torchalias {
namespace {

using detail::hex;
using detail::json_int_array;
using detail::json_string_array;

const char *to_string(at::MemOverlap overlap) {
  switch (overlap) {
  case at::MemOverlap::No:
    return "no";
  case at::MemOverlap::Yes:
    return "yes";
  case at::MemOverlap::TooHard:
    return "too-hard";
  }
  return "?";
}

// Splits "a, b.x(), c" at top-level commas, as the macro stringizes it.
std::vector<std::string> split_argument_names(const char *names) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (const char *c = names; *c != '\0'; ++c) {
    if (*c == '(' || *c == '[' || *c == '{')
      ++depth;
    if (*c == ')' || *c == ']' || *c == '}')
      --depth;
    if (*c == ',' && depth == 0)
      parts.emplace_back();
    else if (*c != ' ' || !parts.back().empty())
      parts.back() += *c;
  }
  return parts;
}

// One name per input: the argument's, or `name[i]` for the elements of a
// vector argument; input indices when `names` is not the macro's list.
std::vector<std::string> input_names(const char *names,
                                     const worker_inputs &inputs) {
  const std::vector<std::string> arguments = split_argument_names(names);
  const std::vector<std::ptrdiff_t> &shape = inputs.shape();
  std::vector<std::string> out;
  if (arguments.size() == shape.size()) {
    for (std::size_t k = 0; k < shape.size(); ++k) {
      if (shape[k] < 0)
        out.push_back(arguments[k]);
      for (std::ptrdiff_t i = 0; i < shape[k]; ++i)
        out.push_back(arguments[k] + "[" + std::to_string(i) + "]");
    }
    return out;
  }
  for (std::size_t i = 0; i < inputs.tensors().size(); ++i)
    out.push_back("input " + std::to_string(i));
  return out;
}

worker_inputs each_an_argument(const std::vector<at::Tensor> &tensors) {
  worker_inputs inputs;
  for (const at::Tensor &tensor : tensors)
    inputs.add(tensor);
  return inputs;
}

} // namespace

// Note [In place on a view]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// A write through `target` is confirmed to alias when
//  - the target overlaps itself (expanded, stride 0): the write either
//    throws or races with itself (at::has_internal_overlap says yes);
//  - it is a view of a leaf that requires grad while grad mode is on:
//    autograd rejects the write;
//  - some other TensorImpl still uses its storage: the view's base is held
//    elsewhere, or another view, a detach() or a .data() alias shares it.
// The view keeps its base alive itself, so the base's storage reference
// counts as another user only when someone else holds the base too.
// It is clean when the target is a view but nothing else can observe the
// write, and not-applicable when the target is no view and shares nothing
// (a may-alias operation such as reshape() returned a copy).
namespace {

// Each fact the verdict rests on, each a handful of nanoseconds. With
// `stop_when_confirmed` the observation ends at the first fact that
// confirms, leaving the rest at their defaults: judge_view_write() gives
// the same verdict either way. See Note [Verdict before facts].
struct view_write_observation {
  bool is_view = false;
  bool base_alive_elsewhere = false;
  std::int64_t other_users = 0;
  at::MemOverlap overlap = at::MemOverlap::No;
  bool grad_mode = false;
  bool view_of_grad_leaf = false;
};

view_write_observation observe_view_write(const at::Tensor &target,
                                          bool stop_when_confirmed) {
  view_write_observation seen;
  seen.is_view = target.is_view();
  const at::TensorBase *base = seen.is_view ? &target._base() : nullptr;
  seen.base_alive_elsewhere = base != nullptr && base->use_count() > 1;
  const bool base_held_only_by_view =
      base != nullptr && !seen.base_alive_elsewhere;
  const auto storage_users =
      static_cast<std::int64_t>(target.storage().use_count());
  seen.other_users = storage_users - 1 - (base_held_only_by_view ? 1 : 0);
  if (stop_when_confirmed && seen.other_users > 0)
    return seen;
  seen.overlap = at::has_internal_overlap(target);
  if (stop_when_confirmed && seen.overlap == at::MemOverlap::Yes)
    return seen;
  seen.view_of_grad_leaf =
      base != nullptr && base->is_leaf() && base->requires_grad();
  seen.grad_mode = at::GradMode::is_enabled();
  return seen;
}

verdict judge_view_write(const view_write_observation &seen) {
  const bool confirmed = seen.overlap == at::MemOverlap::Yes ||
                         (seen.view_of_grad_leaf && seen.grad_mode) ||
                         seen.other_users > 0;
  if (confirmed)
    return verdict::confirmed;
  return seen.is_view ? verdict::clean : verdict::not_applicable;
}

// Note [Verdict before facts]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A validated site runs before every flagged write, so its cost when no
// record is written is what matters (docs/benchmarks.md). The verdict reads
// a few cached fields of the TensorImpl and stops at the first fact that
// confirms; the facts need every field, strings, the sizes and strides as
// JSON, and allocations, twenty times as much. So a validator computes the
// verdict, asks count_validation() whether a record is wanted, and only
// then renders the facts, from a second, complete observation; check_*()
// functions, which return both, always render. Both judge with the same
// function, so they give the same verdict. The facts are taken a moment
// after the verdict: another thread dropping a handle in between could
// make them differ from what the verdict saw.
verdict view_write_verdict(const at::Tensor &target) {
  if (!target.defined() || !target.has_storage())
    return verdict::not_applicable;
  return judge_view_write(
      observe_view_write(target, /*stop_when_confirmed=*/true));
}

} // namespace

validation_result check_inplace_on_view(const at::Tensor &target) {
  facts details;
  if (!target.defined() || !target.has_storage()) {
    details.add("defined", target.defined());
    return {verdict::not_applicable, std::move(details)};
  }
  const view_write_observation seen =
      observe_view_write(target, /*stop_when_confirmed=*/false);
  details.add("is_view", seen.is_view)
      .add("base_alive_elsewhere", seen.base_alive_elsewhere)
      .add("other_tensors_on_storage", seen.other_users)
      .add("internal_overlap", to_string(seen.overlap))
      .add("view_of_leaf_requiring_grad", seen.view_of_grad_leaf)
      .add("grad_mode", seen.grad_mode)
      .add_json("sizes", json_int_array(target.sizes()))
      .add_json("strides", json_int_array(target.strides()))
      .add("storage_offset", target.storage_offset())
      .add("storage", hex(reinterpret_cast<std::uintptr_t>(target.storage().data())));
  return {judge_view_write(seen), std::move(details)};
}

verdict validate_inplace_on_view(const at::Tensor &target,
                                 site_location &site) {
  const verdict outcome = view_write_verdict(target);
  if (count_validation(site, outcome))
    write_record(site, outcome, check_inplace_on_view(target).facts);
  return outcome;
}

validation_result check_parameters(const torch::nn::Module &module) {
  const std::vector<parameter_tie_group> groups = parameter_tie_groups(module);
  std::string groups_json = "[";
  for (const parameter_tie_group &group : groups)
    groups_json += (groups_json.size() > 1 ? "," : "") +
                   json_string_array(group.names);
  facts details;
  const std::size_t count = module.parameters(/*recurse=*/true).size();
  details.add("parameters", count)
      .add("unique_parameters", unique_parameters(module).size())
      .add_json("tie_groups", groups_json + "]");
  if (count == 0)
    return {verdict::not_applicable, std::move(details)};
  return {groups.empty() ? verdict::clean : verdict::confirmed,
          std::move(details)};
}

verdict validate_parameters(const torch::nn::Module &module,
                            site_location &site) {
  validation_result result = check_parameters(module);
  report(site, result.verdict, result.facts);
  return result.verdict;
}

// Note [Worker fingerprints]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// The guard cannot see who writes an input, only that its bytes differ
// between spawn and join. A write that restores the old bytes goes unseen,
// and so does a race that happens to leave the same values. CPU inputs are
// hashed here; inputs on another device by the fingerprinter registered for
// its device type (Note [Device fingerprinters] in fingerprint.cpp: CUDA's
// comes with runtime_cuda). Inputs that cannot be fingerprinted (not
// strided, or a device without a fingerprinter) are listed with
// "fingerprinted": false and do not decide the verdict.
worker_guard::worker_guard(site_location &site, std::vector<at::Tensor> inputs,
                           const char *names)
    : worker_guard(site, each_an_argument(inputs), names) {}

worker_guard::worker_guard(site_location &site, worker_inputs inputs,
                           const char *names)
    : site_(site), inputs_(inputs.tensors()),
      names_(input_names(names, inputs)), active_(reporting_enabled()) {
  if (!active_)
    return;
  for (const at::Tensor &input : inputs_) {
    const bool can_hash = input.defined() && can_fingerprint(input);
    fingerprinted_.push_back(can_hash);
    before_.push_back(can_hash ? fingerprint(input) : 0);
  }
}

worker_guard::~worker_guard() {
  if (verified_ || !active_)
    return;
  try {
    verify();
  } catch (const std::exception &e) {
    std::cerr << "torchalias: worker guard at " << site_.file << ":"
              << site_.line << " could not report: " << e.what() << "\n";
  }
}

validation_result worker_guard::check() const {
  facts details;
  std::string inputs_json = "[";
  std::int64_t changed_count = 0, checked = 0;
  for (std::size_t i = 0; i < inputs_.size() && active_; ++i) {
    facts input;
    input.add("name", names_[i]);
    if (inputs_[i].defined())
      input.add("device", inputs_[i].device().str());
    input.add("fingerprinted", bool(fingerprinted_[i]));
    if (fingerprinted_[i]) {
      const std::uint64_t after = fingerprint(inputs_[i]);
      input.add("changed", after != before_[i])
          .add("before", hex(before_[i]))
          .add("after", hex(after));
      changed_count += after != before_[i];
      ++checked;
    }
    inputs_json += (i > 0 ? "," : "") + input.to_json();
  }
  details.add_json("inputs", inputs_json + "]").add("changed", changed_count);
  if (checked == 0)
    return {verdict::not_applicable, std::move(details)};
  return {changed_count > 0 ? verdict::confirmed : verdict::clean,
          std::move(details)};
}

verdict worker_guard::verify() {
  validation_result result = check();
  if (active_ && !verified_)
    report(site_, result.verdict, result.facts);
  verified_ = true;
  return result.verdict;
}

} // namespace torchalias
