// Indexing Ops through rw::function: basic slicing with constant and symbolic
// bounds, negative steps, set/inc of a slice, take and its scatter forms.
#include <catch2/catch.hpp>

#include "rw/rw.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using Idx = rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;

TEST_CASE("subtensor: integer indices, slices, negative steps, symbolic bounds", "[ops]") {
  auto x = rw::matrix("x");
  auto i = rw::scalar("i", i64);
  rw::Function f = rw::function(
      {x, i}, {rw::subtensor(x, {i}), rw::subtensor(x, {rw::slice(1, std::nullopt), -1}),
               rw::subtensor(x, {rw::slice(std::nullopt, std::nullopt, -2), rw::slice(i, 4)})});
  const Tensor v = lcg_tensor({5, 4}, 1);
  auto [row, col, rev] = f(v, Tensor::scalar(std::int64_t{2}));
  require_same(row, make_tensor({4}, [&](const Idx& k) { return v.at({2, k[0]}); }));
  require_same(col, make_tensor({4}, [&](const Idx& k) { return v.at({k[0] + 1, 3}); }));
  require_same(rev, make_tensor({3, 2}, [&](const Idx& k) {
                 return v.at({4 - 2 * k[0], 2 + k[1]});
               }));
  // The PyTensor spelling: subtensor{index=(i)}(x, 1) is x[1].
  const OpPtr op = standard_registry().make(
      "subtensor", {{"index", std::vector<std::int64_t>{kIndexFromInput}}});
  const Var one = (*op)({x, rw::constant(Tensor::scalar(std::int64_t{1}))});
  rw::Function g = rw::function({x}, one);
  require_same(g(v), make_tensor({4}, [&](const Idx& k) { return v.at({1, k[0]}); }));
}

TEST_CASE("set_subtensor and inc_subtensor leave the input and return a new tensor", "[ops]") {
  auto x = rw::matrix("x");
  auto y = rw::vector("y");
  rw::Function f = rw::function({x, y}, {rw::set_subtensor(x, {rw::slice(), 1}, y),
                                         rw::inc_subtensor(x, {0}, 10)});
  const Tensor v = lcg_tensor({3, 2}, 2);
  const Tensor before = v.copy();
  auto [s, inc] = f(v, Tensor::from({7.0, 8.0, 9.0}));
  require_same(v, before);
  require_same(s, make_tensor({3, 2}, [&](const Idx& k) {
                 return k[1] == 1 ? 7.0 + static_cast<double>(k[0]) : v.at(k);
               }));
  require_same(inc, make_tensor({3, 2}, [&](const Idx& k) {
                 return k[0] == 0 ? v.at(k) + 10 : v.at(k);
               }));
}

TEST_CASE("take gathers along an axis; advanced inc adds once per repeat", "[ops]") {
  auto x = rw::matrix("x");
  auto idx = rw::vector("idx", i64);
  rw::Function f = rw::function({x, idx}, {rw::take(x, idx, 1),
                                           rw::advanced_inc_subtensor(x, idx, 1.0, 0),
                                           rw::advanced_set_subtensor(x, idx, -1.0, 0)});
  const Tensor v = lcg_tensor({3, 3}, 3);
  auto [t, inc, set] = f(v, Tensor::from<std::int64_t>({2, 0, 2, -1}));
  require_same(t, make_tensor({3, 4}, [&](const Idx& k) {
                 const std::int64_t cols[] = {2, 0, 2, 2};
                 return v.at({k[0], cols[k[1]]});
               }));
  // Row 2 is named three times (2, 2, -1), row 0 once.
  require_same(inc, make_tensor({3, 3}, [&](const Idx& k) {
                 return v.at(k) + (k[0] == 2 ? 3.0 : k[0] == 0 ? 1.0 : 0.0);
               }));
  require_same(set, make_tensor({3, 3}, [&](const Idx& k) {
                 return k[0] == 1 ? v.at(k) : -1.0;
               }));
}
