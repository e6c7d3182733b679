// bisect_rewrites: a rule made wrong on purpose is named, with its change
// and the first output it changed; a correct pipeline is found correct.
#include <algorithm>

#include <catch2/catch.hpp>

#include "rw/rewrite.hpp"
#include "support/doc_snippets.hpp"
#include "support/mode_fixtures.hpp"

using rw::test::with_rules;

TEST_CASE("docs/debugging.md: bisect_rewrites names the rule that changed a result", "[bisect]") {
  // [doc:bisect]
  rw::Var a = rw::vector("a");
  rw::Var b = rw::vector("b");
  rw::Var y = rw::tanh(a) * 3.0 + rw::exp(b) * 1.0;
  // A rule wrong on purpose: tanh(x) is not x.
  rw::Mode mode = with_rules("ruleset mine tags(specialize, fast_run)\n"
                             "rule tanh_is_x: tanh(x) => x where float(x)\n");
  std::vector<rw::Tensor> args{rw::Tensor::from({0.5, 2.0}), rw::Tensor::from({1.0, 0.0})};
  rw::RewriteBisection found = rw::bisect_rewrites({a, b}, {y}, args, mode);
  // found.differs, found.rewriter == "tanh_is_x", found.pass == "specialize";
  // found.to_string(): change 2 of 3 changed the outputs: replaced tanh(a)
  // by a  [tanh_is_x] (pass specialize, rewriter tanh_is_x); output 0:
  // element 0 (row-major) is 4.218281828459045, not 4.104633300239074 (unrewritten)
  // [/doc:bisect]
  CHECK(found.differs);
  CHECK(found.rewriter == "tanh_is_x");
  CHECK(found.pass == "specialize");
  CHECK(found.change.find("tanh(a)") != std::string::npos);
  CHECK(found.first_bad >= 1);
  CHECK(found.first_bad <= found.changes);
  CHECK(found.difference.starts_with("output 0: element 0 (row-major) is"));
  INFO(found.to_string());
  const std::string code =
      rw::test::source_snippet(RW_SOURCE_DIR "/tests/rw/test_bisect.cpp", "bisect");
  CHECK(code.find(found.to_string().substr(0, 30)) != std::string::npos);
  const std::vector<std::string> blocks =
      rw::test::markdown_cpp_blocks(RW_SOURCE_DIR "/docs/debugging.md");
  INFO("docs/debugging.md must contain this ```cpp block:\n" << code);
  CHECK(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
}

TEST_CASE("bisect_rewrites finds the standard pipeline correct, and counts its changes",
          "[bisect]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = rw::log(rw::exp(x) * 1.0) + x * 0.0 + rw::sum(x * x) / 2.0;
  const std::vector<rw::Tensor> args{rw::Tensor::from({0.5, -1.0, 3.0})};
  const rw::RewriteBisection found = rw::bisect_rewrites({x}, {y}, args, rw::default_mode());
  CHECK_FALSE(found.differs);
  CHECK(found.changes >= 3);
  CHECK(found.rewriter.empty());
  CHECK(found.to_string().find("leave the outputs as the unrewritten graph computes them") !=
        std::string::npos);
}

TEST_CASE("bisect_rewrites: the first of two wrong rules, the tolerance, bad arguments",
          "[bisect]") {
  const rw::Var a = rw::vector("a");
  const rw::Var y = rw::tanh(a) + rw::sin(rw::exp(a));
  const std::vector<rw::Tensor> args{rw::Tensor::from({0.25, 1.0})};
  SECTION("two wrong rules: the one that fires first is named") {
    const rw::Mode mode = with_rules("ruleset mine_c tags(canonicalize, fast_run)\n"
                                     "rule exp_is_x: exp(x) => x where float(x)\n"
                                     "ruleset mine tags(specialize, fast_run)\n"
                                     "rule tanh_is_x: tanh(x) => x where float(x)\n");
    const rw::RewriteBisection found = rw::bisect_rewrites({a}, {y}, args, mode);
    CHECK(found.rewriter == "exp_is_x");
    CHECK(found.pass == "canonicalize");
  }
  SECTION("a tolerance wide enough hides a small change") {
    const rw::Var z = rw::sin(a) + 1.0;
    const rw::Mode mode = with_rules("ruleset mine tags(specialize, fast_run)\n"
                                     "rule sin_small: sin(x) => x where float(x)\n");
    // sin(0.1) is 0.1 - 1.7e-4: beyond the default rtol 1e-5, within 1e-3.
    const std::vector<rw::Tensor> small{rw::Tensor::from({0.1})};
    CHECK(rw::bisect_rewrites({a}, {z}, small, mode).differs);
    CHECK_FALSE(rw::bisect_rewrites({a}, {z}, small, mode, {.rtol = 1e-3}).differs);
  }
  SECTION("errors") {
    CHECK_THROWS_WITH(rw::bisect_rewrites({a}, {y}, args, rw::default_mode(), {.rtol = -1}),
                      Catch::Contains("`tolerance` must be non-negative"));
    const std::vector<rw::Tensor> wrong{rw::Tensor::from({std::int64_t{1}}).reshape(
        std::vector<std::int64_t>{1, 1})};
    CHECK_THROWS_AS(rw::bisect_rewrites({a}, {y}, wrong, rw::default_mode()), rw::TypeError);
  }
}
