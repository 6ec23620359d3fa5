//===- VectorAccesses.h - accesses that can be vectors ----------*- C++ -*-===//
//
// What the kernels that load and store vectors along a buffer's last
// dimension (SIMT loops, whole-tensor reductions) need to know of the
// buffer: that consecutive elements of its last dimension are adjacent, and
// that a vector starting at a multiple of its width is aligned to its size
// (the buffer's base is: allocations and mgpuMemAlloc give 64 or 256 bytes).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_LIB_CONVERSION_LINALGTOGPU_VECTORACCESSES_H
#define MPT_LIB_CONVERSION_LINALGTOGPU_VECTORACCESSES_H

#include <cstdint>

namespace mlir {
class MemRefType;
} // namespace mlir

namespace mpt {

/// The bytes of an element of `type` if consecutive elements of its last
/// dimension can be one vector access: the buffer strided with a static
/// offset and strides and a last stride of 1, of ints or floats of whole
/// bytes (a power of two). 0 otherwise.
int64_t vectorElementBytes(mlir::MemRefType type);

/// Whether a vector of `width` elements of `type`'s last dimension that
/// starts at a multiple of `width` in it is aligned to its size: the offset
/// and the other strides are multiples of `width` (type as accepted by
/// vectorElementBytes).
bool vectorsAligned(mlir::MemRefType type, int64_t width);

} // namespace mpt

#endif // MPT_LIB_CONVERSION_LINALGTOGPU_VECTORACCESSES_H
