// RUN: not mpt-opt %s --convert-mpt-to-linalg -split-input-file 2>&1 | FileCheck %s

// The CPU lowering handles static shapes only: an mpt op with a dynamic
// dimension in an operand or result is left unconverted, the pass names the
// offending type and fails.

// A dynamic operand and result of a contraction.
// CHECK: invalid.mlir:[[# @LINE + 3]]:8: error: convert-mpt-to-linalg supports static shapes only; got 'tensor<?x8xf32>'
// CHECK-NOT: linalg.matmul
func.func @dynamic_matmul(%d: tensor<?x8xf32>, %e: tensor<8x16xf32>) -> tensor<?x16xf32> {
  %0 = mpt.matmul %d, %e : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// Every mpt op with a dynamic shape is reported, not only the first one.
// CHECK: invalid.mlir:[[# @LINE + 4]]:8: error: convert-mpt-to-linalg supports static shapes only; got 'tensor<?x8xf32>'
// CHECK: invalid.mlir:[[# @LINE + 4]]:8: error: convert-mpt-to-linalg supports static shapes only; got 'tensor<?x8xf32>'
// CHECK-NOT: linalg.generic
func.func @dynamic_elementwise(%c: tensor<?x8xf32>, %d: tensor<1x8xf32>) -> tensor<?x8xf32> {
  %0 = mpt.mul %c, %d : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  %1 = mpt.relu %0 : tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// A cast between dynamically shaped tensors.
// CHECK: invalid.mlir:[[# @LINE + 2]]:8: error: convert-mpt-to-linalg supports static shapes only; got 'tensor<?x8xf16>'
func.func @dynamic_cast(%d: tensor<?x8xf16>) -> tensor<?x8xf32> {
  %0 = mpt.cast %d : tensor<?x8xf16> to tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A dynamic dimension in the reduced axis.
// CHECK: invalid.mlir:[[# @LINE + 2]]:8: error: convert-mpt-to-linalg supports static shapes only; got 'tensor<4x?xf32>'
func.func @dynamic_reduce(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %0 = mpt.reduce_sum %x axes = [1] : tensor<4x?xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
