// Every registered Op: the shapes infer_shape computes symbolically agree with
// the shapes perform produces on random inputs (PyTensor's InferShapeTester).
#include <functional>
#include <map>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "runtime/kernels/elemwise.hpp"
#include "rw/rewrite.hpp"
#include "support/graph_compare.hpp"
#include "support/native_fixtures.hpp"

using namespace rw;

namespace {

/// Inputs for one Op: its parameters, the graph inputs and their values.
struct Case {
  Props params;
  std::vector<Var> inputs;
  std::vector<Tensor> values;
};

struct Builder {
  Rng rng{42};
  Case c;
  /// A graph input of `dtype` whose static shape is `static_shape` (entries
  /// -1 unknown), with a random value of `shape`.
  Builder& in(DType dtype, Shape shape, StaticShape static_shape, double lo = -2, double hi = 2) {
    c.inputs.push_back(rw::tensor(fmt::format("in{}", c.inputs.size()), dtype, static_shape));
    Tensor v = rng.uniform(std::span<const std::int64_t>(shape.data(), shape.size()), lo, hi);
    c.values.push_back(dtype == DType::Float64 ? v : rw::cast(v, dtype));
    return *this;
  }
  /// An input with every extent unknown.
  Builder& in(DType dtype, Shape shape, double lo = -2, double hi = 2) {
    return in(dtype, shape, StaticShape(shape.size(), kUnknownDim), lo, hi);
  }
  /// A 0-d or 1-d integer input holding exactly `values`.
  Builder& ints(std::vector<std::int64_t> values, bool scalar = false) {
    const auto n = static_cast<std::int64_t>(values.size());
    c.inputs.push_back(rw::tensor(fmt::format("in{}", c.inputs.size()), i64,
                                  scalar ? StaticShape{} : StaticShape{n}));
    c.values.push_back(scalar ? Tensor::scalar(values[0])
                              : Tensor::from_vector(values, std::span(&n, 1)));
    return *this;
  }
  /// A generator-state input (`rng`), seeded.
  Builder& rng_state() {
    c.inputs.push_back(Variable::make(RandomGeneratorType::make(), fmt::format("in{}", c.inputs.size())));
    c.values.push_back(RandomGeneratorType::seed_value(c.inputs.size()));
    return *this;
  }
  /// A sparse input of unknown extents holding a random `rows` x `cols`
  /// matrix about half of whose entries are zero.
  Builder& sparse(SparseFormat format, DType dtype, std::int64_t rows, std::int64_t cols) {
    c.inputs.push_back(sparse_matrix(fmt::format("in{}", c.inputs.size()), format, dtype));
    Tensor v = rng.uniform({rows, cols}, -2, 2);
    const Tensor keep = rng.uniform({rows, cols}, 0, 1);
    for (std::int64_t k = 0; k < rows * cols; ++k)
      if (keep.data<double>()[k] < 0.5) v.data<double>()[k] = 0;
    c.values.push_back(sparse_from_dense(rw::cast(v, dtype), format));
    return *this;
  }
  /// Replaces the value of the last input by its rows divided by their sums
  /// (probabilities along the last axis).
  Builder& normalise_last() {
    Tensor& v = c.values.back();
    const std::int64_t n = v.shape().back(), rows = v.size() / n;
    for (std::int64_t r = 0; r < rows; ++r) {
      double total = 0;
      for (std::int64_t k = 0; k < n; ++k) total += v.data<double>()[r * n + k];
      for (std::int64_t k = 0; k < n; ++k) v.data<double>()[r * n + k] /= total;
    }
    return *this;
  }
  Builder& param(std::string name, PropValue v) {
    c.params.push_back({std::move(name), std::move(v)});
    return *this;
  }
};

using Gen = std::function<Case()>;

Gen elemwise(int arity, DType dtype, double lo = -2, double hi = 2) {
  return [=] {
    Builder b;
    // Broadcasting: (3, 1) against (4,) and, for three operands, (1, 4).
    const Shape shapes[] = {{3, 1}, {4}, {1, 4}};
    const StaticShape statics[] = {{kUnknownDim, 1}, {kUnknownDim}, {1, kUnknownDim}};
    for (int i = 0; i < arity; ++i) b.in(dtype, shapes[i], statics[i], lo, hi);
    return b.c;
  };
}

/// The test-input generator of every registered Op, by name.
std::map<std::string, Gen> generators() {
  std::map<std::string, Gen> g;
  for (ScalarOp s : kAllScalarOps) {
    const ScalarOpInfo& info = scalar_op_info(s);
    const std::string name(info.name);
    if (info.rule == DTypeRule::Logic) g[name] = elemwise(info.arity, i32, -50, 50);
    else if (s == ScalarOp::ArcSin || s == ScalarOp::ArcCos)
      g[name] = elemwise(1, f64, -1, 1);
    else g[name] = elemwise(info.arity, f64, 0.5, 2);
  }
  g["switch"] = [] {
    Builder b;
    b.in(DType::Bool, {3, 1}, {kUnknownDim, 1}).in(f64, {4}).in(f32, {1, 4}, {1, kUnknownDim});
    return b.c;
  };
  g["cast"] = [] {
    Builder b;
    b.param("dtype", DType::Int16).in(f64, {2, 3});
    return b.c;
  };
  g["fill"] = [] {
    Builder b;
    b.in(f64, {3, 4}).in(f32, {1}, StaticShape{1});
    return b.c;
  };
  for (const char* r : {"sum", "prod", "max", "min", "mean", "any", "all"})
    g[r] = [] {
      Builder b;
      b.param("axis", std::vector<std::int64_t>{0, -1}).in(f64, {2, 3, 4});
      return b.c;
    };
  for (const char* r : {"argmax", "argmin"})
    g[r] = [] {
      Builder b;
      b.param("axis", std::int64_t{1}).in(f64, {2, 3, 4});
      return b.c;
    };
  g["dimshuffle"] = [] {
    Builder b;
    b.param("order", std::vector<std::int64_t>{2, kNewAxis, 0}).in(f64, {2, 1, 3},
                                                                   {kUnknownDim, 1, kUnknownDim});
    return b.c;
  };
  g["shape"] = [] {
    Builder b;
    b.in(f64, {2, 0, 3});
    return b.c;
  };
  g["shape_i"] = [] {
    Builder b;
    b.param("i", std::int64_t{1}).in(f64, {2, 5});
    return b.c;
  };
  g["make_vector"] = [] {
    Builder b;
    b.param("dtype", f64).in(f64, {}).in(i32, {});
    return b.c;
  };
  g["specify_shape"] = [] {
    Builder b;
    b.param("shape", std::vector<std::int64_t>{2, kUnknownDim}).in(f64, {2, 3});
    return b.c;
  };
  g["reshape"] = [] {
    Builder b;
    b.param("ndim", std::int64_t{3}).in(f64, {4, 6}).ints({2, -1, 3});
    return b.c;
  };
  g["flatten"] = [] {
    Builder b;
    b.param("ndim", std::int64_t{2}).in(f64, {2, 3, 4});
    return b.c;
  };
  g["alloc"] = [] {
    Builder b;
    b.in(f64, {1, 3}, {1, kUnknownDim}).ints({4}, true).ints({2}, true).ints({3}, true);
    return b.c;
  };
  g["alloc_empty"] = [] {
    Builder b;
    b.ints({4}, true).ints({3}, true).param("dtype", f32);
    return b.c;
  };
  for (const char* r : {"zeros_like", "ones_like"})
    g[r] = [] {
      Builder b;
      b.in(i32, {3, 2});
      return b.c;
    };
  g["join"] = [] {
    Builder b;
    b.param("axis", std::int64_t{1}).in(f64, {2, 3}).in(f32, {2, 5});
    return b.c;
  };
  g["split"] = [] {
    Builder b;
    b.param("n", std::int64_t{3}).param("axis", std::int64_t{1}).in(f64, {2, 7}).ints({1, 4, 2});
    return b.c;
  };
  g["stack"] = [] {
    Builder b;
    b.param("axis", std::int64_t{1}).in(f64, {2, 3}).in(f64, {2, 3});
    return b.c;
  };
  // x[1, 4:0:-2, :]: an index, then a slice with start, stop and step.
  g["subtensor"] = [] {
    Builder b;
    b.param("index", std::vector<std::int64_t>{kIndexFromInput, -10})
        .in(f64, {3, 6, 2})
        .ints({1}, true)
        .ints({4}, true)
        .ints({0}, true)
        .ints({-2}, true);
    return b.c;
  };
  for (const char* r : {"inc_subtensor", "set_subtensor"})
    g[r] = [] {
      Builder b;
      b.param("index", std::vector<std::int64_t>{-3, -4})  // x[:, 1:]
          .in(f64, {3, 4})
          .in(f64, {3}, {kUnknownDim})
          .ints({1}, true);
      return b.c;
    };
  g["advanced_subtensor"] = [] {
    Builder b;
    b.param("axis", std::int64_t{1}).in(f64, {2, 5}).ints({4, 0, -1, 4});
    return b.c;
  };
  for (const char* r : {"advanced_inc_subtensor", "advanced_set_subtensor"})
    g[r] = [] {
      Builder b;
      b.param("axis", std::int64_t{0}).in(f64, {5, 2}).in(f64, {3, 2}).ints({1, 1, 4});
      return b.c;
    };
  g["dot"] = [] {
    Builder b;
    b.in(f64, {3, 4}).in(f64, {4});
    return b.c;
  };
  g["matmul"] = [] {
    Builder b;
    b.in(f64, {2, 1, 3, 4}, {kUnknownDim, 1, kUnknownDim, kUnknownDim}).in(f64, {5, 4, 2});
    return b.c;
  };
  g["outer"] = [] {
    Builder b;
    b.in(f64, {3}).in(f64, {0});
    return b.c;
  };
  g["gemm"] = [] {
    Builder b;
    b.in(f64, {3, 2}).in(f64, {}).in(f64, {3, 4}).in(f64, {4, 2}).in(f64, {});
    return b.c;
  };
  g["gemv"] = [] {
    Builder b;
    b.in(f64, {3}).in(f64, {}).in(f64, {3, 4}).in(f64, {4}).in(f64, {});
    return b.c;
  };
  g["dot22scalar"] = [] {
    Builder b;
    b.in(f64, {3, 4}).in(f64, {4, 2}).in(f64, {});
    return b.c;
  };
  g["ger"] = [] {
    Builder b;
    b.in(f64, {3, 2}).in(f64, {}).in(f64, {3}).in(f64, {2});
    return b.c;
  };
  for (const char* r : {"softmax", "log_softmax"})
    g[r] = [] {
      Builder b;
      b.param("axis", std::int64_t{0}).in(f32, {3, 4});
      return b.c;
    };
  for (const char* r : {"deep_copy", "view", "zero_grad", "disconnected_grad"})
    g[r] = [] {
      Builder b;
      b.in(f64, {2, 3});
      return b.c;
    };
  g["grad_clip"] = [] {
    Builder b;
    b.param("lo", -1.0).param("hi", 1.0).in(f64, {2, 0});
    return b.c;
  };
  g["grad_scale"] = [] {
    Builder b;
    b.param("multiplier", 0.5).in(f32, {1, 3});
    return b.c;
  };
  for (const char* r : {"eye", "tri"})
    g[r] = [] {
      Builder b;
      b.ints({3}, true).ints({5}, true).ints({-1}, true);
      return b.c;
    };
  for (const char* r : {"tril_indices", "triu_indices"})
    g[r] = [] {
      Builder b;
      b.ints({4}, true).ints({3}, true).ints({-1}, true);
      return b.c;
    };
  g["arange"] = [] {
    Builder b;
    b.in(f64, {}, 0, 1).in(f64, {}, 5, 6).in(f32, {}, 0.5, 1);
    return b.c;
  };
  g["linspace"] = [] {
    Builder b;
    b.param("endpoint", false).in(f64, {}).in(i32, {}).ints({7}, true);
    return b.c;
  };
  for (const char* r : {"tril", "triu"})
    g[r] = [] {
      Builder b;
      b.param("k", std::int64_t{1}).in(f64, {2, 3, 4});
      return b.c;
    };
  g["alloc_diag"] = [] {
    Builder b;
    b.param("offset", std::int64_t{-2}).in(f64, {3});
    return b.c;
  };
  g["extract_diag"] = [] {
    Builder b;
    b.param("offset", std::int64_t{1}).in(f64, {3, 5});
    return b.c;
  };
  g["repeat"] = [] {
    Builder b;
    b.param("axis", std::int64_t{-1}).in(f64, {2, 3}).ints({2, 0, 3});
    return b.c;
  };
  g["tile"] = [] {
    Builder b;
    b.param("reps", std::vector<std::int64_t>{2, 1, 3}).in(f64, {2, 3});
    return b.c;
  };
  g["roll"] = [] {
    Builder b;
    b.param("axis", std::monostate{}).in(f64, {2, 3}).ints({-4}, true);
    return b.c;
  };
  for (const char* r : {"cumsum", "cumprod"})
    g[r] = [] {
      Builder b;
      b.param("axis", std::monostate{}).in(f64, {2, 3});
      return b.c;
    };
  g["logsumexp"] = [] {
    Builder b;
    b.param("axis", std::vector<std::int64_t>{0, 2}).in(f32, {2, 3, 2});
    return b.c;
  };
  g["diff"] = [] {
    Builder b;
    b.param("n", std::int64_t{2}).param("axis", std::int64_t{0}).in(f64, {5, 3});
    return b.c;
  };
  for (const char* r : {"sort", "argsort"})
    g[r] = [] {
      Builder b;
      b.param("axis", std::int64_t{1}).in(f64, {2, 4, 3});
      return b.c;
    };
  // Largest along a middle axis, smallest along the last.
  g["topk"] = [] {
    Builder b;
    b.param("k", std::int64_t{2}).param("axis", std::int64_t{1}).in(f64, {2, 4, 3});
    return b.c;
  };
  g["argtopk"] = [] {
    Builder b;
    b.param("k", std::int64_t{-3}).param("axis", std::int64_t{-1}).in(f32, {2, 4}, {2, kUnknownDim});
    return b.c;
  };
  g["median"] = [] {
    Builder b;
    b.param("axis", std::vector<std::int64_t>{0, 2}).in(i32, {2, 3, 4});
    return b.c;
  };
  g["searchsorted"] = [] {
    Builder b;
    b.param("side", std::string("right")).ints({1, 3, 3, 7}).in(f64, {2, 3}, -1, 8);
    return b.c;
  };
  g["bincount"] = [] {
    Builder b;
    b.param("minlength", std::int64_t{2}).ints({4, 0, 4, 1}).in(f32, {4});
    return b.c;
  };
  g["unique"] = [] {
    Builder b;
    b.param("return_counts", true).ints({3, 1, 3, 3, -2, 1});
    return b.c;
  };
  for (const char* r : {"matrix_inverse", "det"})
    g[r] = [] {
      Builder b;
      b.in(f64, {3, 3});
      return b.c;
    };
  g["solve"] = [] {
    Builder b;
    b.in(f64, {3, 3}).in(f64, {3, 2});
    return b.c;
  };
  g["kron"] = [] {
    Builder b;
    b.in(f64, {2, 3}, {2, kUnknownDim}).in(f32, {4, 1}, {kUnknownDim, 1});
    return b.c;
  };
  g["block_diag"] = [] {
    Builder b;
    b.in(f64, {2, 3}).in(f32, {1, 2}, {1, 2}).in(f64, {0, 1});
    return b.c;
  };
  g["solve_triangular"] = [] {
    Builder b;
    b.param("lower", true).in(f64, {3, 3}, 1, 2).in(f64, {3});
    return b.c;
  };
  // Symmetric positive definite: x xᵀ + 3 I.
  g["cholesky"] = [] {
    Builder b;
    b.in(f64, {3, 3}, {3, kUnknownDim});
    const Tensor& x = b.c.values[0];
    Tensor spd = Tensor::empty(f64, {3, 3});
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 3; ++j) {
        double s = i == j ? 3.0 : 0.0;
        for (std::int64_t k = 0; k < 3; ++k) s += x.at({i, k}) * x.at({j, k});
        spd.data<double>()[i * 3 + j] = s;
      }
    b.c.values[0] = spd;
    return b.c;
  };
  for (const char* r : {"slogdet", "eigh", "eigvalsh"})
    g[r] = [] {
      Builder b;
      b.in(f64, {3, 3});
      return b.c;
    };
  g["lu"] = [] {
    Builder b;
    b.in(f64, {3, 3});
    return b.c;
  };
  g["expm"] = [] {
    Builder b;
    b.in(f32, {3, 3}, {kUnknownDim, 3}, -1, 1);
    return b.c;
  };
  // Wide and tall, so that k = min(m, n) is each extent in turn.
  g["svd"] = [] {
    Builder b;
    b.param("compute_uv", true).in(f64, {2, 3});
    return b.c;
  };
  g["qr"] = [] {
    Builder b;
    b.in(f64, {4, 3}, {4, kUnknownDim});
    return b.c;
  };
  g["pinv"] = [] {
    Builder b;
    b.in(f32, {2, 3});
    return b.c;
  };
  // Random variables: (rng, size, params…), size symbolic or empty.
  g["normal"] = [] {
    Builder b;
    b.rng_state().ints({2, 3}).in(f64, {3}).in(f64, {1}, {1}, 0.5, 2);
    return b.c;
  };
  g["uniform"] = [] {
    Builder b;
    b.param("dtype", f32).rng_state().ints({}).in(f64, {2, 1}, {kUnknownDim, 1}, -2, -1).in(f64, {3}, 1, 2);
    return b.c;
  };
  g["bernoulli"] = [] {
    Builder b;
    b.rng_state().ints({4}).in(f64, {4}, 0, 1);
    return b.c;
  };
  g["binomial"] = [] {
    Builder b;
    b.param("dtype", i32).rng_state().ints({}).ints({3, 5, 0}).in(f64, {1}, {1}, 0, 1);
    return b.c;
  };
  g["poisson"] = [] {
    Builder b;
    b.rng_state().ints({2, 2}).in(f64, {2}, 0.5, 5);
    return b.c;
  };
  g["gamma"] = [] {
    Builder b;
    b.rng_state().ints({}).in(f64, {2, 3}, 0.5, 3).in(f64, {3}, 0.5, 2);
    return b.c;
  };
  g["beta"] = [] {
    Builder b;
    b.rng_state().ints({3}).in(f64, {}, 0.5, 2).in(f32, {}, 0.5, 2);
    return b.c;
  };
  g["exponential"] = [] {
    Builder b;
    b.rng_state().ints({}).in(f64, {4}, {4}, 0.5, 2);
    return b.c;
  };
  g["categorical"] = [] {
    Builder b;
    b.rng_state().ints({}).in(f64, {2, 3}, 0.1, 1).normalise_last();
    return b.c;
  };
  g["multivariate_normal"] = [] {
    Builder b;
    b.rng_state().ints({2}).in(f64, {3});
    b.in(f64, {3, 3});
    Tensor& cov = b.c.values.back();
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 3; ++j) cov.data<double>()[i * 3 + j] = i == j ? 2.0 : 0.5;
    return b.c;
  };
  g["integers"] = [] {
    Builder b;
    b.rng_state().ints({5}).ints({0}, true).ints({10}, true);
    return b.c;
  };
  g["choice"] = [] {
    Builder b;
    b.param("replace", false).rng_state().ints({2, 2}).in(f64, {5, 2});
    return b.c;
  };
  g["permutation"] = [] {
    Builder b;
    b.rng_state().ints({}).in(f64, {4, 2});
    return b.c;
  };
  // Sparse Ops (ops/sparse/sparse.hpp): sparse inputs of unknown extents.
  using F = SparseFormat;
  g["csm_properties"] = [] {
    Builder b;
    b.sparse(F::Csr, f64, 3, 4);
    return b.c;
  };
  g["csr"] = [] {
    Builder b;
    b.in(f64, {3}).ints({0, 2, 1}).ints({0, 2, 2, 3}).ints({3, 4});
    return b.c;
  };
  g["csc"] = [] {
    Builder b;
    b.in(f32, {3}).ints({0, 2, 1}).ints({0, 2, 2, 3}).ints({4, 3});
    return b.c;
  };
  g["csm_grad"] = [] {
    Builder b;
    b.param("format", std::string("csc")).sparse(F::Csr, f64, 4, 3).ints({0, 2, 1}).ints({0, 2, 2, 3});
    return b.c;
  };
  g["dense_from_sparse"] = [] {
    Builder b;
    b.sparse(F::Csc, f32, 3, 4);
    return b.c;
  };
  g["csr_from_dense"] = [] {
    Builder b;
    b.in(f64, {3, 4});
    return b.c;
  };
  g["csc_from_dense"] = [] {
    Builder b;
    b.in(f32, {2, 5});
    return b.c;
  };
  g["sparse_convert"] = [] {
    Builder b;
    b.param("format", std::string("csc")).param("dtype", f32).sparse(F::Csr, f64, 3, 4);
    return b.c;
  };
  g["sparse_transpose"] = [] {
    Builder b;
    b.sparse(F::Csr, f64, 3, 5);
    return b.c;
  };
  g["structured_dot"] = [] {
    Builder b;
    b.sparse(F::Csr, f64, 3, 4).in(f64, {4, 2});
    return b.c;
  };
  g["structured_dot_t"] = [] {
    Builder b;
    b.sparse(F::Csc, f32, 4, 3).in(f64, {4});
    return b.c;
  };
  g["sparse_dot"] = [] {
    Builder b;
    b.sparse(F::Csr, f64, 3, 4).sparse(F::Csc, f64, 4, 5);
    return b.c;
  };
  g["add_ss"] = [] {
    Builder b;
    b.sparse(F::Csc, f64, 3, 4).sparse(F::Csc, f32, 3, 4);
    return b.c;
  };
  g["add_sd"] = [] {
    Builder b;
    b.sparse(F::Csr, f64, 3, 4).in(f64, {3, 4});
    return b.c;
  };
  g["mul_sd"] = [] {
    Builder b;
    b.sparse(F::Csr, f64, 3, 4).in(f64, {4});
    return b.c;
  };
  g["sp_sum"] = [] {
    Builder b;
    b.param("axis", std::int64_t{1}).sparse(F::Csr, f64, 3, 4);
    return b.c;
  };
  g["sampling_dot"] = [] {
    Builder b;
    b.in(f64, {3, 2}).in(f64, {4, 2}).sparse(F::Csr, f64, 3, 4);
    return b.c;
  };
  return g;
}

}  // namespace

TEST_CASE("infer_shape agrees with perform for every registered Op", "[ops]") {
  const auto gens = generators();
  for (const OpInfo* info : standard_registry().all()) {
    INFO("op: " << info->name);
    const auto it = gens.find(info->name);
    if (it == gens.end()) FAIL("no test-input generator for `" << info->name << "`");
    const Case c = it->second();
    const OpPtr op = standard_registry().make(info->name, c.params);
    const ApplyRef node = op->make_node(c.inputs);

    // The shapes perform produces.
    std::vector<Tensor> outs(node->num_outputs());
    op->perform(*node, c.values, outs);

    // The shapes infer_shape computes, evaluated by a compiled function of the inputs.
    std::vector<ShapeVars> in_shapes;
    for (const Var& v : c.inputs) {
      ShapeVars s;
      // A non-tensor input (a generator state) has no axes.
      const std::size_t ndim = v->tensor_type() ? v->tensor_type()->ndim() : 0;
      for (std::size_t a = 0; a < ndim; ++a)
        s.push_back(rw::shape_i(v, static_cast<std::int64_t>(a)));
      in_shapes.push_back(std::move(s));
    }
    const std::vector<ShapeVars> inferred = op->infer_shape(*node, in_shapes);
    REQUIRE(inferred.size() == node->num_outputs());
    std::vector<Var> flat;
    for (const ShapeVars& s : inferred) flat.insert(flat.end(), s.begin(), s.end());
    std::vector<In> ins(c.inputs.begin(), c.inputs.end());
    auto f = rw::function(ins, flat, {.on_unused_input = UnusedInput::Ignore});
    const std::vector<Tensor> dims = f.call(c.values);

    std::size_t k = 0;
    for (std::size_t o = 0; o < inferred.size(); ++o) {
      Shape got;
      for (std::size_t a = 0; a < inferred[o].size(); ++a) got.push_back(dims[k++].item<std::int64_t>());
      const Type& type = *node->output_var(o).type();
      if (!type.as_tensor()) {
        // Another kind of value: valid for its type; a sparse matrix has its
        // two extents inferred, a generator state none.
        CHECK(type.is_valid_value(outs[o]));
        if (as_sparse_type(type)) {
          const SparseView sv = sparse_view(outs[o]);
          CHECK(got == Shape{sv.rows, sv.cols});
        } else {
          CHECK(got.empty());
        }
        continue;
      }
      CHECK(got == outs[o].shape());
      // The static type agrees with the run-time shape too.
      const StaticShape& st = node->output_var(o).tensor_type()->shape();
      REQUIRE(st.size() == outs[o].shape().size());
      for (std::size_t a = 0; a < st.size(); ++a)
        if (st[a] != kUnknownDim) CHECK(st[a] == outs[o].shape()[a]);
      CHECK(outs[o].dtype() == node->output_var(o).tensor_type()->dtype());
    }
  }
}

TEST_CASE("DebugMode finds every registered Op true to its contract", "[ops][debug_mode]") {
  // Shapes as infer_shape promises, writes and views as declared, the same
  // result run again and on non-contiguous inputs.
  const auto gens = generators();
  for (const OpInfo* info : standard_registry().all()) {
    INFO("op: " << info->name);
    const Case c = gens.at(info->name)();
    const ApplyRef node = standard_registry().make(info->name, c.params)->make_node(c.inputs);
    std::vector<In> ins(c.inputs.begin(), c.inputs.end());
    auto f = rw::compile_function(ins, node->outputs(),
                                  {.on_unused_input = UnusedInput::Ignore,
                                   .debug_mode = DebugMode{}});
    CHECK_NOTHROW(f.call(c.values));
  }
}

TEST_CASE("every registered Op gives the same values on the interpreter and native backends",
          "[ops][native]") {
  // One function of a node of every Op (one module to compile): the native
  // one runs the Ops with native code from it and the others' perform.
  // Native code calls the interpreter's own kernels for transcendental
  // functions, so the results agree bit for bit, not just within their ulp.
  const auto gens = generators();
  std::vector<Var> inputs, outputs;
  std::vector<Tensor> values;
  std::vector<std::string> labels;
  for (const OpInfo* info : standard_registry().all()) {
    // Its values are whatever the memory held.
    if (info->name == "alloc_empty") continue;
    const Case c = gens.at(info->name)();
    const ApplyRef node = standard_registry().make(info->name, c.params)->make_node(c.inputs);
    inputs.insert(inputs.end(), c.inputs.begin(), c.inputs.end());
    values.insert(values.end(), c.values.begin(), c.values.end());
    for (const Var& o : node->outputs()) {
      outputs.push_back(o);
      labels.push_back(std::string(info->name));
    }
  }
  // The generators broadcast elementwise operands against each other; the
  // same Ops on operands of one shape have native code.
  for (ScalarOp s : kAllScalarOps) {
    if (s == ScalarOp::Cast) continue;
    // Floats, else (the logic ops) integers.
    for (const DType dtype : {f64, i32}) {
      const Var a = rw::matrix("a", dtype), b = rw::matrix("b", dtype), c3 = rw::matrix("c", dtype);
      const Var args[] = {a, b, c3};
      const std::size_t n = static_cast<std::size_t>(scalar_op_arity(s));
      const OpPtr op = standard_registry().make(std::string(scalar_op_name(s)), {});
      Var out;
      try {
        out = (*op)(std::vector<Var>(args, args + n));
      } catch (const TypeError&) {
        continue;
      }
      outputs.push_back(out);
      labels.push_back(std::string(scalar_op_name(s)) + " on dense operands");
      Rng rng(static_cast<std::uint64_t>(s) + 1);
      for (std::size_t k = 0; k < n; ++k) {
        inputs.push_back(args[k]);
        const Tensor v = rng.uniform({3, 4}, dtype == f64 ? 0.05 : -9.0, dtype == f64 ? 0.95 : 9.0);
        values.push_back(rw::cast(v, dtype));
      }
      break;
    }
  }
  std::vector<In> ins(inputs.begin(), inputs.end());
  auto interp = rw::compile_function(ins, outputs, {.on_unused_input = UnusedInput::Ignore});
  rw::test::TempDir dir("registry");
  auto native = rw::compile_function(
      ins, outputs,
      {.on_unused_input = UnusedInput::Ignore, .native = rw::test::native_in(dir)});
  const NativeStatus st = native.native_status();
  INFO(st.error);
  REQUIRE(st.state == NativeStatus::State::Ready);
  CHECK(st.native_nodes >= std::size(kAllScalarOps) - 1);
  const std::vector<Tensor> want = interp.call(values), got = native.call(values);
  for (std::size_t o = 0; o < want.size(); ++o) {
    INFO("output " << o << " of `" << labels[o] << "`");
    CHECK(rw::test::bitwise_difference(got[o], want[o]) == "");
  }
}

TEST_CASE("one node of every registered Op is written as a graph file and read back as itself",
          "[ops][graph_file]") {
  const auto gens = generators();
  for (const OpInfo* info : standard_registry().all()) {
    INFO("op: " << info->name);
    const auto it = gens.find(info->name);
    REQUIRE(it != gens.end());
    const Case c = it->second();
    const ApplyRef node = standard_registry().make(info->name, c.params)->make_node(c.inputs);
    const std::vector<Var> outs = node->outputs();
    const std::string text = graph_file_text(c.inputs, outs, standard_registry());
    INFO(text);
    auto back = dsl::check_graph_text("op.graph", text, standard_registry(), graph_file_options());
    INFO(dsl::render(back.diagnostics));
    REQUIRE(back.ok());
    CHECK(rw::test::graph_difference(c.inputs, outs, back.value->inputs, back.value->outputs) == "");
  }
}
