// bf16 arguments are read from float32 .npy files and rounded to nearest,
// ties to even; bf16 results are written as float32.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/reference.py gen bf16 %t
// RUN: mpt-run %s --input=%t/x.npy --output-dir=%t | FileCheck %s
// RUN: %python %S/Inputs/reference.py check bf16 %t \
// RUN:   | FileCheck %s --check-prefix=REF

// The ties 1 + 2^-8 and 1 + 3 * 2^-8 round to the even neighbours 1 and
// 1 + 2^-6; just above a tie rounds up.
// CHECK: argument #0 (%x): tensor<6xbf16> from
// CHECK: result #0: tensor<6xbf16> min 0 max 3.140625 mean {{.*}} [1, 1.015625, 1.007812, 0, 3.140625, 0]
// REF: bf16: ok

func.func @bf(%x: tensor<6xbf16>) -> tensor<6xbf16> {
  %r = mpt.relu %x : tensor<6xbf16>
  func.return %r : tensor<6xbf16>
}

// f32 -> bf16 casts round subnormals like IEEE storage: the JIT does not use
// the host's AVX512-BF16 conversion, which flushes them to zero.
// RUN: rm -rf %t.cast && mkdir -p %t.cast
// RUN: %python %S/Inputs/reference.py gen bf16_cast %t.cast
// RUN: mpt-run %s --entry=cast --input=%t.cast/y.npy --output-dir=%t.cast \
// RUN:   | FileCheck %s --check-prefix=CAST
// RUN: %python %S/Inputs/reference.py check bf16_cast %t.cast \
// RUN:   | FileCheck %s --check-prefix=CAST-REF
// CAST: result #0: tensor<8xbf16> min -6.979498e-39 max 3.004055e+38 mean {{.*}} [9.18355e-41, -3.030571e-39, 0, 1.5, -6.979498e-39, 1.166311e-38, 65536, 3.004055e+38]
// CAST-REF: bf16_cast: ok

func.func @cast(%y: tensor<8xf32>) -> tensor<8xbf16> {
  %r = mpt.cast %y : tensor<8xf32> to tensor<8xbf16>
  func.return %r : tensor<8xbf16>
}
