// The PyTensor-named test Op family.
#include "support/pt_ops.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/type.hpp"

namespace rw::test {

namespace {

const TensorType& tensor_of(const Var& v, std::string_view op) {
  const TensorType* t = v->tensor_type();
  if (!t) throw TypeError(fmt::format("`{}` takes tensors, not {}", op, v->type()->to_string()));
  return *t;
}

ApplyRef one_output(const Op& op, std::span<const Var> inputs, DType dtype, StaticShape shape) {
  const TypePtr out = TensorType::make(dtype, std::move(shape));
  return Apply::create(op.ptr(), inputs, std::span(&out, 1));
}

// NumPy broadcasting of static shapes: right-aligned; 1 stretches; unknown
// against known gives the known extent.
StaticShape broadcast(std::span<const Var> inputs, std::string_view op) {
  std::size_t rank = 0;
  for (const Var& v : inputs) rank = std::max(rank, tensor_of(v, op).ndim());
  StaticShape out(rank, 1);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const StaticShape& s = tensor_of(inputs[k], op).shape();
    const std::size_t off = rank - s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
      std::int64_t& o = out[off + i];
      const std::int64_t d = s[i];
      if (d == 1) continue;
      if (o == 1 || o == kUnknownDim) o = (o == kUnknownDim && d == kUnknownDim) ? kUnknownDim : d;
      if (d != kUnknownDim && o != kUnknownDim && o != d)
        throw TypeError(
            fmt::format("input {} has extent {} on axis {}, others {}", k, d, off + i, o));
    }
  }
  return out;
}

enum class ElemKind { Same, Float, Bool, Fill };

class PtElemwise final : public Op {
 public:
  PtElemwise(std::string name, ElemKind kind) : name_(std::move(name)), kind_(kind) {}
  std::string_view name() const override { return name_; }
  PrintStyle print_style() const override {
    if (name_ == "add") return {PrintStyle::Kind::Infix, "+", 10};
    if (name_ == "sub") return {PrintStyle::Kind::Infix, "-", 10};
    if (name_ == "mul") return {PrintStyle::Kind::Infix, "*", 20};
    if (name_ == "true_div") return {PrintStyle::Kind::Infix, "/", 20};
    if (name_ == "neg") return {PrintStyle::Kind::Prefix, "-", 30};
    if (name_ == "pow") return {PrintStyle::Kind::Infix, "**", 40, true};
    return {};
  }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    if (inputs.empty()) throw TypeError(fmt::format("`{}` takes inputs", name_));
    StaticShape shape = broadcast(inputs, name_);
    DType dtype = tensor_of(inputs[0], name_).dtype();
    for (const Var& v : inputs.subspan(1)) dtype = promote(dtype, tensor_of(v, name_).dtype());
    switch (kind_) {
      case ElemKind::Same:
        break;
      case ElemKind::Float:
        dtype = float_result(dtype);
        break;
      case ElemKind::Bool:
        dtype = DType::Bool;
        break;
      case ElemKind::Fill:
        dtype = tensor_of(inputs[1], name_).dtype();
        break;
    }
    return one_output(*this, inputs, dtype, std::move(shape));
  }

 private:
  std::string name_;
  ElemKind kind_;
};

class PtDimShuffle final : public Op {
 public:
  explicit PtDimShuffle(std::vector<std::int64_t> order) : order_(std::move(order)) {}
  std::string_view name() const override { return "dimshuffle"; }
  Props props() const override { return {{"order", order_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    const TensorType& t = tensor_of(inputs[0], "dimshuffle");
    const auto n = static_cast<std::int64_t>(t.ndim());
    std::vector<bool> kept(t.ndim(), false);
    StaticShape shape;
    for (std::int64_t a : order_) {
      if (a == kPtNewAxis) {
        shape.push_back(1);
        continue;
      }
      if (a < 0 || a >= n) throw TypeError(fmt::format("no axis {} in an input of rank {}", a, n));
      if (kept[static_cast<std::size_t>(a)])
        throw TypeError(fmt::format("axis {} appears twice", a));
      kept[static_cast<std::size_t>(a)] = true;
      shape.push_back(t.shape()[static_cast<std::size_t>(a)]);
    }
    for (std::size_t a = 0; a < kept.size(); ++a)
      if (!kept[a] && !t.is_broadcastable(a))
        throw TypeError(fmt::format("axis {} is dropped but is not broadcastable", a));
    return one_output(*this, inputs, t.dtype(), std::move(shape));
  }

 private:
  std::vector<std::int64_t> order_;
};

class PtSum final : public Op {
 public:
  explicit PtSum(PropValue axis) : axis_(std::move(axis)) {}
  std::string_view name() const override { return "sum"; }
  Props props() const override { return {{"axis", axis_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    const TensorType& t = tensor_of(inputs[0], "sum");
    const auto n = static_cast<std::int64_t>(t.ndim());
    std::vector<bool> reduced(t.ndim(), std::holds_alternative<std::monostate>(axis_));
    if (const auto* axes = std::get_if<std::vector<std::int64_t>>(&axis_)) {
      for (std::int64_t a : *axes) {
        const std::int64_t k = a < 0 ? a + n : a;
        if (k < 0 || k >= n)
          throw TypeError(fmt::format("no axis {} in an input of rank {}", a, n));
        if (reduced[static_cast<std::size_t>(k)])
          throw TypeError(fmt::format("axis {} appears twice", a));
        reduced[static_cast<std::size_t>(k)] = true;
      }
    }
    StaticShape shape;
    for (std::size_t a = 0; a < reduced.size(); ++a)
      if (!reduced[a]) shape.push_back(t.shape()[a]);
    const DType d = is_float(t.dtype()) ? t.dtype() : DType::Int64;
    return one_output(*this, inputs, d, std::move(shape));
  }

 private:
  PropValue axis_;
};

class PtDot final : public Op {
 public:
  std::string_view name() const override { return "dot"; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    const TensorType& a = tensor_of(inputs[0], "dot");
    const TensorType& b = tensor_of(inputs[1], "dot");
    if (a.ndim() < 1 || a.ndim() > 2 || b.ndim() < 1 || b.ndim() > 2)
      throw TypeError(
          fmt::format("`dot` takes vectors and matrices, not ranks {} and {}", a.ndim(), b.ndim()));
    const std::int64_t ka = a.shape().back();
    const std::int64_t kb = b.shape()[0];
    if (ka != kUnknownDim && kb != kUnknownDim && ka != kb)
      throw TypeError(fmt::format("inner extents {} and {} differ", ka, kb));
    StaticShape shape;
    if (a.ndim() == 2) shape.push_back(a.shape()[0]);
    if (b.ndim() == 2) shape.push_back(b.shape()[1]);
    return one_output(*this, inputs, promote(a.dtype(), b.dtype()), std::move(shape));
  }
};

class PtShape final : public Op {
 public:
  std::string_view name() const override { return "shape"; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    const TensorType& t = tensor_of(inputs[0], "shape");
    return one_output(*this, inputs, DType::Int64, {static_cast<std::int64_t>(t.ndim())});
  }
};

class PtCast final : public Op {
 public:
  explicit PtCast(DType dtype) : dtype_(dtype) {}
  std::string_view name() const override { return "cast"; }
  Props props() const override { return {{"dtype", dtype_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    return one_output(*this, inputs, dtype_, tensor_of(inputs[0], "cast").shape());
  }

 private:
  DType dtype_;
};

class PtSubtensor final : public Op {
 public:
  explicit PtSubtensor(std::vector<std::int64_t> index) : index_(std::move(index)) {
    for (std::int64_t e : index_)
      if (e != kPtIndexInput) throw Error("index entries are `i` (an index taken from an input)");
  }
  std::string_view name() const override { return "subtensor"; }
  Props props() const override { return {{"index", index_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    if (inputs.size() != index_.size() + 1)
      throw TypeError(fmt::format("`subtensor` with {} index entries takes {} inputs",
                                  index_.size(), index_.size() + 1));
    const TensorType& t = tensor_of(inputs[0], "subtensor");
    if (t.ndim() < index_.size())
      throw TypeError(fmt::format("{} indices into an input of rank {}", index_.size(), t.ndim()));
    for (std::size_t k = 1; k < inputs.size(); ++k) {
      const TensorType& i = tensor_of(inputs[k], "subtensor");
      if (i.ndim() != 0 || !is_integer(i.dtype()))
        throw TypeError(fmt::format("index {} is {}, not a 0-d integer", k - 1, i.to_string()));
    }
    StaticShape shape(t.shape().begin() + static_cast<std::ptrdiff_t>(index_.size()),
                      t.shape().end());
    return one_output(*this, inputs, t.dtype(), std::move(shape));
  }

 private:
  std::vector<std::int64_t> index_;
};

class PtSplit2 final : public Op {
 public:
  std::string_view name() const override { return "split2"; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    const TypePtr types[] = {inputs[0]->type(), inputs[0]->type()};
    return Apply::create(ptr(), inputs, types);
  }
};

OpInfo elemwise(std::string name, ElemKind kind, int min_inputs, int max_inputs, std::string doc) {
  OpInfo info;
  info.name = name;
  info.doc = std::move(doc);
  info.min_inputs = min_inputs;
  info.max_inputs = max_inputs;
  info.factory = [name, kind](const Props&) { return std::make_shared<PtElemwise>(name, kind); };
  return info;
}

}  // namespace

void register_pt_ops(OpRegistry& r) {
  for (const char* n : {"neg", "abs", "sqr"})
    r.add(elemwise(n, ElemKind::Same, 1, 1, std::string("elementwise ") + n));
  for (const char* n :
       {"exp", "log", "log1p", "expm1", "tanh", "sin", "cos", "sqrt", "sigmoid", "softplus"})
    r.add(elemwise(n, ElemKind::Float, 1, 1, std::string("elementwise ") + n));
  for (const char* n : {"sub", "maximum", "minimum", "pow"})
    r.add(elemwise(n, ElemKind::Same, 2, 2, std::string("elementwise ") + n));
  for (const char* n : {"add", "mul"})
    r.add(elemwise(n, ElemKind::Same, 2, -1, std::string("elementwise ") + n + " of 2+ inputs"));
  r.add(elemwise("true_div", ElemKind::Float, 2, 2, "elementwise division, float result"));
  r.add_alias("div", "true_div");
  for (const char* n : {"lt", "gt", "le", "ge", "eq", "neq"})
    r.add(elemwise(n, ElemKind::Bool, 2, 2, std::string("elementwise comparison ") + n));
  r.add(elemwise("fill", ElemKind::Fill, 2, 2, "the second input broadcast to the first's shape"));

  r.add({"dimshuffle",
         "reorders axes; `x` adds a broadcastable axis, unlisted ones are dropped",
         {{"order", ParamKind::Ints, std::nullopt, false, "result axis i is input axis order[i]"}},
         1,
         1,
         [](const Props& p) {
           return std::make_shared<PtDimShuffle>(std::get<std::vector<std::int64_t>>(p[0].value));
         }});
  r.add({"sum",
         "sum over axes (all of them when `axis=none`)",
         {{"axis", ParamKind::Ints, PropValue{std::monostate{}}, true, "axes to reduce"}},
         1,
         1,
         [](const Props& p) { return std::make_shared<PtSum>(p[0].value); }});
  r.add({"dot", "matrix and vector product", {}, 2, 2, [](const Props&) {
           return std::make_shared<PtDot>();
         }});
  r.add({"shape", "the shape as an int64 vector", {}, 1, 1, [](const Props&) {
           return std::make_shared<PtShape>();
         }});
  r.add({"cast",
         "converts the dtype",
         {{"dtype", ParamKind::DType, std::nullopt, false, ""}},
         1,
         1,
         [](const Props& p) { return std::make_shared<PtCast>(std::get<DType>(p[0].value)); }});
  r.add({"subtensor",
         "integer indexing; each `i` takes its index from the next input",
         {{"index", ParamKind::Ints, std::nullopt, false, "one `i` per indexed axis"}},
         1,
         -1,
         [](const Props& p) {
           return std::make_shared<PtSubtensor>(std::get<std::vector<std::int64_t>>(p[0].value));
         }});
  r.add({"split2", "two outputs and no default one", {}, 1, 1, [](const Props&) {
           return std::make_shared<PtSplit2>();
         }});
}

const OpRegistry& pt_registry() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_pt_ops(r);
    return r;
  }();
  return registry;
}

}  // namespace rw::test
