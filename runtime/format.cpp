// Tensor::to_string: NumPy's str() of an array — element formats chosen
// from the printed values, lines wrapped at 75 columns, arrays of more than
// 1000 elements summarised with `...` (3 items kept at each end of an axis).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "runtime/tensor.hpp"

namespace rw {

namespace {

constexpr std::int64_t kThreshold = 1000;  // NumPy's print threshold
constexpr std::int64_t kEdgeItems = 3;
constexpr std::size_t kLineWidth = 75;

// The shortest round-tripping decimal digits of a finite value: value =
// 0.D × 10^point (D without leading or trailing zeros; empty for zero).
struct Shortest {
  std::string digits;
  int point = 0;
};

template <class T> Shortest shortest(T v) {
  std::string s = fmt::format("{}", std::fabs(v));
  int exp = 0;
  if (const auto e = s.find('e'); e != std::string::npos) {
    exp = std::stoi(s.substr(e + 1));
    s.resize(e);
  }
  const auto dot = s.find('.');
  int int_len = static_cast<int>(dot == std::string::npos ? s.size() : dot);
  if (dot != std::string::npos) s.erase(dot, 1);
  const auto lead = s.find_first_not_of('0');
  Shortest out;
  if (lead == std::string::npos) return out;  // zero
  out.digits = s.substr(lead);
  out.digits.erase(out.digits.find_last_not_of('0') + 1);
  out.point = int_len - static_cast<int>(lead) + exp;
  return out;
}

// Removes trailing zeros after the decimal point, keeping the point ("2." ).
std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s + ".";
  s.erase(s.find_last_not_of('0') + 1);
  return s;
}

// NumPy's floating format in its default mode ('maxprec', precision 8).
template <class T> class FloatFormat {
 public:
  explicit FloatFormat(const std::vector<T>& data) {
    std::vector<T> finite;
    bool any_negative_inf = false, any_nonfinite = false;
    for (T v : data) {
      if (std::isfinite(v)) finite.push_back(v);
      else {
        any_nonfinite = true;
        if (std::isinf(v) && v < 0) any_negative_inf = true;
      }
    }
    T lo = 0, hi = 0;
    bool have = false;
    for (T v : finite) {
      if (v == 0) continue;
      const T a = std::fabs(v);
      lo = have ? std::min(lo, a) : a;
      hi = have ? std::max(hi, a) : a;
      have = true;
    }
    exp_ = have && (hi >= T(1e8) || lo < T(0.0001) || static_cast<double>(hi) / lo > 1000.0);
    if (finite.empty()) {
      pad_left_ = pad_right_ = 0;
    } else if (exp_) {
      for (T v : finite) {
        const Shortest d = shortest(v);
        int frac = std::max<int>(0, static_cast<int>(d.digits.size()) - 1);
        if (frac > 8) {
          std::string m = fmt::format("{:.8e}", v);
          m.resize(m.find('e'));
          m = trim_zeros(m);
          frac = static_cast<int>(m.size() - m.find('.') - 1);
        }
        precision_ = std::max(precision_, frac);
      }
      for (T v : finite) {
        const std::string s = fmt::format("{:.{}e}", v, precision_);
        exp_digits_ = std::max(exp_digits_, static_cast<int>(s.size() - s.find('e') - 2));
        pad_left_ = std::max(pad_left_, v < 0 || std::signbit(v) ? 2 : 1);
      }
      pad_right_ = exp_digits_ + 2 + precision_;
    } else {
      for (T v : finite) {
        const std::string s = positional(v);
        const auto dot = s.find('.');
        pad_left_ = std::max(pad_left_, static_cast<int>(dot));
        pad_right_ = std::max(pad_right_, static_cast<int>(s.size() - dot - 1));
      }
    }
    if (any_nonfinite) {
      const int offset = pad_right_ + 1;
      pad_left_ = std::max({pad_left_, 3 - offset, 3 + (any_negative_inf ? 1 : 0) - offset});
    }
  }

  std::string operator()(T v) const {
    if (!std::isfinite(v)) {
      const std::string s = std::isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
      const int width = pad_left_ + pad_right_ + 1;
      return std::string(static_cast<std::size_t>(std::max(0, width - static_cast<int>(s.size()))),
                         ' ') +
             s;
    }
    std::string s;
    if (exp_) {
      s = fmt::format("{:.{}e}", v, precision_);
      const auto e = s.find('e');
      std::string mantissa = s.substr(0, e), digits = s.substr(e + 2);
      if (precision_ == 0) mantissa += '.';
      while (static_cast<int>(digits.size()) < exp_digits_) digits.insert(0, "0");
      s = mantissa + "e" + s[e + 1] + digits;
      const int int_len = static_cast<int>(mantissa.find('.'));
      return std::string(static_cast<std::size_t>(std::max(0, pad_left_ - int_len)), ' ') + s;
    }
    s = positional(v);
    const auto dot = static_cast<int>(s.find('.'));
    const int frac = static_cast<int>(s.size()) - dot - 1;
    return std::string(static_cast<std::size_t>(std::max(0, pad_left_ - dot)), ' ') + s +
           std::string(static_cast<std::size_t>(std::max(0, pad_right_ - frac)), ' ');
  }

 private:
  // Shortest digits in positional notation, rounded at 8 fractional digits.
  static std::string positional(T v) {
    const Shortest d = shortest(v);
    const int frac = std::max(0, static_cast<int>(d.digits.size()) - d.point);
    if (frac > 8) return trim_zeros(fmt::format("{:.8f}", v));
    return trim_zeros(fmt::format("{:.{}f}", v, frac));
  }

  bool exp_ = false;
  int precision_ = 0;
  int exp_digits_ = 2;
  int pad_left_ = 0;
  int pad_right_ = 0;
};

// A 0-d tensor prints as its scalar does in Python.
template <class T> std::string scalar_repr(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    std::string s = fmt::format("{}", v);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
  } else {
    return std::to_string(static_cast<long long>(v));
  }
}

// Calls f(index) for each index printed along an axis of length n.
std::vector<std::int64_t> printed(std::int64_t n, bool summarise) {
  std::vector<std::int64_t> idx;
  if (summarise && n > 2 * kEdgeItems) {
    for (std::int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    for (std::int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
  } else {
    for (std::int64_t i = 0; i < n; ++i) idx.push_back(i);
  }
  return idx;
}

void extend_line(std::string& s, std::string& line, const std::string& word, std::size_t width,
                 const std::string& prefix) {
  // NumPy does not wrap a line that holds nothing but its indent.
  if (line.size() + word.size() > width && line.size() > prefix.size()) {
    s += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
    line = prefix;
  }
  line += word;
}

template <class T> std::string format_tensor(const Tensor& t) {
  const Shape& shape = t.shape();
  const std::size_t nd = shape.size();
  const T* base = reinterpret_cast<const T*>(t.storage()->data()) + t.offset();
  auto element = [&](const std::vector<std::int64_t>& idx) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < nd; ++d) off += idx[d] * t.strides()[d];
    return base[off];
  };
  if (nd == 0) return scalar_repr(*base);
  if (t.size() == 0) return "[]";
  const bool summarise = t.size() > kThreshold;

  // The printed elements decide the format.
  std::vector<std::vector<std::int64_t>> axes;
  for (std::size_t d = 0; d < nd; ++d) axes.push_back(printed(shape[d], summarise));
  std::vector<T> data;
  std::vector<std::int64_t> idx(nd, 0);
  std::function<void(std::size_t)> collect = [&](std::size_t d) {
    if (d == nd) {
      data.push_back(element(idx));
      return;
    }
    for (std::int64_t i : axes[d]) {
      idx[d] = i;
      collect(d + 1);
    }
  };
  collect(0);

  std::function<std::string(T)> format;
  if constexpr (std::is_same_v<T, bool>) {
    format = [](T v) { return std::string(v ? " True" : "False"); };
  } else if constexpr (std::is_floating_point_v<T>) {
    format = FloatFormat<T>(data);
  } else {
    std::size_t width = 0;
    for (T v : data) width = std::max(width, std::to_string(static_cast<long long>(v)).size());
    format = [width](T v) { return fmt::format("{:>{}}", static_cast<long long>(v), width); };
  }

  std::function<std::string(std::size_t, const std::string&, std::size_t)> rec =
      [&](std::size_t axis, const std::string& hanging, std::size_t width) -> std::string {
    if (axis == nd) return format(element(idx));
    const std::string next_hanging = hanging + " ";
    const std::size_t next_width = width - 1;
    const std::int64_t n = shape[axis];
    const bool summary = summarise && 2 * kEdgeItems < n;
    const std::int64_t leading = summary ? kEdgeItems : 0, trailing = summary ? kEdgeItems : n;
    std::string s;
    auto item = [&](std::int64_t i) {
      idx[axis] = i;
      return rec(axis + 1, next_hanging, next_width);
    };
    if (axis + 1 == nd) {
      const std::size_t elem_width = width - 1;
      std::string line = hanging;
      for (std::int64_t i = 0; i < leading; ++i) {
        extend_line(s, line, item(i), elem_width, hanging);
        line += " ";
      }
      if (summary) {
        extend_line(s, line, "...", elem_width, hanging);
        line += " ";
      }
      for (std::int64_t i = trailing; i > 1; --i) {
        extend_line(s, line, item(n - i), elem_width, hanging);
        line += " ";
      }
      extend_line(s, line, item(n - 1), elem_width, hanging);
      s += line;
    } else {
      const std::string sep(nd - axis - 1, '\n');
      for (std::int64_t i = 0; i < leading; ++i) s += hanging + item(i) + sep;
      if (summary) s += hanging + "..." + sep;
      for (std::int64_t i = trailing; i > 1; --i) s += hanging + item(n - i) + sep;
      s += hanging + item(n - 1);
    }
    return "[" + s.substr(hanging.size()) + "]";
  };
  return rec(0, " ", kLineWidth);
}

}  // namespace

std::string Tensor::to_string() const {
  if (!valid()) return "<null tensor>";
  return visit_dtype(dtype_, [&]<class T>() { return format_tensor<T>(*this); });
}

}  // namespace rw
