// RUN: mpt-opt %s --mpt-auto-mixed-precision | FileCheck %s
// Every tosa.matmul (8) takes f16 operands and f16 zero points, and no f32
// zero point is left.
// RUN: mpt-opt %s --mpt-auto-mixed-precision | FileCheck %s --check-prefix=MATMUL --implicit-check-not="tensor<1xf32>"
// No bias, layer-norm parameter, input or target is cast (they are used in
// f32; the weight casts are checked below), and no f16 copy of a scalar
// constant is made.
// RUN: mpt-opt %s --mpt-auto-mixed-precision | FileCheck %s --check-prefix=ARGS --implicit-check-not="tensor<1x1x1xf16>"
// No value is cast twice to the same type, and no cast of a cast.
// RUN: mpt-opt %s --mpt-auto-mixed-precision | %python %S/Inputs/check_unique_casts.py --min-casts 10
// The output verifies and round-trips (custom and generic form).
// RUN: mpt-opt %s --mpt-auto-mixed-precision | mpt-opt -o /dev/null
// RUN: mpt-opt %s --mpt-auto-mixed-precision > %t1 && mpt-opt %t1 --mlir-print-op-generic | mpt-opt > %t.rt && diff %t1 %t.rt
// The pass is idempotent: a second run changes nothing.
// RUN: mpt-opt %s --mpt-auto-mixed-precision > %t1 && mpt-opt %t1 --mpt-auto-mixed-precision > %t2 && diff %t1 %t2

// examples/transformer_block.mlir written in tosa, with small shapes: one
// pre-LN transformer encoder block with an MSE loss, forward pass.
//
//   x, target : 2x8x16  batch 2, sequence 8, model width 16
//   2 heads of 8; MLP width 32
//
//   h      = layer_norm(x)              reduce_sum / mul / sub / rsqrt / add
//   q,k,v  = h @ w{q,k,v} + b{q,k,v}    tosa.matmul on 1x16x16 (16 rows)
//   split heads: 1x16x16 -> 2x8x2x8 -> transpose -> 2x2x8x8 -> 4x8x8
//            (K transposed to head_dim x seq for Q K^T)
//   p      = softmax(q @ k^T * 1/sqrt(8))   reduce_max / sub / exp /
//                                           reduce_sum / reciprocal / mul
//   ctx    = p @ v, heads merged back to 1x16x16
//   y1     = x + (ctx @ wo + bo)
//   y2     = y1 + (gelu(layer_norm(y1) @ w_fc1 + b_fc1) @ w_fc2 + b_fc2)
//            gelu(a) = 0.5 a (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3)))
//   loss   = mean((y2 - target)^2)      sub / mul / reduce_sum x3 / mul
//
// Expected coloring: every matmul runs in f16 (f32 output kept); the layer
// norm statistics (reduce_sum, rsqrt and the ops they feed up to the scale
// and shift, which deny reaches), the softmax's exp/reduce_sum/reciprocal and
// the whole loss stay f32.
//
// Allow-propagation only follows edges that would carry a low-precision
// value: from a result that changes type into an operand that changes type.
// tosa.matmul keeps its f32 output, so the op right after a matmul is not
// "downstream of an allow op" through that edge. Hence every bias add after
// a matmul (q, k, v, output projection, fc1, fc2) and the whole gelu (fed by
// the fc1 bias add) are not between allow ops and stay f32: the bias is
// added to the unrounded fp32 matmul output and the sum is rounded to f16
// once, where an f16 op needs it (one rounding instead of two). The clear
// ops feeding a matmul (the weight reshapes, the head split after the q/k/v
// bias adds, the head merge after P V) run in f16 by the clear-propagation
// step, which goes backward from the matmul's low operands. The residual
// adds stay f32. The signature is unchanged (keep-io-types); constants used
// in f16 are converted at compile time, the others (all the scalar ones
// here) stay f32.

// CHECK-LABEL: func.func @transformer_block(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8x16xf32>,
// CHECK-SAME: %[[LN1_G:[^:]+]]: tensor<1x1x16xf32>, %[[LN1_B:[^:]+]]: tensor<1x1x16xf32>,
// CHECK-SAME: %[[WQ:[^:]+]]: tensor<16x16xf32>, %[[BQ:[^:]+]]: tensor<1x1x16xf32>,
// CHECK-SAME: %[[WK:[^:]+]]: tensor<16x16xf32>, %[[BK:[^:]+]]: tensor<1x1x16xf32>,
// CHECK-SAME: %[[WV:[^:]+]]: tensor<16x16xf32>, %[[BV:[^:]+]]: tensor<1x1x16xf32>,
// CHECK-SAME: %[[WO:[^:]+]]: tensor<16x16xf32>, %[[BO:[^:]+]]: tensor<1x1x16xf32>,
// CHECK-SAME: %[[LN2_G:[^:]+]]: tensor<1x1x16xf32>, %[[LN2_B:[^:]+]]: tensor<1x1x16xf32>,
// CHECK-SAME: %[[W1:[^:]+]]: tensor<16x32xf32>, %[[B1:[^:]+]]: tensor<1x1x32xf32>,
// CHECK-SAME: %[[W2:[^:]+]]: tensor<32x16xf32>, %[[B2:[^:]+]]: tensor<1x1x16xf32>,
// CHECK-SAME: %[[TARGET:[^:]+]]: tensor<2x8x16xf32>) -> tensor<f32> {

// Casts of the parameters used in f16 (the weights only; the biases go into
// f32 adds), and the constants: an f16 copy of the matmul zero point, the
// others (statistics scales, epsilon, attention scale, gelu coefficients)
// kept f32.
// CHECK-DAG: %[[WQ16:.*]] = mpt.cast %[[WQ]] : tensor<16x16xf32> to tensor<16x16xf16>
// CHECK-DAG: %[[WK16:.*]] = mpt.cast %[[WK]] : tensor<16x16xf32> to tensor<16x16xf16>
// CHECK-DAG: %[[WV16:.*]] = mpt.cast %[[WV]] : tensor<16x16xf32> to tensor<16x16xf16>
// CHECK-DAG: %[[WO16:.*]] = mpt.cast %[[WO]] : tensor<16x16xf32> to tensor<16x16xf16>
// CHECK-DAG: %[[W1_16:.*]] = mpt.cast %[[W1]] : tensor<16x32xf32> to tensor<16x32xf16>
// CHECK-DAG: %[[W2_16:.*]] = mpt.cast %[[W2]] : tensor<32x16xf32> to tensor<32x16xf16>
// CHECK-DAG: %[[ZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
// CHECK-DAG: %[[SHIFT:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
// CHECK-DAG: %[[INV_D:.*]] = "tosa.const"() <{values = dense<6.250000e-02> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
// CHECK-DAG: %[[EPS:.*]] = "tosa.const"() <{values = dense<9.99999974E-6> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
// CHECK-DAG: %[[SCALE:.*]] = "tosa.const"() <{values = dense<0.353553385> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
// CHECK-DAG: %[[HALF:.*]] = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
// CHECK-DAG: %[[ONE:.*]] = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
// CHECK-DAG: %[[C_GELU:.*]] = "tosa.const"() <{values = dense<4.471500e-02> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
// CHECK-DAG: %[[SQRT_2_PI:.*]] = "tosa.const"() <{values = dense<0.797884583> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
// CHECK-DAG: %[[INV_N:.*]] = "tosa.const"() <{values = dense<3.906250e-03> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>

// Layer norm 1: all f32; its output is cast once and reshaped in f16 for
// the three projections.
// CHECK: %[[LN1_SUM:.*]] = tosa.reduce_sum %[[X]] {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN1_MEAN:.*]] = tosa.mul %[[LN1_SUM]], %[[INV_D]], %[[SHIFT]] : (tensor<2x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN1_XC:.*]] = tosa.sub %[[X]], %[[LN1_MEAN]] : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[LN1_SQ:.*]] = tosa.mul %[[LN1_XC]], %[[LN1_XC]], %[[SHIFT]] : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[LN1_SQSUM:.*]] = tosa.reduce_sum %[[LN1_SQ]] {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN1_VAR:.*]] = tosa.mul %[[LN1_SQSUM]], %[[INV_D]], %[[SHIFT]] : (tensor<2x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN1_VAREPS:.*]] = tosa.add %[[LN1_VAR]], %[[EPS]] : (tensor<2x8x1xf32>, tensor<1x1x1xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN1_RSTD:.*]] = tosa.rsqrt %[[LN1_VAREPS]] : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN1_NORM:.*]] = tosa.mul %[[LN1_XC]], %[[LN1_RSTD]], %[[SHIFT]] : (tensor<2x8x16xf32>, tensor<2x8x1xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[LN1_SCALED:.*]] = tosa.mul %[[LN1_NORM]], %[[LN1_G]], %[[SHIFT]] : (tensor<2x8x16xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[H:.*]] = tosa.add %[[LN1_SCALED]], %[[LN1_B]] : (tensor<2x8x16xf32>, tensor<1x1x16xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[H16:.*]] = mpt.cast %[[H]] : tensor<2x8x16xf32> to tensor<2x8x16xf16>
// CHECK-NEXT: %[[H_ROWS:.*]] = tosa.reshape %[[H16]], %{{.*}} : (tensor<2x8x16xf16>, !tosa.shape<3>) -> tensor<1x16x16xf16>

// Q, K, V: f16 matmuls with f32 outputs; the bias add takes the f32 output
// and the f32 bias and stays f32 (the edge from the matmul carries f32, so it
// is not downstream of an allow op); its sum is cast to f16 once, and the
// head split (clear, feeding Q K^T or P V) runs in f16.
// CHECK-NEXT: %[[WQ3:.*]] = tosa.reshape %[[WQ16]], %{{.*}} : (tensor<16x16xf16>, !tosa.shape<3>) -> tensor<1x16x16xf16>
// CHECK-NEXT: %[[Q_LIN:.*]] = tosa.matmul %[[H_ROWS]], %[[WQ3]], %[[ZP]], %[[ZP]] : (tensor<1x16x16xf16>, tensor<1x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[Q_ROWS:.*]] = tosa.add %[[Q_LIN]], %[[BQ]] : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[Q_ROWS16:.*]] = mpt.cast %[[Q_ROWS]] : tensor<1x16x16xf32> to tensor<1x16x16xf16>
// CHECK-NEXT: %[[Q_SPLIT:.*]] = tosa.reshape %[[Q_ROWS16]], %{{.*}} : (tensor<1x16x16xf16>, !tosa.shape<4>) -> tensor<2x8x2x8xf16>
// CHECK-NEXT: %[[Q_T:.*]] = tosa.transpose %[[Q_SPLIT]] {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x8x2x8xf16>) -> tensor<2x2x8x8xf16>
// CHECK-NEXT: %[[Q:.*]] = tosa.reshape %[[Q_T]], %{{.*}} : (tensor<2x2x8x8xf16>, !tosa.shape<3>) -> tensor<4x8x8xf16>
// CHECK-NEXT: %[[WK3:.*]] = tosa.reshape %[[WK16]], %{{.*}} : (tensor<16x16xf16>, !tosa.shape<3>) -> tensor<1x16x16xf16>
// CHECK-NEXT: %[[K_LIN:.*]] = tosa.matmul %[[H_ROWS]], %[[WK3]], %[[ZP]], %[[ZP]] : (tensor<1x16x16xf16>, tensor<1x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[K_ROWS:.*]] = tosa.add %[[K_LIN]], %[[BK]] : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[K_ROWS16:.*]] = mpt.cast %[[K_ROWS]] : tensor<1x16x16xf32> to tensor<1x16x16xf16>
// CHECK-NEXT: %[[K_SPLIT:.*]] = tosa.reshape %[[K_ROWS16]], %{{.*}} : (tensor<1x16x16xf16>, !tosa.shape<4>) -> tensor<2x8x2x8xf16>
// CHECK-NEXT: %[[K_T:.*]] = tosa.transpose %[[K_SPLIT]] {perms = array<i32: 0, 2, 3, 1>} : (tensor<2x8x2x8xf16>) -> tensor<2x2x8x8xf16>
// CHECK-NEXT: %[[KT:.*]] = tosa.reshape %[[K_T]], %{{.*}} : (tensor<2x2x8x8xf16>, !tosa.shape<3>) -> tensor<4x8x8xf16>
// CHECK-NEXT: %[[WV3:.*]] = tosa.reshape %[[WV16]], %{{.*}} : (tensor<16x16xf16>, !tosa.shape<3>) -> tensor<1x16x16xf16>
// CHECK-NEXT: %[[V_LIN:.*]] = tosa.matmul %[[H_ROWS]], %[[WV3]], %[[ZP]], %[[ZP]] : (tensor<1x16x16xf16>, tensor<1x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[V_ROWS:.*]] = tosa.add %[[V_LIN]], %[[BV]] : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[V_ROWS16:.*]] = mpt.cast %[[V_ROWS]] : tensor<1x16x16xf32> to tensor<1x16x16xf16>
// CHECK-NEXT: %[[V_SPLIT:.*]] = tosa.reshape %[[V_ROWS16]], %{{.*}} : (tensor<1x16x16xf16>, !tosa.shape<4>) -> tensor<2x8x2x8xf16>
// CHECK-NEXT: %[[V_T:.*]] = tosa.transpose %[[V_SPLIT]] {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x8x2x8xf16>) -> tensor<2x2x8x8xf16>
// CHECK-NEXT: %[[V:.*]] = tosa.reshape %[[V_T]], %{{.*}} : (tensor<2x2x8x8xf16>, !tosa.shape<3>) -> tensor<4x8x8xf16>

// Attention: Q K^T in f16 with an f32 output; the scale, the max-subtracted
// exp, its sum and the normalization stay f32 (exp and reduce_sum are deny;
// the ops before exp are not between allow ops); the probabilities are cast
// once for P V.
// CHECK-NEXT: %[[SCORES_RAW:.*]] = tosa.matmul %[[Q]], %[[KT]], %[[ZP]], %[[ZP]] : (tensor<4x8x8xf16>, tensor<4x8x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<4x8x8xf32>
// CHECK-NEXT: %[[SCORES:.*]] = tosa.mul %[[SCORES_RAW]], %[[SCALE]], %[[SHIFT]] : (tensor<4x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
// CHECK-NEXT: %[[ROW_MAX:.*]] = tosa.reduce_max %[[SCORES]] {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
// CHECK-NEXT: %[[SHIFTED:.*]] = tosa.sub %[[SCORES]], %[[ROW_MAX]] : (tensor<4x8x8xf32>, tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
// CHECK-NEXT: %[[E:.*]] = tosa.exp %[[SHIFTED]] : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
// CHECK-NEXT: %[[E_SUM:.*]] = tosa.reduce_sum %[[E]] {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
// CHECK-NEXT: %[[E_INV:.*]] = tosa.reciprocal %[[E_SUM]] : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
// CHECK-NEXT: %[[PROBS:.*]] = tosa.mul %[[E]], %[[E_INV]], %[[SHIFT]] : (tensor<4x8x8xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
// CHECK-NEXT: %[[PROBS16:.*]] = mpt.cast %[[PROBS]] : tensor<4x8x8xf32> to tensor<4x8x8xf16>
// CHECK-NEXT: %[[CTX:.*]] = tosa.matmul %[[PROBS16]], %[[V]], %[[ZP]], %[[ZP]] : (tensor<4x8x8xf16>, tensor<4x8x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<4x8x8xf32>

// Head merge (clear) in f16: it feeds the output projection's low operand,
// so clear-propagation reaches it backward from that matmul; P V's f32
// output is cast to f16 once for it (the reshapes and transpose are exact).
// Output projection in f16; its bias add (after a matmul's f32 output), the
// reshape and the residual add are not between allow ops and stay f32.
// CHECK-NEXT: %[[CTX16:.*]] = mpt.cast %[[CTX]] : tensor<4x8x8xf32> to tensor<4x8x8xf16>
// CHECK-NEXT: %[[CTX_SPLIT:.*]] = tosa.reshape %[[CTX16]], %{{.*}} : (tensor<4x8x8xf16>, !tosa.shape<4>) -> tensor<2x2x8x8xf16>
// CHECK-NEXT: %[[CTX_T:.*]] = tosa.transpose %[[CTX_SPLIT]] {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x2x8x8xf16>) -> tensor<2x8x2x8xf16>
// CHECK-NEXT: %[[CTX_ROWS:.*]] = tosa.reshape %[[CTX_T]], %{{.*}} : (tensor<2x8x2x8xf16>, !tosa.shape<3>) -> tensor<1x16x16xf16>
// CHECK-NEXT: %[[WO3:.*]] = tosa.reshape %[[WO16]], %{{.*}} : (tensor<16x16xf16>, !tosa.shape<3>) -> tensor<1x16x16xf16>
// CHECK-NEXT: %[[ATTN_LIN:.*]] = tosa.matmul %[[CTX_ROWS]], %[[WO3]], %[[ZP]], %[[ZP]] : (tensor<1x16x16xf16>, tensor<1x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[ATTN_ROWS:.*]] = tosa.add %[[ATTN_LIN]], %[[BO]] : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[ATTN:.*]] = tosa.reshape %[[ATTN_ROWS]], %{{.*}} : (tensor<1x16x16xf32>, !tosa.shape<3>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[Y1:.*]] = tosa.add %[[X]], %[[ATTN]] : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>

// Layer norm 2: f32, like layer norm 1.
// CHECK-NEXT: %[[LN2_SUM:.*]] = tosa.reduce_sum %[[Y1]] {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN2_MEAN:.*]] = tosa.mul %[[LN2_SUM]], %[[INV_D]], %[[SHIFT]] : (tensor<2x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN2_XC:.*]] = tosa.sub %[[Y1]], %[[LN2_MEAN]] : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[LN2_SQ:.*]] = tosa.mul %[[LN2_XC]], %[[LN2_XC]], %[[SHIFT]] : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[LN2_SQSUM:.*]] = tosa.reduce_sum %[[LN2_SQ]] {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN2_VAR:.*]] = tosa.mul %[[LN2_SQSUM]], %[[INV_D]], %[[SHIFT]] : (tensor<2x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN2_VAREPS:.*]] = tosa.add %[[LN2_VAR]], %[[EPS]] : (tensor<2x8x1xf32>, tensor<1x1x1xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN2_RSTD:.*]] = tosa.rsqrt %[[LN2_VAREPS]] : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[LN2_NORM:.*]] = tosa.mul %[[LN2_XC]], %[[LN2_RSTD]], %[[SHIFT]] : (tensor<2x8x16xf32>, tensor<2x8x1xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[LN2_SCALED:.*]] = tosa.mul %[[LN2_NORM]], %[[LN2_G]], %[[SHIFT]] : (tensor<2x8x16xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[M:.*]] = tosa.add %[[LN2_SCALED]], %[[LN2_B]] : (tensor<2x8x16xf32>, tensor<1x1x16xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[M16:.*]] = mpt.cast %[[M]] : tensor<2x8x16xf32> to tensor<2x8x16xf16>
// CHECK-NEXT: %[[M_ROWS:.*]] = tosa.reshape %[[M16]], %{{.*}} : (tensor<2x8x16xf16>, !tosa.shape<3>) -> tensor<1x16x16xf16>

// MLP: fc1 and fc2 in f16. fc1's bias add takes fc1's f32 output, so it is
// not downstream of an allow op and stays f32; the gelu after it is fed only
// by that f32 add, so none of it is downstream of an allow op either: the
// whole gelu runs in f32 with the f32 constants, and its output is cast to
// f16 once for fc2. fc2's bias add, the reshape and the residual add stay
// f32.
// CHECK-NEXT: %[[W1_3:.*]] = tosa.reshape %[[W1_16]], %{{.*}} : (tensor<16x32xf16>, !tosa.shape<3>) -> tensor<1x16x32xf16>
// CHECK-NEXT: %[[FC1_LIN:.*]] = tosa.matmul %[[M_ROWS]], %[[W1_3]], %[[ZP]], %[[ZP]] : (tensor<1x16x16xf16>, tensor<1x16x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[FC1:.*]] = tosa.add %[[FC1_LIN]], %[[B1]] : (tensor<1x16x32xf32>, tensor<1x1x32xf32>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[A2:.*]] = tosa.mul %[[FC1]], %[[FC1]], %[[SHIFT]] : (tensor<1x16x32xf32>, tensor<1x16x32xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[A3:.*]] = tosa.mul %[[A2]], %[[FC1]], %[[SHIFT]] : (tensor<1x16x32xf32>, tensor<1x16x32xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[A3C:.*]] = tosa.mul %[[A3]], %[[C_GELU]], %[[SHIFT]] : (tensor<1x16x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[INNER:.*]] = tosa.add %[[FC1]], %[[A3C]] : (tensor<1x16x32xf32>, tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[INNER_S:.*]] = tosa.mul %[[INNER]], %[[SQRT_2_PI]], %[[SHIFT]] : (tensor<1x16x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[TH:.*]] = tosa.tanh %[[INNER_S]] : (tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[TH1:.*]] = tosa.add %[[TH]], %[[ONE]] : (tensor<1x16x32xf32>, tensor<1x1x1xf32>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[HALF_A:.*]] = tosa.mul %[[FC1]], %[[HALF]], %[[SHIFT]] : (tensor<1x16x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[ACT:.*]] = tosa.mul %[[HALF_A]], %[[TH1]], %[[SHIFT]] : (tensor<1x16x32xf32>, tensor<1x16x32xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
// CHECK-NEXT: %[[W2_3:.*]] = tosa.reshape %[[W2_16]], %{{.*}} : (tensor<32x16xf16>, !tosa.shape<3>) -> tensor<1x32x16xf16>
// CHECK-NEXT: %[[ACT16:.*]] = mpt.cast %[[ACT]] : tensor<1x16x32xf32> to tensor<1x16x32xf16>
// CHECK-NEXT: %[[FC2_LIN:.*]] = tosa.matmul %[[ACT16]], %[[W2_3]], %[[ZP]], %[[ZP]] : (tensor<1x16x32xf16>, tensor<1x32x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[FC2_ROWS:.*]] = tosa.add %[[FC2_LIN]], %[[B2]] : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[MLP:.*]] = tosa.reshape %[[FC2_ROWS]], %{{.*}} : (tensor<1x16x16xf32>, !tosa.shape<3>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[Y2:.*]] = tosa.add %[[Y1]], %[[MLP]] : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>

// Loss: all f32, returned as is.
// CHECK-NEXT: %[[DIFF:.*]] = tosa.sub %[[Y2]], %[[TARGET]] : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[DIFF_SQ:.*]] = tosa.mul %[[DIFF]], %[[DIFF]], %[[SHIFT]] : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[SUM2:.*]] = tosa.reduce_sum %[[DIFF_SQ]] {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
// CHECK-NEXT: %[[SUM1:.*]] = tosa.reduce_sum %[[SUM2]] {axis = 1 : i32} : (tensor<2x8x1xf32>) -> tensor<2x1x1xf32>
// CHECK-NEXT: %[[SUM0:.*]] = tosa.reduce_sum %[[SUM1]] {axis = 0 : i32} : (tensor<2x1x1xf32>) -> tensor<1x1x1xf32>
// CHECK-NEXT: %[[MEAN:.*]] = tosa.mul %[[SUM0]], %[[INV_N]], %[[SHIFT]] : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1xf32>
// CHECK-NEXT: %[[LOSS:.*]] = tosa.reshape %[[MEAN]], %{{.*}} : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
// CHECK-NEXT: return %[[LOSS]] : tensor<f32>

// ARGS-LABEL: func.func @transformer_block(
// ARGS-NOT: mpt.cast %arg{{[0-9]+}} : tensor<{{1x1x|2x8x16x}}
// ARGS: return

// MATMUL-LABEL: func.func @transformer_block(
// MATMUL-COUNT-8: tosa.matmul {{.*}} : (tensor<{{[0-9x]+}}xf16>, tensor<{{[0-9x]+}}xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<{{[0-9x]+}}xf32>
// MATMUL-NOT: tosa.matmul
// MATMUL: return

func.func @transformer_block(
    %x: tensor<2x8x16xf32>,
    %ln1_g: tensor<1x1x16xf32>, %ln1_b: tensor<1x1x16xf32>,
    %wq: tensor<16x16xf32>, %bq: tensor<1x1x16xf32>,
    %wk: tensor<16x16xf32>, %bk: tensor<1x1x16xf32>,
    %wv: tensor<16x16xf32>, %bv: tensor<1x1x16xf32>,
    %wo: tensor<16x16xf32>, %bo: tensor<1x1x16xf32>,
    %ln2_g: tensor<1x1x16xf32>, %ln2_b: tensor<1x1x16xf32>,
    %w_fc1: tensor<16x32xf32>, %b_fc1: tensor<1x1x32xf32>,
    %w_fc2: tensor<32x16xf32>, %b_fc2: tensor<1x1x16xf32>,
    %target: tensor<2x8x16xf32>) -> tensor<f32> {
  // Constants: the matmul zero points, the tosa.mul shift, the statistics
  // scales, epsilon, the attention scale 1/sqrt(8) and the gelu coefficients.
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_d = "tosa.const"() <{values = dense<0.0625> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-05> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %scale = "tosa.const"() <{values = dense<0.353553385> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %c_gelu = "tosa.const"() <{values = dense<0.044715> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %sqrt_2_pi = "tosa.const"() <{values = dense<0.797884583> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %inv_n = "tosa.const"() <{values = dense<0.00390625> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s_rows = tosa.const_shape {values = dense<[1, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_fc1_w = tosa.const_shape {values = dense<[1, 16, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_fc2_w = tosa.const_shape {values = dense<[1, 32, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_split = tosa.const_shape {values = dense<[2, 8, 2, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s_heads = tosa.const_shape {values = dense<[4, 8, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_merge = tosa.const_shape {values = dense<[2, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s_bsd = tosa.const_shape {values = dense<[2, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_scalar = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>

  //===--- Attention sub-block -------------------------------------------===//

  // Pre-attention layer norm over the model dimension.
  %ln1_sum = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
  %ln1_mean = tosa.mul %ln1_sum, %inv_d, %shift : (tensor<2x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x1xf32>
  %ln1_xc = tosa.sub %x, %ln1_mean : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
  %ln1_sq = tosa.mul %ln1_xc, %ln1_xc, %shift : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
  %ln1_sqsum = tosa.reduce_sum %ln1_sq {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
  %ln1_var = tosa.mul %ln1_sqsum, %inv_d, %shift : (tensor<2x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x1xf32>
  %ln1_vareps = tosa.add %ln1_var, %eps : (tensor<2x8x1xf32>, tensor<1x1x1xf32>) -> tensor<2x8x1xf32>
  %ln1_rstd = tosa.rsqrt %ln1_vareps : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %ln1_norm = tosa.mul %ln1_xc, %ln1_rstd, %shift : (tensor<2x8x16xf32>, tensor<2x8x1xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
  %ln1_scaled = tosa.mul %ln1_norm, %ln1_g, %shift : (tensor<2x8x16xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
  %h = tosa.add %ln1_scaled, %ln1_b : (tensor<2x8x16xf32>, tensor<1x1x16xf32>) -> tensor<2x8x16xf32>
  %h_rows = tosa.reshape %h, %s_rows : (tensor<2x8x16xf32>, !tosa.shape<3>) -> tensor<1x16x16xf32>

  // Q, K, V projections on the 16 rows (batch * seq), split into 2 heads of
  // 8: (batch * heads) x seq x head_dim, K transposed to head_dim x seq.
  %wq3 = tosa.reshape %wq, %s_rows : (tensor<16x16xf32>, !tosa.shape<3>) -> tensor<1x16x16xf32>
  %q_lin = tosa.matmul %h_rows, %wq3, %zp, %zp : (tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16xf32>
  %q_rows = tosa.add %q_lin, %bq : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
  %q_split = tosa.reshape %q_rows, %s_split : (tensor<1x16x16xf32>, !tosa.shape<4>) -> tensor<2x8x2x8xf32>
  %q_t = tosa.transpose %q_split {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
  %q = tosa.reshape %q_t, %s_heads : (tensor<2x2x8x8xf32>, !tosa.shape<3>) -> tensor<4x8x8xf32>

  %wk3 = tosa.reshape %wk, %s_rows : (tensor<16x16xf32>, !tosa.shape<3>) -> tensor<1x16x16xf32>
  %k_lin = tosa.matmul %h_rows, %wk3, %zp, %zp : (tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16xf32>
  %k_rows = tosa.add %k_lin, %bk : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
  %k_split = tosa.reshape %k_rows, %s_split : (tensor<1x16x16xf32>, !tosa.shape<4>) -> tensor<2x8x2x8xf32>
  %k_t = tosa.transpose %k_split {perms = array<i32: 0, 2, 3, 1>} : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
  %kT = tosa.reshape %k_t, %s_heads : (tensor<2x2x8x8xf32>, !tosa.shape<3>) -> tensor<4x8x8xf32>

  %wv3 = tosa.reshape %wv, %s_rows : (tensor<16x16xf32>, !tosa.shape<3>) -> tensor<1x16x16xf32>
  %v_lin = tosa.matmul %h_rows, %wv3, %zp, %zp : (tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16xf32>
  %v_rows = tosa.add %v_lin, %bv : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
  %v_split = tosa.reshape %v_rows, %s_split : (tensor<1x16x16xf32>, !tosa.shape<4>) -> tensor<2x8x2x8xf32>
  %v_t = tosa.transpose %v_split {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
  %v = tosa.reshape %v_t, %s_heads : (tensor<2x2x8x8xf32>, !tosa.shape<3>) -> tensor<4x8x8xf32>

  // Scaled dot-product attention: softmax(Q K^T / sqrt(8)) V, the softmax
  // written out (max-subtracted exp, sum, reciprocal).
  %scores_raw = tosa.matmul %q, %kT, %zp, %zp : (tensor<4x8x8xf32>, tensor<4x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8xf32>
  %scores = tosa.mul %scores_raw, %scale, %shift : (tensor<4x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
  %row_max = tosa.reduce_max %scores {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %shifted = tosa.sub %scores, %row_max : (tensor<4x8x8xf32>, tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
  %e = tosa.exp %shifted : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %e_sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %e_inv = tosa.reciprocal %e_sum : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %probs = tosa.mul %e, %e_inv, %shift : (tensor<4x8x8xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
  %ctx = tosa.matmul %probs, %v, %zp, %zp : (tensor<4x8x8xf32>, tensor<4x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8xf32>

  // Merge the heads back into 16 rows of width 16.
  %ctx_split = tosa.reshape %ctx, %s_merge : (tensor<4x8x8xf32>, !tosa.shape<4>) -> tensor<2x2x8x8xf32>
  %ctx_t = tosa.transpose %ctx_split {perms = array<i32: 0, 2, 1, 3>} : (tensor<2x2x8x8xf32>) -> tensor<2x8x2x8xf32>
  %ctx_rows = tosa.reshape %ctx_t, %s_rows : (tensor<2x8x2x8xf32>, !tosa.shape<3>) -> tensor<1x16x16xf32>

  // Output projection and the first residual connection.
  %wo3 = tosa.reshape %wo, %s_rows : (tensor<16x16xf32>, !tosa.shape<3>) -> tensor<1x16x16xf32>
  %attn_lin = tosa.matmul %ctx_rows, %wo3, %zp, %zp : (tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16xf32>
  %attn_rows = tosa.add %attn_lin, %bo : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
  %attn = tosa.reshape %attn_rows, %s_bsd : (tensor<1x16x16xf32>, !tosa.shape<3>) -> tensor<2x8x16xf32>
  %y1 = tosa.add %x, %attn : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>

  //===--- MLP sub-block -------------------------------------------------===//

  // Pre-MLP layer norm.
  %ln2_sum = tosa.reduce_sum %y1 {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
  %ln2_mean = tosa.mul %ln2_sum, %inv_d, %shift : (tensor<2x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x1xf32>
  %ln2_xc = tosa.sub %y1, %ln2_mean : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
  %ln2_sq = tosa.mul %ln2_xc, %ln2_xc, %shift : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
  %ln2_sqsum = tosa.reduce_sum %ln2_sq {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
  %ln2_var = tosa.mul %ln2_sqsum, %inv_d, %shift : (tensor<2x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x8x1xf32>
  %ln2_vareps = tosa.add %ln2_var, %eps : (tensor<2x8x1xf32>, tensor<1x1x1xf32>) -> tensor<2x8x1xf32>
  %ln2_rstd = tosa.rsqrt %ln2_vareps : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %ln2_norm = tosa.mul %ln2_xc, %ln2_rstd, %shift : (tensor<2x8x16xf32>, tensor<2x8x1xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
  %ln2_scaled = tosa.mul %ln2_norm, %ln2_g, %shift : (tensor<2x8x16xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
  %m = tosa.add %ln2_scaled, %ln2_b : (tensor<2x8x16xf32>, tensor<1x1x16xf32>) -> tensor<2x8x16xf32>
  %m_rows = tosa.reshape %m, %s_rows : (tensor<2x8x16xf32>, !tosa.shape<3>) -> tensor<1x16x16xf32>

  // 16 -> 32, gelu (tanh approximation), 32 -> 16:
  //   gelu(a) = 0.5 a (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3)))
  %w_fc1_3 = tosa.reshape %w_fc1, %s_fc1_w : (tensor<16x32xf32>, !tosa.shape<3>) -> tensor<1x16x32xf32>
  %fc1_lin = tosa.matmul %m_rows, %w_fc1_3, %zp, %zp : (tensor<1x16x16xf32>, tensor<1x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x32xf32>
  %fc1 = tosa.add %fc1_lin, %b_fc1 : (tensor<1x16x32xf32>, tensor<1x1x32xf32>) -> tensor<1x16x32xf32>
  %a2 = tosa.mul %fc1, %fc1, %shift : (tensor<1x16x32xf32>, tensor<1x16x32xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
  %a3 = tosa.mul %a2, %fc1, %shift : (tensor<1x16x32xf32>, tensor<1x16x32xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
  %a3c = tosa.mul %a3, %c_gelu, %shift : (tensor<1x16x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
  %inner = tosa.add %fc1, %a3c : (tensor<1x16x32xf32>, tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
  %inner_s = tosa.mul %inner, %sqrt_2_pi, %shift : (tensor<1x16x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
  %th = tosa.tanh %inner_s : (tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
  %th1 = tosa.add %th, %one : (tensor<1x16x32xf32>, tensor<1x1x1xf32>) -> tensor<1x16x32xf32>
  %half_a = tosa.mul %fc1, %half, %shift : (tensor<1x16x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
  %act = tosa.mul %half_a, %th1, %shift : (tensor<1x16x32xf32>, tensor<1x16x32xf32>, tensor<1xi8>) -> tensor<1x16x32xf32>
  %w_fc2_3 = tosa.reshape %w_fc2, %s_fc2_w : (tensor<32x16xf32>, !tosa.shape<3>) -> tensor<1x32x16xf32>
  %fc2_lin = tosa.matmul %act, %w_fc2_3, %zp, %zp : (tensor<1x16x32xf32>, tensor<1x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16xf32>
  %fc2_rows = tosa.add %fc2_lin, %b_fc2 : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
  %mlp = tosa.reshape %fc2_rows, %s_bsd : (tensor<1x16x16xf32>, !tosa.shape<3>) -> tensor<2x8x16xf32>

  // Second residual connection.
  %y2 = tosa.add %y1, %mlp : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>

  //===--- Loss: mean((y2 - target)^2) ----------------------------------===//

  %diff = tosa.sub %y2, %target : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %diff_sq = tosa.mul %diff, %diff, %shift : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<1xi8>) -> tensor<2x8x16xf32>
  %sum2 = tosa.reduce_sum %diff_sq {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
  %sum1 = tosa.reduce_sum %sum2 {axis = 1 : i32} : (tensor<2x8x1xf32>) -> tensor<2x1x1xf32>
  %sum0 = tosa.reduce_sum %sum1 {axis = 0 : i32} : (tensor<2x1x1xf32>) -> tensor<1x1x1xf32>
  %mean = tosa.mul %sum0, %inv_n, %shift : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1xf32>
  %loss = tosa.reshape %mean, %s_scalar : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %loss : tensor<f32>
}
