// find_shape_feature, StaticShapeFeature and RequireFeature.
#include "engine/rewrite/shape_feature.hpp"

#include <typeinfo>

#include <fmt/format.h>

#include "engine/graph/type.hpp"
#include "engine/rewrite/errors.hpp"

namespace rw {

ShapeFeature* find_shape_feature(const FunctionGraph& fgraph) {
  return fgraph.find_feature<ShapeFeature>();
}

std::optional<std::int64_t> StaticShapeFeature::static_dim(const Variable& var,
                                                           std::size_t axis) const {
  const TensorType* t = var.tensor_type();
  if (!t || axis >= t->ndim() || t->shape()[axis] == kUnknownDim) return std::nullopt;
  return t->shape()[axis];
}

Var StaticShapeFeature::dim(const Variable& var, std::size_t axis) {
  const auto d = static_dim(var, axis);
  if (!d) return nullptr;
  return Constant::make(Tensor::scalar(*d));
}

bool StaticShapeFeature::same_shape(const Variable& a, const Variable& b) const {
  if (&a == &b) return true;
  const TensorType* ta = a.tensor_type();
  const TensorType* tb = b.tensor_type();
  return ta && tb && ta->shape_known() && tb->shape_known() && ta->shape() == tb->shape();
}

RequireFeature::RequireFeature(std::string name, Factory factory)
    : GraphRewriter(std::move(name)), factory_(std::move(factory)) {
  if (!factory_) throw RewriteError(fmt::format("`{}` has no feature factory", this->name()));
}

void RequireFeature::add_requirements(FunctionGraph& fgraph) const {
  std::shared_ptr<Feature> f = factory_();
  if (!f) throw RewriteError(fmt::format("`{}`: the feature factory returned null", name()));
  const Feature& made = *f;
  for (const auto& have : fgraph.features())
    if (typeid(*have) == typeid(made)) return;
  fgraph.attach_feature(std::move(f));
}

PassReport RequireFeature::apply(FunctionGraph&, RewriteContext&) const {
  PassReport r;
  r.stop = StopReason::Completed;
  return r;
}

}  // namespace rw
