// register_indexing: the indexing family in the registry.
#include "ops/indexing/register.hpp"

#include "ops/indexing/advanced.hpp"
#include "ops/indexing/subtensor.hpp"

namespace rw {

namespace {

const std::vector<std::int64_t>& ints(const Props& p, std::size_t i) {
  return std::get<std::vector<std::int64_t>>(p[i].value);
}

ParamSpec index_param() {
  return {"index", ParamKind::Ints, std::nullopt, false,
          "one entry per indexed axis: `i` (-2) an integer index from the next input, -3 - mask "
          "a slice whose bounds present (mask bits: 1 start, 2 stop, 4 step) are the next inputs"};
}

ParamSpec inplace_param() {
  return {"inplace", ParamKind::Bool, PropValue{false}, false, "write into the first input"};
}

}  // namespace

void register_indexing(OpRegistry& r) {
  r.add({.name = "subtensor",
         .doc = "x[index…]: integer indices and slices whose bounds are inputs; a view",
         .params = {index_param()},
         .min_inputs = 1,
         .max_inputs = -1,
         .factory = [](const Props& p) -> OpPtr { return std::make_shared<Subtensor>(ints(p, 0)); }});
  for (bool set : {false, true}) {
    r.add({.name = set ? "set_subtensor" : "inc_subtensor",
           .doc = set ? "x with x[index…] replaced by y" : "x with y added to x[index…]",
           .params = {index_param(), inplace_param()},
           .min_inputs = 2,
           .max_inputs = -1,
           .factory = [set](const Props& p) -> OpPtr {
             return std::make_shared<IncSubtensor>(ints(p, 0), set, std::get<bool>(p[1].value));
           }});
  }
  r.add({.name = "advanced_subtensor",
         .doc = "the slices of x at integer indices along `axis` (NumPy's take)",
         .params = {{"axis", ParamKind::Int, PropValue{std::int64_t{0}}, false, "the axis"}},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<AdvancedSubtensor>(std::get<std::int64_t>(p[0].value));
         }});
  r.add_alias("take", "advanced_subtensor");
  for (bool set : {false, true}) {
    r.add({.name = set ? "advanced_set_subtensor" : "advanced_inc_subtensor",
           .doc = set ? "x with the slices at integer indices along `axis` replaced by y"
                      : "x with y added at integer indices along `axis` (repeats add again)",
           .params = {{"axis", ParamKind::Int, PropValue{std::int64_t{0}}, false, "the axis"},
                      inplace_param()},
           .min_inputs = 3,
           .max_inputs = 3,
           .factory = [set](const Props& p) -> OpPtr {
             return std::make_shared<AdvancedIncSubtensor>(std::get<std::int64_t>(p[0].value), set,
                                                           std::get<bool>(p[1].value));
           }});
  }
}

}  // namespace rw
