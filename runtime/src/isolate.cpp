#include "torchalias/isolate.h"

#include <ATen/ATen.h>

namespace torchalias {

// Note [Why detach first]
// ~~~~~~~~~~~~~~~~~~~~~~~
// clone() alone is differentiable: the copy would stay in the source's
// autograd graph, so a worker's backward could reach the spawner's graph, and
// cloning a leaf that requires grad would return a non-leaf. Detaching first
// gives a leaf with no history; keep_requires_grad then makes it a leaf that
// requires grad again, which is what a worker's own optimizer needs.
// MemoryFormat::Preserve keeps the strides of a dense tensor (channels-last
// stays channels-last) and falls back to contiguous for a non-dense one,
// such as an expanded tensor, whose stride-0 dimensions must be materialised
// before anyone may write them.
at::Tensor isolate(const at::Tensor &tensor, isolate_options options) {
  if (!tensor.defined())
    return tensor;
  at::Tensor copy = tensor.detach().clone(at::MemoryFormat::Preserve);
  if (options.keep_requires_grad && tensor.requires_grad())
    copy.requires_grad_(true);
  return copy;
}

c10::List<at::Tensor> isolate(const c10::List<at::Tensor> &tensors,
                              isolate_options options) {
  c10::List<at::Tensor> result;
  result.reserve(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i)
    result.push_back(isolate(tensors.get(i), options));
  return result;
}

namespace {

c10::IValue isolate_generic_list(const c10::List<c10::IValue> &list,
                                 isolate_options options) {
  c10::impl::GenericList result(list.elementType());
  result.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i)
    result.push_back(isolate(list.get(i), options));
  return result;
}

c10::IValue isolate_tuple(const c10::ivalue::Tuple &tuple,
                          isolate_options options) {
  std::vector<c10::IValue> elements;
  elements.reserve(tuple.elements().size());
  for (const c10::IValue &element : tuple.elements())
    elements.push_back(isolate(element, options));
  return c10::ivalue::Tuple::create(std::move(elements));
}

c10::IValue isolate_dict(const c10::impl::GenericDict &dict,
                         isolate_options options) {
  c10::impl::GenericDict result(dict.keyType(), dict.valueType());
  result.reserve(dict.size());
  for (const auto &entry : dict)
    result.insert(entry.key(), isolate(entry.value(), options));
  return result;
}

} // namespace

c10::IValue isolate(const c10::IValue &value, isolate_options options) {
  if (value.isTensor())
    return isolate(value.toTensor(), options);
  if (value.isTensorList())
    return isolate(value.toTensorList(), options);
  if (value.isList())
    return isolate_generic_list(value.toList(), options);
  if (value.isTuple())
    return isolate_tuple(value.toTupleRef(), options);
  if (value.isGenericDict())
    return isolate_dict(value.toGenericDict(), options);
  return value;
}

} // namespace torchalias
