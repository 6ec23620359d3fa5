//===- Inputs.cpp - argument values of mpt-run ----------------------------===//

#include "Inputs.h"
#include "Npy.h"

#include "llvm/ADT/ArrayRef.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace mpt::run;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Reads the .npy file of argument `spec` and checks its dtype.
static llvm::Expected<NpyArray> readArgumentFile(const TensorSpec &spec,
                                                 llvm::StringRef path) {
  llvm::Expected<NpyArray> array = readNpy(path);
  if (!array)
    return makeError(spec.describe() + ": " +
                     llvm::toString(array.takeError()));
  llvm::StringRef expected = getNpyDescr(spec.kind);
  if (array->descr == expected)
    return array;
  std::string what = getElementName(spec.kind).str();
  if (spec.kind == ElementKind::bf16)
    what = "float32, rounded to bf16";
  return makeError(spec.describe() + ": " + path + " has dtype '" +
                   array->descr + "', expected '" + expected + "' (" + what +
                   ")");
}

/// The tensor of `spec` whose elements, as stored in a .npy file, start at
/// `data`.
static HostTensor tensorFromNpyData(const TensorSpec &spec, const char *data) {
  HostTensor tensor(spec.kind, spec.shape);
  if (spec.kind == ElementKind::bf16) {
    auto *out = static_cast<uint16_t *>(tensor.getData());
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
      float value;
      std::memcpy(&value, data + i * sizeof(float), sizeof(float));
      out[i] = floatToBF16(value);
    }
  } else {
    std::memcpy(tensor.getData(), data, tensor.getSizeInBytes());
  }
  return tensor;
}

llvm::Expected<HostTensor> mpt::run::loadArgument(const TensorSpec &spec,
                                                  llvm::StringRef path) {
  llvm::Expected<NpyArray> array = readArgumentFile(spec, path);
  if (!array)
    return array.takeError();
  if (llvm::ArrayRef<int64_t>(array->shape) !=
      llvm::ArrayRef<int64_t>(spec.shape))
    return makeError(spec.describe() + ": " + path + " has shape " +
                     formatShape(array->shape) + ", expected " +
                     formatShape(spec.shape) + " (" + spec.getTypeString() +
                     ")");
  return tensorFromNpyData(spec, array->data.data());
}

llvm::Expected<llvm::SmallVector<HostTensor>>
mpt::run::loadStepArgument(const TensorSpec &spec, llvm::StringRef path) {
  llvm::Expected<NpyArray> array = readArgumentFile(spec, path);
  if (!array)
    return array.takeError();
  llvm::ArrayRef<int64_t> shape(array->shape);
  if (shape.empty() || shape.front() < 1 ||
      shape.drop_front() != llvm::ArrayRef<int64_t>(spec.shape))
    return makeError(spec.describe() + ": " + path + " has shape " +
                     formatShape(shape) + ", expected N x " +
                     formatShape(spec.shape) + " (one " + spec.getTypeString() +
                     " per step, N >= 1)");
  llvm::SmallVector<HostTensor> rows;
  size_t rowBytes = array->data.size() / shape.front();
  for (int64_t row = 0; row < shape.front(); ++row)
    rows.push_back(
        tensorFromNpyData(spec, array->data.data() + row * rowBytes));
  return rows;
}

namespace {
/// Uniform and normal values from std::mt19937_64, whose sequence the C++
/// standard fixes (unlike std::normal_distribution's).
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
} // namespace

/// "%.3g" of `value`.
static std::string formatShort(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3g", value);
  return buffer;
}

HostTensor mpt::run::makeRandomArgument(const TensorSpec &spec, uint64_t seed,
                                        std::string &distribution) {
  HostTensor tensor(spec.kind, spec.shape);
  int64_t numElements = tensor.getNumElements();
  RandomSource random(seed, spec.index);

  if (!spec.initialValue.empty()) {
    distribution = "mpt.initial_value";
    for (int64_t i = 0; i < numElements; ++i)
      tensor.setDouble(i, spec.initialValue[i % spec.initialValue.size()]);
    return tensor;
  }
  if (!isFloatKind(spec.kind)) {
    int64_t bound = spec.indexBound.value_or(10);
    distribution = "uniform integers in [0, " + std::to_string(bound) + ")";
    for (int64_t i = 0; i < numElements; ++i)
      tensor.setDouble(i, std::floor(random.uniform() * bound));
    return tensor;
  }

  auto fill = [&](double value) {
    for (int64_t i = 0; i < numElements; ++i)
      tensor.setDouble(i, value);
  };
  Role role = spec.role.value_or(Role::input);
  if (role == Role::parameter && spec.shape.size() <= 1) {
    distribution = spec.isNormScale ? "ones" : "zeros";
    fill(spec.isNormScale ? 1.0 : 0.0);
    return tensor;
  }
  if (role == Role::optimizer_state) {
    distribution = "zeros";
    return tensor;
  }
  if (role == Role::loss_scale_state) {
    distribution = "65536 then zeros";
    if (numElements > 0)
      tensor.setDouble(0, 65536.0);
    return tensor;
  }
  double stddev = 1.0;
  if (role == Role::parameter)
    stddev =
        1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(spec.fanIn, 1)));
  distribution = "normal(0, " + formatShort(stddev) + ")";
  if (spec.logicalShape.empty()) {
    for (int64_t i = 0; i < numElements; ++i)
      tensor.setDouble(i, stddev * random.normal());
    return tensor;
  }
  // A padded argument: the real corner gets the values an unpadded argument
  // would get, in the same order; the padding stays zero.
  distribution += " in the leading " +
                  formatTensorType(spec.kind, spec.logicalShape) +
                  ", zero padding";
  int64_t logicalCount = 1;
  for (int64_t d : spec.logicalShape)
    logicalCount *= d;
  for (int64_t k = 0; k < logicalCount; ++k) {
    int64_t rest = k, flat = 0, stride = 1;
    for (int64_t d = spec.shape.size() - 1; d >= 0; --d) {
      int64_t index = rest % spec.logicalShape[d];
      rest /= spec.logicalShape[d];
      flat += index * stride;
      stride *= spec.shape[d];
    }
    tensor.setDouble(flat, stddev * random.normal());
  }
  return tensor;
}

llvm::Error mpt::run::saveTensor(const HostTensor &tensor,
                                 llvm::StringRef path) {
  llvm::StringRef descr = getNpyDescr(tensor.getKind());
  if (tensor.getKind() != ElementKind::bf16)
    return writeNpy(path, descr, tensor.getShape(),
                    llvm::ArrayRef(static_cast<const char *>(tensor.getData()),
                                   tensor.getSizeInBytes()));
  std::vector<float> widened(tensor.getNumElements());
  for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i)
    widened[i] = static_cast<float>(tensor.getDouble(i));
  return writeNpy(path, descr, tensor.getShape(),
                  llvm::ArrayRef(reinterpret_cast<const char *>(widened.data()),
                                 widened.size() * sizeof(float)));
}
