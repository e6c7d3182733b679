// Benchmark of the standard rule library: loading it (parse, check, compile,
// register). The default mode on the reference graphs is bench_rewrite's.
//   bench_rules
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_util.hpp"
#include "rw/rw.hpp"

int main() {
  const rw::OpRegistry& ops = rw::standard_registry();
  std::size_t n = 0;
  const double load = rw::bench::median_time(
      [&] {
        auto db = rw::make_standard_db();
        const rw::dsl::PredicateRegistry predicates;
        n = rw::load_standard_rules_into(*db, ops, predicates).take().size();
      },
      9, 2);
  rw::bench::report("load_standard_rules", static_cast<long long>(n), load);

  return 0;
}
