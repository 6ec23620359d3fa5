// A function that returns one value as several results (two equal matmuls
// that CSE merges, a tanh returned twice and once more after the argument):
// each result is an out-parameter of its own, filled with the value, on the
// CPU and in the GPU emulator; numpy checks every result.

// RUN: rm -rf %t && mkdir -p %t/cpu %t/sm80 %t/sm90a
// RUN: %python %S/Inputs/reference.py gen repeated_results %t/cpu
// RUN: cp %t/cpu/x.npy %t/cpu/w.npy %t/sm80 && cp %t/cpu/x.npy %t/cpu/w.npy %t/sm90a
// RUN: mpt-run %s --input=%t/cpu/x.npy --input=%t/cpu/w.npy --output-dir=%t/cpu | FileCheck %s
// RUN: %python %S/Inputs/reference.py check repeated_results %t/cpu | FileCheck %s --check-prefix=REF
// RUN: mpt-run %s --input=%t/cpu/x.npy --input=%t/cpu/w.npy --output-dir=%t/sm80 --emulate-gpu=chip=sm_80 | FileCheck %s
// RUN: %python %S/Inputs/reference.py check repeated_results %t/sm80 | FileCheck %s --check-prefix=REF
// RUN: mpt-run %s --input=%t/cpu/x.npy --input=%t/cpu/w.npy --output-dir=%t/sm90a --emulate-gpu=chip=sm_90a | FileCheck %s
// RUN: %python %S/Inputs/reference.py check repeated_results %t/sm90a | FileCheck %s --check-prefix=REF

// CHECK: wrote 6 results to
// REF: repeated_results: ok

func.func @repeated(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>) {
  %m1 = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %m2 = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t = mpt.tanh %x : tensor<4x8xf32>
  return %m1, %m2, %t, %t, %x, %t
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>
}
