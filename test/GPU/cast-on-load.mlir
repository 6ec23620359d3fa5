// A small matmul whose operand a cast from f32 just made (a working copy
// of a weight or of the batch) reads the cast's f32 input instead and
// rounds it as it loads: vector loads of 8 f32, arith.truncf, 16-byte
// stores into the shared stage, in place of the operand's cp.async copies.
// The copy and its cast go once nothing reads them; on sm_90a the matmul
// runs on mma.sync, since wgmma's TMA copies cannot round. A zero-padded
// copy (the cast into a corner of a zero fill) is read the same way, zeros
// outside the input. Left alone: a cast whose input is written before the
// matmul, a cast that does more than round, a padded copy whose border is
// not zero, a matmul of more than 2^30 multiply-adds, and everything with
// cast-on-load=0.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80}))" 2> /dev/null | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_90a}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOPPER
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80 cast-on-load=0}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_80 -o %t/sm_80.mlir 2> /dev/null
// RUN: %extract_kernels %t/sm_80.mlir %t/sm_80 > /dev/null
// RUN: %if cuda-toolkit %{ for ptx in %t/sm_80/*.ptx; do %ptxas -arch=sm_80 $ptx -o $ptx.cubin || exit 1; done %}

#id = affine_map<(d0, d1) -> (d0, d1)>

// OFF-NOT: rounded from the cast

// The weight's copy: B is read from %w and rounded; A still by cp.async.
// REMARK: remark: matmul 64x64x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, B rounded from the cast's f32 input as it is loaded, products stored into C (its zero fill dropped)
// HOPPER: remark: matmul 64x64x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, B rounded from the cast's f32 input as it is loaded (not wgmma: an operand is a cast of f32 that mma.sync rounds as it loads (TMA cannot), and the matmul is small (M·N·K at most 2^30)), products stored into C (its zero fill dropped)
// CHECK-LABEL: func.func @weight_copy(
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.generic
// CHECK: gpu.launch
// CHECK: nvgpu.device_async_copy %arg0
// CHECK: %[[F:.*]] = vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<64x64xf32>, vector<8xf32>
// CHECK: %[[H:.*]] = arith.truncf %[[F]] : vector<8xf32> to vector<8xf16>
// CHECK: vector.store %[[H]], %{{.*}} {alignment = 16 : i64} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: nvgpu.mma.sync
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @weight_copy(%a: memref<64x64xf16>, %w: memref<64x64xf32>, %c: memref<64x64xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %w16 = memref.alloc() : memref<64x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<64x64xf32>) outs(%w16 : memref<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %w16 : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}

// A copy that two matmuls read (the batch, in the forward pass and in the
// weight gradient, there through a transpose): each reads the f32 input;
// the cast goes after the second.
// REMARK: remark: matmul 64x64x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, A rounded from the cast's f32 input as it is loaded,
// REMARK: remark: matmul 64x64x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, A read from the transpose's input (K x M tiles, ldmatrix.trans), A rounded from the cast's f32 input as it is loaded,
// CHECK-LABEL: func.func @two_readers(
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.
// CHECK: gpu.launch
// CHECK: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<64x64xf32>, vector<8xf32>
// CHECK: gpu.launch
// CHECK: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<64x64xf32>, vector<8xf32>
// CHECK-NOT: linalg.
// CHECK: return
func.func @two_readers(%x: memref<64x64xf32>, %w: memref<64x64xf16>, %d: memref<64x64xf16>, %y: memref<64x64xf32> {bufferize.result}, %g: memref<64x64xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %x16 = memref.alloc() : memref<64x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x64xf32>) outs(%x16 : memref<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<64x64xf32>)
  linalg.matmul ins(%x16, %w : memref<64x64xf16>, memref<64x64xf16>) outs(%y : memref<64x64xf32>)
  %xt = memref.alloc() : memref<64x64xf16>
  linalg.transpose ins(%x16 : memref<64x64xf16>) outs(%xt : memref<64x64xf16>) permutation = [1, 0]
  linalg.fill ins(%zero : f32) outs(%g : memref<64x64xf32>)
  linalg.matmul ins(%xt, %d : memref<64x64xf16>, memref<64x64xf16>) outs(%g : memref<64x64xf32>)
  return
}

// The cast's input is written between the cast and the matmul: the copy
// holds the values from before, so the kernel reads it.
// REMARK: remark: matmul 64x64x64 on Tensor Cores: mma.sync m16n8k16, block 64x64x32, 4 warps of 32x32, 2-stage cp.async pipeline, ldmatrix, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @input_written(
// CHECK: memref.alloc() : memref<64x64xf16>
// CHECK: linalg.generic
// CHECK: linalg.fill
// CHECK: gpu.launch
// CHECK-NOT: vector<8xf32>
// CHECK: return
func.func @input_written(%a: memref<64x64xf16>, %w: memref<64x64xf32>, %c: memref<64x64xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %w16 = memref.alloc() : memref<64x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<64x64xf32>) outs(%w16 : memref<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%w : memref<64x64xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %w16 : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}

// A cast that scales as well: the kernel only rounds.
// REMARK: remark: matmul 64x64x64 on Tensor Cores: mma.sync m16n8k16, block 64x64x32, 4 warps of 32x32, 2-stage cp.async pipeline, ldmatrix, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @scaled_cast(
// CHECK: memref.alloc() : memref<64x64xf16>
// CHECK: linalg.generic
// CHECK: gpu.launch
// CHECK-NOT: vector<8xf32>
// CHECK: return
func.func @scaled_cast(%a: memref<64x64xf16>, %w: memref<64x64xf32>, %c: memref<64x64xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %w16 = memref.alloc() : memref<64x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<64x64xf32>) outs(%w16 : memref<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %s = arith.mulf %in, %two : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %w16 : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}

// More than 2^30 multiply-adds (2048 x 1024 x 1024): the copy stays, and
// sm_90a keeps wgmma.
// REMARK: remark: matmul 2048x1024x1024 on Tensor Cores: mma.sync m16n8k16, block 128x128x32, 4 warps of 64x64, 2-stage cp.async pipeline, ldmatrix, products stored into C (its zero fill dropped), blocks in groups of 8 rows of tiles{{$}}
// HOPPER: remark: matmul 2048x1024x1024 on Tensor Cores: wgmma
// CHECK-LABEL: func.func @large(
// CHECK: memref.alloc() : memref<1024x1024xf16>
// CHECK: linalg.generic
// CHECK: gpu.launch
// CHECK-NOT: vector<8xf32>
// CHECK: return
func.func @large(%a: memref<2048x1024xf16>, %w: memref<1024x1024xf32>, %c: memref<2048x1024xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %w16 = memref.alloc() : memref<1024x1024xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<1024x1024xf32>) outs(%w16 : memref<1024x1024xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<2048x1024xf32>)
  linalg.matmul ins(%a, %w16 : memref<2048x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<2048x1024xf32>)
  return
}

// A zero-padded copy (a zero fill, then the cast into its corner from the
// origin, as a padded weight's copy is bufferized): the kernel reads the
// 63 x 63 f32 input element by element, zeros outside it, and the copy,
// its fill and its cast go.
// REMARK: remark: matmul 64x64x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, B rounded from the cast's f32 input as it is loaded (zeros around it), products stored into C (its zero fill dropped)
// CHECK-LABEL: func.func @padded_copy(
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.
// CHECK: gpu.launch
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c63
// CHECK: %[[V:.*]] = memref.load %arg1[%{{.*}}, %{{.*}}] : memref<63x63xf32>
// CHECK: arith.select %{{.*}}, %[[V]], %{{.*}} : f32
// CHECK: %[[F:.*]] = vector.from_elements {{.*}} : vector<8xf32>
// CHECK: arith.truncf %[[F]] : vector<8xf32> to vector<8xf16>
// CHECK-NOT: linalg.
// CHECK: return
func.func @padded_copy(%a: memref<64x64xf16>, %w: memref<63x63xf32>, %c: memref<64x64xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : f16
  %w16 = memref.alloc() : memref<64x64xf16>
  linalg.fill ins(%zero16 : f16) outs(%w16 : memref<64x64xf16>)
  %corner = memref.subview %w16[0, 0] [63, 63] [1, 1] : memref<64x64xf16> to memref<63x63xf16, strided<[64, 1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<63x63xf32>) outs(%corner : memref<63x63xf16, strided<[64, 1]>>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %w16 : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}

// The copy's border is not zero (a fill of ones): the kernel reads it.
// REMARK: remark: matmul 64x64x64 on Tensor Cores: mma.sync m16n8k16, block 64x64x32, 4 warps of 32x32, 2-stage cp.async pipeline, ldmatrix, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @ones_around(
// CHECK: memref.alloc() : memref<64x64xf16>
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: gpu.launch
// CHECK-NOT: vector<8xf32>
// CHECK: return
func.func @ones_around(%a: memref<64x64xf16>, %w: memref<63x63xf32>, %c: memref<64x64xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %one16 = arith.constant 1.0 : f16
  %w16 = memref.alloc() : memref<64x64xf16>
  linalg.fill ins(%one16 : f16) outs(%w16 : memref<64x64xf16>)
  %corner = memref.subview %w16[0, 0] [63, 63] [1, 1] : memref<64x64xf16> to memref<63x63xf16, strided<[64, 1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<63x63xf32>) outs(%corner : memref<63x63xf16, strided<[64, 1]>>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %w16 : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
