// rwcheck verify: sound rules pass, unsound ones give a shrunk counterexample.
#include <catch2/catch.hpp>

#include "tools/rwcheck/rwcheck_fixtures.hpp"
#include "tools/rwcheck/verify.hpp"

using rw::test::check_golden;
using rw::test::pt_environment;
using rw::test::rwcheck;
using rw::test::standard_environment;
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

TEST_CASE("a counterexample gives the dtypes, the tolerance and the sides' subterms",
          "[rwcheck]") {
  const auto r = rwcheck({"verify", "--trials", "40", "tests/tools/rwcheck/golden/verify.rules"},
                         toy_environment());
  const auto has = [&](const std::string& s) { return r.out.find(s) != std::string::npos; };
  // Floats are compared within a tolerance, and the line says which.
  CHECK(has("    element 0 differs: nan and 0\n"
            "    dtypes: x float64, y float64; both sides float64 (tolerance |left - right| <= "
            "1e-09 + 1e-07 * |right|)\n"
            "    left subterms: x * y = [0. 0.]\n"
            "                   y = 0.0\n"
            "    right subterms: none (`x` is an input)\n"));
  // Where the left side goes wrong: log(-1) is already nan.
  CHECK(has("    left subterms: log(-1.0) = nan\n"
            "    right subterms: none (`-1.0` is a constant)\n"));
  // Integers are compared exactly.
  const auto i = rwcheck({"verify", "tests/tools/rwcheck/golden/verify_int.rules"},
                         standard_environment());
  CHECK(i.status == 1);
  CHECK(i.out.find("    dtypes: x int32, y int64; both sides int64 (compared exactly)\n") !=
        std::string::npos);
  CHECK(i.out.find("    right subterms: y = 1\n") != std::string::npos);
}

TEST_CASE("verify --json gives a verdict per rule", "[rwcheck]") {
  const auto r = rwcheck(
      {"verify", "--json", "--trials", "40", "tests/tools/rwcheck/golden/verify.rules"},
      toy_environment());
  CHECK(r.status == 1);
  CHECK(r.err.empty());
  check_golden("verify.json", r.out);
  CHECK(r.out.starts_with("{\n  \"schema\": 1,\n  \"command\": \"verify\",\n"));
  CHECK(r.out.find("\"status\": \"failed\"") != std::string::npos);
  CHECK(r.out.find("\"failed\": 3,") != std::string::npos);
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

TEST_CASE("verify draws values inside what the guard assumes", "[rwcheck]") {
  // Each `_assumed` rule is right only inside its guard's value assumption,
  // and verify finds the `_plain` twin wrong outside it.
  const std::string file = "tests/tools/rwcheck/golden/verify_assume.rules";
  auto env = rw::test::standard_environment();
  env.predicates.add({"at_least_two",
                      {rw::dsl::PredicateArg::Tensor},
                      "a user assumption: every value is >= 2",
                      [](const rw::dsl::PredicateInput&) { return true; },
                      rw::dsl::PredicateReads::Types,
                      rw::dsl::ValueAssumption{.min = 2}});
  for (const char* rule : {"cancel", "abs", "log_mul"}) {
    const std::string assumed_rule = std::string(rule) + "_assumed";
    const auto assumed = rwcheck({"verify", "--trials", "60", "--rule", assumed_rule, file}, env);
    INFO(assumed.out);
    CHECK(assumed.status == 0);
    CHECK(assumed.out.starts_with("ok        " + assumed_rule + " (60 trials)"));
    const std::string plain_rule = std::string(rule) + "_plain";
    const auto plain = rwcheck({"verify", "--trials", "60", "--rule", plain_rule, file}, env);
    INFO(plain.out);
    CHECK(plain.status == 1);
    CHECK(plain.out.starts_with("FAILED    " + plain_rule));
    CHECK(plain.out.find("x: ") != std::string::npos);
  }
  // A predicate registered in C++ states its assumption the same way.
  const auto user = rwcheck({"verify", "--trials", "60", "--rule", "abs_user", file}, env);
  INFO(user.out);
  CHECK(user.status == 0);
  CHECK(user.out.starts_with("ok        abs_user (60 trials)"));
}

TEST_CASE("verify skips a rule whose assumption no value satisfies", "[rwcheck]") {
  auto env = rw::test::standard_environment();
  env.predicates.add({"in_gap",
                      {rw::dsl::PredicateArg::Tensor},
                      "a contradiction with `nonzero`",
                      [](const rw::dsl::PredicateInput&) { return true; },
                      rw::dsl::PredicateReads::Types,
                      rw::dsl::ValueAssumption{.min = 0, .max = 0}});
  const std::string file = "tests/tools/rwcheck/golden/verify_contradiction.rules";
  const auto r = rwcheck({"verify", "--trials", "5", file}, env);
  CHECK(r.status == 0);
  CHECK(r.out ==
        "skipped   never: no value satisfies what the guard assumes of `x`\n"
        "0 rules verified, 0 failed, 1 skipped\n");
}

TEST_CASE("every rule of the standard library passes verify", "[rwcheck]") {
  const auto r = rwcheck({"verify", "--trials", "20"}, rw::test::standard_environment());
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK(r.out.find("FAILED") == std::string::npos);
  CHECK(r.out.find(", 0 failed, ") != std::string::npos);
}
