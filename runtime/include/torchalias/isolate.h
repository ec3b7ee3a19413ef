// torchalias/isolate.h: give a tensor, or everything in a container, its own
// storage. These are the helpers that torchalias fix-its insert.
//
//   isolate(t)              detach().clone() keeping the memory format
//   isolate(t, {true})      the same, keeping requires_grad
//   isolate(container)      std::vector, c10::List<Tensor>, std::tuple,
//                           string-keyed std::map / std::unordered_map /
//                           torch::OrderedDict, torch::data::Example<>,
//                           and c10::IValue (recursively)
//   isolate_args(args...)   a spawn site's argument list as a std::tuple:
//                           tensor-bearing arguments isolated, others copied
//
// Every result owns fresh storage that nothing else can see: writing it in
// place cannot reach the argument, and the argument's later writes cannot
// reach it. Autograd history is cut (see Note [Why detach first]).
#pragma once

#include <ATen/core/List.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <torch/data/example.h>
#include <torch/ordered_dict.h>

#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace torchalias {

struct isolate_options {
  // A leaf that required grad stays a leaf that requires grad.
  bool keep_requires_grad = false;
};

at::Tensor isolate(const at::Tensor &tensor, isolate_options options = {});
c10::List<at::Tensor> isolate(const c10::List<at::Tensor> &tensors,
                              isolate_options options = {});
// Tensors, tensor lists, generic lists, tuples and dict values are isolated
// recursively; dict keys and other values (scalars, strings, objects) are
// returned as they are.
c10::IValue isolate(const c10::IValue &value, isolate_options options = {});

namespace detail {

template <class T> struct is_isolatable : std::false_type {};
template <> struct is_isolatable<at::Tensor> : std::true_type {};
template <> struct is_isolatable<c10::IValue> : std::true_type {};
template <> struct is_isolatable<c10::List<at::Tensor>> : std::true_type {};
template <class T, class A>
struct is_isolatable<std::vector<T, A>> : is_isolatable<T> {};
template <class V, class C, class A>
struct is_isolatable<std::map<std::string, V, C, A>> : is_isolatable<V> {};
template <class V, class H, class E, class A>
struct is_isolatable<std::unordered_map<std::string, V, H, E, A>>
    : is_isolatable<V> {};
template <class V>
struct is_isolatable<torch::OrderedDict<std::string, V>> : is_isolatable<V> {};
template <class... Ts>
struct is_isolatable<std::tuple<Ts...>>
    : std::disjunction<is_isolatable<Ts>...> {};
template <class D, class T>
struct is_isolatable<torch::data::Example<D, T>>
    : std::disjunction<is_isolatable<D>, is_isolatable<T>> {};

template <class T>
inline constexpr bool is_isolatable_v = is_isolatable<std::decay_t<T>>::value;

template <class T> using enable_if_isolatable_t =
    std::enable_if_t<is_isolatable_v<T>, int>;

template <class T>
std::decay_t<T> isolate_or_copy(const T &value, isolate_options options);

} // namespace detail

template <class T, class A, detail::enable_if_isolatable_t<T> = 0>
std::vector<T, A> isolate(const std::vector<T, A> &values,
                          isolate_options options = {});
template <class V, class C, class A, detail::enable_if_isolatable_t<V> = 0>
std::map<std::string, V, C, A>
isolate(const std::map<std::string, V, C, A> &values,
        isolate_options options = {});
template <class V, class H, class E, class A,
          detail::enable_if_isolatable_t<V> = 0>
std::unordered_map<std::string, V, H, E, A>
isolate(const std::unordered_map<std::string, V, H, E, A> &values,
        isolate_options options = {});
template <class V, detail::enable_if_isolatable_t<V> = 0>
torch::OrderedDict<std::string, V>
isolate(const torch::OrderedDict<std::string, V> &values,
        isolate_options options = {});
template <class... Ts>
std::tuple<Ts...> isolate(const std::tuple<Ts...> &values,
                          isolate_options options = {});
template <class D, class T>
torch::data::Example<D, T> isolate(const torch::data::Example<D, T> &example,
                                   isolate_options options = {});
template <class D>
torch::data::Example<D, torch::data::example::NoTarget>
isolate(const torch::data::Example<D, torch::data::example::NoTarget> &example,
        isolate_options options = {});

template <class... Args>
std::tuple<std::decay_t<Args>...> isolate_args(const Args &...args) {
  return std::tuple<std::decay_t<Args>...>(
      detail::isolate_or_copy(args, isolate_options{})...);
}

// Definitions follow the declarations above so that each template can
// reach every other overload, whatever order they nest in.

template <class T>
std::decay_t<T> detail::isolate_or_copy(const T &value,
                                        isolate_options options) {
  if constexpr (is_isolatable_v<T>)
    return isolate(value, options);
  else
    return value;
}

template <class T, class A, detail::enable_if_isolatable_t<T>>
std::vector<T, A> isolate(const std::vector<T, A> &values,
                          isolate_options options) {
  std::vector<T, A> result;
  result.reserve(values.size());
  for (const T &value : values)
    result.push_back(isolate(value, options));
  return result;
}

template <class V, class C, class A, detail::enable_if_isolatable_t<V>>
std::map<std::string, V, C, A>
isolate(const std::map<std::string, V, C, A> &values,
        isolate_options options) {
  std::map<std::string, V, C, A> result;
  for (const auto &[key, value] : values)
    result.emplace(key, isolate(value, options));
  return result;
}

template <class V, class H, class E, class A, detail::enable_if_isolatable_t<V>>
std::unordered_map<std::string, V, H, E, A>
isolate(const std::unordered_map<std::string, V, H, E, A> &values,
        isolate_options options) {
  std::unordered_map<std::string, V, H, E, A> result;
  for (const auto &[key, value] : values)
    result.emplace(key, isolate(value, options));
  return result;
}

template <class V, detail::enable_if_isolatable_t<V>>
torch::OrderedDict<std::string, V>
isolate(const torch::OrderedDict<std::string, V> &values,
        isolate_options options) {
  torch::OrderedDict<std::string, V> result(values.key_description());
  result.reserve(values.size());
  for (const auto &item : values)
    result.insert(item.key(), isolate(item.value(), options));
  return result;
}

template <class... Ts>
std::tuple<Ts...> isolate(const std::tuple<Ts...> &values,
                          isolate_options options) {
  return std::apply(
      [&](const Ts &...elements) {
        return std::tuple<Ts...>(
            detail::isolate_or_copy(elements, options)...);
      },
      values);
}

template <class D, class T>
torch::data::Example<D, T> isolate(const torch::data::Example<D, T> &example,
                                   isolate_options options) {
  return torch::data::Example<D, T>(
      detail::isolate_or_copy(example.data, options),
      detail::isolate_or_copy(example.target, options));
}

template <class D>
torch::data::Example<D, torch::data::example::NoTarget>
isolate(const torch::data::Example<D, torch::data::example::NoTarget> &example,
        isolate_options options) {
  return torch::data::Example<D, torch::data::example::NoTarget>(
      detail::isolate_or_copy(example.data, options));
}

} // namespace torchalias
