//===- VectorAccesses.cpp - accesses that can be vectors ------------------===//

#include "VectorAccesses.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

int64_t mpt::vectorElementBytes(MemRefType type) {
  Type element = type.getElementType();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() == 0 || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() % 8 ||
      !llvm::isPowerOf2_64(element.getIntOrFloatBitWidth()) ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return 0;
  return element.getIntOrFloatBitWidth() / 8;
}

bool mpt::vectorsAligned(MemRefType type, int64_t width) {
  auto [strides, offset] = type.getStridesAndOffset();
  return offset % width == 0 &&
         llvm::all_of(ArrayRef(strides).drop_back(),
                      [&](int64_t s) { return s % width == 0; });
}
