//===- Inputs.cpp - argument values of mpt-run ----------------------------===//

#include "Inputs.h"
#include "Npy.h"

#include "llvm/ADT/ArrayRef.h"

#include <cmath>
#include <cstring>

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

/// "%.3g" of `value`.
static std::string formatShort(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3g", value);
  return buffer;
}

Draw mpt::run::chooseDraw(const TensorSpec &spec, std::string &distribution) {
  Draw draw;
  draw.stream = spec.index;
  if (!spec.initialValue.empty()) {
    distribution = "mpt.initial_value";
    draw.values = spec.initialValue;
    return draw;
  }
  if (!isFloatKind(spec.kind)) {
    draw.kind = Draw::Kind::integers;
    draw.bound = spec.indexBound.value_or(10);
    distribution =
        "uniform integers in [0, " + std::to_string(draw.bound) + ")";
    return draw;
  }
  Role role = spec.role.value_or(Role::input);
  if (role == Role::parameter && spec.shape.size() <= 1) {
    distribution = spec.isNormScale ? "ones" : "zeros";
    draw.values = {spec.isNormScale ? 1.0 : 0.0};
    return draw;
  }
  if (role == Role::optimizer_state) {
    distribution = "zeros";
    draw.values = {0.0};
    return draw;
  }
  if (role == Role::loss_scale_state) {
    distribution = "65536 then zeros";
    draw.kind = Draw::Kind::first;
    draw.values = {65536.0};
    return draw;
  }
  draw.kind = Draw::Kind::normal;
  if (role == Role::parameter)
    draw.stddev =
        1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(spec.fanIn, 1)));
  distribution = "normal(0, " + formatShort(draw.stddev) + ")";
  if (!spec.logicalShape.empty()) {
    // A padded argument: the real corner gets the values an unpadded
    // argument would get, in the same order; the padding stays zero.
    draw.shape.assign(spec.shape.begin(), spec.shape.end());
    draw.logicalShape.assign(spec.logicalShape.begin(),
                             spec.logicalShape.end());
    distribution += " in the leading " +
                    formatTensorType(spec.kind, spec.logicalShape) +
                    ", zero padding";
  }
  return draw;
}

HostTensor mpt::run::makeRandomArgument(const TensorSpec &spec,
                                        const Draw &draw, uint64_t seed) {
  HostTensor tensor(spec.kind, spec.shape);
  forEachDrawnValue(
      draw, seed, tensor.getNumElements(),
      [&](int64_t i, double value) { tensor.setDouble(i, value); });
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
