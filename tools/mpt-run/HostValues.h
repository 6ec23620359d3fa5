//===- HostValues.h - mpt-run's draws and narrow floats ---------*- C++ -*-===//
//
// The parts of mpt-run that code without LLVM reuses: the element kinds and
// their values in memory, the f16 / bf16 conversions, and how a random
// argument is drawn (`Draw`, `forEachDrawnValue`).
// Header-only and standard C++ only, so that the GPU benchmark
// (bench/gpu/step_bench.cu, built by nvcc on a machine without MLIR) draws
// exactly the arguments that mpt-run drew for the CPU reference of a
// training step; `mpt-run --json` prints each argument's `Draw`.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_TOOLS_MPT_RUN_HOSTVALUES_H
#define MPT_TOOLS_MPT_RUN_HOSTVALUES_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace mpt::run {

//===----------------------------------------------------------------------===//
// Narrow floats
//===----------------------------------------------------------------------===//

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

inline float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// IEEE half -> float (exact).
inline float halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31)
    return bitsFloat(sign | 0x7f800000 | (mantissa << 13));
  return bitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

/// float -> IEEE half, rounding to nearest even.
inline uint16_t floatToHalf(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = (bits >> 16) & 0x8000;
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude > 0x7f800000) // NaN: keep it quiet.
    return sign | 0x7e00;
  // From 65520 (halfway between 65504, the largest half, and 2^16) up,
  // rounding to nearest even gives infinity.
  if (magnitude >= 0x477ff000)
    return sign | 0x7c00;
  if (magnitude < 0x38800000) {
    // Below 2^-14: a subnormal half, in units of 2^-24. The scaling is exact
    // and nearbyint rounds to nearest even; 0x400 encodes 2^-14 correctly.
    float scaled = bitsFloat(magnitude) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  // Normal: rebias the exponent (127 -> 15) and round the mantissa from 23
  // to 10 bits, to nearest even; a carry moves into the exponent.
  uint32_t rebiased = magnitude - 0x38000000;
  rebiased += 0xfff + ((rebiased >> 13) & 1);
  return sign | static_cast<uint16_t>(rebiased >> 13);
}

/// bfloat16 -> float (exact).
inline float bf16ToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

/// float -> bfloat16, rounding to nearest even; NaNs stay quiet.
inline uint16_t floatToBF16(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

//===----------------------------------------------------------------------===//
// Element kinds
//===----------------------------------------------------------------------===//

/// The element types mpt-run can pass to and from the compiled code.
enum class ElementKind { f32, f64, f16, bf16, i64, i32, i1 };

/// The MLIR spelling of `kind`: "f32", "bf16", "i64", ...
inline const char *elementKindName(ElementKind kind) {
  switch (kind) {
  case ElementKind::f32:
    return "f32";
  case ElementKind::f64:
    return "f64";
  case ElementKind::f16:
    return "f16";
  case ElementKind::bf16:
    return "bf16";
  case ElementKind::i64:
    return "i64";
  case ElementKind::i32:
    return "i32";
  case ElementKind::i1:
    return "i1";
  }
  return "?";
}

/// The kind spelled `name` ("f32", ...); false if there is none.
inline bool parseElementKind(const std::string &name, ElementKind &kind) {
  for (ElementKind k :
       {ElementKind::f32, ElementKind::f64, ElementKind::f16, ElementKind::bf16,
        ElementKind::i64, ElementKind::i32, ElementKind::i1})
    if (name == elementKindName(k)) {
      kind = k;
      return true;
    }
  return false;
}

/// The storage size of one element in bytes (2 for f16 and bf16).
inline unsigned getElementSize(ElementKind kind) {
  switch (kind) {
  case ElementKind::f64:
  case ElementKind::i64:
    return 8;
  case ElementKind::f32:
  case ElementKind::i32:
    return 4;
  case ElementKind::f16:
  case ElementKind::bf16:
    return 2;
  case ElementKind::i1:
    return 1;
  }
  return 0;
}

/// Element `index` of the buffer `data` of `kind`, as a double.
inline double loadElement(ElementKind kind, const void *data, int64_t index) {
  const char *at =
      static_cast<const char *>(data) + index * getElementSize(kind);
  switch (kind) {
  case ElementKind::f32: {
    float v;
    std::memcpy(&v, at, 4);
    return v;
  }
  case ElementKind::f64: {
    double v;
    std::memcpy(&v, at, 8);
    return v;
  }
  case ElementKind::f16:
  case ElementKind::bf16: {
    uint16_t h;
    std::memcpy(&h, at, 2);
    return kind == ElementKind::f16 ? halfToFloat(h) : bf16ToFloat(h);
  }
  case ElementKind::i64: {
    int64_t v;
    std::memcpy(&v, at, 8);
    return static_cast<double>(v);
  }
  case ElementKind::i32: {
    int32_t v;
    std::memcpy(&v, at, 4);
    return v;
  }
  case ElementKind::i1:
    return *at & 1;
  }
  return 0;
}

/// Stores `value` as element `index` of the buffer `data` of `kind`: f16
/// and bf16 through float (double -> float -> half can double-round, which
/// is harmless for random inputs), integers rounded to nearest.
inline void storeElement(ElementKind kind, void *data, int64_t index,
                         double value) {
  char *at = static_cast<char *>(data) + index * getElementSize(kind);
  switch (kind) {
  case ElementKind::f32: {
    float v = static_cast<float>(value);
    std::memcpy(at, &v, 4);
    return;
  }
  case ElementKind::f64:
    std::memcpy(at, &value, 8);
    return;
  case ElementKind::f16:
  case ElementKind::bf16: {
    uint16_t h = kind == ElementKind::f16
                     ? floatToHalf(static_cast<float>(value))
                     : floatToBF16(static_cast<float>(value));
    std::memcpy(at, &h, 2);
    return;
  }
  case ElementKind::i64: {
    int64_t v = std::llround(value);
    std::memcpy(at, &v, 8);
    return;
  }
  case ElementKind::i32: {
    int32_t v = static_cast<int32_t>(std::llround(value));
    std::memcpy(at, &v, 4);
    return;
  }
  case ElementKind::i1:
    *at = value != 0.0;
    return;
  }
}

//===----------------------------------------------------------------------===//
// Random draws
//===----------------------------------------------------------------------===//

/// Uniform and normal values from std::mt19937_64, whose sequence the C++
/// standard fixes (unlike std::normal_distribution's), seeded with the run's
/// seed and the argument's index.
class RandomSource {
public:
  RandomSource(uint64_t seed, unsigned stream) {
    std::seed_seq sequence{static_cast<uint32_t>(seed),
                           static_cast<uint32_t>(seed >> 32), stream};
    engine.seed(sequence);
  }

  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return (engine() >> 11) * 0x1.0p-53; }

  /// Standard normal, by Box-Muller.
  double normal() {
    if (haveSpare) {
      haveSpare = false;
      return spare;
    }
    double radius = std::sqrt(-2.0 * std::log1p(-uniform()));
    double angle = 2.0 * M_PI * uniform();
    spare = radius * std::sin(angle);
    haveSpare = true;
    return radius * std::cos(angle);
  }

private:
  std::mt19937_64 engine;
  double spare = 0;
  bool haveSpare = false;
};

/// How the values of one argument are drawn.
struct Draw {
  enum class Kind {
    /// Element i is values[i % values.size()] (zeros, ones, an
    /// `mpt.initial_value`).
    values,
    /// Element 0 is values[0], the others zero (a loss scale without an
    /// initial value).
    first,
    /// floor(uniform * bound), from the argument's own generator.
    integers,
    /// stddev * normal, from the argument's own generator; with a
    /// `logicalShape`, only that leading corner of `shape` is drawn (in its
    /// own row-major order) and the padding stays zero.
    normal,
  };
  Kind kind = Kind::values;
  std::vector<double> values;
  int64_t bound = 0;
  double stddev = 1.0;
  /// The generator's stream: the argument's index.
  unsigned stream = 0;
  std::vector<int64_t> shape, logicalShape;
};

/// Calls set(flatIndex, value) for the elements of an argument of
/// `numElements` elements drawn by `draw` with `seed`; elements it skips
/// (the padding of a padded normal draw) are zero.
template <typename Set>
void forEachDrawnValue(const Draw &draw, uint64_t seed, int64_t numElements,
                       Set &&set) {
  RandomSource random(seed, draw.stream);
  switch (draw.kind) {
  case Draw::Kind::values:
    for (int64_t i = 0; i < numElements && !draw.values.empty(); ++i)
      set(i, draw.values[i % draw.values.size()]);
    return;
  case Draw::Kind::first:
    if (numElements > 0 && !draw.values.empty())
      set(0, draw.values[0]);
    return;
  case Draw::Kind::integers:
    for (int64_t i = 0; i < numElements; ++i)
      set(i, std::floor(random.uniform() * draw.bound));
    return;
  case Draw::Kind::normal:
    break;
  }
  if (draw.logicalShape.empty()) {
    for (int64_t i = 0; i < numElements; ++i)
      set(i, draw.stddev * random.normal());
    return;
  }
  int64_t logicalCount = 1;
  for (int64_t d : draw.logicalShape)
    logicalCount *= d;
  int64_t rank = static_cast<int64_t>(draw.shape.size());
  for (int64_t k = 0; k < logicalCount; ++k) {
    int64_t rest = k, flat = 0, stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t index = rest % draw.logicalShape[d];
      rest /= draw.logicalShape[d];
      flat += index * stride;
      stride *= draw.shape[d];
    }
    set(flat, draw.stddev * random.normal());
  }
}

} // namespace mpt::run

#endif // MPT_TOOLS_MPT_RUN_HOSTVALUES_H
