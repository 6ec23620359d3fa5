// A loop that carries a tensor (scf.for with iter_args): one-shot
// bufferization yields a new buffer from each iteration
// (allow-return-allocs-from-loops), freed by the deallocation pipeline;
// numpy checks the result.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/reference.py gen loop %t
// RUN: mpt-run %s --input=%t/x.npy --input=%t/w.npy --output-dir=%t | FileCheck %s
// RUN: %python %S/Inputs/reference.py check loop %t | FileCheck %s --check-prefix=REF

// CHECK: wrote 1 result to
// REF: loop: ok

func.func @loop(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<4x8xf32>) {
    %m = mpt.matmul %h, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %t = mpt.tanh %m : tensor<4x8xf32>
    scf.yield %t : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
