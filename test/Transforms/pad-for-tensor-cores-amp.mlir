// mpt-pad-for-tensor-cores on the output of mpt-auto-mixed-precision for the
// three examples: every low-precision mpt.matmul / batch_matmul / conv2d ends
// up with Tensor Core shapes (Inputs/check_padded.py checks the operand and
// result types), the padded programs still lower to the CPU pipeline, and the
// fp32 programs (no AMP) are left unchanged. max-overhead=2 lets the cnn's
// 3-channel stem (166.7% more FLOPs) be padded too.

// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-auto-mixed-precision --mpt-pad-for-tensor-cores=max-overhead=2 > %t.mlp.mlir
// RUN: %python %S/Inputs/check_padded.py --expect 2 < %t.mlp.mlir | FileCheck %s --check-prefix=OK2
// RUN: FileCheck %s --check-prefix=MLP < %t.mlp.mlir
// RUN: mpt-opt %t.mlp.mlir --mpt-lower-to-cpu > /dev/null

// RUN: mpt-opt %mpt_src_root/examples/cnn.mlir --mpt-auto-mixed-precision --mpt-pad-for-tensor-cores=max-overhead=2 > %t.cnn.mlir
// RUN: %python %S/Inputs/check_padded.py --expect 3 < %t.cnn.mlir | FileCheck %s --check-prefix=OK3
// RUN: FileCheck %s --check-prefix=CNN < %t.cnn.mlir
// RUN: mpt-opt %t.cnn.mlir --mpt-lower-to-cpu > /dev/null

// The transformer block is aligned already (64, 256, head size 16): nothing
// to pad, and the checker agrees.
// RUN: mpt-opt %mpt_src_root/examples/transformer_block.mlir --mpt-auto-mixed-precision --mpt-pad-for-tensor-cores=max-overhead=2 > %t.transformer.mlir
// RUN: %python %S/Inputs/check_padded.py --expect 8 < %t.transformer.mlir | FileCheck %s --check-prefix=OK8
// RUN: FileCheck %s --check-prefix=TRANSFORMER --implicit-check-not=mpt.pad --implicit-check-not=mpt.slice < %t.transformer.mlir
// RUN: mpt-opt %t.transformer.mlir --mpt-lower-to-cpu > /dev/null

// The checker fails where the padding is missing: AMP alone, or the default
// max-overhead, which skips the cnn's stem.
// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-auto-mixed-precision | not %python %S/Inputs/check_padded.py 2>&1 | FileCheck %s --check-prefix=BAD-MLP
// RUN: mpt-opt %mpt_src_root/examples/cnn.mlir --mpt-auto-mixed-precision --mpt-pad-for-tensor-cores 2>/dev/null | not %python %S/Inputs/check_padded.py 2>&1 | FileCheck %s --check-prefix=BAD-CNN

// fp32 contractions are not padded: without AMP the pass changes nothing.
// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-pad-for-tensor-cores | FileCheck %s --check-prefix=F32-MLP --implicit-check-not=mpt.pad --implicit-check-not=mpt.slice
// RUN: mpt-opt %mpt_src_root/examples/cnn.mlir --mpt-pad-for-tensor-cores=max-overhead=2 | FileCheck %s --check-prefix=F32-CNN --implicit-check-not=mpt.pad --implicit-check-not=mpt.slice
// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir > %t.mlp.f32.mlir
// RUN: mpt-opt %mpt_src_root/examples/mlp.mlir --mpt-pad-for-tensor-cores | diff %t.mlp.f32.mlir -
// (The transformer is not compared with diff: the pattern driver moves its
// mpt.constant to the top of the function even when nothing is padded.)
// RUN: mpt-opt %mpt_src_root/examples/transformer_block.mlir --mpt-pad-for-tensor-cores=max-overhead=2 | FileCheck %s --check-prefix=F32-TRANSFORMER --implicit-check-not=mpt.pad --implicit-check-not=mpt.slice

// OK2: padded contractions: 2
// OK2-NEXT: all multiples of 8: ok
// OK3: padded contractions: 3
// OK3-NEXT: all multiples of 8: ok
// OK8: padded contractions: 8
// OK8-NEXT: all multiples of 8: ok

// mlp: the hidden layer (32x784 . 784x128) is aligned; the classifier's 10
// classes are padded to 16 and the loss sees them masked to -inf.
// MLP-LABEL: func.func @mlp(
// MLP: %[[MASK:.*]] = mpt.constant dense<[0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000]> : tensor<16xf32>
// MLP: mpt.matmul %{{.*}}, %{{.*}} acc(f32) : (tensor<32x784xf16>, tensor<784x128xf16>) -> tensor<32x128xf16>
// MLP: %[[W2P:.*]] = mpt.pad %{{.*}} low = [0, 0] high = [0, 6] : tensor<128x10xf16> -> tensor<128x16xf16>
// MLP-NEXT: mpt.matmul %{{.*}}, %[[W2P]] acc(f32) : (tensor<32x128xf16>, tensor<128x16xf16>) -> tensor<32x16xf16>
// MLP-NOT: mpt.slice
// MLP: %[[MASKED:.*]] = mpt.add %{{.*}}, %[[MASK]] : (tensor<32x16xf32>, tensor<16xf32>) -> tensor<32x16xf32>
// MLP-NEXT: mpt.softmax_cross_entropy %[[MASKED]], %{{.*}} : (tensor<32x16xf32>, tensor<32xi64>) -> tensor<f32>

// cnn: the stem's 3 input channels are padded to 8 (input and filter), the
// second conv (16 -> 32) is aligned, and the 10-class head is padded to 16.
// CNN-LABEL: func.func @cnn(
// CNN: %[[XP:.*]] = mpt.pad %{{.*}} low = [0, 0, 0, 0] high = [0, 5, 0, 0] : tensor<8x3x32x32xf16> -> tensor<8x8x32x32xf16>
// CNN-NEXT: %[[WP:.*]] = mpt.pad %{{.*}} low = [0, 0, 0, 0] high = [0, 5, 0, 0] : tensor<16x3x3x3xf16> -> tensor<16x8x3x3xf16>
// CNN-NEXT: mpt.conv2d %[[XP]], %[[WP]] pad [1, 1, 1, 1] acc(f32) : (tensor<8x8x32x32xf16>, tensor<16x8x3x3xf16>) -> tensor<8x16x32x32xf16>
// CNN: mpt.conv2d %{{.*}}, %{{.*}} pad [1, 1, 1, 1] acc(f32) : (tensor<8x16x16x16xf16>, tensor<32x16x3x3xf16>) -> tensor<8x32x16x16xf16>
// CNN: mpt.matmul %{{.*}}, %{{.*}} acc(f32) : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf16>
// CNN-NOT: mpt.slice
// CNN: mpt.softmax_cross_entropy %{{.*}}, %{{.*}} : (tensor<8x16xf32>, tensor<8xi64>) -> tensor<f32>

// TRANSFORMER-LABEL: func.func @transformer_block(
// TRANSFORMER: mpt.batch_matmul {{.*}} : (tensor<16x16x16xf16>, tensor<16x16x16xf16>) -> tensor<16x16x16xf16>

// BAD-MLP: padded contractions: 2
// BAD-MLP: error: line {{[0-9]+}}: mpt.matmul rhs dim 1 is 10, not a multiple of 8 (f16)
// BAD-MLP-NOT: all multiples of 8: ok
// BAD-CNN: padded contractions: 3
// BAD-CNN: error: line {{[0-9]+}}: mpt.conv2d input channels (dim 1) is 3, not a multiple of 8 (f16)
// BAD-CNN-NOT: all multiples of 8: ok

// F32-MLP-LABEL: func.func @mlp(
// F32-MLP: mpt.matmul %{{.*}}, %{{.*}} : (tensor<32x784xf32>, tensor<784x128xf32>) -> tensor<32x128xf32>
// F32-MLP: mpt.matmul %{{.*}}, %{{.*}} : (tensor<32x128xf32>, tensor<128x10xf32>) -> tensor<32x10xf32>
// F32-MLP: mpt.softmax_cross_entropy %{{.*}}, %{{.*}} : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
// F32-TRANSFORMER-LABEL: func.func @transformer_block(
// F32-TRANSFORMER: mpt.batch_matmul {{.*}} : (tensor<16x16x16xf32>, tensor<16x16x16xf32>) -> tensor<16x16x16xf32>
// F32-CNN-LABEL: func.func @cnn(
// F32-CNN: mpt.conv2d %{{.*}}, %{{.*}} pad [1, 1, 1, 1] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
