// The sparse rewrites (ops/sparse/sparse_rewrites.hpp): what they leave,
// the values they keep, and why they do not fire elsewhere. Each also has a
// case in tests/rules/test_rule_cases.cpp.
#include <rw/rewrite.hpp>

#include <catch2/catch.hpp>

#include "ops/sparse/sparse_rewrites.hpp"
#include "support/fired_rewriters.hpp"

namespace {

using rw::SparseFormat;
using rw::Tensor;
using rw::Var;

std::string ops_of(const rw::FunctionBase& f) {
  std::string out;
  for (const rw::Apply* node : f.schedule()) out += std::string(node->op().name()) + " ";
  return out;
}

}  // namespace

TEST_CASE("sparse rewrites: a transpose of a transpose and a round trip through sparse go",
          "[sparse][rewrite]") {
  const Var s = rw::sparse_matrix("s", SparseFormat::Csr);
  const Var d = rw::matrix("d");
  auto fired = std::make_shared<rw::testing::FiredRewriters>();
  auto f = rw::function({s, d}, std::vector<Var>{rw::structured_dot(rw::sparse_transpose(rw::sparse_transpose(s)), d)},
                        {.rewrite_trace = fired});
  INFO(fired->list());
  CHECK(fired->fired("local_sparse_transpose_transpose"));
  CHECK(ops_of(f).find("sparse_transpose") == std::string::npos);
  const Tensor a = Tensor::from({{1.0, 0.0}, {0.0, 2.0}, {3.0, 0.0}});
  const Tensor dv = Tensor::from({{1.0, 2.0}, {3.0, 4.0}});
  CHECK(f(rw::sparse_from_dense(a, SparseFormat::Csr), dv)[0].equal(Tensor::from({{1.0, 2.0}, {6.0, 8.0}, {3.0, 6.0}})));
  // One transpose stays: it changes the shape and the format.
  auto once = rw::function({s}, std::vector<Var>{rw::sparse_transpose(s)});
  CHECK(ops_of(once) == "sparse_transpose ");
}

TEST_CASE("sparse rewrites: a product of a transpose reads the arrays as they are", "[sparse][rewrite]") {
  const Var s = rw::sparse_matrix("s", SparseFormat::Csr);
  const Var d = rw::matrix("d");
  const Tensor a = Tensor::from({{1.0, 0.0}, {0.0, 2.0}, {3.0, 0.0}});
  const Tensor dv = Tensor::from({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  const Tensor sv = rw::sparse_from_dense(a, SparseFormat::Csr);
  for (const Var& y : {rw::structured_dot(rw::sparse_transpose(s), d),
                       rw::structured_dot_t(rw::sparse_transpose(rw::sparse_transpose(s)), d)}) {
    auto fired = std::make_shared<rw::testing::FiredRewriters>();
    auto f = rw::function({s, d}, std::vector<Var>{y}, {.rewrite_trace = fired});
    INFO(fired->list());
    CHECK(ops_of(f) == "structured_dot_t ");
    CHECK(f(sv, dv)[0].equal(Tensor::from({{16.0, 20.0}, {6.0, 8.0}})));
  }
  // And back: the transpose of a transpose product is the plain product.
  auto g = rw::function({s, d}, std::vector<Var>{rw::structured_dot_t(rw::sparse_transpose(s), d)});
  CHECK(ops_of(g) == "structured_dot ");
  // The gradient with respect to d is built without a transpose at all.
  const Var gd = rw::grad(rw::sum(rw::structured_dot(s, d)), d);
  CHECK(ops_of(rw::function({s, d}, std::vector<Var>{gd}, {.on_unused_input = rw::UnusedInput::Ignore}))
            .find("sparse_transpose") == std::string::npos);
}

TEST_CASE("sparse rewrites: why they do not fire", "[sparse][rewrite]") {
  rw::FunctionGraph fg({}, {});
  const rw::RewriteContext ctx{};
  const Var s = rw::sparse_matrix("s", SparseFormat::Csc);
  const Var t = rw::sparse_transpose(s);
  CHECK(rw::SparseTransposeTwice().transform(fg, *t->owner(), ctx).reason() ==
        "the input is not a sparse_transpose");
  const Var data = rw::csm_properties(s).data;
  CHECK(rw::CsmPropertiesOfCsm().transform(fg, *data->owner(), ctx).reason() ==
        "the matrix is not built by csr or csc");
  const Var prod = rw::structured_dot(s, rw::matrix("d"));
  CHECK(rw::StructuredDotOfTranspose().transform(fg, *prod->owner(), ctx).reason() ==
        "the sparse operand is not a sparse_transpose");
  const Var dense = rw::dense_from_sparse(s);
  CHECK(rw::DenseOfSparseOfDense().transform(fg, *dense->owner(), ctx).reason() ==
        "the input is not csr_from_dense or csc_from_dense");
}
