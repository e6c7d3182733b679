// Every Op of the standard registry is either checked here by verify_grad
// and verify_rop on graphs that use it, or listed as not differentiable with
// the reason. An Op registered later without an entry fails the walk.
#include <functional>
#include <map>
#include <rw/rewrite.hpp>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace {

using rw::DType;
using rw::Tensor;
using rw::Var;
using Inputs = std::span<const Var>;

/// One graph to check and the point to check it at.
struct Case {
  std::function<Var(Inputs)> fun;
  std::vector<Tensor> pt;
};

/// A registry entry: cases, or the reason the Op has no gradient to check.
struct Entry {
  std::vector<Case> cases;
  std::string not_differentiable;
};

rw::Rng& rng() {
  static rw::Rng r(7);
  return r;
}

Tensor uni(std::initializer_list<std::int64_t> shape, double lo = -1.0, double hi = 1.0,
           DType d = DType::Float64) {
  return rng().uniform(shape, lo, hi, d);
}

/// The registry's Op `name` applied to the inputs.
Var apply_op(const std::string& name, Inputs in, const rw::Props& params = {}) {
  return (*rw::standard_registry().make(name, params))(in);
}

Entry unary(const std::string& name, double lo, double hi) {
  return {{{[name](Inputs in) { return apply_op(name, in); }, {uni({3, 4}, lo, hi)}},
           {[name](Inputs in) { return apply_op(name, in); },
            {uni({5}, lo, hi, DType::Float32)}}},
          {}};
}

Entry binary(const std::string& name, double lo0, double hi0, double lo1, double hi1) {
  // The second case broadcasts: (3, 1) against (4,).
  return {{{[name](Inputs in) { return apply_op(name, in); }, {uni({3, 4}, lo0, hi0), uni({3, 4}, lo1, hi1)}},
           {[name](Inputs in) { return apply_op(name, in); }, {uni({3, 1}, lo0, hi0), uni({4}, lo1, hi1)}}},
          {}};
}

/// x * cast(op(x, y)): the comparison contributes a zero gradient.
Entry comparison(const std::string& name) {
  return {{{[name](Inputs in) { return in[0] * rw::cast(apply_op(name, in), DType::Float64); },
            {uni({4}), uni({4})}}},
          {}};
}

Var ints(std::vector<std::int64_t> v) {
  return rw::constant(Tensor::from_vector(v, std::vector<std::int64_t>{static_cast<std::int64_t>(v.size())}));
}

std::map<std::string, Entry> table() {
  std::map<std::string, Entry> t;
  t["add"] = binary("add", -1, 1, -1, 1);
  t["add"].cases.push_back({[](Inputs in) { return rw::add(std::vector<Var>{in[0], in[1], in[0]}); },
                            {uni({2, 3}), uni({3})}});
  t["sub"] = binary("sub", -1, 1, -1, 1);
  t["mul"] = binary("mul", -1, 1, -1, 1);
  t["mul"].cases.push_back({[](Inputs in) { return rw::mul(std::vector<Var>{in[0], in[1], in[0]}); },
                            {uni({2, 3}), uni({3})}});
  t["true_div"] = binary("true_div", -1, 1, 1, 2);
  // Away from the jumps: x / y stays inside (0, 1).
  t["int_div"] = binary("int_div", 0.5, 1.5, 2.5, 3.5);
  t["mod"] = binary("mod", 0.5, 1.5, 2.5, 3.5);
  t["pow"] = binary("pow", 0.5, 2, 0.5, 2);
  t["maximum"] = binary("maximum", -1, 1, -1, 1);
  t["minimum"] = binary("minimum", -1, 1, -1, 1);
  for (const char* n : {"neg", "sqr", "exp", "exp2", "expm1", "sigmoid", "softplus", "sin", "cos",
                        "tan", "sinh", "cosh", "tanh", "arctan", "erf", "erfc", "identity"})
    t[n] = unary(n, -1, 1);
  // Away from 0, where abs and sign jump.
  t["abs"] = unary("abs", 0.2, 1);
  t["abs"].cases.push_back({[](Inputs in) { return rw::abs(in[0]); }, {uni({4}, -1, -0.2)}});
  t["sign"] = unary("sign", 0.2, 1);
  for (const char* n : {"log", "log2", "log10", "log1p", "sqrt", "reciprocal"}) t[n] = unary(n, 0.5, 2);
  t["arcsin"] = unary("arcsin", -0.8, 0.8);
  t["arccos"] = unary("arccos", -0.8, 0.8);
  // Piecewise constant, checked away from the jumps.
  t["floor"] = unary("floor", 0.1, 0.9);
  t["ceil"] = unary("ceil", 0.1, 0.9);
  t["round"] = unary("round", 0.1, 0.4);
  for (const char* n : {"lt", "gt", "le", "ge", "eq", "neq"}) t[n] = comparison(n);
  for (const char* n : {"and", "or", "xor", "not"})
    t[n].not_differentiable = "defined on bool and integer operands only";
  t["switch"] = {{{[](Inputs in) { return rw::where(rw::gt(in[0], 0.0), in[1], in[2]); },
                   {uni({5}), uni({5}), uni({1})}}},
                 {}};
  t["clip"] = {{{[](Inputs in) { return rw::clip(in[0], in[1], in[2]); },
                 {Tensor::from({-0.9, -0.3, 0.1, 0.6, 0.95}), Tensor::scalar(-0.5), Tensor::scalar(0.7)}}},
               {}};
  t["cast"] = {{{[](Inputs in) { return rw::cast(in[0], DType::Float32); }, {uni({4})}},
                {[](Inputs in) { return rw::cast(in[0], DType::Float64) * 2; }, {uni({4}, -1, 1, DType::Float32)}}},
               {}};
  t["fill"] = {{{[](Inputs in) { return rw::fill(in[0], in[1]); }, {uni({3, 4}), uni({1, 4})}}}, {}};

  auto reduce_cases = [](const std::string& name, double lo, double hi) {
    Entry e;
    for (auto axis : std::vector<rw::PropValue>{std::monostate{}, std::vector<std::int64_t>{1},
                                                std::vector<std::int64_t>{0, 2}})
      e.cases.push_back({[name, axis](Inputs in) { return apply_op(name, in, {{"axis", axis}}); },
                         {uni({2, 3, 2}, lo, hi)}});
    return e;
  };
  t["sum"] = reduce_cases("sum", -1, 1);
  t["mean"] = reduce_cases("mean", -1, 1);
  t["max"] = reduce_cases("max", -1, 1);
  t["min"] = reduce_cases("min", -1, 1);
  t["prod"] = reduce_cases("prod", 0.5, 1.5);
  t["logsumexp"] = reduce_cases("logsumexp", -1, 1);
  // Groups of 12 and 4 (even: the two middle elements share g) and of 3 (odd).
  t["median"] = reduce_cases("median", -1, 1);
  // Where exp overflows: the gradient is still the softmax.
  t["logsumexp"].cases.push_back({[](Inputs in) { return rw::logsumexp(in[0], {0}); },
                                  {uni({3, 2}, 800, 801)}});
  // A zero in a group: the product of the others flows to it.
  t["prod"].cases.push_back({[](Inputs in) { return rw::prod(in[0], {1}); },
                             {Tensor::from({{0.5, 0.0, 2.0}, {1.5, -1.0, 0.7}})}});
  t["prod"].cases.push_back({[](Inputs in) { return rw::prod(in[0]); },
                             {Tensor::from({0.0, 0.0, 2.0})}});
  for (const char* n : {"any", "all"}) t[n].not_differentiable = "bool result";
  for (const char* n : {"argmax", "argmin", "shape", "shape_i"}) t[n].not_differentiable = "integer result";

  t["dimshuffle"] = {{{[](Inputs in) { return rw::dimshuffle(in[0], {1, rw::kNewAxis, 0}); }, {uni({2, 3})}},
                      {[](Inputs in) { return rw::dimshuffle(in[0], {1}); }, {uni({1, 3})}}},
                     {}};
  t["make_vector"] = {{{[](Inputs in) { return rw::make_vector({in[0], in[1], in[0]}, DType::Float64); },
                        {Tensor::scalar(0.3), Tensor::scalar(-0.7)}}},
                      {}};
  t["specify_shape"] = {{{[](Inputs in) { return rw::specify_shape(in[0], {2, rw::kUnknownDim}); }, {uni({2, 3})}}}, {}};
  t["reshape"] = {{{[](Inputs in) { return rw::reshape(in[0], {2, -1}); }, {uni({3, 4})}}}, {}};
  t["flatten"] = {{{[](Inputs in) { return rw::flatten(in[0], 2); }, {uni({2, 3, 2})}}}, {}};
  t["alloc"] = {{{[](Inputs in) { return rw::alloc(in[0], {3, 4}); }, {uni({4})}},
                 {[](Inputs in) { return rw::alloc(in[0], {2, 3, 4}); }, {uni({3, 1})}}},
                {}};
  t["zeros_like"] = {{{[](Inputs in) { return rw::zeros_like(in[0]) + in[0]; }, {uni({3})}}}, {}};
  t["ones_like"] = {{{[](Inputs in) { return rw::ones_like(in[0]) * in[0]; }, {uni({3})}}}, {}};
  t["join"] = {{{[](Inputs in) { return rw::concatenate({in[0], in[1]}, 1); }, {uni({2, 3}), uni({2, 2})}}}, {}};
  t["split"] = {{{[](Inputs in) { return rw::split(in[0], {2, 3})[1]; }, {uni({5})}},
                 {[](Inputs in) {
                    auto parts = rw::split(in[0], {1, 2}, 1);
                    return parts[0] * 2 + parts[1];
                  },
                  {uni({2, 3})}}},
                {}};
  t["stack"] = {{{[](Inputs in) { return rw::stack({in[0], in[1]}, 1); }, {uni({2, 3}), uni({2, 3})}}}, {}};

  t["subtensor"] = {{{[](Inputs in) { return rw::subtensor(in[0], {rw::slice(1, 3), 2}); }, {uni({4, 3})}},
                     {[](Inputs in) { return rw::subtensor(in[0], {rw::slice(std::nullopt, std::nullopt, -2)}); },
                      {uni({5})}}},
                    {}};
  t["set_subtensor"] = {{{[](Inputs in) { return rw::set_subtensor(in[0], {rw::slice(1, 3)}, in[1]); },
                          {uni({4, 3}), uni({3})}}},
                        {}};
  t["inc_subtensor"] = {{{[](Inputs in) { return rw::inc_subtensor(in[0], {1}, in[1]); },
                          {uni({4, 3}), uni({1})}}},
                        {}};
  t["advanced_subtensor"] = {{{[](Inputs in) { return rw::take(in[0], ints({2, 0, 2})); }, {uni({4, 3})}},
                              {[](Inputs in) { return rw::take(in[0], ints({1, 1}), 1); }, {uni({2, 3})}}},
                             {}};
  t["advanced_inc_subtensor"] = {{{[](Inputs in) { return rw::advanced_inc_subtensor(in[0], ints({2, 0, 2}), in[1]); },
                                   {uni({4, 3}), uni({3, 3})}}},
                                 {}};
  t["advanced_set_subtensor"] = {{{[](Inputs in) { return rw::advanced_set_subtensor(in[0], ints({3, 0}), in[1]); },
                                   {uni({4, 3}), uni({2, 3})}}},
                                 {}};

  auto two = [](auto f) { return [f](Inputs in) { return f(in[0], in[1]); }; };
  t["dot"] = {{{two([](Var a, Var b) { return rw::dot(a, b); }), {uni({2, 3}), uni({3, 4})}},
               {two([](Var a, Var b) { return rw::dot(a, b); }), {uni({2, 3}), uni({3})}},
               {two([](Var a, Var b) { return rw::dot(a, b); }), {uni({3}), uni({3, 4})}},
               {two([](Var a, Var b) { return rw::dot(a, b); }), {uni({3}), uni({3})}},
               {two([](Var a, Var b) { return rw::dot(a, b); }),
                {uni({2, 3}, -1, 1, DType::Float32), uni({3, 2}, -1, 1, DType::Float32)}}},
              {}};
  t["matmul"] = {{{two([](Var a, Var b) { return rw::matmul(a, b); }), {uni({2, 2, 3}), uni({3, 4})}},
                  {two([](Var a, Var b) { return rw::matmul(a, b); }), {uni({1, 2, 3}), uni({2, 3, 2})}},
                  {two([](Var a, Var b) { return rw::matmul(a, b); }), {uni({3}), uni({2, 3, 4})}},
                  {two([](Var a, Var b) { return rw::matmul(a, b); }), {uni({2, 3}), uni({3})}},
                  {two([](Var a, Var b) { return rw::matmul(a, b); }), {uni({3}), uni({3})}}},
                 {}};
  t["outer"] = {{{two([](Var a, Var b) { return rw::outer(a, b); }), {uni({3}), uni({2})}}}, {}};
  t["gemm"] = {{{[](Inputs in) { return rw::gemm(in[0], in[1], in[2], in[3], in[4]); },
                 {uni({2, 4}), Tensor::scalar(0.7), uni({2, 3}), uni({3, 4}), Tensor::scalar(-1.3)}}},
               {}};
  t["gemv"] = {{{[](Inputs in) { return rw::gemv(in[0], in[1], in[2], in[3], in[4]); },
                 {uni({2}), Tensor::scalar(0.7), uni({2, 3}), uni({3}), Tensor::scalar(-1.3)}}},
               {}};
  t["dot22scalar"] = {{{[](Inputs in) { return rw::dot22scalar(in[0], in[1], in[2]); },
                        {uni({2, 3}), uni({3, 4}), Tensor::scalar(0.7)}}},
                      {}};
  t["ger"] = {{{[](Inputs in) { return rw::ger(in[0], in[1], in[2], in[3]); },
                {uni({2, 3}), Tensor::scalar(0.7), uni({2}), uni({3})}}},
              {}};
  t["softmax"] = {{{[](Inputs in) { return rw::softmax(in[0]); }, {uni({2, 4})}},
                   {[](Inputs in) { return rw::softmax(in[0], 0); }, {uni({3, 2})}}},
                  {}};
  t["log_softmax"] = {{{[](Inputs in) { return rw::log_softmax(in[0]); }, {uni({2, 4})}},
                       {[](Inputs in) { return rw::log_softmax(in[0], 0); }, {uni({3, 2})}}},
                      {}};
  t["deep_copy"] = {{{[](Inputs in) { return apply_op("deep_copy", in) * 3; }, {uni({3})}}}, {}};
  t["view"] = {{{[](Inputs in) { return apply_op("view", in) * 3; }, {uni({3})}}}, {}};
  for (const char* n : {"zero_grad", "disconnected_grad", "grad_clip", "grad_scale"})
    t[n].not_differentiable =
        "its gradient differs from its derivative by design (tests/engine/grad/test_rop.cpp)";
  t["alloc_empty"].not_differentiable = "its inputs are extents (integers)";
  for (const char* n : {"eye", "tri"})
    t[n].not_differentiable = "its inputs are sizes and an offset (integers)";
  for (const char* n : {"tril_indices", "triu_indices"})
    t[n].not_differentiable = "integer results of sizes and an offset";
  // Bounds away from a change of length: arange(0.25, 4.5, 0.6) has 8 values.
  t["arange"] = {{{[](Inputs in) { return rw::arange(in[0], 4.5, in[1]); },
                   {Tensor::scalar(0.25), Tensor::scalar(0.6)}},
                  {[](Inputs in) { return rw::arange(in[0], 0, -1.5) * 2; }, {Tensor::scalar(5.2)}}},
                 {}};
  t["linspace"] = {{{[](Inputs in) { return rw::linspace(in[0], in[1], 5); },
                     {Tensor::scalar(0.3), Tensor::scalar(-1.2)}},
                    {[](Inputs in) { return rw::linspace(in[0], in[1], 4, false); },
                     {Tensor::scalar(0.3), Tensor::scalar(2.0)}},
                    {[](Inputs in) { return rw::linspace(in[0], in[1], 1); },
                     {Tensor::scalar(0.3), Tensor::scalar(2.0)}}},
                   {}};
  t["tril"] = {{{[](Inputs in) { return rw::tril(in[0], 1); }, {uni({3, 4})}},
                {[](Inputs in) { return rw::tril(in[0], -1); }, {uni({2, 3, 3})}}},
               {}};
  t["triu"] = {{{[](Inputs in) { return rw::triu(in[0]); }, {uni({3, 4})}},
                {[](Inputs in) { return rw::triu(in[0], 2); }, {uni({2, 3, 3})}}},
               {}};
  t["alloc_diag"] = {{{[](Inputs in) { return rw::alloc_diag(in[0], 1); }, {uni({3})}},
                      {[](Inputs in) { return rw::alloc_diag(in[0], -2); }, {uni({2})}}},
                     {}};
  t["extract_diag"] = {{{[](Inputs in) { return rw::extract_diag(in[0], 1); }, {uni({3, 5})}},
                        {[](Inputs in) { return rw::extract_diag(in[0], -1); }, {uni({4, 2})}},
                        {[](Inputs in) { return rw::extract_diag(in[0]); }, {uni({2, 5})}},
                        {[](Inputs in) { return rw::extract_diag(in[0], 2); }, {uni({5, 3})}}},
                       {}};
  t["repeat"] = {{{[](Inputs in) { return rw::repeat(in[0], 2, 1); }, {uni({2, 3})}},
                  {[](Inputs in) { return rw::repeat(in[0], ints({1, 0, 3})); }, {uni({3, 1})}},
                  {[](Inputs in) { return rw::repeat(in[0], ints({2, 1}), 0); }, {uni({2, 2})}}},
                 {}};
  t["tile"] = {{{[](Inputs in) { return rw::tile(in[0], {2, 3}); }, {uni({2, 3})}},
                {[](Inputs in) { return rw::tile(in[0], {2, 1, 2}); }, {uni({3})}},
                {[](Inputs in) { return rw::tile(in[0], {2}); }, {uni({2, 2})}}},
               {}};
  t["roll"] = {{{[](Inputs in) { return rw::roll(in[0], 1, 1); }, {uni({2, 3})}},
                {[](Inputs in) { return rw::roll(in[0], -4); }, {uni({2, 3})}}},
               {}};
  t["cumsum"] = {{{[](Inputs in) { return rw::cumsum(in[0], 1); }, {uni({2, 3})}},
                  {[](Inputs in) { return rw::cumsum(in[0]); }, {uni({2, 3})}},
                  {[](Inputs in) { return rw::cumsum(in[0], -2); }, {uni({3, 2})}}},
                 {}};
  // Away from zero: cumprod's gradient divides by x.
  t["cumprod"] = {{{[](Inputs in) { return rw::cumprod(in[0], 0); }, {uni({3, 2}, 0.5, 1.5)}},
                   {[](Inputs in) { return rw::cumprod(in[0]); }, {uni({2, 2}, -1.5, -0.5)}}},
                  {}};
  t["diff"] = {{{[](Inputs in) { return rw::diff(in[0]); }, {uni({2, 4})}},
                {[](Inputs in) { return rw::diff(in[0], 2, 0); }, {uni({4, 2})}},
                {[](Inputs in) { return rw::diff(in[0], 3) + 1; }, {uni({2})}}},
               {}};
  // Distinct values, so that the order is stable under the finite differences.
  t["sort"] = {{{[](Inputs in) { return rw::sort(in[0]); }, {Tensor::from({{0.3, -0.8, 0.1}, {0.9, 0.5, -0.2}})}},
                {[](Inputs in) { return rw::sort(in[0], 0); }, {Tensor::from({{0.3, -0.8}, {0.9, 0.5}, {-0.1, 0.7}})}},
                {[](Inputs in) { return rw::sort(in[0], std::nullopt); }, {Tensor::from({{0.3, -0.8}, {0.9, 0.5}})}}},
               {}};
  t["argsort"].not_differentiable = "integer result";
  // Distinct values: the chosen elements stay the chosen ones under the finite differences.
  t["topk"] = {{{[](Inputs in) { return rw::topk(in[0], 2); }, {Tensor::from({{0.3, -0.8, 0.1}, {0.9, 0.5, -0.2}})}},
                {[](Inputs in) { return rw::topk(in[0], -2, 0); }, {Tensor::from({{0.3, -0.8}, {0.9, 0.5}, {-0.1, 0.7}})}}},
               {}};
  t["argtopk"].not_differentiable = "integer result";
  t["searchsorted"].not_differentiable = "integer result";
  t["unique"].not_differentiable = "its result length depends on the values of x (PyTensor's Unique has no gradient either)";
  // Random variables: the generator is disconnected and the draw has no
  // gradient in its parameters (a null gradient saying so), as PyTensor's.
  for (const char* r : {"normal", "uniform", "bernoulli", "binomial", "poisson", "gamma", "beta",
                        "exponential", "categorical", "multivariate_normal", "integers", "choice",
                        "permutation"})
    t[r].not_differentiable = "a random draw: disconnected from the generator, undefined in the "
                              "parameters (tests/ops/random/test_random.cpp)";
  t["bincount"] = {{{[](Inputs in) { return rw::bincount(ints({0, 2, 2, 5}), in[0], 7); }, {uni({4})}}}, {}};
  t["erfinv"] = unary("erfinv", -0.9, 0.9);
  t["erfcinv"] = unary("erfcinv", 0.05, 1.9);
  t["erfcx"] = unary("erfcx", -1, 2);
  t["gammaln"] = unary("gammaln", 0.5, 3);
  t["digamma"] = unary("digamma", 0.5, 3);
  t["trigamma"].not_differentiable =
      "its derivative, polygamma(2, x), is not in the scalar set: L_op returns a null gradient "
      "that says so (tests/ops/elemwise/test_special.cpp)";
  t["betaln"] = binary("betaln", 0.5, 3, 0.5, 3);
  t["log1mexp"] = unary("log1mexp", -3, -0.1);
  t["logit"] = unary("logit", 0.1, 0.9);
  t["xlogy"] = binary("xlogy", -1, 1, 0.5, 2);
  t["xlog1py"] = binary("xlog1py", -1, 1, -0.5, 1);
  t["softsign"] = unary("softsign", -1, 1);
  t["gelu"] = unary("gelu", -2, 2);
  t["relu"] = unary("relu", 0.2, 1);
  t["i0"] = unary("i0", -2, 2);
  t["i1"] = unary("i1", -2, 2);
  // At 0, where i1's derivative is the limit 1/2.
  t["i1"].cases.push_back({[](Inputs in) { return rw::i1(in[0]); }, {Tensor::from({0.0, 0.3})}});
  t["relu"].cases.push_back({[](Inputs in) { return rw::relu(in[0]) + in[0]; }, {uni({4}, -1, -0.2)}});
  // Well-conditioned matrices: the identity plus a small perturbation.
  auto well = [](std::int64_t n) {
    Tensor m = uni({n, n}, -0.3, 0.3);
    for (std::int64_t i = 0; i < n; ++i) m.data<double>()[i * n + i] += 1.5;
    return m;
  };
  t["matrix_inverse"] = {{{[](Inputs in) { return rw::matrix_inverse(in[0]); }, {well(3)}}}, {}};
  t["det"] = {{{[](Inputs in) { return rw::det(in[0]); }, {well(3)}},
               {[](Inputs in) { return rw::det(in[0]) * 2; }, {well(1)}}},
              {}};
  t["solve"] = {{{[](Inputs in) { return rw::solve(in[0], in[1]); }, {well(3), uni({3, 2})}},
                 {[](Inputs in) { return rw::solve(in[0], in[1]); }, {well(2), uni({2})}}},
                {}};
  t["kron"] = {{{[](Inputs in) { return rw::kron(in[0], in[1]); }, {uni({2, 3}), uni({3, 2})}},
                {[](Inputs in) { return rw::kron(in[0], in[0]); }, {uni({2, 1})}}},
               {}};
  t["block_diag"] = {{{[](Inputs in) { return rw::block_diag({in[0], in[1]}); }, {uni({2, 3}), uni({1, 2})}},
                      {[](Inputs in) { return rw::block_diag({in[0], in[0]}) * 2; }, {uni({2, 2})}}},
                     {}};
  t["solve_triangular"] = {{{[](Inputs in) { return rw::solve_triangular(in[0], in[1], true); },
                            {well(3), uni({3, 2})}},
                           {[](Inputs in) { return rw::solve_triangular(in[0], in[1]); },
                            {well(3), uni({3})}}},
                          {}};
  // Diagonally dominant, so that the pivots stay put under the finite
  // differences; reversed rows make the pivoting permute.
  auto reversed_rows = [&](std::int64_t n) {
    const Tensor w = well(n);
    Tensor m = Tensor::empty(DType::Float64, {n, n});
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) m.data<double>()[i * n + j] = w.at({n - 1 - i, j});
    return m;
  };
  t["lu"] = {{{[](Inputs in) { return std::get<1>(rw::lu(in[0])); }, {well(3)}},
              {[](Inputs in) { return std::get<2>(rw::lu(in[0])); }, {reversed_rows(3)}},
              {[](Inputs in) {
                 auto [p, l, u] = rw::lu(in[0]);
                 return rw::dot(l, u) + p;
               },
               {reversed_rows(3)}}},
             {}};
  t["expm"] = {{{[](Inputs in) { return rw::expm(in[0]); }, {uni({3, 3}, -0.5, 0.5)}},
                {[](Inputs in) { return rw::expm(in[0] * 2); }, {uni({1, 1})}}},
               {}};
  // Symmetric positive definite: well(n) wᵀ w.
  auto spd = [&](std::int64_t n) {
    const Tensor w = well(n);
    Tensor m = Tensor::empty(DType::Float64, {n, n});
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t k = 0; k < n; ++k) s += w.at({k, i}) * w.at({k, j});
        m.data<double>()[i * n + j] = s;
      }
    return m;
  };
  t["cholesky"] = {{{[](Inputs in) { return rw::cholesky(in[0]); }, {spd(3)}},
                    {[](Inputs in) { return rw::cholesky(in[0]) * 2; }, {spd(1)}}},
                   {}};
  // A negative determinant too: well(3) with its first row negated.
  auto negated = [&] {
    Tensor m = well(3);
    for (std::int64_t j = 0; j < 3; ++j) m.data<double>()[j] = -m.data<double>()[j];
    return m;
  };
  t["slogdet"] = {{{[](Inputs in) { return rw::slogdet(in[0]).second; }, {well(3)}},
                   {[](Inputs in) {
                      auto [sign, logabs] = rw::slogdet(in[0]);
                      return sign * logabs;
                    },
                    {negated()}}},
                  {}};
  // Distinct eigenvalues (about 1, 2, 3); squared eigenvectors, as their sign is arbitrary.
  auto spread = [] {
    Tensor m = uni({3, 3}, -0.2, 0.2);
    for (std::int64_t i = 0; i < 3; ++i) m.data<double>()[i * 3 + i] += static_cast<double>(i + 1);
    return m;
  };
  t["eigh"] = {{{[](Inputs in) { return rw::eigh(in[0]).first; }, {spread()}},
                {[](Inputs in) { return rw::sqr(rw::eigh(in[0]).second); }, {spread()}},
                {[](Inputs in) {
                   auto [w, v] = rw::eigh(in[0]);
                   return rw::sum(rw::sqr(v), {0}) * w;
                 },
                 {spread()}}},
               {}};
  t["eigvalsh"] = {{{[](Inputs in) { return rw::eigvalsh(in[0]); }, {spread()}},
                    {[](Inputs in) { return rw::eigvalsh(in[0]) * 2; }, {well(1)}}},
                   {}};
  // Through the singular values only: the gradient of u and vt is not implemented.
  t["svd"] = {{{[](Inputs in) { return rw::svd(in[0], false)[0]; }, {uni({3, 2})}},
               {[](Inputs in) { return rw::svd(in[0], false)[0]; }, {uni({2, 3})}},
               {[](Inputs in) { return rw::norm(in[0], rw::NormOrd::L2); }, {well(3)}}},
              {}};
  // qr's derivatives need a static shape with m >= n.
  t["qr"] = {{{[](Inputs in) { return rw::qr(rw::specify_shape(in[0], {4, 3})).first; }, {uni({4, 3})}},
              {[](Inputs in) { return rw::qr(rw::specify_shape(in[0], {4, 3})).second; }, {uni({4, 3})}},
              {[](Inputs in) {
                 auto [q, r] = rw::qr(rw::specify_shape(in[0], {3, 3}));
                 return rw::dot(q, r) + q;
               },
               {well(3)}}},
             {}};
  t["pinv"] = {{{[](Inputs in) { return rw::pinv(in[0]); }, {uni({3, 2})}},
                {[](Inputs in) { return rw::pinv(in[0]); }, {uni({2, 3})}},
                {[](Inputs in) { return rw::lstsq(in[0], in[1]); }, {uni({4, 2}), uni({4})}}},
               {}};
  // Sparse Ops over their dense equivalents: the points have no zeros, so a
  // structured gradient (on the pattern) is the whole gradient here
  // (tests/ops/sparse/test_sparse.cpp checks patterns with zeros).
  using rw::SparseFormat;
  const Tensor idx = Tensor::from<std::int32_t>({0, 2, 1}), ptr = Tensor::from<std::int32_t>({0, 2, 2, 3});
  auto pattern = [idx, ptr](SparseFormat f, const Var& data) {
    return rw::csm(f, data, rw::constant(idx), rw::constant(ptr),
                   rw::constant(Tensor::from<std::int64_t>({3, 4})));
  };
  t["csm_properties"] = {{{[](Inputs in) { return rw::csm_properties(rw::csr_from_dense(in[0])).data * 2; },
                           {uni({3, 4})}}},
                         {}};
  t["csr"] = {{{[pattern](Inputs in) { return rw::dense_from_sparse(pattern(SparseFormat::Csr, in[0])); },
                {uni({3})}}},
              {}};
  t["csc"] = {{{[idx, ptr](Inputs in) {
                  return rw::dense_from_sparse(rw::csc(in[0], rw::constant(idx), rw::constant(ptr),
                                                       rw::constant(Tensor::from<std::int64_t>({4, 3}))));
                },
                {uni({3}, -1, 1, DType::Float32)}}},
              {}};
  t["csm_grad"] = {{{[idx, ptr](Inputs in) {
                       return rw::csm_grad(rw::csc_from_dense(in[0]), SparseFormat::Csr, rw::constant(idx),
                                           rw::constant(ptr));
                     },
                     {uni({3, 4})}}},
                   {}};
  t["dense_from_sparse"] = {{{[](Inputs in) { return rw::dense_from_sparse(rw::csc_from_dense(in[0])); },
                              {uni({3, 4})}}},
                            {}};
  t["csr_from_dense"] = {{{[](Inputs in) { return rw::sp_sum(rw::csr_from_dense(in[0]), 0); }, {uni({3, 4})}}},
                         {}};
  t["csc_from_dense"] = {{{[](Inputs in) { return rw::sp_sum(rw::csc_from_dense(in[0]), 1); }, {uni({3, 4})}}},
                         {}};
  t["sparse_convert"] = {{{[](Inputs in) {
                             return rw::dense_from_sparse(
                                 rw::sparse_convert(rw::csr_from_dense(in[0]), SparseFormat::Csc, DType::Float32));
                           },
                           {uni({3, 4})}}},
                         {}};
  t["sparse_transpose"] = {{{[](Inputs in) {
                               return rw::dense_from_sparse(rw::sparse_transpose(rw::csr_from_dense(in[0])));
                             },
                             {uni({3, 4})}}},
                           {}};
  t["structured_dot"] = {{{[](Inputs in) { return rw::structured_dot(rw::csr_from_dense(in[0]), in[1]); },
                           {uni({3, 4}), uni({4, 2})}},
                          {[](Inputs in) { return rw::structured_dot(rw::csc_from_dense(in[0]), in[1]); },
                           {uni({3, 4}), uni({4})}}},
                         {}};
  t["structured_dot_t"] = {{{[](Inputs in) { return rw::structured_dot_t(rw::csr_from_dense(in[0]), in[1]); },
                             {uni({3, 4}), uni({3, 2})}},
                            {[](Inputs in) { return rw::structured_dot_t(rw::csc_from_dense(in[0]), in[1]); },
                             {uni({3, 4}), uni({3})}}},
                           {}};
  t["sparse_dot"] = {{{[](Inputs in) {
                         return rw::dense_from_sparse(
                             rw::sparse_dot(rw::csr_from_dense(in[0]), rw::csc_from_dense(in[1])));
                       },
                       {uni({3, 4}), uni({4, 2})}}},
                     {}};
  t["add_ss"] = {{{[](Inputs in) {
                     return rw::dense_from_sparse(rw::add_ss(rw::csr_from_dense(in[0]), rw::csr_from_dense(in[1])));
                   },
                   {uni({3, 4}), uni({3, 4})}}},
                 {}};
  t["add_sd"] = {{{[](Inputs in) { return rw::add_sd(rw::csc_from_dense(in[0]), in[1]); }, {uni({3, 4}), uni({3, 4})}}},
                 {}};
  t["mul_sd"] = {{{[](Inputs in) { return rw::dense_from_sparse(rw::mul_sd(rw::csr_from_dense(in[0]), in[1])); },
                   {uni({3, 4}), uni({3, 4})}},
                  {[](Inputs in) { return rw::dense_from_sparse(rw::mul_sd(rw::csc_from_dense(in[0]), in[1])); },
                   {uni({3, 4}), Tensor::scalar(0.7)}},
                  {[](Inputs in) { return rw::dense_from_sparse(rw::mul_sd(rw::csr_from_dense(in[0]), in[1])); },
                   {uni({3, 4}), uni({4})}}},
                 {}};
  t["sp_sum"] = {{{[](Inputs in) { return rw::sp_sum(rw::csr_from_dense(in[0])); }, {uni({3, 4})}},
                  {[](Inputs in) { return rw::sp_sum(rw::csc_from_dense(in[0]), 0); }, {uni({3, 4})}},
                  {[](Inputs in) { return rw::sp_sum(rw::csr_from_dense(in[0]), 1); }, {uni({3, 4})}}},
                 {}};
  t["sampling_dot"] = {{{[](Inputs in) {
                           return rw::dense_from_sparse(rw::sampling_dot(in[0], in[1], rw::csr_from_dense(in[2])));
                         },
                         {uni({3, 2}), uni({4, 2}), uni({3, 4})}}},
                       {}};
  return t;
}

}  // namespace

TEST_CASE("every registered Op has a gradient check or a reason", "[grad]") {
  const auto t = table();
  std::vector<std::string> missing;
  for (const rw::OpInfo* info : rw::standard_registry().all())
    if (!t.count(info->name)) missing.push_back(info->name);
  INFO("add these Ops to the table in test_op_grads.cpp: " << [&] {
    std::string s;
    for (const auto& m : missing) s += m + " ";
    return s;
  }());
  CHECK(missing.empty());
  // And nothing stale: every entry names a registered Op.
  for (const auto& [name, entry] : t) {
    INFO(name);
    CHECK(rw::standard_registry().find(name) != nullptr);
    CHECK((entry.cases.empty() != entry.not_differentiable.empty()));
  }
}

TEST_CASE("verify_grad and verify_rop on every differentiable Op", "[grad]") {
  for (const auto& [name, entry] : table()) {
    for (std::size_t k = 0; k < entry.cases.size(); ++k) {
      const Case& c = entry.cases[k];
      INFO("op `" << name << "`, case " << k);
      CHECK_NOTHROW(rw::verify_grad(c.fun, c.pt));
      CHECK_NOTHROW(rw::verify_rop(c.fun, c.pt));
    }
  }
}
