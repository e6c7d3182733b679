// register_standard_ops: one call per Op family, nothing hidden in static initialisers.
#include "ops/register.hpp"

#include "ops/creation/creation.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "ops/indexing/register.hpp"
#include "ops/linalg/decomp.hpp"
#include "ops/linalg/linalg.hpp"
#include "ops/nnet/softmax.hpp"
#include "ops/random/random.hpp"
#include "ops/sparse/sparse.hpp"
#include "ops/reduce/cumulative.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/sort/sort.hpp"
#include "ops/shape/register.hpp"

namespace rw {

void register_standard_ops(OpRegistry& registry) {
  register_elemwise(registry);
  register_reduce(registry);
  register_shape(registry);
  register_indexing(registry);
  register_linalg(registry);
  register_decomp(registry);
  register_nnet(registry);
  register_creation(registry);
  register_cumulative(registry);
  register_sort(registry);
  register_random(registry);
  register_sparse(registry);
}

}  // namespace rw
