// DebugMode's per-node checks.
#include "engine/compile/detail/debug_check.hpp"

#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "engine/compile/detail/function_core.hpp"
#include "engine/compile/detail/program.hpp"
#include "engine/compile/errors.hpp"
#include "engine/compile/shared.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/type.hpp"

namespace rw::detail {

namespace {

thread_local int ignore_flags_depth = 0;

bool in_map(const IoMap& map, std::size_t out, std::size_t in) {
  for (const auto& [o, i] : map)
    if (o == out && i == in) return true;
  return false;
}

bool destroys(const IoMap& map, std::size_t in) {
  for (const auto& [o, i] : map)
    if (i == in) return true;
  return false;
}

/// A copy of `t` whose last axis has stride 2 (every other element of a
/// buffer twice as long), or a plain copy when there is no axis to stride.
Tensor strided_copy(const Tensor& t) {
  if (t.ndim() == 0 || t.size() == 0) return t.copy();
  Shape wide = t.shape();
  const std::int64_t last = t.ndim() - 1;
  wide[static_cast<std::size_t>(last)] *= 2;
  Tensor buffer = Tensor::zeros(wide, t.dtype());
  Tensor view = buffer.slice(last, 0, wide[static_cast<std::size_t>(last)], 2);
  view.assign(t);
  return view;
}

std::string input_label(const Apply& node, std::size_t c) {
  return fmt::format("input {} ({})", c, describe(*node.input(c)));
}

}  // namespace

IgnoreEnvironmentFlags::IgnoreEnvironmentFlags() { ++ignore_flags_depth; }
IgnoreEnvironmentFlags::~IgnoreEnvironmentFlags() { --ignore_flags_depth; }
bool IgnoreEnvironmentFlags::active() { return ignore_flags_depth > 0; }

DebugChecker::DebugChecker(const Program& program, DebugMode mode)
    : program_(&program), mode_(std::move(mode)), shapes_(program.steps.size()) {
  if (!mode_.check_shapes) return;
  const IgnoreEnvironmentFlags plain;
  const auto i64 = TensorType::make(DType::Int64, {});
  for (std::size_t k = 0; k < program.steps.size(); ++k) {
    const Apply& node = *program.steps[k].node;
    ShapeFunction sf;
    std::vector<In> args;
    std::unordered_map<const Variable*, std::size_t> given;
    for (std::size_t i = 0; i < node.num_inputs(); ++i) {
      const Var& v = node.input(i);
      if (v->is_constant() || as_shared(v) || !given.emplace(v.get(), i).second) continue;
      args.emplace_back(v);
      sf.value_inputs.push_back(i);
    }
    std::vector<ShapeVars> in_shapes;
    for (std::size_t i = 0; i < node.num_inputs(); ++i) {
      ShapeVars s;
      if (const TensorType* t = node.input(i)->tensor_type())
        for (std::size_t a = 0; a < t->ndim(); ++a) {
          s.push_back(Variable::make(i64, fmt::format("shape_{}_{}", i, a)));
          args.emplace_back(s.back());
        }
      in_shapes.push_back(std::move(s));
    }
    std::vector<ShapeVars> inferred;
    try {
      inferred = node.op().infer_shape(node, in_shapes);
    } catch (const NotImplementedError&) {
      continue;  // the Op does not say: nothing to check
    }
    std::vector<Var> flat;
    for (std::size_t o = 0; o < inferred.size() && o < node.num_outputs(); ++o) {
      if (!node.output_var(o).tensor_type()) {
        sf.ranks.push_back(0);
        continue;
      }
      sf.ranks.push_back(inferred[o].size());
      flat.insert(flat.end(), inferred[o].begin(), inferred[o].end());
    }
    if (inferred.size() != node.num_outputs())
      throw DebugModeError(fmt::format(
          "DebugMode: {} in {}: infer_shape gives {} shapes for {} outputs",
          node_label(program, k), program.label, inferred.size(), node.num_outputs()));
    sf.fn = FunctionBase(std::move(args), std::move(flat),
                         {.name = fmt::format("infer_shape of node {}", k + 1),
                          .on_unused_input = UnusedInput::Ignore});
    shapes_[k] = std::move(sf);
  }
}

void DebugChecker::fail(std::size_t k, const std::string& finding) const {
  throw DebugModeError(
      fmt::format("DebugMode: {} in {}: {}", node_label(*program_, k), program_->label, finding));
}

void DebugChecker::run_node(std::size_t k, std::span<const Tensor> in,
                            std::span<Tensor> out) const {
  const Program& p = *program_;
  const Step& step = p.steps[k];
  if (!mode_.check_io_maps && !mode_.check_shapes && !mode_.check_repeat && !mode_.check_strides) {
    step.op->debug_perform(*step.node, in, out);
    return;
  }
  std::vector<Tensor> before(in.size());
  for (std::size_t c = 0; c < in.size(); ++c)
    if (in[c].valid()) before[c] = in[c].copy();

  step.op->debug_perform(*step.node, in, out);

  // Missing or mistyped outputs are the VM's to report.
  for (std::uint32_t j = 0; j < step.n_out; ++j)
    if (!p.passes(p.out_checks[step.out_begin + j - p.first_node_slot], out[j])) return;

  if (mode_.check_io_maps) check_io_maps(k, before, in, out);
  if (mode_.check_shapes && shapes_[k]) check_shapes(k, before, out);
  if (mode_.check_repeat) check_again(k, before, out, /*strided=*/false);
  if (mode_.check_strides) check_again(k, before, out, /*strided=*/true);
}

void DebugChecker::check_io_maps(std::size_t k, std::span<const Tensor> before,
                                 std::span<const Tensor> in, std::span<Tensor> out) const {
  const Apply& node = *program_->steps[k].node;
  const IoMap& destroy = node.op().cached_destroy_map();
  const IoMap& view = node.op().cached_view_map();
  for (std::size_t c = 0; c < in.size(); ++c) {
    if (!in[c].valid() || destroys(destroy, c)) continue;
    // An input given twice (x + x) is allowed to change only when one of
    // its positions is destroyed.
    bool destroyed_elsewhere = false;
    for (std::size_t d = 0; d < in.size(); ++d)
      destroyed_elsewhere |= d != c && destroys(destroy, d) && node.input(d) == node.input(c);
    if (destroyed_elsewhere) continue;
    if (auto why = describe_difference(in[c], before[c], Tolerance{0, 0}))
      fail(k, fmt::format("{} was overwritten, which the Op's destroy_map does not declare: {}",
                          input_label(node, c), *why));
  }
  for (std::size_t j = 0; j < out.size(); ++j)
    for (std::size_t c = 0; c < in.size(); ++c) {
      if (!in[c].valid() || out[j].size() == 0 || !out[j].shares_storage(in[c])) continue;
      if (in_map(view, j, c) || in_map(destroy, j, c)) continue;
      fail(k, fmt::format("output {} shares memory with {}, which neither the Op's view_map nor "
                          "its destroy_map declares",
                          j, input_label(node, c)));
    }
  // Two outputs may share memory only as views of one input (split's pieces).
  auto aliased_input = [&](std::size_t j, std::size_t c) {
    return in_map(view, j, c) || in_map(destroy, j, c);
  };
  for (std::size_t j = 0; j < out.size(); ++j)
    for (std::size_t i = 0; i < j; ++i) {
      if (out[j].size() == 0 || !out[j].shares_storage(out[i])) continue;
      bool common = false;
      for (std::size_t c = 0; c < in.size(); ++c)
        common |= aliased_input(i, c) && aliased_input(j, c) && out[j].shares_storage(in[c]);
      if (!common)
        fail(k, fmt::format("outputs {} and {} share memory, which no input they are declared "
                            "views of explains",
                            i, j));
    }
}

void DebugChecker::check_shapes(std::size_t k, std::span<const Tensor> before,
                                std::span<Tensor> out) const {
  const ShapeFunction& sf = *shapes_[k];
  const Apply& node = *program_->steps[k].node;
  std::vector<Tensor> args;
  for (std::size_t i : sf.value_inputs) args.push_back(before[i]);
  for (std::size_t i = 0; i < node.num_inputs(); ++i)
    if (node.input(i)->tensor_type())
      for (std::int64_t a = 0; a < before[i].ndim(); ++a)
        args.push_back(Tensor::scalar<std::int64_t>(before[i].shape()[static_cast<std::size_t>(a)]));
  std::vector<Tensor> dims(sf.fn.num_outputs());
  try {
    sf.fn.call_into(args, dims.data());
  } catch (const std::exception& e) {
    fail(k, fmt::format("the shapes its infer_shape gives could not be computed: {}", e.what()));
  }
  std::size_t at = 0;
  for (std::size_t o = 0; o < sf.ranks.size(); ++o) {
    if (!node.output_var(o).tensor_type()) continue;
    Shape promised;
    for (std::size_t a = 0; a < sf.ranks[o]; ++a) promised.push_back(dims[at++].item<std::int64_t>());
    if (promised != out[o].shape())
      fail(k, fmt::format("output {} has shape {}, but the Op's infer_shape gives {}", o,
                          shape_to_string(out[o].shape()), shape_to_string(promised)));
  }
}

void DebugChecker::check_again(std::size_t k, std::span<const Tensor> before,
                               std::span<Tensor> out, bool strided) const {
  const Step& step = program_->steps[k];
  std::vector<Tensor> again_in(before.size());
  for (std::size_t c = 0; c < before.size(); ++c) {
    if (!before[c].valid()) continue;
    again_in[c] = strided && step.node->input(c)->tensor_type() ? strided_copy(before[c])
                                                                : before[c].copy();
  }
  std::vector<Tensor> again(step.n_out);
  try {
    step.op->debug_perform(*step.node, again_in, again);
  } catch (const std::exception& e) {
    fail(k, fmt::format("{} failed: {}",
                        strided ? "running it on non-contiguous copies of its inputs"
                                : "running it again on copies of its inputs",
                        e.what()));
  }
  for (std::size_t j = 0; j < step.n_out; ++j) {
    if (!again[j].valid())
      fail(k, fmt::format("run again{}, it left output {} empty",
                          strided ? " on non-contiguous inputs" : "", j));
    if (auto why = describe_difference(again[j], out[j], mode_.tolerance))
      fail(k, fmt::format("output {} is another value when the node runs {}: {} (first run)", j,
                          strided ? "on non-contiguous copies of its inputs"
                                  : "again on copies of its inputs",
                          *why));
  }
}

}  // namespace rw::detail
