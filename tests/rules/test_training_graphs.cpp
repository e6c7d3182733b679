// The seven training graphs of ../shared/bench/training (graph files in
// tests/rules/graphs/training), each compiled with its gradients: in the
// default mode no more nodes than PyTensor 2.34 ends with, the loss and every
// gradient finite at ordinary inputs and at logits around ±1000, and equal to
// the same loss written in a stable form at ordinary inputs; in the strict
// mode equal to the unrewritten graph at ordinary inputs.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "rw/rw.hpp"

namespace {

using rw::Tensor;
using rw::Var;

/// One training graph: its file, PyTensor's node count, the parameters the
/// gradient is taken for, the loss in a stable form built from the same
/// inputs, and the pre-activations of its layers (to scale them).
struct TrainingCase {
  std::string name;
  std::size_t pytensor_nodes;
  std::vector<std::string> params;
  /// The loss written stably (softplus for log-sigmoid, log_softmax, the
  /// max-shifted logsumexp), from the graph's inputs by name.
  std::function<Var(const std::function<Var(const std::string&)>&)> stable;
  /// Each layer: the parameters scaled together and the pre-activation they
  /// produce, given the inputs by name (layer k sees layer k-1 already scaled).
  struct Layer {
    std::vector<std::string> params;
    std::function<Var(const std::function<Var(const std::string&)>&)> logits;
  };
  std::vector<Layer> layers;
};

using Lookup = std::function<Var(const std::string&)>;

Var row(const Var& b) { return rw::dimshuffle(b, {-1, 0}); }

Var logreg_logits(const Lookup& v) { return rw::dot(v("X"), v("w")) + v("b"); }

/// mean(y * softplus(-z) + (1 - y) * softplus(z)): the logistic loss.
Var logreg_stable(const Lookup& v) {
  const Var z = logreg_logits(v);
  const Var y = v("y");
  return rw::mean(y * rw::softplus(-z) + (1.0 - y) * rw::softplus(z));
}

Var hidden_tanh(const Lookup& v) {
  return rw::tanh(rw::dot(v("X"), v("W1")) + row(v("b1")));
}
Var hidden_relu(const Lookup& v) {
  return rw::maximum(rw::dot(v("X"), v("W1")) + row(v("b1")), 0.0);
}

const std::vector<TrainingCase>& cases() {
  using Layer = TrainingCase::Layer;
  static const std::vector<TrainingCase> all = {
      {"logreg_sigmoid", 19, {"w", "b"}, logreg_stable, {Layer{{"w", "b"}, logreg_logits}}},
      {"logreg_logsigmoid", 19, {"w", "b"}, logreg_stable, {Layer{{"w", "b"}, logreg_logits}}},
      {"logreg_explicit", 19, {"w", "b"}, logreg_stable, {Layer{{"w", "b"}, logreg_logits}}},
      {"softmax_xent",
       21,
       {"W", "b"},
       [](const Lookup& v) {
         const Var z = rw::dot(v("X"), v("W")) + row(v("b"));
         return -rw::mean(rw::sum(v("Y") * rw::log_softmax(z, -1), {1}));
       },
       {Layer{{"W", "b"}, [](const Lookup& v) { return rw::dot(v("X"), v("W")) + row(v("b")); }}}},
      {"mlp_tanh_sigmoid",
       39,
       {"W1", "b1", "W2", "b2"},
       [](const Lookup& v) {
         const Var o = rw::sigmoid(rw::dot(hidden_tanh(v), v("W2")) + row(v("b2")));
         return rw::mean(rw::sqr(o - v("Y")));
       },
       {Layer{{"W1", "b1"},
              [](const Lookup& v) { return rw::dot(v("X"), v("W1")) + row(v("b1")); }},
        Layer{{"W2", "b2"},
              [](const Lookup& v) { return rw::dot(hidden_tanh(v), v("W2")) + row(v("b2")); }}}},
      {"logsumexp",
       18,
       {"w"},
       [](const Lookup& v) {
         const Var z = rw::dot(v("X"), v("w"));
         const Var m = rw::disconnected_grad(rw::max(z));
         return rw::log(rw::sum(rw::exp(z - m))) + m;
       },
       {Layer{{"w"}, [](const Lookup& v) { return rw::dot(v("X"), v("w")); }}}},
      {"relu_mlp_l2",
       41,
       {"W1", "b1", "W2", "b2"},
       [](const Lookup& v) {
         const Var o = rw::dot(hidden_relu(v), v("W2")) + row(v("b2"));
         return rw::mean(rw::sqr(o - v("Y"))) +
                0.01 * (rw::sum(rw::sqr(v("W1"))) + rw::sum(rw::sqr(v("W2"))));
       },
       {Layer{{"W1", "b1"},
              [](const Lookup& v) { return rw::dot(v("X"), v("W1")) + row(v("b1")); }},
        Layer{{"W2", "b2"},
              [](const Lookup& v) { return rw::dot(hidden_relu(v), v("W2")) + row(v("b2")); }}}},
  };
  return all;
}

/// A graph file's inputs by name.
struct Loaded {
  rw::dsl::GraphFile file;
  Var input(const std::string& name) const {
    for (const Var& v : file.inputs)
      if (v->name() == name) return v;
    FAIL("no input `" << name << "`");
    return {};
  }
  std::size_t index(const std::string& name) const {
    for (std::size_t k = 0; k < file.inputs.size(); ++k)
      if (file.inputs[k]->name() == name) return k;
    FAIL("no input `" << name << "`");
    return 0;
  }
};

Loaded load(const std::string& name) {
  return {rw::load_graph_file(std::string(RW_SOURCE_DIR) + "/tests/rules/graphs/training/" +
                              name + ".graph")};
}

/// The loss followed by its gradient for each parameter.
std::vector<Var> loss_and_grads(const Loaded& g, const Var& loss,
                                const std::vector<std::string>& params) {
  std::vector<Var> wrt;
  for (const std::string& p : params) wrt.push_back(g.input(p));
  std::vector<Var> out{loss};
  for (const Var& d : rw::grad(loss, wrt)) out.push_back(d);
  return out;
}

/// Data and parameters drawn from normal(0, 1); y in {0, 1}, Y one-hot rows.
std::vector<Tensor> ordinary_args(const Loaded& g, std::uint64_t seed) {
  rw::Rng rng(seed);
  std::vector<Tensor> args;
  for (const Var& v : g.file.inputs) {
    const auto& shape = v->tensor_type()->shape();
    const std::vector<std::int64_t> dims(shape.begin(), shape.end());
    if (v->name() == "y") {
      args.push_back(rng.integers(dims, 0, 2).astype(rw::DType::Float64));
    } else if (v->name() == "Y") {
      Tensor t = Tensor::zeros(dims);
      const Tensor hot = rng.integers({dims[0]}, 0, dims[1]);
      for (std::int64_t r = 0; r < dims[0]; ++r)
        t.data<double>()[r * dims[1] + hot.data<std::int64_t>()[r]] = 1.0;
      args.push_back(t);
    } else {
      args.push_back(rng.normal(dims, 0.0, 1.0, rw::DType::Float64));
    }
  }
  return args;
}

double stddev(const Tensor& t) {
  const Tensor c = t.contiguous();
  const double* p = c.data<double>();
  const auto n = static_cast<double>(c.size());
  double mean = 0, sq = 0;
  for (std::int64_t k = 0; k < c.size(); ++k) mean += p[k];
  mean /= n;
  for (std::int64_t k = 0; k < c.size(); ++k) sq += (p[k] - mean) * (p[k] - mean);
  return std::sqrt(sq / n);
}

/// The ordinary arguments with each layer's parameters scaled by one factor
/// so that its pre-activation has standard deviation 1000.
std::vector<Tensor> extreme_args(const Loaded& g, const TrainingCase& c,
                                 std::vector<Tensor> args) {
  const Lookup by_name = [&](const std::string& n) { return g.input(n); };
  const std::vector<rw::In> inputs(g.file.inputs.begin(), g.file.inputs.end());
  for (const TrainingCase::Layer& layer : c.layers) {
    auto f = rw::function(inputs, {layer.logits(by_name)},
                          {.on_unused_input = rw::UnusedInput::Ignore},
                          rw::Mode::none(rw::standard_db()));
    const double factor = 1000.0 / stddev(f.call(args)[0]);
    for (const std::string& p : layer.params) {
      Tensor t = args[g.index(p)].copy();
      for (std::int64_t k = 0; k < t.size(); ++k) t.data<double>()[k] *= factor;
      args[g.index(p)] = t;
    }
  }
  return args;
}

bool all_finite(const Tensor& t) {
  const Tensor c = t.contiguous();
  for (std::int64_t k = 0; k < c.size(); ++k)
    if (!std::isfinite(c.data<double>()[k])) return false;
  return true;
}

bool close(const Tensor& a, const Tensor& b, double rtol) {
  return a.shape() == b.shape() && rw::allclose(a, b, rtol, 1e-12);
}

}  // namespace

TEST_CASE("training graphs: the default mode is finite, stable and no larger than PyTensor's",
          "[rules][training]") {
  for (const TrainingCase& c : cases()) {
    DYNAMIC_SECTION(c.name) {
      const Loaded g = load(c.name);
      const std::vector<rw::In> inputs(g.file.inputs.begin(), g.file.inputs.end());
      const auto outputs = loss_and_grads(g, g.file.outputs.at(0), c.params);
      auto f = rw::function(inputs, outputs);
      INFO(rw::to_infix(f.fgraph().outputs()[0]));
      CHECK(f.fgraph().num_nodes() <= c.pytensor_nodes);

      const Lookup by_name = [&](const std::string& n) { return g.input(n); };
      auto stable = rw::function(inputs, loss_and_grads(g, c.stable(by_name), c.params), {},
                                 rw::Mode::none(rw::standard_db()));
      for (std::uint64_t seed : {1, 2, 3}) {
        const auto args = ordinary_args(g, seed);
        const auto got = f.call(args);
        const auto want = stable.call(args);
        for (std::size_t k = 0; k < got.size(); ++k) {
          INFO("ordinary inputs, seed " << seed << ", output " << k);
          CHECK(all_finite(got[k]));
          CHECK(close(got[k], want[k], 1e-7));
        }
        const auto big = extreme_args(g, c, args);
        const auto got_big = f.call(big);
        for (std::size_t k = 0; k < got_big.size(); ++k) {
          INFO("extreme inputs, seed " << seed << ", output " << k << ": "
                                       << got_big[k].to_string());
          CHECK(all_finite(got_big[k]));
        }
      }
    }
  }
}

TEST_CASE("training graphs: the strict mode equals the unrewritten graph", "[rules][training]") {
  for (const TrainingCase& c : cases()) {
    DYNAMIC_SECTION(c.name) {
      const Loaded g = load(c.name);
      const std::vector<rw::In> inputs(g.file.inputs.begin(), g.file.inputs.end());
      const auto outputs = loss_and_grads(g, g.file.outputs.at(0), c.params);
      auto strict = rw::function(inputs, outputs, {}, rw::default_mode().strict());
      auto plain = rw::function(inputs, outputs, {}, rw::Mode::none(rw::standard_db()));
      for (std::uint64_t seed : {1, 2}) {
        const auto args = ordinary_args(g, seed);
        const auto got = strict.call(args);
        const auto want = plain.call(args);
        for (std::size_t k = 0; k < got.size(); ++k) {
          INFO("seed " << seed << ", output " << k);
          CHECK(close(got[k], want[k], 1e-9));
        }
      }
    }
  }
}
