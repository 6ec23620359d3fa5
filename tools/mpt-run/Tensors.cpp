//===- Tensors.cpp - host tensors of mpt-run ------------------------------===//

#include "Tensors.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <new>

using namespace mpt::run;

/// Host tensors are aligned like the buffers of memref.alloc.
static constexpr std::align_val_t kAlignment{64};

std::optional<ElementKind> mpt::run::getElementKind(mlir::Type type) {
  if (type.isF32())
    return ElementKind::f32;
  if (type.isF64())
    return ElementKind::f64;
  if (type.isF16())
    return ElementKind::f16;
  if (type.isBF16())
    return ElementKind::bf16;
  if (type.isSignlessInteger(64))
    return ElementKind::i64;
  if (type.isSignlessInteger(32))
    return ElementKind::i32;
  if (type.isSignlessInteger(1))
    return ElementKind::i1;
  return std::nullopt;
}

llvm::StringRef mpt::run::getElementName(ElementKind kind) {
  return elementKindName(kind);
}

bool mpt::run::isFloatKind(ElementKind kind) {
  return kind != ElementKind::i64 && kind != ElementKind::i32 &&
         kind != ElementKind::i1;
}

llvm::StringRef mpt::run::getNpyDescr(ElementKind kind) {
  switch (kind) {
  case ElementKind::f32:
  case ElementKind::bf16:
    return "<f4";
  case ElementKind::f64:
    return "<f8";
  case ElementKind::f16:
    return "<f2";
  case ElementKind::i64:
    return "<i8";
  case ElementKind::i32:
    return "<i4";
  case ElementKind::i1:
    return "|b1";
  }
  llvm_unreachable("unknown element kind");
}

std::string mpt::run::formatShape(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string result;
  llvm::raw_string_ostream os(result);
  llvm::interleave(shape, os, "x");
  return result;
}

std::string mpt::run::formatTensorType(ElementKind kind,
                                       llvm::ArrayRef<int64_t> shape) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << "tensor<";
  for (int64_t dim : shape)
    os << dim << "x";
  os << getElementName(kind) << ">";
  return result;
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

void HostTensor::AlignedDelete::operator()(char *ptr) const {
  ::operator delete[](ptr, kAlignment);
}

HostTensor::HostTensor(ElementKind kind, llvm::ArrayRef<int64_t> shape)
    : kind(kind), shape(shape) {
  numElements = 1;
  for (int64_t dim : shape)
    numElements *= dim;
  // Never a zero-sized allocation: the JIT-compiled code gets a valid
  // pointer even for tensors with a zero dimension.
  size_t size = std::max<size_t>(getSizeInBytes(), 1);
  storage.reset(static_cast<char *>(::operator new[](size, kAlignment)));
  std::memset(storage.get(), 0, size);
}

HostTensor HostTensor::clone() const {
  HostTensor copy(kind, shape);
  std::memcpy(copy.getData(), getData(), getSizeInBytes());
  return copy;
}

double HostTensor::getDouble(int64_t index) const {
  return loadElement(kind, storage.get(), index);
}

void HostTensor::setDouble(int64_t index, double value) {
  storeElement(kind, storage.get(), index, value);
}

int64_t HostTensor::getInt(int64_t index) const {
  const char *data = storage.get();
  switch (kind) {
  case ElementKind::i64:
    return reinterpret_cast<const int64_t *>(data)[index];
  case ElementKind::i32:
    return reinterpret_cast<const int32_t *>(data)[index];
  default:
    return static_cast<int64_t>(getDouble(index));
  }
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

TensorSummary mpt::run::summarize(const HostTensor &tensor, unsigned numFirst) {
  TensorSummary summary;
  int64_t numElements = tensor.getNumElements();
  int64_t numFinite = 0;
  double sum = 0;
  for (int64_t i = 0; i < numElements; ++i) {
    double value = tensor.getDouble(i);
    if (i < numFirst)
      summary.first.push_back(value);
    if (std::isnan(value)) {
      ++summary.numNaN;
      continue;
    }
    if (std::isinf(value)) {
      ++summary.numInf;
      continue;
    }
    if (numFinite == 0 || value < summary.min)
      summary.min = value;
    if (numFinite == 0 || value > summary.max)
      summary.max = value;
    sum += value;
    ++numFinite;
    if (value == 0)
      ++summary.numZero;
  }
  if (numFinite)
    summary.mean = sum / numFinite;
  return summary;
}

std::string mpt::run::formatValue(double value, ElementKind kind) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buffer[64];
  if (!isFloatKind(kind))
    std::snprintf(buffer, sizeof(buffer), "%lld",
                  static_cast<long long>(value));
  else
    std::snprintf(buffer, sizeof(buffer), "%.7g", value);
  return buffer;
}
