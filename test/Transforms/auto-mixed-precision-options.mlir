// The type= and target= options of mpt-auto-mixed-precision: the low type
// they pick, the warnings for targets without (bf16) Tensor Cores, and the
// errors for unknown values. The cases live in one file, split by split-file,
// because each needs its own options and some its own diagnostics.

// RUN: rm -rf %t && split-file %s %t

// No option: f16.
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision | FileCheck %s --check-prefix=F16

// type= alone.
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision=type=f16 | FileCheck %s --check-prefix=F16
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision=type=bf16 | FileCheck %s --check-prefix=BF16

// target= picks f16 before sm_80 and bf16 from it.
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision=target=sm_70 | FileCheck %s --check-prefix=F16
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision=target=sm_75 | FileCheck %s --check-prefix=F16
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision=target=sm_80 | FileCheck %s --check-prefix=BF16
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision=target=sm_90 | FileCheck %s --check-prefix=BF16

// An explicit type= wins over the target's default, both ways.
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision="target=sm_90 type=f16" | FileCheck %s --check-prefix=F16
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision="type=f16 target=sm_80" | FileCheck %s --check-prefix=F16

// Targets whose defaults are fine print no diagnostic at all.
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision=target=sm_70 -o /dev/null 2>&1 | count 0
// RUN: mpt-opt %t/matmul.mlir --mpt-auto-mixed-precision=target=sm_90 -o /dev/null 2>&1 | count 0

// Warnings: the pass still runs.
// RUN: mpt-opt %t/sm60.mlir --mpt-auto-mixed-precision=target=sm_60 -verify-diagnostics | FileCheck %s --check-prefix=F16
// RUN: mpt-opt %t/sm75-bf16.mlir --mpt-auto-mixed-precision="target=sm_75 type=bf16" -verify-diagnostics | FileCheck %s --check-prefix=BF16

// Errors: the module is left as it was.
// RUN: mpt-opt %t/unknown-target.mlir --mpt-auto-mixed-precision=target=sm_61 -verify-diagnostics
// RUN: mpt-opt %t/unknown-type.mlir --mpt-auto-mixed-precision=type=fp8 -verify-diagnostics
// RUN: mpt-opt %t/unknown-type.mlir --mpt-auto-mixed-precision="target=sm_90 type=fp8" -verify-diagnostics

// F16-LABEL: func.func @mm(
// F16-SAME:      %[[A:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32x8xf32>) -> tensor<16x8xf32>
// F16-DAG:     %[[A16:.*]] = mpt.cast %[[A]] : tensor<16x32xf32> to tensor<16x32xf16>
// F16-DAG:     %[[B16:.*]] = mpt.cast %[[B]] : tensor<32x8xf32> to tensor<32x8xf16>
// F16:         %[[C:.*]] = mpt.matmul %[[A16]], %[[B16]] acc(f32) : (tensor<16x32xf16>, tensor<32x8xf16>) -> tensor<16x8xf16>
// F16-NEXT:    %[[R:.*]] = mpt.cast %[[C]] : tensor<16x8xf16> to tensor<16x8xf32>
// F16-NEXT:    return %[[R]] : tensor<16x8xf32>

// BF16-LABEL: func.func @mm(
// BF16-SAME:      %[[A:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32x8xf32>) -> tensor<16x8xf32>
// BF16-DAG:     %[[A16:.*]] = mpt.cast %[[A]] : tensor<16x32xf32> to tensor<16x32xbf16>
// BF16-DAG:     %[[B16:.*]] = mpt.cast %[[B]] : tensor<32x8xf32> to tensor<32x8xbf16>
// BF16:         %[[C:.*]] = mpt.matmul %[[A16]], %[[B16]] acc(f32) : (tensor<16x32xbf16>, tensor<32x8xbf16>) -> tensor<16x8xbf16>
// BF16-NEXT:    %[[R:.*]] = mpt.cast %[[C]] : tensor<16x8xbf16> to tensor<16x8xf32>
// BF16-NEXT:    return %[[R]] : tensor<16x8xf32>

//--- matmul.mlir
func.func @mm(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %0 = mpt.matmul %a, %b : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

//--- sm60.mlir
// expected-warning @+1 {{target sm_60 (Pascal) has no Tensor Cores: f16 halves memory traffic but matmuls run on CUDA cores}}
module {
  func.func @mm(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
    %0 = mpt.matmul %a, %b : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }
}

//--- sm75-bf16.mlir
// expected-warning @+1 {{target sm_75 (Turing) has no bf16 Tensor Cores; f16 is faster there}}
module {
  func.func @mm(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
    %0 = mpt.matmul %a, %b : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }
}

//--- unknown-target.mlir
// expected-error @+1 {{mpt-auto-mixed-precision: unknown target 'sm_61'; expected one of sm_60, sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_100}}
module {
  func.func @mm(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
    %0 = mpt.matmul %a, %b : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }
}

//--- unknown-type.mlir
// expected-error @+1 {{mpt-auto-mixed-precision: unknown type 'fp8'; expected f16 or bf16}}
module {
  func.func @mm(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
    %0 = mpt.matmul %a, %b : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }
}
