// Running a relation on a node's output and building its first valid answer.
#include "engine/kanren/relation_rewrite.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/unify.hpp"

namespace rw {

GraphResult rewrite_with_relation(const Relation& relation, const Apply& node,
                                  const RelationRewriteOptions& options) {
  if (!relation) throw TermError("rewrite_with_relation() needs a relation");
  Var out;
  try {
    out = node.default_output();
  } catch (const Error& e) {
    return {Var(), e.what()};
  }
  if (options.max_answers == 0) return {Var(), "no answers may be tried (max_answers is 0)"};
  const Term q = lvar("out");
  kanren::Stream answers(relation(Term(out), q));
  std::string last;
  std::size_t tried = 0;
  for (; tried < options.max_answers; ++tried) {
    std::optional<kanren::State> st = answers.next(options.max_steps);
    if (!st) {
      if (!answers.exhausted())
        return {Var(), fmt::format("the relation gave no answer within {} steps", options.max_steps)};
      if (tried == 0) return {Var(), "the relation has no answer"};
      break;
    }
    GraphResult built = reify_to_graph(q, st->subst(), GraphBuildOptions{options.registry});
    if (!built) {
      last = fmt::format("answer {} (`{}`): {}", tried, to_string(st->reify(q)), built.why);
      continue;
    }
    if (built.var == out) {
      last = fmt::format("answer {} is the node itself", tried);
      continue;
    }
    return built;
  }
  return {Var(), last};
}

}  // namespace rw
