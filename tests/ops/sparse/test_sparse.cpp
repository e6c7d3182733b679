// The sparse Types and Ops: values against their dense equivalents in both
// formats and dtypes, structured gradients, the graph-file syntax and the
// errors of bad input.
#include <functional>
#include <rw/rewrite.hpp>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/kernels/linalg.hpp"
#include "runtime/kernels/sparse.hpp"

namespace {

using rw::DType;
using rw::SparseFormat;
using rw::Tensor;
using rw::Var;

// A 3 x 4 matrix with zeros, as scipy's documentation example.
Tensor example(DType d = DType::Float64) {
  return Tensor::from({{1.0, 0.0, 2.0, 0.0}, {0.0, 0.0, 3.0, 0.0}, {4.0, 5.0, 0.0, 6.0}}).astype(d);
}

std::vector<double> values(const Tensor& t) {
  const Tensor c = t.astype(DType::Float64).contiguous();
  return {c.data<double>(), c.data<double>() + c.size()};
}

std::vector<std::int64_t> ints(const Tensor& t) {
  const Tensor c = t.astype(DType::Int64).contiguous();
  return {c.data<std::int64_t>(), c.data<std::int64_t>() + c.size()};
}

bool close(const Tensor& a, const Tensor& b, double tol = 1e-6) {
  return rw::allclose(a.astype(DType::Float64), b.astype(DType::Float64), tol, tol);
}

Tensor random_sparse(std::int64_t m, std::int64_t n, double density, std::uint64_t seed,
                     DType d = DType::Float64) {
  rw::Rng rng(seed);
  Tensor x = rng.uniform({m, n}, -1, 1, DType::Float64);
  Tensor keep = rng.uniform({m, n}, 0, 1, DType::Float64);
  for (std::int64_t k = 0; k < m * n; ++k)
    if (keep.data<double>()[k] >= density) x.data<double>()[k] = 0;
  return x.astype(d);
}

// `op` of dense tensors, through a compiled dense graph: the reference.
Tensor dense(const std::function<Var(const Var&, const Var&)>& op, const Tensor& a, const Tensor& b) {
  const Var x = rw::tensor("a", a.dtype(), rw::StaticShape(static_cast<std::size_t>(a.ndim()), rw::kUnknownDim));
  const Var y = rw::tensor("b", b.dtype(), rw::StaticShape(static_cast<std::size_t>(b.ndim()), rw::kUnknownDim));
  return rw::function({x, y}, std::vector<Var>{op(x, y)}, {.on_unused_input = rw::UnusedInput::Ignore})
      .call(std::vector<Tensor>{a, b})[0];
}
Tensor plus(const Tensor& a, const Tensor& b) { return dense([](const Var& x, const Var& y) { return x + y; }, a, b); }
Tensor times(const Tensor& a, const Tensor& b) { return dense([](const Var& x, const Var& y) { return x * y; }, a, b); }
Tensor times(const Tensor& a, double k) { return times(a, Tensor::scalar(k, a.dtype())); }

const SparseFormat kFormats[] = {SparseFormat::Csr, SparseFormat::Csc};

}  // namespace

TEST_CASE("sparse values: the arrays scipy gives, both formats", "[sparse]") {
  const Tensor csr = rw::sparse_from_dense(example(), SparseFormat::Csr);
  CHECK(values(rw::sparse_data(csr)) == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(ints(rw::sparse_indices(csr)) == std::vector<std::int64_t>{0, 2, 2, 0, 1, 3});
  CHECK(ints(rw::sparse_indptr(csr)) == std::vector<std::int64_t>{0, 2, 3, 6});
  const Tensor csc = rw::sparse_from_dense(example(), SparseFormat::Csc);
  CHECK(values(rw::sparse_data(csc)) == std::vector<double>{1, 4, 5, 2, 3, 6});
  CHECK(ints(rw::sparse_indices(csc)) == std::vector<std::int64_t>{0, 2, 2, 0, 1, 2});
  CHECK(ints(rw::sparse_indptr(csc)) == std::vector<std::int64_t>{0, 2, 3, 5, 6});
  CHECK(rw::sparse_to_dense(csr).equal(example()));
  CHECK(rw::sparse_to_dense(csc).equal(example()));
  CHECK(rw::sparse_to_dense(rw::sparse_convert(csr, SparseFormat::Csc, DType::Float32))
            .equal(example(DType::Float32)));
  // Built from the arrays, and the same value again.
  const Tensor again = rw::make_sparse_value(SparseFormat::Csr, 3, 4, rw::sparse_data(csr),
                                             rw::sparse_indices(csr), rw::sparse_indptr(csr));
  CHECK(again.equal(csr));
}

TEST_CASE("sparse values: bad arrays are refused, naming the array", "[sparse]") {
  const Tensor data = Tensor::from({1.0, 2.0});
  auto make = [&](std::vector<std::int64_t> indices, std::vector<std::int64_t> indptr) {
    return rw::make_sparse_value(
        SparseFormat::Csr, 2, 3, data,
        Tensor::from_vector(indices, std::vector<std::int64_t>{static_cast<std::int64_t>(indices.size())}),
        Tensor::from_vector(indptr, std::vector<std::int64_t>{static_cast<std::int64_t>(indptr.size())}));
  };
  CHECK_NOTHROW(make({0, 2}, {0, 1, 2}));
  CHECK_THROWS_WITH(make({0, 3}, {0, 1, 2}), Catch::Contains("`indices` entry 1 is 3"));
  CHECK_THROWS_WITH(make({0, 2}, {0, 1}), Catch::Contains("`indptr` has 2 elements"));
  CHECK_THROWS_WITH(make({2, 0}, {0, 2, 2}), Catch::Contains("not sorted and unique"));
  CHECK_THROWS_WITH(make({0}, {0, 1, 1}), Catch::Contains("`indices` has 1 elements"));
  CHECK_THROWS_WITH(make({0, 1}, {1, 1, 2}), Catch::Contains("indptr starts at 1"));
  // A dense tensor is not a sparse value.
  CHECK(rw::sparse_value_problem(example()).value().find("dense float64") != std::string::npos);
  CHECK_FALSE(rw::is_sparse_value(Tensor::zeros({8}, DType::Int64)));
}

TEST_CASE("SparseType: printing, equality, supertypes, filter", "[sparse]") {
  const auto t = rw::SparseType::make(SparseFormat::Csr, DType::Float64);
  const auto c = rw::SparseType::make(SparseFormat::Csc, DType::Float32, {3, 4});
  CHECK(t->to_string() == "csr_f64[?,?]");
  CHECK(c->to_string() == "csc_f32[3,4]");
  CHECK(*t == *rw::SparseType::make(SparseFormat::Csr, DType::Float64));
  CHECK(t->hash() == rw::SparseType::make(SparseFormat::Csr, DType::Float64)->hash());
  CHECK_FALSE(*t == *c);
  CHECK_FALSE(*t == *rw::TensorType::make(DType::Float64, {rw::kUnknownDim, rw::kUnknownDim}));
  CHECK(t->as_tensor() == nullptr);
  CHECK(t->is_super(*rw::SparseType::make(SparseFormat::Csr, DType::Float64, {3, 4})));
  CHECK_FALSE(rw::SparseType::make(SparseFormat::Csr, DType::Float64, {3, 4})->is_super(*t));
  CHECK_THROWS_AS(rw::SparseType::make(SparseFormat::Csr, DType::Int32), rw::TypeError);

  const Tensor v = rw::sparse_from_dense(example(), SparseFormat::Csr);
  CHECK(t->is_valid_value(v));
  CHECK(t->filter(v).shares_storage(v));
  // The other format converts unless strict; float32 to float64 converts, the reverse needs a downcast.
  const Tensor as_csc = rw::SparseType::make(SparseFormat::Csc, DType::Float64)->filter(v);
  CHECK(rw::sparse_view(as_csc).format == SparseFormat::Csc);
  CHECK(rw::sparse_to_dense(as_csc).equal(example()));
  CHECK_THROWS_WITH(rw::SparseType::make(SparseFormat::Csc, DType::Float64)->filter(v, true),
                    Catch::Contains("format and dtype must match exactly"));
  CHECK_THROWS_WITH(rw::SparseType::make(SparseFormat::Csr, DType::Float32)->filter(v),
                    Catch::Contains("may lose precision"));
  CHECK(c->is_valid_value(rw::sparse_from_dense(example(DType::Float32), SparseFormat::Csc)));
  CHECK_THROWS_WITH(t->filter(example()), Catch::Contains("expected a sparse matrix of type "
                                                          "`csr_f64[?,?]`, but it is a dense "
                                                          "float64 tensor of shape (3, 4)"));
  const auto fixed = rw::SparseType::make(SparseFormat::Csr, DType::Float64, {2, 4});
  CHECK_THROWS_WITH(fixed->filter(v), Catch::Contains("axis 0 has length 3, not 2"));
}

TEST_CASE("sparse Ops against their dense equivalents, both formats and dtypes", "[sparse]") {
  for (SparseFormat fa : kFormats)
    for (DType dt : {DType::Float64, DType::Float32}) {
      INFO("format " << rw::sparse_format_name(fa) << ", dtype " << rw::dtype_name(dt));
      const double tol = dt == DType::Float32 ? 1e-4 : 1e-10;
      const Tensor a = random_sparse(5, 4, 0.4, 1, dt), b = random_sparse(5, 4, 0.5, 2, dt);
      const Tensor d = rw::Rng(3).uniform({4, 3}, -1, 1, dt);
      const Tensor e = rw::Rng(4).uniform({5, 4}, -1, 1, dt);
      const Tensor sa = rw::sparse_from_dense(a, fa), sb = rw::sparse_from_dense(b, fa);
      const Var s = rw::sparse_matrix("s", fa, dt), t = rw::sparse_matrix("t", fa, dt);
      const Var x = rw::matrix("x", dt);

      CHECK(close(rw::function({s}, rw::dense_from_sparse(s))(sa), a, tol));
      CHECK(close(rw::function({x}, rw::dense_from_sparse(rw::csr_from_dense(x)))(a), a, tol));
      CHECK(close(rw::function({x}, rw::dense_from_sparse(rw::csc_from_dense(x)))(a), a, tol));
      CHECK(close(rw::function({s, x}, rw::structured_dot(s, x))(sa, d), rw::dot(a, d), tol));
      const Tensor dv = rw::Rng(5).uniform({4}, -1, 1, dt);
      // sᵀ · e without the transpose: (4, 5) · (5, 4).
      CHECK(close(rw::function({s, x}, rw::structured_dot_t(s, x))(sa, e), rw::dot(a.transpose(), e), tol));
      const Var vv = rw::vector("v", dt);
      CHECK(close(rw::function({s, vv}, rw::structured_dot(s, vv))(sa, dv), rw::dot(a, dv), tol));
      CHECK(close(rw::function({s, t}, rw::dense_from_sparse(rw::add_ss(s, t)))(sa, sb), plus(a, b), tol));
      CHECK(close(rw::function({s, x}, rw::add_sd(s, x))(sa, e), plus(a, e), tol));
      CHECK(close(rw::function({s}, rw::dense_from_sparse(rw::mul_sd(s, 2.5)))(sa), times(a, 2.5), tol));
      // Structured: where s has no entry the result has none, whatever x holds.
      const Tensor prod = rw::function({s, x}, rw::mul_sd(s, x))(sa, e);
      CHECK(rw::sparse_view(prod).nnz == rw::sparse_view(sa).nnz);
      CHECK(close(rw::sparse_to_dense(prod), times(a, e), tol));
      const Tensor row = rw::Rng(6).uniform({4}, -1, 1, dt);
      const Var rv = rw::vector("r", dt);
      CHECK(close(rw::function({s, rv}, rw::dense_from_sparse(rw::mul_sd(s, rv)))(sa, row), times(a, row), tol));
      const Var st = rw::sparse_transpose(s);
      CHECK(rw::sparse_type_of(st)->format() == rw::other_format(fa));
      CHECK(close(rw::function({s}, rw::dense_from_sparse(st))(sa), a.transpose().contiguous(), tol));
      CHECK(close(rw::function({s}, rw::sp_sum(s))(sa), rw::sum(a), tol));
      CHECK(close(rw::function({s}, rw::sp_sum(s, 0))(sa), rw::sum(a, {0}), tol));
      CHECK(close(rw::function({s}, rw::sp_sum(s, 1))(sa), rw::sum(a, {1}), tol));
      // sparse x sparse: (5, 4) x (4, 5).
      const Tensor bt = rw::sparse_from_dense(b.transpose().contiguous(), rw::other_format(fa));
      const Var u = rw::sparse_matrix("u", rw::other_format(fa), dt);
      const Tensor ss = rw::function({s, u}, rw::sparse_dot(s, u))(sa, bt);
      CHECK(rw::sparse_view(ss).format == fa);
      CHECK(close(rw::sparse_to_dense(ss), rw::dot(a, b.transpose()), tol));
      // sampling_dot: p ⊙ (x · yᵀ) on p's pattern.
      const Tensor xm = rw::Rng(7).uniform({5, 2}, -1, 1, dt), ym = rw::Rng(8).uniform({4, 2}, -1, 1, dt);
      const Var xv = rw::matrix("xm", dt), yv = rw::matrix("ym", dt);
      const Tensor sd = rw::function({xv, yv, s}, rw::sampling_dot(xv, yv, s))(xm, ym, sa);
      CHECK(rw::sparse_view(sd).nnz == rw::sparse_view(sa).nnz);
      CHECK(close(rw::sparse_to_dense(sd), times(a, rw::dot(xm, ym.transpose())), tol));
      // csm_properties and the constructor give the value back.
      const rw::CsmParts p = rw::csm_properties(s);
      auto props = rw::function({s}, std::vector<Var>{p.data, p.indices, p.indptr, p.shape});
      const std::vector<Tensor> arrays = props(sa);
      CHECK(arrays[0].equal(rw::sparse_data(sa)));
      CHECK(ints(arrays[1]) == ints(rw::sparse_indices(sa)));
      CHECK(ints(arrays[2]) == ints(rw::sparse_indptr(sa)));
      CHECK(ints(arrays[3]) == std::vector<std::int64_t>{5, 4});
      const Tensor rebuilt =
          rw::function({s}, rw::csm(fa, p.data * 2, p.indices, p.indptr, p.shape))(sa);
      CHECK(close(rw::sparse_to_dense(rebuilt), times(a, 2.0), tol));
    }
}

TEST_CASE("sparse Ops: static types", "[sparse]") {
  const Var s = rw::sparse_matrix("s", SparseFormat::Csr, DType::Float32, 5, 4);
  CHECK(rw::dense_from_sparse(s)->type()->to_string() == "f32[5,4]");
  CHECK(rw::sparse_transpose(s)->type()->to_string() == "csc_f32[4,5]");
  CHECK(rw::structured_dot(s, rw::matrix("d", DType::Float64, 4, 3))->type()->to_string() == "f64[5,3]");
  CHECK(rw::structured_dot(s, rw::vector("v", DType::Float32))->type()->to_string() == "f32[5]");
  CHECK(rw::sp_sum(s, 0)->type()->to_string() == "f32[4]");
  CHECK(rw::sp_sum(s)->type()->to_string() == "f32[]");
  CHECK(rw::mul_sd(s, 2.0)->type()->to_string() == "csr_f32[5,4]");
  const rw::CsmParts p = rw::csm_properties(s);
  CHECK(p.indptr->type()->to_string() == "i32[6]");
  CHECK(p.shape->type()->to_string() == "i64[2]");
  CHECK(rw::csr(p.data, p.indices, p.indptr, rw::constant(Tensor::from<std::int64_t>({5, 4})))
            ->type()
            ->to_string() == "csr_f32[5,4]");
}

TEST_CASE("sparse Ops: bad inputs are refused, naming the input", "[sparse]") {
  const Var s = rw::sparse_matrix("s", SparseFormat::Csr, DType::Float64, 5, 4);
  const Var c = rw::sparse_matrix("c", SparseFormat::Csc, DType::Float64, 5, 4);
  const Var d = rw::matrix("d", DType::Float64, 3, 2);
  CHECK_THROWS_WITH(rw::structured_dot(d, d), Catch::Contains("`structured_dot`: input 0 (`d`) has type "
                                                              "`f64[3,2]`, expected a sparse matrix"));
  CHECK_THROWS_WITH(rw::structured_dot(s, d), Catch::Contains("inner extents 4 and 3"));
  CHECK_THROWS_WITH(rw::structured_dot(s, s), Catch::Contains("input 1 (`s`) is sparse"));
  CHECK_THROWS_WITH(rw::add_ss(s, c), Catch::Contains("input 0 (`s`) is csr and input 1 (`c`) is csc"));
  CHECK_THROWS_WITH(rw::add_sd(s, d), Catch::Contains("numbers of rows 5 and 3"));
  CHECK_THROWS_WITH(rw::mul_sd(s, rw::vector("v", DType::Float64, 3)), Catch::Contains("extents 4 and 3"));
  CHECK_THROWS_WITH(rw::sp_sum(s, 2), Catch::Contains("axis 2 is not none, 0 or 1"));
  CHECK_THROWS_WITH(rw::csr_from_dense(rw::vector("v")), Catch::Contains("expected a float32 or float64 matrix"));
  CHECK_THROWS_WITH(rw::csr(rw::vector("data"), rw::vector("i"), rw::vector("p"), rw::vector("sh")),
                    Catch::Contains("input 1 (`i`) (indices) is `f64[?]`, expected an integer vector"));
  CHECK_THROWS_WITH(rw::exp(s), Catch::Contains("s"));
  // The constructor checks its arrays when it runs, naming the bad one.
  const Var data = rw::vector("data"), idx = rw::vector("idx", DType::Int32), ptr = rw::vector("ptr", DType::Int32);
  auto f = rw::function({data, idx, ptr}, rw::dense_from_sparse(rw::csr(data, idx, ptr,
                                                                         rw::constant(Tensor::from<std::int64_t>({2, 2})))));
  CHECK(f(Tensor::from({1.0, 2.0}), Tensor::from<std::int32_t>({0, 1}), Tensor::from<std::int32_t>({0, 1, 2}))
            .equal(Tensor::from({{1.0, 0.0}, {0.0, 2.0}})));
  CHECK_THROWS_WITH(f(Tensor::from({1.0, 2.0}), Tensor::from<std::int32_t>({0, 2}), Tensor::from<std::int32_t>({0, 1, 2})),
                    Catch::Contains("`csr`: `indices` entry 1 is 2, outside [0, 2)"));
  // A function given a dense matrix for a sparse input says what it wanted.
  auto g = rw::function({s}, rw::sp_sum(s));
  CHECK_THROWS_WITH(g(Tensor::zeros({5, 4})), Catch::Contains("expected a sparse matrix of type `csr_f64[5,4]`"));
}

TEST_CASE("sparse gradients are structured: on the sparse operand's pattern", "[sparse][grad]") {
  const Tensor a = example();
  const Tensor sa = rw::sparse_from_dense(a, SparseFormat::Csr);
  const Var s = rw::sparse_matrix("s", SparseFormat::Csr);
  const Var d = rw::matrix("d");
  const Tensor dv = rw::Rng(1).uniform({4, 2}, -1, 1);
  const Var cost = rw::sum(rw::structured_dot(s, d));
  const Var gs = rw::grad(cost, s);
  CHECK(gs->type()->to_string() == "csr_f64[?,?]");
  const Tensor g = rw::function({s, d}, gs)(sa, dv);
  // The pattern of s, and there (g · dᵀ) with g all ones: the row sums of d.
  CHECK(ints(rw::sparse_indices(g)) == ints(rw::sparse_indices(sa)));
  CHECK(ints(rw::sparse_indptr(g)) == ints(rw::sparse_indptr(sa)));
  const Tensor full = rw::dot(Tensor::ones({3, 2}), dv.transpose());
  std::vector<double> expected;
  for (std::int64_t r = 0; r < 3; ++r)
    for (std::int64_t col = 0; col < 4; ++col)
      if (a.at({r, col}) != 0) expected.push_back(full.at({r, col}));
  const std::vector<double> got = values(rw::sparse_data(g));
  REQUIRE(got.size() == expected.size());
  for (std::size_t k = 0; k < got.size(); ++k) CHECK(got[k] == Approx(expected[k]));
  // A cost that does not read s: refused by default, zero on s's pattern when ignored.
  const Var other = rw::sum(d);
  CHECK_THROWS_AS(rw::grad(other, s), rw::DisconnectedInputError);
  const Var zero = rw::grad(other, std::vector<Var>{s}, {.disconnected_inputs = rw::DisconnectedInputs::Ignore})[0];
  CHECK(zero->type()->to_string() == "csr_f64[?,?]");
  const Tensor z = rw::function({s}, zero)(sa);
  CHECK(rw::sparse_view(z).nnz == 6);
  CHECK(values(rw::sparse_data(z)) == std::vector<double>(6, 0.0));
  // Through dense_from_sparse too: zero where s has no entry.
  const Tensor g2 = rw::function({s}, rw::grad(rw::sum(rw::sqr(rw::dense_from_sparse(s))), s))(sa);
  CHECK(rw::sparse_view(g2).nnz == 6);
  CHECK(close(rw::sparse_to_dense(g2), times(a, 2.0)));
}

TEST_CASE("verify_grad over the data of matrices with real zeros", "[sparse][grad]") {
  // The function of a pattern's data: each structured Op's gradient is what
  // finite differences of the stored values give.
  const Tensor a = random_sparse(4, 5, 0.5, 11);
  for (SparseFormat f : kFormats) {
    INFO("format " << rw::sparse_format_name(f));
    const Tensor sv = rw::sparse_from_dense(a, f);
    const Var indices = rw::constant(rw::sparse_indices(sv)), indptr = rw::constant(rw::sparse_indptr(sv));
    const Var shape = rw::constant(Tensor::from<std::int64_t>({4, 5}));
    auto mat = [=](const Var& data) { return rw::csm(f, data, indices, indptr, shape); };
    const Tensor data = rw::sparse_data(sv);
    const Tensor dm = rw::Rng(2).uniform({5, 3}, -1, 1), em = rw::Rng(3).uniform({4, 5}, -1, 1);
    const Tensor xm = rw::Rng(4).uniform({4, 2}, -1, 1), ym = rw::Rng(5).uniform({5, 2}, -1, 1);
    using In = std::span<const Var>;
    CHECK_NOTHROW(rw::verify_grad([&](In in) { return rw::structured_dot(mat(in[0]), in[1]); }, std::vector<Tensor>{data, dm}));
    CHECK_NOTHROW(rw::verify_grad([&](In in) { return rw::dense_from_sparse(mat(in[0])); }, std::vector<Tensor>{data}));
    CHECK_NOTHROW(rw::verify_grad([&](In in) { return rw::add_sd(mat(in[0]), in[1]); }, std::vector<Tensor>{data, em}));
    CHECK_NOTHROW(rw::verify_grad([&](In in) { return rw::dense_from_sparse(rw::mul_sd(mat(in[0]), in[1])); },
                                  std::vector<Tensor>{data, em}));
    CHECK_NOTHROW(rw::verify_grad([&](In in) { return rw::sp_sum(mat(in[0]), 1); }, std::vector<Tensor>{data}));
    CHECK_NOTHROW(rw::verify_grad(
        [&](In in) { return rw::dense_from_sparse(rw::sampling_dot(in[1], in[2], mat(in[0]))); },
        std::vector<Tensor>{data, xm, ym}));
    CHECK_NOTHROW(rw::verify_grad(
        [&](In in) { return rw::dense_from_sparse(rw::sparse_transpose(mat(in[0]))); }, std::vector<Tensor>{data}));
    const Tensor tm = rw::Rng(6).uniform({4, 3}, -1, 1);
    CHECK_NOTHROW(rw::verify_grad([&](In in) { return rw::structured_dot_t(mat(in[0]), in[1]); }, std::vector<Tensor>{data, tm}));
    CHECK_NOTHROW(rw::verify_rop([&](In in) { return rw::structured_dot(mat(in[0]), in[1]); }, std::vector<Tensor>{data, dm}));
    CHECK_NOTHROW(rw::verify_rop(
        [&](In in) { return rw::dense_from_sparse(rw::sampling_dot(in[1], in[2], mat(in[0]))); },
        std::vector<Tensor>{data, xm, ym}));
  }
}

TEST_CASE("graph files: sparse inputs are written csr_f64[?, ?], read back", "[sparse][graph_file]") {
  const std::string text = R"(input s csr_f64[?, 4]
input d f64[4, 2]
y = structured_dot(s, d)
t = sparse_transpose(s)
output y, t
)";
  auto back = rw::dsl::check_graph_text("sp.graph", text, rw::standard_registry(), rw::graph_file_options());
  INFO(rw::dsl::render(back.diagnostics));
  REQUIRE(back.ok());
  const auto& gf = *back.value;
  CHECK(gf.inputs[0]->type()->to_string() == "csr_f64[?,4]");
  CHECK(gf.outputs[0]->type()->to_string() == "f64[?,2]");
  CHECK(gf.outputs[1]->type()->to_string() == "csc_f64[4,?]");
  auto f = rw::function({gf.inputs[0], gf.inputs[1]}, gf.outputs);
  const Tensor d = rw::Rng(1).uniform({4, 2}, -1, 1);
  CHECK(close(f(rw::sparse_from_dense(example(), SparseFormat::Csr), d)[0], rw::dot(example(), d)));
  const std::string written = rw::graph_file_text(gf.inputs, gf.outputs, rw::standard_registry());
  INFO(written);
  CHECK(written.find("input s csr_f64[?,4]") != std::string::npos);
  auto again = rw::dsl::check_graph_text("again.graph", written, rw::standard_registry(), rw::graph_file_options());
  INFO(rw::dsl::render(again.diagnostics));
  CHECK(again.ok());
  auto bad = rw::dsl::check_graph_text("bad.graph", "input s csc_f32[3]\noutput s\n", rw::standard_registry(),
                                       rw::graph_file_options());
  CHECK_FALSE(bad.ok());
  CHECK_THAT(rw::dsl::render(bad.diagnostics), Catch::Contains("`csc_f32` (a sparse matrix) takes two extents"));
}

TEST_CASE("a shared sparse matrix, updated by a function; a sparse output and a constant", "[sparse]") {
  const Tensor a = example();
  const auto type = rw::SparseType::make(SparseFormat::Csr, DType::Float64);
  rw::Shared w = rw::shared("w", rw::sparse_from_dense(a, SparseFormat::Csr), type);
  CHECK(w->type()->to_string() == "csr_f64[?,?]");
  auto step = rw::function({}, std::vector<Var>{rw::sp_sum(w)}, {.updates = {{w, rw::mul_sd(w, 0.5)}}});
  CHECK(step.call({})[0].item<double>() == 21.0);
  CHECK(step.call({})[0].item<double>() == 10.5);
  CHECK(close(rw::sparse_to_dense(w.get_value()), times(a, 0.25)));
  // set_value checks the value as a function's argument is checked.
  CHECK_THROWS_WITH(w.set_value(a), Catch::Contains("expected a sparse matrix of type `csr_f64[?,?]`"));
  CHECK(close(rw::sparse_to_dense(w.get_value()), times(a, 0.25)));  // unchanged
  // A sparse input returned as it is, and a sparse constant folded into a dense result.
  const Var s = rw::sparse_matrix("s", SparseFormat::Csc);
  const Tensor sv = rw::sparse_from_dense(a, SparseFormat::Csc);
  CHECK(rw::function({s}, std::vector<Var>{s}).call(std::vector<Tensor>{sv})[0].equal(sv));
  const Var c = rw::sparse_constant(sv, "c");
  CHECK(c->type()->to_string() == "csc_f64[3,4]");
  CHECK(rw::function({}, std::vector<Var>{rw::dense_from_sparse(rw::mul_sd(c, 2.0))}).call({})[0].equal(times(a, 2.0)));
}
