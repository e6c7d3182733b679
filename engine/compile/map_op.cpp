// MapOp: construction, make_node, the loop, and shapes.
#include "engine/compile/map_op.hpp"

#include <fmt/format.h>

#include "engine/compile/shared.hpp"
#include "engine/grad/grad.hpp"
#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/graph/type.hpp"
#include "ops/api.hpp"
#include "ops/errors.hpp"

namespace rw {

namespace {

bool is_index_type(const Type& t) {
  const TensorType* tt = dynamic_cast<const TensorType*>(&t);
  return tt && tt->dtype() == DType::Int64 && tt->ndim() == 0;
}

}  // namespace

MapOp::MapOp(std::shared_ptr<const OpFromGraph> body)
    : body_(std::move(body)), name_(body_ ? std::string(body_->name()) : std::string()) {
  if (!body_) throw TypeError("`map`: the body is null");
  if (name_.ends_with("_step")) name_.resize(name_.size() - 5);
  if (body_->num_explicit_inputs() == 0 || !is_index_type(*body_->inner_inputs()[0]->type()))
    throw TypeError(fmt::format("`{}`: the body's first input must be the step index (i64[]), not {}",
                                name_,
                                body_->num_explicit_inputs() == 0
                                    ? std::string("missing")
                                    : "`" + body_->inner_inputs()[0]->type()->to_string() + "`"));
  const std::vector<Var> own(body_->inner_inputs().begin(), body_->inner_inputs().end());
  body_node_ = body_->make_node(own);
}

ApplyRef MapOp::make_node(std::span<const Var> inputs) const {
  const std::size_t m = num_rows();
  const std::size_t explicit_args = body_->num_explicit_inputs() - 1;
  const std::size_t shared = body_->shared_inputs().size();
  std::vector<Var> in(inputs.begin(), inputs.end());
  if (in.size() == 1 + m + explicit_args && shared)
    in.insert(in.end(), body_->shared_inputs().begin(), body_->shared_inputs().end());
  if (in.size() != 1 + m + explicit_args + shared)
    throw TypeError(fmt::format("`{}` takes {} inputs (n, {} row shape{}, {} argument{}), got {}",
                                name_, 1 + m + explicit_args, m, m == 1 ? "" : "s", explicit_args,
                                explicit_args == 1 ? "" : "s", inputs.size()));
  for (std::size_t i = 0; i < in.size(); ++i)
    if (!in[i]) throw TypeError(fmt::format("`{}`: input {} is null", name_, i));
  if (!is_index_type(*in[0]->type()))
    throw TypeError(fmt::format("`{}`: the number of steps {} has type `{}`; it must be i64[]",
                                name_, describe(*in[0]), in[0]->type()->to_string()));
  std::vector<TypePtr> types;
  for (std::size_t j = 0; j < m; ++j) {
    const Var& row = body_->inner_outputs()[j];
    const TensorType* rt = row->tensor_type();
    const TensorType* st = in[1 + j]->tensor_type();
    if (!rt) throw TypeError(fmt::format("`{}`: output {} of the body is not a tensor", name_, j));
    if (!st || st->dtype() != DType::Int64 || st->ndim() != 1 ||
        (st->shape()[0] != kUnknownDim && st->shape()[0] != static_cast<std::int64_t>(rt->ndim())))
      throw TypeError(fmt::format(
          "`{}`: the shape of row {} must be an i64 vector of {} entr{}, not {} of type `{}`",
          name_, j, rt->ndim(), rt->ndim() == 1 ? "y" : "ies", describe(*in[1 + j]),
          in[1 + j]->type()->to_string()));
    StaticShape shape{kUnknownDim};
    if (const Constant* c = in[0]->as_constant()) shape[0] = c->value().item<std::int64_t>();
    for (std::int64_t e : rt->shape()) shape.push_back(e);
    types.push_back(TensorType::make(rt->dtype(), std::move(shape)));
  }
  for (std::size_t i = 1 + m; i < in.size(); ++i) {
    const Type& want = *body_->inner_inputs()[i - m]->type();
    if (!want.is_super(*in[i]->type()))
      throw TypeError(fmt::format("`{}`: input {} ({}) has type `{}`, but the body takes `{}`", name_,
                                  i, describe(*in[i]), in[i]->type()->to_string(), want.to_string()));
  }
  return Apply::create(ptr(), in, types);
}

void MapOp::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  const std::size_t m = num_rows();
  const std::int64_t n = inputs[0].item<std::int64_t>();
  if (n < 0)
    throw ValueError(fmt::format("`{}`: the number of steps is {}; it must be at least 0", name_, n));
  std::vector<Shape> row_shapes(m);
  for (std::size_t j = 0; j < m; ++j) {
    const Tensor& s = inputs[1 + j];
    Shape out_shape{n};
    for (std::int64_t d = 0; d < s.size(); ++d) {
      const auto e = static_cast<std::int64_t>(s.at({d}));
      if (e < 0)
        throw ValueError(
            fmt::format("`{}`: the shape of row {} has extent {} on axis {}", name_, j, e, d));
      row_shapes[j].push_back(e);
      out_shape.push_back(e);
    }
    const DType dtype = body_->inner_outputs()[j]->tensor_type()->dtype();
    Tensor& o = outputs[j];
    if (!o.valid() || o.dtype() != dtype || !(o.shape() == out_shape) || !o.is_contiguous())
      o = Tensor::empty(dtype, out_shape);
  }
  std::vector<Tensor> args;
  args.reserve(inputs.size() - m);
  args.emplace_back();
  for (std::size_t i = 1 + m; i < inputs.size(); ++i) args.push_back(inputs[i]);
  std::vector<Tensor> rows(m);
  for (std::int64_t k = 0; k < n; ++k) {
    args[0] = Tensor::scalar(k);
    body_->perform(*body_node_, args, rows);
    for (std::size_t j = 0; j < m; ++j) {
      if (!(rows[j].shape() == row_shapes[j]))
        throw ValueError(fmt::format("`{}`: step {} computed row {} of shape {}, not the {} given",
                                     name_, k, j, shape_to_string(rows[j].shape()),
                                     shape_to_string(row_shapes[j])));
      outputs[j].select(0, k).assign(rows[j]);
    }
  }
}

std::vector<ShapeVars> MapOp::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  std::vector<ShapeVars> out;
  for (std::size_t j = 0; j < num_rows(); ++j) {
    ShapeVars s{node.input(0)};
    const std::size_t ndim = body_->inner_outputs()[j]->tensor_type()->ndim();
    for (std::size_t d = 0; d < ndim; ++d)
      s.push_back(subtensor(node.input(1 + j), {static_cast<std::int64_t>(d)}));
    out.push_back(std::move(s));
  }
  return out;
}

void MapOp::build_lop() const {
  // Fresh inner inputs: the step, the body's inputs after it, and one
  // gradient per output with an unknown number of rows.
  const std::size_t m = num_rows();
  const std::span<const Var> inner = body_->inner_inputs();
  Var k = Variable::make(TensorType::make(DType::Int64, {}), "k");
  std::vector<Var> args{k};
  for (std::size_t i = 1; i < inner.size(); ++i)
    args.push_back(Variable::make(inner[i]->type(), inner[i]->name()));
  std::vector<Var> grads;
  for (std::size_t j = 0; j < m; ++j) {
    const TensorType& rt = *body_->inner_outputs()[j]->tensor_type();
    StaticShape shape{kUnknownDim};
    for (std::int64_t e : rt.shape()) shape.push_back(e);
    grads.push_back(Variable::make(TensorType::make(rt.dtype(), std::move(shape)),
                                   fmt::format("g{}", j)));
  }
  const ApplyRef step = body_->make_node(args);
  std::vector<Var> row_grads;
  for (const Var& g : grads) row_grads.push_back(subtensor(g, {k}));
  const std::vector<Var> per_input = body_->L_op(*step, row_grads);

  std::vector<Var> rows, row_shapes;
  lop_index_.assign(inner.size(), -1);
  lop_marker_.assign(inner.size(), Var());
  for (std::size_t i = 1; i < inner.size(); ++i) {
    const Var& g = per_input[i];
    if (!g || is_disconnected_grad(g) || is_null_grad(g)) {
      lop_marker_[i] = g ? g : Variable::make(DisconnectedType::make());
      continue;
    }
    lop_index_[i] = static_cast<int>(rows.size());
    rows.push_back(g);
  }
  if (rows.empty()) return;
  std::vector<Var> body_inputs = args;
  body_inputs.insert(body_inputs.end(), grads.begin(), grads.end());
  OpFromGraphOptions o;
  o.name = "grad_of_" + name_ + "_step";
  o.rewrite = body_->options().rewrite;
  lop_map_ = std::make_shared<MapOp>(op_from_graph(std::move(body_inputs), rows, std::move(o)));
}

std::vector<Var> MapOp::L_op(const Apply& node, std::span<const Var> output_grads) const {
  std::call_once(lop_once_, [&] { build_lop(); });
  const std::size_t m = num_rows();
  std::vector<Var> result(node.num_inputs());
  for (std::size_t i = 0; i < 1 + m; ++i) result[i] = Variable::make(DisconnectedType::make());
  std::vector<Var> summed;
  if (lop_map_) {
    // n, the shape of each gradient's row (that of the input it is for),
    // the body's inputs, then the output gradients (zeros where there is none).
    std::vector<Var> in{node.input(0)};
    for (std::size_t i = 1; i < lop_index_.size(); ++i)
      if (lop_index_[i] >= 0) in.push_back(shape(node.input(m + i)));
    for (std::size_t i = 1 + m; i < node.num_inputs(); ++i) in.push_back(node.input(i));
    for (std::size_t j = 0; j < m; ++j) {
      const Var& g = output_grads[j];
      in.push_back(g && !is_disconnected_grad(g) && !is_null_grad(g) ? g
                                                                     : zeros_like(node.output(j)));
    }
    for (const Var& rows : lop_map_->make_node(in)->outputs()) summed.push_back(sum(rows, {0}));
  }
  for (std::size_t i = 1; i < lop_index_.size(); ++i)
    result[m + i] =
        lop_index_[i] >= 0 ? summed[static_cast<std::size_t>(lop_index_[i])] : lop_marker_[i];
  return result;
}

void MapOp::build_rop() const {
  // Fresh inner inputs: the step, the body's inputs after it, and one eval
  // point per body input after the step.
  const std::span<const Var> inner = body_->inner_inputs();
  Var k = Variable::make(TensorType::make(DType::Int64, {}), "k");
  std::vector<Var> args{k}, evals;
  for (std::size_t i = 1; i < inner.size(); ++i) {
    args.push_back(Variable::make(inner[i]->type(), inner[i]->name()));
    evals.push_back(Variable::make(inner[i]->type(), fmt::format("v{}", i)));
  }
  const ApplyRef step = body_->make_node(args);
  std::vector<Var> step_evals{Var()};  // k is an index: no eval point
  step_evals.insert(step_evals.end(), evals.begin(), evals.end());
  std::vector<Var> rows = body_->R_op(*step, step_evals);
  for (std::size_t j = 0; j < rows.size(); ++j)
    if (!rows[j]) rows[j] = zeros_like(step->output(j));
  std::vector<Var> body_inputs = args;
  body_inputs.insert(body_inputs.end(), evals.begin(), evals.end());
  OpFromGraphOptions o;
  o.name = "rop_of_" + name_ + "_step";
  o.rewrite = body_->options().rewrite;
  rop_map_ = std::make_shared<MapOp>(op_from_graph(std::move(body_inputs), rows, std::move(o)));
}

std::vector<Var> MapOp::R_op(const Apply& node, std::span<const Var> eval_points) const {
  std::call_once(rop_once_, [&] { build_rop(); });
  // Row k of each result is the body's R_op at step k: n, the rows' shapes
  // (those of the outputs), the body's inputs, then their eval points
  // (zeros where there is none).
  const std::size_t m = num_rows();
  std::vector<Var> in(node.inputs().begin(), node.inputs().end());
  for (std::size_t i = 1 + m; i < node.num_inputs(); ++i) {
    const Var e = i < eval_points.size() ? eval_points[i] : Var();
    in.push_back(e ? e : zeros_like(node.input(i)));
  }
  return rop_map_->make_node(in)->outputs();
}

std::vector<std::vector<bool>> MapOp::connection_pattern(const Apply& node) const {
  const std::size_t m = num_rows();
  std::vector<std::vector<bool>> out(node.num_inputs(), std::vector<bool>(m, false));
  const auto inner = body_->connection_pattern(*body_node_);
  for (std::size_t i = 1 + m; i < node.num_inputs(); ++i) out[i] = inner[i - m];
  return out;
}

std::vector<Var> map_steps(const Var& n, const Var& k, std::span<const Var> rows,
                           std::span<const Var> row_shapes, const std::string& name) {
  if (!k || k->owner() || k->is_constant() || !is_index_type(*k->type()))
    throw TypeError(fmt::format("`{}`: the step index must be an i64[] input variable", name));
  if (rows.size() != row_shapes.size())
    throw TypeError(fmt::format("`{}`: {} rows but {} row shapes", name, rows.size(),
                                row_shapes.size()));
  std::vector<Var> body_inputs{k};
  const Var blockers[] = {k};
  for (const Var& root : graph_inputs(rows, blockers))
    if (root != k && !root->is_constant() && !as_shared(root)) body_inputs.push_back(root);
  OpFromGraphOptions o;
  o.name = name + "_step";
  auto body = op_from_graph(body_inputs, std::vector<Var>(rows.begin(), rows.end()), std::move(o));
  auto op = std::make_shared<MapOp>(std::move(body));
  std::vector<Var> in{n};
  in.insert(in.end(), row_shapes.begin(), row_shapes.end());
  in.insert(in.end(), body_inputs.begin() + 1, body_inputs.end());
  return op->make_node(in)->outputs();
}

}  // namespace rw
