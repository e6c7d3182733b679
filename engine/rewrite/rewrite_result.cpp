// RewriteResult constructors.
#include "engine/rewrite/rewrite_result.hpp"

namespace rw {

RewriteResult RewriteResult::fail_owned(std::string reason) {
  RewriteResult r;
  r.owned_reason_ = std::move(reason);
  r.owns_reason_ = true;
  return r;
}

RewriteResult RewriteResult::replace_outputs(std::vector<Var> outputs) {
  RewriteResult r;
  r.kind_ = Kind::Outputs;
  r.outputs_ = std::move(outputs);
  return r;
}

RewriteResult RewriteResult::replace_output(Var v) {
  RewriteResult r;
  r.kind_ = Kind::Outputs;
  r.outputs_.push_back(std::move(v));
  return r;
}

RewriteResult RewriteResult::replace(std::vector<std::pair<Var, Var>> pairs) {
  RewriteResult r;
  r.kind_ = Kind::Pairs;
  r.pairs_ = std::move(pairs);
  return r;
}

}  // namespace rw
