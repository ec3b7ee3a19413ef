// torchalias/instrument.h: the macros `torchalias instrument` puts at the
// sites a static finding flagged, so that the program confirms or dismisses
// the finding while it runs.
//
//   TORCHALIAS_AT_VIEW_WRITE(id, expr)        expr, a tensor, is about to be
//                                             written in place
//   TORCHALIAS_AT_OVERLAP_DST(id, expr)       the destination of an in-place
//                                             or out= op, remembered on this
//                                             thread for the operands:
//   TORCHALIAS_AT_OVERLAP_OPERAND(id, expr)   an operand of the same op
//   TORCHALIAS_AT_OVERLAP_OPERAND_OF(id, dst, expr)
//                                             the same, destination given
//   TORCHALIAS_AT_DETACHED_SOURCE(id, expr)   the tensor whose .data() or
//                                             detach() alias is written
//   TORCHALIAS_AT_FROM_BLOB(id, expr)         the tensor from_blob() made
//   TORCHALIAS_AT_PARAMETERS(id, expr)        a parameter list (tensors,
//                                             optimizer groups, a module or
//                                             its holder) about to reach an
//                                             optimizer
//   TORCHALIAS_AT_WORKER(id, guard, v1, v2...)
//                                             a worker_guard (validate.h)
//                                             over a spawn site's tensors
//                                             (each v a tensor or a vector
//                                             of them)
//
// `id` is the finding's identity: a string literal of 16 lowercase hex
// digits, checked at compile time. The site is a function-local static that
// carries it, and every record the site writes has it as "finding". The
// expression macros evaluate expr exactly once and yield it, the same
// lvalue or a prvalue: see Note [Passing the expression through]. In mode
// off they evaluate expr and nothing else. The check is named after the
// clang-tidy check that made the finding; docs/runtime.md lists verdicts
// and facts. The check_*() and validate_*() functions are what the macros
// call, usable by hand.
#pragma once

#include "torchalias/report.h"
#include "torchalias/validate.h"

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <torch/optim/optimizer.h>

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace torchalias {

// libtorch-overlapping-inplace: confirmed when the operand shares bytes
// with the destination (one TensorImpl, or full or partial overlap), clean
// when they share a storage but no byte, not-applicable when they share no
// memory. See Note [Overlapping operands] in instrument.cpp.
validation_result check_overlap(const at::Tensor &destination,
                                const at::Tensor &operand);
verdict validate_overlap(const at::Tensor &destination,
                         const at::Tensor &operand, site_location &site);
// Remembers `destination`, weakly, on this thread for the site's finding.
void remember_overlap_destination(const at::Tensor &destination,
                                  const site_location &site);
// validate_overlap() against the destination remembered on this thread for
// the site's finding; not-applicable when there is none (or it died).
verdict validate_overlap_operand(const at::Tensor &operand,
                                 site_location &site);

// libtorch-detached-write: confirmed when `source` requires grad with grad
// mode on, clean when it does not, not-applicable when undefined. See
// Note [Detached writes] in instrument.cpp.
validation_result check_detached_source(const at::Tensor &source);
verdict validate_detached_source(const at::Tensor &source,
                                 site_location &site);

// libtorch-from-blob-escape: records the wrapping in a process-wide
// registry, confirmed when an earlier wrapping of overlapping memory is
// still alive. Not a check_*() pair: the registry is the state. See
// Note [Reused blobs] in instrument.cpp.
verdict validate_from_blob(const at::Tensor &wrapped, site_location &site);

// libtorch-shared-parameter-update: confirmed when two entries (across all
// groups) are one TensorImpl or overlap in one storage, clean when all are
// distinct, not-applicable when there are none. A module is judged as
// check_parameters() judges it.
validation_result check_parameter_list(const std::vector<at::Tensor> &params);
validation_result check_parameter_list(
    const std::vector<torch::optim::OptimizerParamGroup> &groups);
verdict validate_parameter_list(const std::vector<at::Tensor> &params,
                                site_location &site);
verdict validate_parameter_list(
    const std::vector<torch::optim::OptimizerParamGroup> &groups,
    site_location &site);
verdict validate_parameter_list(const torch::nn::Module &module,
                                site_location &site);

namespace detail {

template <std::size_t N>
constexpr bool is_finding_id(const char (&id)[N]) {
  if (N != 17 || id[16] != '\0')
    return false;
  for (std::size_t i = 0; i < 16; ++i) {
    const char c = id[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  }
  return true;
}

template <class T>
constexpr bool is_tensor_v = std::is_base_of_v<at::Tensor, std::decay_t<T>>;

// Note [Passing the expression through]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The wrapped expression keeps its meaning: the macro hands it to a
// function template taking `T &&`, which validates it and returns `T`. An
// lvalue deduces T = X&, so the macro yields that very object and
// `AT_VIEW_WRITE(id, t).add_(1)` writes t. An rvalue deduces T = X, so the
// macro yields a prvalue move-constructed from it (a Tensor handle move, no
// data copy), and `const auto &r = AT_FROM_BLOB(id, from_blob(...))` is
// lifetime-extended like the original. The one difference: an xvalue
// (`std::move(t)`) comes out as a prvalue too, so t is moved from even where
// the original expression only named it. decltype((expr)) would tell the
// two apart, but expr may contain a lambda (from_blob's deleter, say), and
// C++17 does not allow one in decltype. The expression is one macro
// argument even with top-level commas (`f<a, b>(x)`): it is __VA_ARGS__.
template <class T> T view_write(site_location &site, T &&target) {
  static_assert(is_tensor_v<T>, "TORCHALIAS_AT_VIEW_WRITE wraps a tensor");
  if (reporting_enabled())
    validate_inplace_on_view(target, site);
  return std::forward<T>(target);
}

template <class T> T overlap_destination(site_location &site, T &&target) {
  static_assert(is_tensor_v<T>, "TORCHALIAS_AT_OVERLAP_DST wraps a tensor");
  if (reporting_enabled())
    remember_overlap_destination(target, site);
  return std::forward<T>(target);
}

template <class T> T overlap_operand(site_location &site, T &&operand) {
  static_assert(is_tensor_v<T>,
                "TORCHALIAS_AT_OVERLAP_OPERAND wraps a tensor");
  if (reporting_enabled())
    validate_overlap_operand(operand, site);
  return std::forward<T>(operand);
}

// `destination` is null in mode off, where the macro does not evaluate it.
template <class T>
T overlap_operand_of(site_location &site, const at::Tensor *destination,
                     T &&operand) {
  static_assert(is_tensor_v<T>,
                "TORCHALIAS_AT_OVERLAP_OPERAND_OF wraps a tensor");
  if (destination != nullptr)
    validate_overlap(*destination, operand, site);
  return std::forward<T>(operand);
}

inline const at::Tensor *address_of_tensor(const at::Tensor &tensor) {
  return &tensor;
}

template <class T> T detached_source(site_location &site, T &&source) {
  static_assert(is_tensor_v<T>,
                "TORCHALIAS_AT_DETACHED_SOURCE wraps a tensor");
  if (reporting_enabled())
    validate_detached_source(source, site);
  return std::forward<T>(source);
}

template <class T> T from_blob(site_location &site, T &&wrapped) {
  static_assert(is_tensor_v<T>, "TORCHALIAS_AT_FROM_BLOB wraps a tensor");
  if (reporting_enabled())
    validate_from_blob(wrapped, site);
  return std::forward<T>(wrapped);
}

// What a parameter-list expression is judged as.
inline const std::vector<at::Tensor> &
parameter_source(const std::vector<at::Tensor> &params) {
  return params;
}
inline const std::vector<torch::optim::OptimizerParamGroup> &
parameter_source(const std::vector<torch::optim::OptimizerParamGroup> &groups) {
  return groups;
}
inline const torch::nn::Module &
parameter_source(const torch::nn::Module &module) {
  return module;
}
template <class Impl>
const torch::nn::Module &
parameter_source(const torch::nn::ModuleHolder<Impl> &holder) {
  return *holder;
}
template <class Impl>
const torch::nn::Module &parameter_source(const std::shared_ptr<Impl> &module) {
  static_assert(std::is_base_of_v<torch::nn::Module, Impl>,
                "TORCHALIAS_AT_PARAMETERS: a shared_ptr to a module");
  return *module;
}

template <class T> T parameters(site_location &site, T &&list) {
  if (reporting_enabled())
    validate_parameter_list(parameter_source(list), site);
  return std::forward<T>(list);
}

} // namespace detail
} // namespace torchalias

#define TORCHALIAS_FINDING_SITE(check_name, finding_id)                        \
  ([]() -> ::torchalias::site_location & {                                     \
    static_assert(::torchalias::detail::is_finding_id(finding_id),             \
                  "a finding id is a string literal of 16 lowercase hex "      \
                  "digits");                                                   \
    static ::torchalias::site_location torchalias_site_{                       \
        __FILE__, __LINE__, check_name, finding_id};                           \
    return torchalias_site_;                                                   \
  }())

#define TORCHALIAS_AT_VIEW_WRITE(id, ...)                                      \
  ::torchalias::detail::view_write(                                            \
      TORCHALIAS_FINDING_SITE("libtorch-inplace-on-view", id), (__VA_ARGS__))

#define TORCHALIAS_AT_OVERLAP_DST(id, ...)                                     \
  ::torchalias::detail::overlap_destination(                                   \
      TORCHALIAS_FINDING_SITE("libtorch-overlapping-inplace", id),             \
      (__VA_ARGS__))

#define TORCHALIAS_AT_OVERLAP_OPERAND(id, ...)                                 \
  ::torchalias::detail::overlap_operand(                                       \
      TORCHALIAS_FINDING_SITE("libtorch-overlapping-inplace", id),             \
      (__VA_ARGS__))

#define TORCHALIAS_AT_OVERLAP_OPERAND_OF(id, dst, ...)                         \
  ::torchalias::detail::overlap_operand_of(                                    \
      TORCHALIAS_FINDING_SITE("libtorch-overlapping-inplace", id),             \
      ::torchalias::reporting_enabled()                                        \
          ? ::torchalias::detail::address_of_tensor(dst)                       \
          : nullptr,                                                           \
      (__VA_ARGS__))

#define TORCHALIAS_AT_DETACHED_SOURCE(id, ...)                                 \
  ::torchalias::detail::detached_source(                                       \
      TORCHALIAS_FINDING_SITE("libtorch-detached-write", id), (__VA_ARGS__))

#define TORCHALIAS_AT_FROM_BLOB(id, ...)                                       \
  ::torchalias::detail::from_blob(                                             \
      TORCHALIAS_FINDING_SITE("libtorch-from-blob-escape", id), (__VA_ARGS__))

#define TORCHALIAS_AT_PARAMETERS(id, ...)                                      \
  ::torchalias::detail::parameters(                                            \
      TORCHALIAS_FINDING_SITE("libtorch-shared-parameter-update", id),         \
      (__VA_ARGS__))

#define TORCHALIAS_AT_WORKER(id, guard_name, ...)                              \
  ::torchalias::worker_guard guard_name(                                       \
      TORCHALIAS_FINDING_SITE("libtorch-worker-missing-clone", id),            \
      ::torchalias::collect_worker_inputs(__VA_ARGS__), #__VA_ARGS__)
