// CheckEnvironment defaults.
#include "tools/rwcheck/environment.hpp"

#include "engine/compile/op_from_graph.hpp"
#include "engine/compile/scan_rewrites.hpp"
#include "engine/dsl/resolver.hpp"
#include "engine/rewrite/standard.hpp"
#include "rw/graph_files.hpp"

namespace rw::check {

CheckEnvironment make_environment(const OpRegistry& ops) {
  CheckEnvironment env;
  env.ops = &ops;
  env.make_db = [] {
    std::shared_ptr<SequenceDB> db = make_standard_db();
    register_op_from_graph_rewrites(*db);
    register_scan_rewrites(*db);
    return db;
  };
  env.graph_options = graph_file_options();
  env.read_stdin = [](std::string& why_not) { return dsl::read_file("/dev/stdin", why_not); };
  return env;
}

}  // namespace rw::check
