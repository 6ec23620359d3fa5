// mpt-lower-to-nvvm launches kernels from straight-line host code: a loop
// whose body runs kernels is an error at the loop (mpt-gpu-host-memory),
// not a crash. The CPU runs it (test/Run/loop.mlir).
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_80 -verify-diagnostics -o /dev/null

func.func @loop(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{mpt-gpu-host-memory: 'scf.for' launches kernels or allocates buffers in its body; mpt-lower-to-nvvm takes functions whose kernels run once each, in order (call the function in a loop instead, or unroll the loop)}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<4x8xf32>) {
    %t = mpt.tanh %h : tensor<4x8xf32>
    scf.yield %t : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
