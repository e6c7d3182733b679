// PredicateRegistry and the built-in predicates.
#include "engine/dsl/predicates.hpp"

#include <algorithm>
#include <limits>

#include "engine/graph/variable.hpp"
#include "support/error.hpp"

namespace rw::dsl {

namespace {

const TensorType* tensor_type(const Var& v) {
  return v ? v->tensor_type() : nullptr;
}

bool dtype_is(const PredicateInput& in, bool (*test)(DType)) {
  const TensorType* t = tensor_type(in.tensors[0]);
  return t && test(t->dtype());
}

// False only for a constant with an element outside `a` (NaN is outside
// every assumption but the trivial one).
bool constant_admits(const Var& v, const ValueAssumption& a) {
  if (!v) return false;
  if (!v->is_constant()) return true;
  const Tensor values = v->as_constant()->value().astype(DType::Float64);
  const double* p = values.data<double>();
  return std::all_of(p, p + values.size(), [&](double x) { return a.admits(x); });
}

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!start(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return start(c) || (c >= '0' && c <= '9'); });
}

}  // namespace

PredicateRegistry::PredicateRegistry() {
  using A = PredicateArg;
  using R = PredicateReads;
  add({"float",
       {A::Tensor},
       "the dtype is a float type (float32, float64)",
       [](const PredicateInput& in) { return dtype_is(in, [](DType d) { return is_float(d); }); },
       R::Types});
  add({"int",
       {A::Tensor},
       "the dtype is an integer type (int8 … int64, uint8)",
       [](const PredicateInput& in) {
         return dtype_is(in, [](DType d) { return is_integer(d); });
       },
       R::Types});
  add({"bool", {A::Tensor}, "the dtype is bool", [](const PredicateInput& in) {
         return dtype_is(in, [](DType d) { return is_bool(d); });
       },
       R::Types});
  add({"constant", {A::Tensor}, "the variable is a constant", [](const PredicateInput& in) {
         return in.tensors[0] && in.tensors[0]->is_constant();
       },
       R::Types});
  // Value assumptions: true of any non-constant; rwcheck verify reads
  // `assumes` to draw values inside them.
  auto assumption = [this](std::string name, std::string doc, ValueAssumption a) {
    add({std::move(name), {PredicateArg::Tensor}, std::move(doc),
         [](const PredicateInput& in) { return static_cast<bool>(in.tensors[0]); },
         PredicateReads::Types, a});
  };
  assumption("nonzero",
             "assumed to hold no zero at run time: false only for a constant holding a zero",
             {.nonzero = true});
  assumption("positive",
             "assumed to hold only values > 0 at run time: false only for a constant holding "
             "one that is not",
             {.min = 0, .nonzero = true});
  assumption("finite",
             "assumed to hold no infinity or NaN at run time: false only for a constant holding "
             "one",
             {.min = -std::numeric_limits<double>::max(),
              .max = std::numeric_limits<double>::max()});
  assumption("nonnegative",
             "assumed to hold only values >= 0 at run time: false only for a constant holding "
             "a negative value (or NaN)",
             {.min = 0});
  add({"scalar",
       {A::Tensor},
       "the static shape holds one element (rank 0, or every extent 1)",
       [](const PredicateInput& in) {
         const TensorType* t = tensor_type(in.tensors[0]);
         return t && std::all_of(t->shape().begin(), t->shape().end(),
                                 [](std::int64_t d) { return d == 1; });
       },
       R::Types});
  add({"known_shape",
       {A::Tensor},
       "every extent of the static shape is known",
       [](const PredicateInput& in) {
         const TensorType* t = tensor_type(in.tensors[0]);
         return t && t->shape_known();
       },
       R::Types});
  add({"broadcastable",
       {A::Tensor, A::Int},
       "axis i (negative counts from the end) has static extent 1",
       [](const PredicateInput& in) {
         const TensorType* t = tensor_type(in.tensors[0]);
         if (!t) return false;
         const auto n = static_cast<std::int64_t>(t->ndim());
         const std::int64_t axis = in.ints[0] < 0 ? in.ints[0] + n : in.ints[0];
         return axis >= 0 && axis < n && t->is_broadcastable(static_cast<std::size_t>(axis));
       },
       R::Types});
  add({"same_type",
       {A::Tensor, A::Tensor},
       "the two variables have equal types",
       [](const PredicateInput& in) {
         return in.tensors[0] && in.tensors[1] && *in.tensors[0]->type() == *in.tensors[1]->type();
       },
       R::Types});
  add({"one_client",
       {A::Tensor},
       "the variable has exactly one use in the graph being rewritten (false outside one)",
       [](const PredicateInput& in) {
         return in.fgraph && in.tensors[0] && in.fgraph->num_clients(*in.tensors[0]) == 1;
       },
       R::Uses});
}

void PredicateRegistry::add(PredicateInfo info) {
  if (!valid_name(info.name))
    throw ValueError("PredicateRegistry::add: `" + info.name + "` is not a valid predicate name");
  if (!info.fn)
    throw ValueError("PredicateRegistry::add: predicate `" + info.name + "` has no function");
  for (std::string_view q : kQueryNames)
    if (info.name == q)
      throw ValueError("PredicateRegistry::add: `" + info.name +
                       "` is a query of the rules language");
  if (info.assumes) {
    if (std::find(info.args.begin(), info.args.end(), PredicateArg::Tensor) == info.args.end())
      throw ValueError("PredicateRegistry::add: predicate `" + info.name +
                       "` states a value assumption but has no tensor argument");
    const ValueAssumption& a = *info.assumes;
    if (!(a.min <= a.max) || (a.min == 0 && a.max == 0 && a.nonzero))
      throw ValueError("PredicateRegistry::add: the value assumption of `" + info.name +
                       "` admits no value");
  }
  if (predicates_.contains(info.name))
    throw ValueError("PredicateRegistry::add: predicate `" + info.name + "` is already registered");
  if (info.assumes) {
    // A constant that breaks the assumption is known not to satisfy it,
    // whatever the function says.
    info.fn = [fn = std::move(info.fn), a = *info.assumes](const PredicateInput& in) {
      for (const Var& v : in.tensors)
        if (!constant_admits(v, a)) return false;
      return fn(in);
    };
  }
  std::string name = info.name;
  predicates_.emplace(std::move(name), std::make_shared<const PredicateInfo>(std::move(info)));
}

void PredicateRegistry::add(std::string name, std::size_t arity, std::string doc,
                            std::function<bool(std::span<const Var>, const FunctionGraph*)> fn,
                            PredicateReads reads) {
  if (!fn) throw ValueError("PredicateRegistry::add: predicate `" + name + "` has no function");
  add({std::move(name), std::vector<PredicateArg>(arity, PredicateArg::Tensor), std::move(doc),
       [f = std::move(fn)](const PredicateInput& in) { return f(in.tensors, in.fgraph); }, reads});
}

std::shared_ptr<const PredicateInfo> PredicateRegistry::find(std::string_view name) const {
  const auto it = predicates_.find(name);
  return it == predicates_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const PredicateInfo>> PredicateRegistry::all() const {
  std::vector<std::shared_ptr<const PredicateInfo>> out;
  for (const auto& [name, p] : predicates_) out.push_back(p);
  return out;
}

std::vector<std::string> PredicateRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, p] : predicates_) out.push_back(name);
  return out;
}

}  // namespace rw::dsl
