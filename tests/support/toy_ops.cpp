// The toy Op family.
#include "support/toy_ops.hpp"

#include <cmath>
#include <stdexcept>

#include "engine/graph/errors.hpp"

namespace rw::test {

ToyOp::ToyOp(std::string name, int arity, std::int64_t tag)
    : name_(std::move(name)), arity_(arity), tag_(tag) {
  if (arity_ == 1) {
    if (name_ == "neg") unary_ = [](double a) { return -a; };
    else if (name_ == "exp") unary_ = [](double a) { return std::exp(a); };
    else if (name_ == "log") unary_ = [](double a) { return std::log(a); };
  } else if (arity_ == 2) {
    if (name_ == "add") binary_ = [](double a, double b) { return a + b; };
    else if (name_ == "sub") binary_ = [](double a, double b) { return a - b; };
    else if (name_ == "mul") binary_ = [](double a, double b) { return a * b; };
    else if (name_ == "div") binary_ = [](double a, double b) { return a / b; };
  }
}

PrintStyle ToyOp::print_style() const {
  if (arity_ == 2) {
    if (name_ == "add") return {PrintStyle::Kind::Infix, "+", 10};
    if (name_ == "sub") return {PrintStyle::Kind::Infix, "-", 10};
    if (name_ == "mul") return {PrintStyle::Kind::Infix, "*", 20};
    if (name_ == "div") return {PrintStyle::Kind::Infix, "/", 20};
  }
  if (arity_ == 1 && name_ == "neg") return {PrintStyle::Kind::Prefix, "-", 30};
  return {};
}

ApplyRef ToyOp::make_node(std::span<const Var> inputs) const {
  if (static_cast<int>(inputs.size()) != arity_)
    throw TypeError("toy `" + name_ + "` takes " + std::to_string(arity_) + " inputs");
  // Inputs are float64 tensors of one rank, or 0-d (broadcast).
  StaticShape shape;
  bool have_shape = false;
  for (const Var& in : inputs) {
    const TensorType* t = in->tensor_type();
    if (!t || t->dtype() != DType::Float64)
      throw TypeError("toy `" + name_ + "` takes float64 tensors, got " + in->type()->to_string());
    if (t->ndim() == 0) continue;
    if (!have_shape) {
      shape = t->shape();
      have_shape = true;
    } else if (t->ndim() != shape.size()) {
      throw TypeError("toy `" + name_ + "`: inputs of different rank");
    } else {
      for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] == kUnknownDim) shape[i] = t->shape()[i];
    }
  }
  TypePtr out = TensorType::make(DType::Float64, shape);
  return Apply::create(ptr(), inputs, std::span(&out, 1));
}

void ToyOp::perform(const Apply&, std::span<const Tensor> in, std::span<Tensor> out) const {
  if ((arity_ == 1 && !unary_) || (arity_ == 2 && !binary_))
    throw NotImplementedError("toy `" + name_ + "` cannot be evaluated");
  const Tensor& a0 = in[0];
  const Tensor& b0 = arity_ == 2 ? in[1] : in[0];
  const Tensor a = a0.is_contiguous() ? a0 : a0.copy();
  const Tensor b = b0.is_contiguous() ? b0 : b0.copy();
  if (a.ndim() > 0 && b.ndim() > 0 && a.shape() != b.shape())
    throw ValueError("toy `" + name_ + "`: shapes " + shape_to_string(a.shape()) + " and " +
                     shape_to_string(b.shape()) + " do not match");
  const Tensor& big = a.ndim() >= b.ndim() ? a : b;
  Tensor& r = out[0];
  if (!(r.valid() && r.dtype() == DType::Float64 && r.shape() == big.shape() && r.is_contiguous()))
    r = Tensor::empty(DType::Float64, big.shape());
  const double* x = a.data<double>();
  const double* y = b.data<double>();
  double* z = r.data<double>();
  const std::int64_t n = r.size();
  if (unary_) {
    for (std::int64_t i = 0; i < n; ++i) z[i] = unary_(x[i]);
    return;
  }
  const std::int64_t sx = a.size() == 1 ? 0 : 1, sy = b.size() == 1 ? 0 : 1;
  for (std::int64_t i = 0; i < n; ++i) z[i] = binary_(x[i * sx], y[i * sy]);
}

ApplyRef ToyTwoOut::make_node(std::span<const Var> inputs) const {
  if (inputs.size() != 1) throw TypeError("two_out takes one input");
  const TypePtr types[] = {inputs[0]->type(), inputs[0]->type()};
  return Apply::create(ptr(), inputs, types);
}

void ToyTwoOut::perform(const Apply&, std::span<const Tensor> in, std::span<Tensor> out) const {
  out[0] = in[0].copy();
  out[1] = in[0].copy();
  double* z = out[1].data<double>();
  for (std::int64_t i = 0, n = out[1].size(); i < n; ++i) z[i] = -z[i];
}

Props ToySum::props() const {
  PropValue axis = axis_ ? PropValue{*axis_} : PropValue{std::monostate{}};
  return {{"axis", axis}, {"keepdims", keepdims_}};
}

ApplyRef ToySum::make_node(std::span<const Var> inputs) const {
  if (inputs.size() != 1) throw TypeError("toy `sum` takes 1 input");
  const TensorType* t = inputs[0]->tensor_type();
  if (!t || t->dtype() != DType::Float64)
    throw TypeError("toy `sum` takes a float64 tensor, got " + inputs[0]->type()->to_string());
  std::vector<bool> reduced(t->ndim(), !axis_);
  if (axis_) {
    for (std::int64_t a : *axis_) {
      if (a < 0 || a >= static_cast<std::int64_t>(t->ndim()))
        throw TypeError("toy `sum`: axis " + std::to_string(a) + " is out of range for " +
                        t->to_string());
      reduced[static_cast<std::size_t>(a)] = true;
    }
  }
  StaticShape shape;
  for (std::size_t i = 0; i < t->ndim(); ++i) {
    if (!reduced[i]) shape.push_back(t->shape()[i]);
    else if (keepdims_) shape.push_back(1);
  }
  TypePtr out = TensorType::make(DType::Float64, shape);
  return Apply::create(ptr(), inputs, std::span(&out, 1));
}

ApplyRef ToySplit::make_node(std::span<const Var> inputs) const {
  if (inputs.size() != 1) throw TypeError("toy `split` takes 1 input");
  const TypePtr types[] = {inputs[0]->type(), inputs[0]->type()};
  return Apply::create(ptr(), inputs, types);
}

OpPtr toy_sum(std::optional<std::vector<std::int64_t>> axis, bool keepdims) {
  return std::make_shared<ToySum>(std::move(axis), keepdims);
}

namespace {
// A parameter whose default is built in place (a temporary PropValue moved
// into the optional trips g++ 12's -Wmaybe-uninitialized under sanitizers).
template <class T, class... A>
ParamSpec param(std::string name, ParamKind kind, bool nullable, std::string doc, A&&... value) {
  ParamSpec p{std::move(name), kind, std::nullopt, nullable, std::move(doc)};
  p.default_value.emplace(std::in_place_type<T>, std::forward<A>(value)...);
  return p;
}
}  // namespace

OpRegistry toy_registry() {
  OpRegistry r;
  auto binary = [&](const char* name, const char* doc) {
    r.add({.name = name,
           .doc = doc,
           .params = {param<std::int64_t>("tag", ParamKind::Int, false, "distinguishes ops", 0)},
           .min_inputs = 2,
           .max_inputs = 2,
           .factory = [name = std::string(name)](const Props& p) {
             return toy(name, 2, std::get<std::int64_t>(p[0].value));
           }});
  };
  binary("add", "elementwise sum");
  binary("sub", "elementwise difference");
  binary("mul", "elementwise product");
  binary("div", "elementwise quotient");
  for (const char* name : {"neg", "exp", "log"}) {
    r.add({.name = name,
           .doc = "elementwise",
           .params = {},
           .min_inputs = 1,
           .max_inputs = 1,
           .factory = [n = std::string(name)](const Props&) { return toy(n, 1); }});
  }
  r.add({.name = "sum",
         .doc = "sum over axes",
         .params = {param<std::monostate>("axis", ParamKind::Ints, true, "axes (none: all)"),
                    param<bool>("keepdims", ParamKind::Bool, false, "keep reduced axes", false)},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) {
           std::optional<std::vector<std::int64_t>> axis;
           if (auto* v = std::get_if<std::vector<std::int64_t>>(&p[0].value)) axis = *v;
           return toy_sum(axis, std::get<bool>(p[1].value));
         }});
  return r;
}

OpPtr toy(const std::string& name, int arity, std::int64_t tag) {
  return std::make_shared<ToyOp>(name, arity, tag);
}

Var fvec(const std::string& name) {
  return Variable::make(TensorType::make(DType::Float64, {kUnknownDim}), name);
}

Var ftensor(const std::string& name, StaticShape shape) {
  return Variable::make(TensorType::make(DType::Float64, std::move(shape)), name);
}

Var fconst(double v) { return Constant::scalar(v); }

namespace {
Var apply(const char* name, std::initializer_list<Var> ins) {
  return (*toy(name, static_cast<int>(ins.size())))(ins);
}
}  // namespace

Var add(const Var& a, const Var& b) { return apply("add", {a, b}); }
Var sub(const Var& a, const Var& b) { return apply("sub", {a, b}); }
Var mul(const Var& a, const Var& b) { return apply("mul", {a, b}); }
Var div(const Var& a, const Var& b) { return apply("div", {a, b}); }
Var neg(const Var& a) { return apply("neg", {a}); }
Var exp(const Var& a) { return apply("exp", {a}); }
Var log(const Var& a) { return apply("log", {a}); }

}  // namespace rw::test
