// The attention's softmax gradient, mpt.softmax_grad on f16 operands, is
// one row kernel (mpt-rows-to-gpu): a team of threads per row sums
// grad * result in f32 and writes result * (grad - sum), rounded once; no
// f32 buffer of the operands' size and no second launch. Each lane loads its
// 8 columns of grad and of result once, as 16-byte vectors, and keeps them
// in registers from the sum to the result.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a format=isa" --mlir-print-ir-after=mpt-rows-to-gpu -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: IR Dump After RowsToGPU
// CHECK-LABEL: func.func @softmax_grad(
// CHECK-NOT: memref.alloc() {{.*}} : memref<64x256xf32>
// CHECK: gpu.launch blocks
// CHECK-COUNT-2: vector.load %{{.*}} : memref<64x256xf16>, vector<8xf16>
// CHECK-NOT: vector.load
// CHECK: gpu.shuffle  xor
// CHECK-NOT: vector.load
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: vector.store %{{.*}} : memref<64x256xf16>, vector<8xf16>
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @softmax_grad(%dy: tensor<64x256xf16>, %y: tensor<64x256xf16>) -> tensor<64x256xf16> {
  %dx = mpt.softmax_grad %dy, %y : tensor<64x256xf16>
  return %dx : tensor<64x256xf16>
}
