// Value assumptions in the standard library: the rules and rewriters that
// hold only under one are tagged `assumes` (and `assumes_NAME`), the table of
// docs/rules-library.md lists exactly them, and the strict mode leaves them
// out, so that NaNs of the original stay NaNs.
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "rw/rewrite.hpp"

namespace {

/// assumption -> names of the rules and rewriters tagged with it, from the
/// standard database's passes and its canonicalize, stabilize and
/// specialize groups.
std::map<std::string, std::set<std::string>> tagged() {
  std::map<std::string, std::set<std::string>> out;
  const std::string prefix = std::string(rw::kAssumptionTag) + "_";
  std::vector<const rw::RewriteDB*> dbs{rw::standard_db().get()};
  for (const char* group : {"canonicalize", "stabilize", "specialize"})
    dbs.push_back(&rw::standard_db()->sub<rw::EquilibriumDB>(group));
  for (const rw::RewriteDB* db : dbs) {
    for (const rw::RewriteDB::Entry& e : db->entries()) {
      bool assumes = false;
      for (const std::string& t : e.tags) {
        if (t == rw::kAssumptionTag) assumes = true;
        if (t.rfind(prefix, 0) == 0) out[t.substr(prefix.size())].insert(e.name);
      }
      // Every entry with an assumption says which.
      if (assumes) {
        bool named = false;
        for (const std::string& t : e.tags) named = named || t.rfind(prefix, 0) == 0;
        INFO(e.name);
        CHECK(named);
      }
    }
  }
  return out;
}

/// The same from the table in docs/rules-library.md.
std::map<std::string, std::set<std::string>> documented() {
  std::ifstream in(std::string(RW_SOURCE_DIR) + "/docs/rules-library.md");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string doc = buffer.str();
  const std::size_t table = doc.find("| assumption | rules and rewriters |");
  REQUIRE(table != std::string::npos);
  std::map<std::string, std::set<std::string>> out;
  std::istringstream lines(doc.substr(table));
  std::string line;
  std::getline(lines, line);  // header
  std::getline(lines, line);  // rule
  while (std::getline(lines, line) && line.rfind("| `", 0) == 0) {
    const std::size_t a = line.find('`') + 1;
    const std::string name = line.substr(a, line.find('`', a) - a);
    std::size_t p = line.find('|', 1);
    while ((p = line.find('`', p)) != std::string::npos) {
      const std::size_t q = line.find('`', p + 1);
      out[name].insert(line.substr(p + 1, q - p - 1));
      p = q + 1;
    }
  }
  return out;
}

double eval1(const rw::Mode& mode, const rw::Var& x, const rw::Var& y, double at) {
  auto f = rw::function({x}, {y}, {}, mode);
  return f.call(std::vector<rw::Tensor>{rw::Tensor::from({at})})[0].at({0});
}

}  // namespace

TEST_CASE("rules that assume values are tagged, and the docs list exactly them", "[rules]") {
  const auto tags = tagged();
  CHECK(tags.at("nonzero").count("div_self") == 1);
  CHECK(tags.at("finite").count("mul_zero_right") == 1);
  CHECK(tags.at("finite").count("cancelling_distributor") == 1);
  const auto docs = documented();
  for (const auto& [assumption, names] : tags) {
    std::string list;
    for (const std::string& n : names) list += " " + n;
    INFO("tagged " << assumption << ":" << list);
    CHECK(docs.count(assumption) == 1);
    if (docs.count(assumption)) CHECK(docs.at(assumption) == names);
  }
  CHECK(docs.size() == tags.size());
}

TEST_CASE("the strict mode keeps the NaNs that assumption rules remove", "[rules]") {
  const double inf = std::numeric_limits<double>::infinity();
  auto x = rw::vector("x");
  const rw::Mode fast = rw::default_mode();
  const rw::Mode strict = rw::default_mode().strict();
  CHECK(strict.name() == fast.name() + "+strict");

  // x / x: 1 by default (PyTensor's assumption), NaN at 0 when strict.
  CHECK(eval1(fast, x, x / x, 0.0) == 1.0);
  CHECK(std::isnan(eval1(strict, x, x / x, 0.0)));
  CHECK(eval1(strict, x, x / x, 3.0) == 1.0);
  // x * 0 and x - x at infinity.
  CHECK(eval1(fast, x, x * 0.0, inf) == 0.0);
  CHECK(std::isnan(eval1(strict, x, x * 0.0, inf)));
  CHECK(eval1(fast, x, x - x, inf) == 0.0);
  CHECK(std::isnan(eval1(strict, x, x - x, inf)));

  // Rules without assumptions still run: the strict graph of x * 1 is x.
  auto f = rw::function({x}, {rw::exp(x) * 1.0}, {}, strict);
  CHECK(rw::to_infix(f.fgraph().outputs()[0]) == "exp(x)");
}

TEST_CASE("the strict mode leaves out the cancelling distributor", "[rules]") {
  // (a / p + b / p) * p, the shape of the logistic gradient, at p = 0.
  auto a = rw::vector("a");
  auto b = rw::vector("b");
  auto p = rw::vector("p");
  auto y = (a / p + b / p) * p;
  auto fast = rw::function({a, b, p}, {y});
  auto strict = rw::function({a, b, p}, {y}, {}, rw::default_mode().strict());
  const std::vector<rw::Tensor> args{rw::Tensor::from({2.0}), rw::Tensor::from({1.0}),
                                     rw::Tensor::from({0.0})};
  // a + b = 3 by default; (2 / 0 + 1 / 0) * 0 = NaN strictly, like the original.
  CHECK(fast.call(args)[0].at({0}) == 3.0);
  CHECK(std::isnan(strict.call(args)[0].at({0})));
}
