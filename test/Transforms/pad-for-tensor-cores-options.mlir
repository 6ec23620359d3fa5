// The options of mpt-pad-for-tensor-cores: multiple=, min-size=,
// max-overhead=, print-stats and pad-parameters, and the errors for negative
// values and for pad-parameters on a called function. The cases live in one
// file, split by split-file, because each needs its own options and some
// their own diagnostics.

// RUN: rm -rf %t && split-file %s %t

// multiple=16 overrides the default 8 for f16: K = 40 (a multiple of 8) is
// padded to 48 (20% more FLOPs, under the default limit).
// RUN: mpt-opt %t/k40.mlir --mpt-pad-for-tensor-cores | FileCheck %s --check-prefix=DEFAULT8
// RUN: mpt-opt %t/k40.mlir --mpt-pad-for-tensor-cores=multiple=16 | FileCheck %s --check-prefix=MULT16

// min-size=8 keeps M = 4 as it is and pads only N (100 -> 104, 4% more
// FLOPs); without it M = 4 -> 8 as well, 108% more, and the matmul is skipped.
// RUN: mpt-opt %t/small-m.mlir --mpt-pad-for-tensor-cores=min-size=8 | FileCheck %s --check-prefix=MINSIZE
// RUN: mpt-opt %t/small-m-skipped.mlir --mpt-pad-for-tensor-cores -verify-diagnostics | FileCheck %s --check-prefix=NOMINSIZE

// max-overhead: the default 0.25 pads a 4% case and skips a 33.1% one with a
// remark; 0.5 pads both; 0.0 skips every contraction that needs padding.
// RUN: mpt-opt %t/overhead.mlir --mpt-pad-for-tensor-cores -verify-diagnostics | FileCheck %s --check-prefix=OVERHEAD
// RUN: mpt-opt %t/overhead-zero.mlir --mpt-pad-for-tensor-cores=max-overhead=0.0 -verify-diagnostics | FileCheck %s --check-prefix=ZERO --implicit-check-not=mpt.pad --implicit-check-not=mpt.slice
// RUN: mpt-opt %t/overhead-zero.mlir --mpt-pad-for-tensor-cores=max-overhead=0.5 2>/dev/null | FileCheck %s --check-prefix=HALF

// print-stats: one line on stderr (after the remarks), nothing without it.
// RUN: mpt-opt %t/overhead-zero.mlir --mpt-pad-for-tensor-cores=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: mpt-opt %t/overhead-zero.mlir --mpt-pad-for-tensor-cores="max-overhead=0 print-stats" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS-ZERO
// RUN: mpt-opt %t/k40.mlir --mpt-pad-for-tensor-cores -o /dev/null 2>&1 | count 0

// Negative values are errors, reported on the module.
// RUN: mpt-opt %t/negative.mlir --mpt-pad-for-tensor-cores=multiple=-1 -verify-diagnostics
// RUN: mpt-opt %t/negative.mlir --mpt-pad-for-tensor-cores=min-size=-2 -verify-diagnostics
// RUN: mpt-opt %t/negative.mlir --mpt-pad-for-tensor-cores=max-overhead=-0.5 -verify-diagnostics
// RUN: not mpt-opt %t/k40.mlir --mpt-pad-for-tensor-cores=multiple=-8 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// pad-parameters: parameters are padded in the signature; off by default.
// RUN: mpt-opt %t/params.mlir --mpt-pad-for-tensor-cores=pad-parameters | FileCheck %s --check-prefix=PARAMS
// RUN: mpt-opt %t/params.mlir --mpt-pad-for-tensor-cores | FileCheck %s --check-prefix=NOPARAMS
// RUN: mpt-opt %t/params-called.mlir --mpt-pad-for-tensor-cores=pad-parameters -verify-diagnostics
// A called function is fine without pad-parameters.
// RUN: mpt-opt %t/params-called.mlir --mpt-pad-for-tensor-cores 2>/dev/null | FileCheck %s --check-prefix=CALLED

// DEFAULT8-LABEL: func.func @k40(
// DEFAULT8-SAME: %[[A:.*]]: tensor<64x40xf16>, %[[B:.*]]: tensor<40x64xf16>) -> tensor<64x64xf16>
// DEFAULT8-NEXT: %[[M:.*]] = mpt.matmul %[[A]], %[[B]] : (tensor<64x40xf16>, tensor<40x64xf16>) -> tensor<64x64xf16>
// DEFAULT8-NEXT: return %[[M]]

// MULT16-LABEL: func.func @k40(
// MULT16-SAME: %[[A:.*]]: tensor<64x40xf16>, %[[B:.*]]: tensor<40x64xf16>) -> tensor<64x64xf16>
// MULT16-NEXT: %[[AP:.*]] = mpt.pad %[[A]] low = [0, 0] high = [0, 8] : tensor<64x40xf16> -> tensor<64x48xf16>
// MULT16-NEXT: %[[BP:.*]] = mpt.pad %[[B]] low = [0, 0] high = [8, 0] : tensor<40x64xf16> -> tensor<48x64xf16>
// MULT16-NEXT: %[[M:.*]] = mpt.matmul %[[AP]], %[[BP]] : (tensor<64x48xf16>, tensor<48x64xf16>) -> tensor<64x64xf16>
// MULT16-NEXT: return %[[M]] : tensor<64x64xf16>

// MINSIZE-LABEL: func.func @small_m(
// MINSIZE-SAME: %[[A:.*]]: tensor<4x64xf16>, %[[B:.*]]: tensor<64x100xf16>) -> tensor<4x100xf16>
// MINSIZE-NEXT: %[[BP:.*]] = mpt.pad %[[B]] low = [0, 0] high = [0, 4] : tensor<64x100xf16> -> tensor<64x104xf16>
// MINSIZE-NEXT: %[[M:.*]] = mpt.matmul %[[A]], %[[BP]] : (tensor<4x64xf16>, tensor<64x104xf16>) -> tensor<4x104xf16>
// MINSIZE-NEXT: %[[S:.*]] = mpt.slice %[[M]] offsets = [0, 0] sizes = [4, 100] : tensor<4x104xf16> -> tensor<4x100xf16>
// MINSIZE-NEXT: return %[[S]] : tensor<4x100xf16>

// NOMINSIZE-LABEL: func.func @small_m(
// NOMINSIZE-SAME: %[[A:.*]]: tensor<4x64xf16>, %[[B:.*]]: tensor<64x100xf16>) -> tensor<4x100xf16>
// NOMINSIZE-NEXT: %[[M:.*]] = mpt.matmul %[[A]], %[[B]] : (tensor<4x64xf16>, tensor<64x100xf16>) -> tensor<4x100xf16>
// NOMINSIZE-NEXT: return %[[M]] : tensor<4x100xf16>

// OVERHEAD-LABEL: func.func @overhead(
// OVERHEAD-SAME: %[[X:.*]]: tensor<32x64xf16>, %[[W:.*]]: tensor<64x100xf16>, %[[A:.*]]: tensor<30x100xf16>, %[[B:.*]]: tensor<20x100xf16>)
// OVERHEAD-NEXT: %[[WP:.*]] = mpt.pad %[[W]] low = [0, 0] high = [0, 4] : tensor<64x100xf16> -> tensor<64x104xf16>
// OVERHEAD-NEXT: %[[M:.*]] = mpt.matmul %[[X]], %[[WP]] : (tensor<32x64xf16>, tensor<64x104xf16>) -> tensor<32x104xf16>
// OVERHEAD-NEXT: %[[S:.*]] = mpt.slice %[[M]] offsets = [0, 0] sizes = [32, 100] : tensor<32x104xf16> -> tensor<32x100xf16>
// OVERHEAD-NEXT: %[[N:.*]] = mpt.matmul %[[A]], %[[B]] transpose_b : (tensor<30x100xf16>, tensor<20x100xf16>) -> tensor<30x20xf16>
// OVERHEAD-NEXT: return %[[S]], %[[N]]

// ZERO-LABEL: func.func @overhead(
// ZERO-SAME: %[[X:.*]]: tensor<32x64xf16>, %[[W:.*]]: tensor<64x100xf16>, %[[A:.*]]: tensor<30x100xf16>, %[[B:.*]]: tensor<20x100xf16>)
// ZERO-NEXT: %[[M:.*]] = mpt.matmul %[[X]], %[[W]] : (tensor<32x64xf16>, tensor<64x100xf16>) -> tensor<32x100xf16>
// ZERO-NEXT: %[[N:.*]] = mpt.matmul %[[A]], %[[B]] transpose_b : (tensor<30x100xf16>, tensor<20x100xf16>) -> tensor<30x20xf16>
// ZERO-NEXT: return %[[M]], %[[N]]

// HALF-LABEL: func.func @overhead(
// HALF: mpt.matmul %{{.*}}, %{{.*}} : (tensor<32x64xf16>, tensor<64x104xf16>) -> tensor<32x104xf16>
// HALF: mpt.matmul %{{.*}}, %{{.*}} transpose_b : (tensor<32x104xf16>, tensor<24x104xf16>) -> tensor<32x24xf16>

// STATS: remark: not padded for Tensor Cores: M x N x K 30x20x100 -> 32x24x104 adds 33.1% FLOPs, above max-overhead=2.500000e-01
// STATS: mpt-pad-for-tensor-cores: 1 contractions padded, 1 skipped; extra FLOPs 4% of the padded contractions; extra bytes 512{{$}}
// STATS-ZERO: mpt-pad-for-tensor-cores: 0 contractions padded, 2 skipped; extra FLOPs 0% of the padded contractions; extra bytes 0{{$}}

// NEGATIVE: error: mpt-pad-for-tensor-cores: multiple, min-size and max-overhead must be non-negative

// PARAMS-LABEL: func.func @params(
// PARAMS-SAME: %[[X:[^:]*]]: tensor<32x64xf16> {mpt.role = #mpt.role<input>}
// PARAMS-SAME: %[[W1:[^:]*]]: tensor<64x104xf16> {mpt.logical_shape = array<i64: 64, 100>, mpt.role = #mpt.role<parameter>}
// PARAMS-SAME: %[[B1:[^:]*]]: tensor<100xf16> {mpt.role = #mpt.role<parameter>}
// PARAMS-SAME: %[[W2:[^:]*]]: tensor<104x64xf32> {mpt.logical_shape = array<i64: 100, 64>, mpt.role = #mpt.role<parameter>}
// PARAMS-SAME: -> tensor<32x64xf16>
// PARAMS-NOT: mpt.slice
// PARAMS-NOT: mpt.pad %[[W1]]
// PARAMS: %[[H:.*]] = mpt.matmul %[[X]], %[[W1]] : (tensor<32x64xf16>, tensor<64x104xf16>) -> tensor<32x104xf16>
// PARAMS-NEXT: %[[B1P:.*]] = mpt.pad %[[B1]] low = [0] high = [4] : tensor<100xf16> -> tensor<104xf16>
// PARAMS-NEXT: %[[HB:.*]] = mpt.add %[[H]], %[[B1P]] : (tensor<32x104xf16>, tensor<104xf16>) -> tensor<32x104xf16>
// PARAMS-NEXT: %[[W2H:.*]] = mpt.cast %[[W2]] : tensor<104x64xf32> to tensor<104x64xf16>
// PARAMS-NEXT: %[[Y:.*]] = mpt.matmul %[[HB]], %[[W2H]] : (tensor<32x104xf16>, tensor<104x64xf16>) -> tensor<32x64xf16>
// PARAMS-NEXT: return %[[Y]] : tensor<32x64xf16>

// An input (not a parameter) is padded at its use; the parameter's slice
// cancels against the pad of the matmul.
// PARAMS-LABEL: func.func @input_not_padded(
// PARAMS-SAME: %[[XI:[^:]*]]: tensor<32x100xf16> {mpt.role = #mpt.role<input>}
// PARAMS-SAME: %[[W:[^:]*]]: tensor<104x64xf16> {mpt.logical_shape = array<i64: 100, 64>, mpt.role = #mpt.role<parameter>}
// PARAMS-NEXT: %[[XP:.*]] = mpt.pad %[[XI]] low = [0, 0] high = [0, 4] : tensor<32x100xf16> -> tensor<32x104xf16>
// PARAMS-NEXT: %[[Y:.*]] = mpt.matmul %[[XP]], %[[W]] : (tensor<32x104xf16>, tensor<104x64xf16>) -> tensor<32x64xf16>
// PARAMS-NEXT: return %[[Y]] : tensor<32x64xf16>

// NOPARAMS-LABEL: func.func @params(
// NOPARAMS-SAME: tensor<64x100xf16> {mpt.role = #mpt.role<parameter>}
// NOPARAMS-NOT: mpt.logical_shape
// NOPARAMS: mpt.pad %{{.*}} low = [0, 0] high = [0, 4] : tensor<64x100xf16> -> tensor<64x104xf16>

// CALLED-LABEL: func.func @callee(
// CALLED-SAME: tensor<64x100xf16> {mpt.role = #mpt.role<parameter>}) -> tensor<32x100xf16>
// CALLED: mpt.pad %{{.*}} low = [0, 0] high = [0, 4] : tensor<64x100xf16> -> tensor<64x104xf16>
// CALLED-LABEL: func.func @caller(
// CALLED: call @callee(

//--- k40.mlir
func.func @k40(%a: tensor<64x40xf16>, %b: tensor<40x64xf16>) -> tensor<64x64xf16> {
  %0 = mpt.matmul %a, %b : (tensor<64x40xf16>, tensor<40x64xf16>) -> tensor<64x64xf16>
  return %0 : tensor<64x64xf16>
}

//--- small-m.mlir
func.func @small_m(%a: tensor<4x64xf16>, %b: tensor<64x100xf16>) -> tensor<4x100xf16> {
  %0 = mpt.matmul %a, %b : (tensor<4x64xf16>, tensor<64x100xf16>) -> tensor<4x100xf16>
  return %0 : tensor<4x100xf16>
}

//--- small-m-skipped.mlir
func.func @small_m(%a: tensor<4x64xf16>, %b: tensor<64x100xf16>) -> tensor<4x100xf16> {
  // expected-remark @+1 {{not padded for Tensor Cores: M x N x K 4x100x64 -> 8x104x64 adds 108.0% FLOPs, above max-overhead=2.500000e-01}}
  %0 = mpt.matmul %a, %b : (tensor<4x64xf16>, tensor<64x100xf16>) -> tensor<4x100xf16>
  return %0 : tensor<4x100xf16>
}

//--- overhead.mlir
func.func @overhead(%x: tensor<32x64xf16>, %w: tensor<64x100xf16>,
                    %a: tensor<30x100xf16>, %b: tensor<20x100xf16>)
    -> (tensor<32x100xf16>, tensor<30x20xf16>) {
  %0 = mpt.matmul %x, %w : (tensor<32x64xf16>, tensor<64x100xf16>) -> tensor<32x100xf16>
  // expected-remark @+1 {{not padded for Tensor Cores: M x N x K 30x20x100 -> 32x24x104 adds 33.1% FLOPs, above max-overhead=2.500000e-01}}
  %1 = mpt.matmul %a, %b transpose_b : (tensor<30x100xf16>, tensor<20x100xf16>) -> tensor<30x20xf16>
  return %0, %1 : tensor<32x100xf16>, tensor<30x20xf16>
}

//--- overhead-zero.mlir
func.func @overhead(%x: tensor<32x64xf16>, %w: tensor<64x100xf16>,
                    %a: tensor<30x100xf16>, %b: tensor<20x100xf16>)
    -> (tensor<32x100xf16>, tensor<30x20xf16>) {
  // expected-remark @+1 {{not padded for Tensor Cores: M x N x K 32x100x64 -> 32x104x64 adds 4.0% FLOPs, above max-overhead=0.000000e+00}}
  %0 = mpt.matmul %x, %w : (tensor<32x64xf16>, tensor<64x100xf16>) -> tensor<32x100xf16>
  // expected-remark @+1 {{not padded for Tensor Cores: M x N x K 30x20x100 -> 32x24x104 adds 33.1% FLOPs, above max-overhead=0.000000e+00}}
  %1 = mpt.matmul %a, %b transpose_b : (tensor<30x100xf16>, tensor<20x100xf16>) -> tensor<30x20xf16>
  // An aligned matmul needs no padding and gets no remark, even with 0.0.
  %2 = mpt.matmul %x, %x transpose_a : (tensor<32x64xf16>, tensor<32x64xf16>) -> tensor<64x64xf16>
  return %0, %1 : tensor<32x100xf16>, tensor<30x20xf16>
}

//--- negative.mlir
// expected-error @+1 {{mpt-pad-for-tensor-cores: multiple, min-size and max-overhead must be non-negative}}
module {
  func.func @k40(%a: tensor<64x40xf16>, %b: tensor<40x64xf16>) -> tensor<64x64xf16> {
    %0 = mpt.matmul %a, %b : (tensor<64x40xf16>, tensor<40x64xf16>) -> tensor<64x64xf16>
    return %0 : tensor<64x64xf16>
  }
}

//--- params.mlir
// @params: %w1 (64x100, the N of the first matmul) and %w2 (100x64 f32, the K
// of the second, through a cast to f16) get padded signatures; the bias %b1 is
// not a contraction operand and is padded at its use.
func.func @params(%x: tensor<32x64xf16> {mpt.role = #mpt.role<input>},
                  %w1: tensor<64x100xf16> {mpt.role = #mpt.role<parameter>},
                  %b1: tensor<100xf16> {mpt.role = #mpt.role<parameter>},
                  %w2: tensor<100x64xf32> {mpt.role = #mpt.role<parameter>})
    -> tensor<32x64xf16> {
  %0 = mpt.matmul %x, %w1 : (tensor<32x64xf16>, tensor<64x100xf16>) -> tensor<32x100xf16>
  %1 = mpt.add %0, %b1 : (tensor<32x100xf16>, tensor<100xf16>) -> tensor<32x100xf16>
  %2 = mpt.cast %w2 : tensor<100x64xf32> to tensor<100x64xf16>
  %3 = mpt.matmul %1, %2 : (tensor<32x100xf16>, tensor<100x64xf16>) -> tensor<32x64xf16>
  return %3 : tensor<32x64xf16>
}

func.func @input_not_padded(%x: tensor<32x100xf16> {mpt.role = #mpt.role<input>},
                            %w: tensor<100x64xf16> {mpt.role = #mpt.role<parameter>})
    -> tensor<32x64xf16> {
  %0 = mpt.matmul %x, %w : (tensor<32x100xf16>, tensor<100x64xf16>) -> tensor<32x64xf16>
  return %0 : tensor<32x64xf16>
}

//--- params-called.mlir
// expected-error @+1 {{mpt-pad-for-tensor-cores: pad-parameters cannot change the signature of @callee: it is called in the module}}
func.func @callee(%x: tensor<32x64xf16> {mpt.role = #mpt.role<input>},
                  %w: tensor<64x100xf16> {mpt.role = #mpt.role<parameter>}) -> tensor<32x100xf16> {
  %0 = mpt.matmul %x, %w : (tensor<32x64xf16>, tensor<64x100xf16>) -> tensor<32x100xf16>
  return %0 : tensor<32x100xf16>
}

func.func @caller(%x: tensor<32x64xf16>, %w: tensor<64x100xf16>) -> tensor<32x100xf16> {
  %0 = func.call @callee(%x, %w) : (tensor<32x64xf16>, tensor<64x100xf16>) -> tensor<32x100xf16>
  return %0 : tensor<32x100xf16>
}
