// register_shape: the shape and structure family in the registry.
#include "ops/shape/register.hpp"

#include "ops/shape/alloc.hpp"
#include "ops/shape/dimshuffle.hpp"
#include "ops/shape/gather_shape.hpp"
#include "ops/shape/join.hpp"
#include "ops/shape/reshape.hpp"
#include "ops/shape/shape_ops.hpp"

namespace rw {

namespace {

const std::vector<std::int64_t>& ints(const Props& p, std::size_t i) {
  return std::get<std::vector<std::int64_t>>(p[i].value);
}
std::int64_t int_of(const Props& p, std::size_t i) { return std::get<std::int64_t>(p[i].value); }
std::optional<std::int64_t> optional_int(const Props& p, std::size_t i) {
  if (const auto* v = std::get_if<std::int64_t>(&p[i].value)) return *v;
  return std::nullopt;
}

}  // namespace

void register_shape(OpRegistry& r) {
  r.add({.name = "dimshuffle",
         .doc = "axes reordered (result axis i is input axis order[i]), `x` a new axis of extent "
                "1, axes left out dropped (static extent 1 only); a view",
         .params = {{"order", ParamKind::Ints, std::nullopt, false,
                     "input axis per result axis, `x` (-1) for a new one"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) -> OpPtr { return std::make_shared<DimShuffle>(ints(p, 0)); }});
  r.add({.name = "shape",
         .doc = "the shape of the input as an int64 vector",
         .params = {},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<ShapeOp>();
           return op;
         }});
  r.add({.name = "shape_i",
         .doc = "the extent of axis `i` of the input, as a 0-d int64",
         .params = {{"i", ParamKind::Int, std::nullopt, false, "the axis"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) -> OpPtr { return std::make_shared<ShapeI>(int_of(p, 0)); }});
  r.add({.name = "make_vector",
         .doc = "0-d inputs gathered into a vector of `dtype`",
         .params = {{"dtype", ParamKind::DType, PropValue{DType::Int64}, false,
                     "the element dtype; each input must convert to it without loss"}},
         .min_inputs = 0,
         .max_inputs = -1,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<MakeVector>(std::get<DType>(p[0].value));
         }});
  r.add({.name = "specify_shape",
         .doc = "the input with its static shape asserted (checked at run time)",
         .params = {{"shape", ParamKind::Ints, std::nullopt, false,
                     "the extents; -1 where not specified"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<SpecifyShape>(ints(p, 0));
         }});
  r.add({.name = "reshape",
         .doc = "the elements in the shape given by the second input (one extent may be -1)",
         .params = {{"ndim", ParamKind::Int, std::nullopt, false, "the rank of the result"}},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props& p) -> OpPtr { return std::make_shared<Reshape>(int_of(p, 0)); }});
  r.add({.name = "flatten",
         .doc = "the first ndim - 1 axes kept, the others flattened into one",
         .params = {{"ndim", ParamKind::Int, PropValue{std::int64_t{1}}, false,
                     "the rank of the result"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) -> OpPtr { return std::make_shared<Flatten>(int_of(p, 0)); }});
  r.add({.name = "alloc",
         .doc = "the first input broadcast to a new tensor whose extents are the other inputs",
         .params = {},
         .min_inputs = 1,
         .max_inputs = -1,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<Alloc>();
           return op;
         }});
  r.add({.name = "alloc_empty",
         .doc = "an uninitialised tensor whose extents are the inputs (DebugMode fills it with NaN)",
         .params = {{"dtype", ParamKind::DType, PropValue{DType::Float64}, false,
                     "the dtype of the elements"}},
         .min_inputs = 0,
         .max_inputs = -1,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<AllocEmpty>(std::get<DType>(p[0].value));
         }});
  for (bool ones : {false, true}) {
    r.add({.name = ones ? "ones_like" : "zeros_like",
           .doc = ones ? "ones of the input's shape" : "zeros of the input's shape",
           .params = {{"dtype", ParamKind::DType, PropValue{std::monostate{}}, true,
                       "the dtype (none: the input's)"}},
           .min_inputs = 1,
           .max_inputs = 1,
           .factory = [ones](const Props& p) -> OpPtr {
             std::optional<DType> d;
             if (const auto* v = std::get_if<DType>(&p[0].value)) d = *v;
             return std::make_shared<FullLike>(ones, d);
           }});
  }
  r.add({.name = "join",
         .doc = "the inputs joined along an existing axis, dtypes promoted",
         .params = {{"axis", ParamKind::Int, PropValue{std::int64_t{0}}, false, "the axis"}},
         .min_inputs = 1,
         .max_inputs = -1,
         .factory = [](const Props& p) -> OpPtr { return std::make_shared<Join>(int_of(p, 0)); }});
  r.add_alias("concatenate", "join");
  r.add({.name = "split",
         .doc = "n consecutive pieces along `axis`, with the extents of the second input",
         .params = {{"n", ParamKind::Int, std::nullopt, false, "the number of pieces"},
                    {"axis", ParamKind::Int, PropValue{std::int64_t{0}}, false, "the axis"}},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<Split>(int_of(p, 0), int_of(p, 1));
         }});
  r.add({.name = "stack",
         .doc = "inputs of one shape joined along a new axis",
         .params = {{"axis", ParamKind::Int, PropValue{std::int64_t{0}}, false, "the new axis"}},
         .min_inputs = 1,
         .max_inputs = -1,
         .factory = [](const Props& p) -> OpPtr { return std::make_shared<Stack>(int_of(p, 0)); }});
  r.add({.name = "repeat",
         .doc = "each slice along `axis` repeated (a 0-d count, or one count per slice)",
         .params = {{"axis", ParamKind::Int, PropValue{std::monostate{}}, true,
                     "the axis (none: x flattened)"}},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props& p) -> OpPtr { return std::make_shared<Repeat>(optional_int(p, 0)); }});
  r.add({.name = "tile",
         .doc = "x repeated reps[a] times along each axis a as a whole",
         .params = {{"reps", ParamKind::Ints, std::nullopt, false, "the count per axis"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) -> OpPtr { return std::make_shared<Tile>(ints(p, 0)); }});
  r.add({.name = "roll",
         .doc = "x shifted by the second input along `axis`, wrapping around",
         .params = {{"axis", ParamKind::Int, PropValue{std::monostate{}}, true,
                     "the axis (none: x flattened, then reshaped back)"}},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props& p) -> OpPtr { return std::make_shared<Roll>(optional_int(p, 0)); }});
}

}  // namespace rw
