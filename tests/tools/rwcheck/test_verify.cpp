// rwcheck verify: sound rules pass, unsound ones give a shrunk counterexample.
#include <catch2/catch.hpp>

#include "tools/rwcheck/rwcheck_fixtures.hpp"
#include "tools/rwcheck/verify.hpp"

using rw::test::check_golden;
using rw::test::pt_environment;
using rw::test::rwcheck;
using rw::test::toy_environment;

TEST_CASE("verify finds and shrinks counterexamples, exits 1", "[rwcheck]") {
  const auto r = rwcheck({"verify", "--trials", "40", "tests/tools/rwcheck/golden/verify.rules"},
                         toy_environment());
  CHECK(r.status == 1);
  CHECK(r.err.empty());
  check_golden("verify.txt", r.out);
  CHECK(r.out.find("ok        mul_by_one") != std::string::npos);
  CHECK(r.out.find("ok        add_comm") != std::string::npos);
  CHECK(r.out.find("ok        neg_sub") != std::string::npos);
  CHECK(r.out.find("FAILED    exp_log") != std::string::npos);
  CHECK(r.out.find("FAILED    div_cancel") != std::string::npos);
  CHECK(r.out.find("FAILED    wrong_sign") != std::string::npos);
}

TEST_CASE("verify is deterministic for a seed", "[rwcheck]") {
  const std::vector<std::string> args = {
      "verify", "--seed", "3", "--trials", "20", "tests/tools/rwcheck/golden/verify.rules"};
  CHECK(rwcheck(args, toy_environment()).out == rwcheck(args, toy_environment()).out);
}

TEST_CASE("verify --rule checks one rule; a sound one exits 0", "[rwcheck]") {
  const auto r = rwcheck({"verify", "--rule", "neg_sub", "tests/tools/rwcheck/golden/verify.rules"},
                         toy_environment());
  CHECK(r.status == 0);
  CHECK(r.out == "ok        neg_sub (100 trials)\n1 rule verified, 0 failed, 0 skipped\n");
  const auto unknown = rwcheck(
      {"verify", "--rule", "neg_sb", "tests/tools/rwcheck/golden/verify.rules"}, toy_environment());
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("did you mean `neg_sub`?") != std::string::npos);
}

TEST_CASE("verify skips rules whose ops cannot run, and says why", "[rwcheck]") {
  const auto r =
      rwcheck({"verify", "--trials", "2", "--rule", "neg_neg", "examples/rules"}, pt_environment());
  CHECK(r.status == 0);
  CHECK(r.out.starts_with("skipped   neg_neg: "));
  CHECK(r.out.ends_with("0 rules verified, 0 failed, 1 skipped\n"));
}

TEST_CASE("verify runs the rules on the standard Op library", "[rwcheck]") {
  // The example rules: div_cancel is wrong at y = 0 and exp_log for x < 0;
  // the others hold.
  const auto r =
      rwcheck({"verify", "--trials", "30", "examples/rules"}, rw::test::standard_environment());
  CHECK(r.status == 1);
  CHECK(r.err.empty());
  check_golden("verify_standard.txt", r.out);
  CHECK(r.out.ends_with("4 rules verified, 2 failed, 0 skipped\n"));
}
