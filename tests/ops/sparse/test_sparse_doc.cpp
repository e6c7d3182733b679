// The examples of docs/sparse.md: each is run here, and the page must show
// exactly the code between the markers.
#include <algorithm>

#include <catch2/catch.hpp>
#include <rw/rw.hpp>

#include "ops/sparse/sparse_rewrites.hpp"
#include "support/fired_rewriters.hpp"
#include "support/doc_snippets.hpp"

namespace {

const std::string kThisFile = RW_SOURCE_DIR "/tests/ops/sparse/test_sparse_doc.cpp";
const std::string kPage = RW_SOURCE_DIR "/docs/sparse.md";

void require_on_page(const std::string& name) {
  const std::string code = rw::test::source_snippet(kThisFile, name);
  const std::vector<std::string> blocks = rw::test::markdown_cpp_blocks(kPage);
  INFO("docs/sparse.md must contain this ```cpp block (snippet `" << name << "`):\n" << code);
  REQUIRE(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
}

std::vector<double> values(const rw::Tensor& t) {
  const rw::Tensor c = t.astype(rw::f64).contiguous();
  return {c.data<double>(), c.data<double>() + c.size()};
}

}  // namespace

TEST_CASE("docs/sparse.md: values, a function, a structured gradient", "[sparse][docs]") {
  // [doc:values]
  rw::Tensor a = rw::Tensor::from({{1.0, 0.0, 2.0}, {0.0, 0.0, 3.0}});
  rw::Tensor s = rw::sparse_from_dense(a, rw::SparseFormat::Csr);   // a packed CSR value
  rw::SparseView v = rw::sparse_view(s);                             // v.nnz == 3
  rw::Tensor data = rw::sparse_data(s);                              // [1. 2. 3.]
  rw::Tensor indices = rw::sparse_indices(s);                        // [0 2 2]
  rw::Tensor indptr = rw::sparse_indptr(s);                          // [0 2 3]
  // [/doc:values]
  CHECK(v.nnz == 3);
  CHECK(values(data) == std::vector<double>{1, 2, 3});
  CHECK(values(indices) == std::vector<double>{0, 2, 2});
  CHECK(values(indptr) == std::vector<double>{0, 2, 3});
  require_on_page("values");

  // [doc:function]
  rw::Var x = rw::sparse_matrix("x", rw::SparseFormat::Csr);        // csr_f64[?,?]
  rw::Var w = rw::matrix("w");
  rw::Var y = rw::structured_dot(x, w);                             // f64[?,?], dense
  auto f = rw::function({x, w}, y);
  rw::Tensor out = f(s, rw::Tensor::ones({3, 2}));                  // [[3. 3.] [3. 3.]]
  // [/doc:function]
  CHECK(x->type()->to_string() == "csr_f64[?,?]");
  CHECK(y->type()->to_string() == "f64[?,?]");
  CHECK(values(out) == std::vector<double>{3, 3, 3, 3});
  require_on_page("function");

  // [doc:grad]
  rw::Var cost = rw::sum(rw::structured_dot(x, w));
  rw::Var gx = rw::grad(cost, x);                   // csr_f64[?,?]: on x's pattern
  auto g = rw::function({x, w}, gx);
  rw::Tensor gs = g(s, rw::Tensor::ones({3, 2}));   // 3 entries, each 2, where s has them
  // [/doc:grad]
  CHECK(gx->type()->to_string() == "csr_f64[?,?]");
  CHECK(values(rw::sparse_indices(gs)) == values(indices));
  CHECK(values(rw::sparse_data(gs)) == std::vector<double>{2, 2, 2});
  require_on_page("grad");
}

TEST_CASE("docs/sparse.md: arrays, constructors and the fold of the two", "[sparse][docs]") {
  // [doc:arrays]
  rw::Var x = rw::sparse_matrix("x", rw::SparseFormat::Csc, rw::f32, 4, 5);   // csc_f32[4,5]
  rw::CsmParts p = rw::csm_properties(x);         // data f32[?], indices i32[?], indptr i32[6], shape i64[2]
  rw::Var doubled = rw::csc(p.data * 2.0f, p.indices, p.indptr, p.shape);     // x's pattern, twice the values
  rw::Var back = rw::csm_properties(doubled).data;  // rewritten to p.data * 2 (local_csm_properties_csm)
  // [/doc:arrays]
  CHECK(p.indptr->type()->to_string() == "i32[6]");
  CHECK(doubled->type()->to_string() == "csc_f32[?,?]");
  auto fired = std::make_shared<rw::testing::FiredRewriters>();
  auto f = rw::function({x}, std::vector<rw::Var>{back}, {.rewrite_trace = fired});
  INFO(fired->list());
  CHECK(fired->fired("local_csm_properties_csm"));
  // No constructor is left: the data is read from x and doubled.
  for (const rw::Apply* n : f.schedule()) CHECK(n->op().name() != "csc");
  const rw::Tensor a = rw::Tensor::from({{1.0f, 0.0f, 0.0f, 0.0f, 2.0f},
                                         {0.0f, 0.0f, 3.0f, 0.0f, 0.0f},
                                         {0.0f, 0.0f, 0.0f, 0.0f, 0.0f},
                                         {4.0f, 0.0f, 0.0f, 0.0f, 0.0f}});
  CHECK(values(f(rw::sparse_from_dense(a, rw::SparseFormat::Csc))[0]) == std::vector<double>{2, 8, 6, 4});
  require_on_page("arrays");
}
