//===- Tensors.h - host tensors of mpt-run ----------------------*- C++ -*-===//
//
// The dense row-major tensors that mpt-run reads from .npy files or draws at
// random, passes to the JIT-compiled entry and gets back from it.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_TOOLS_MPT_RUN_TENSORS_H
#define MPT_TOOLS_MPT_RUN_TENSORS_H

#include "HostValues.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mpt::run {

// ElementKind, getElementSize and loadElement / storeElement are in
// HostValues.h.

/// The kind of the MLIR element type `type`, or nullopt if mpt-run does not
/// support it.
std::optional<ElementKind> getElementKind(mlir::Type type);
/// The MLIR spelling of `kind`: "f32", "bf16", "i64", ...
llvm::StringRef getElementName(ElementKind kind);
/// Whether `kind` is a floating-point kind.
bool isFloatKind(ElementKind kind);
/// The numpy dtype of the .npy files that hold tensors of `kind`: "<f4",
/// "<f8", "<f2", "<i8" or "<i4". bf16 tensors travel as float32 ("<f4").
llvm::StringRef getNpyDescr(ElementKind kind);

/// "2x3x4", or "scalar" for rank 0.
std::string formatShape(llvm::ArrayRef<int64_t> shape);
/// "tensor<2x3xf32>", as MLIR prints the type.
std::string formatTensorType(ElementKind kind, llvm::ArrayRef<int64_t> shape);

/// A dense row-major tensor in host memory, 64-byte aligned, zero-filled on
/// creation. Movable, not implicitly copyable (see clone()).
class HostTensor {
public:
  HostTensor() = default;
  HostTensor(ElementKind kind, llvm::ArrayRef<int64_t> shape);

  HostTensor(HostTensor &&) = default;
  HostTensor &operator=(HostTensor &&) = default;
  HostTensor(const HostTensor &) = delete;
  HostTensor &operator=(const HostTensor &) = delete;

  /// A deep copy.
  HostTensor clone() const;

  ElementKind getKind() const { return kind; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return shape.size(); }
  int64_t getNumElements() const { return numElements; }
  size_t getSizeInBytes() const {
    return static_cast<size_t>(numElements) * getElementSize(kind);
  }
  void *getData() { return storage.get(); }
  const void *getData() const { return storage.get(); }

  /// Element `index` (row-major) as a double.
  double getDouble(int64_t index) const;
  /// Stores `value` into element `index`: floats round to nearest even,
  /// integers take the nearest integer.
  void setDouble(int64_t index, double value);
  /// Element `index` of an integer tensor.
  int64_t getInt(int64_t index) const;

private:
  struct AlignedDelete {
    void operator()(char *ptr) const;
  };

  ElementKind kind = ElementKind::f32;
  llvm::SmallVector<int64_t, 4> shape;
  int64_t numElements = 0;
  std::unique_ptr<char[], AlignedDelete> storage;
};

/// What mpt-run prints about a tensor: NaNs and infinities are counted
/// apart and left out of min, max and mean.
struct TensorSummary {
  double min = 0;
  double max = 0;
  double mean = 0;
  int64_t numNaN = 0;
  /// Elements equal to zero (either sign).
  int64_t numZero = 0;
  int64_t numInf = 0;
  /// The first few elements, row-major.
  llvm::SmallVector<double, 8> first;
};

/// Summarizes `tensor`, keeping its first `numFirst` elements.
TensorSummary summarize(const HostTensor &tensor, unsigned numFirst);

/// Formats an element for people: integers as integers, floats with 7
/// significant digits ("nan", "inf", "-inf" when not finite).
std::string formatValue(double value, ElementKind kind);

} // namespace mpt::run

#endif // MPT_TOOLS_MPT_RUN_TENSORS_H
