// `sms`: the streaming multiprocessors the tile choices aim to fill (132 by
// default, an H100/H200 SXM). A 2048^3 f16 matmul has 128 tiles of
// 128 x 256: fewer than 132 SMs, so the wgmma kernel halves N, but enough
// for the 114 of an H100 PCIe. A 1408^2 f32 matmul has 121 tiles of
// 128 x 128 for the tiled SIMT kernel: 64 x 64 tiles for 132 SMs, 128 x 128
// for 114.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=H200
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a sms=114" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PCIE
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a sms=114 persistent=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PERSISTENT
// H200: remark: matmul 2048x2048x2048 on Tensor Cores: wgmma m64n128k16 {{.*}}, block 128x128x64,
// H200: remark: matmul not on Tensor Cores (SIMT kernel): {{.*}}; tiled SIMT kernel: 64x64 tiles of C
// PCIE: remark: matmul 2048x2048x2048 on Tensor Cores: wgmma m64n256k16 {{.*}}, block 128x256x64,
// PCIE: remark: matmul not on Tensor Cores (SIMT kernel): {{.*}}; tiled SIMT kernel: 128x128 tiles of C
// PERSISTENT: block 128x256x64, {{.*}}, persistent (114 blocks over 128 tiles with sms=114; a block per SM at run time, epilogue from registers)

func.func @f16(%a: memref<2048x2048xf16>, %b: memref<2048x2048xf16>, %c: memref<2048x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<2048x2048xf16>, memref<2048x2048xf16>) outs(%c : memref<2048x2048xf32>)
  return
}

func.func @f32(%a: memref<1408x256xf32>, %b: memref<256x1408xf32>, %c: memref<1408x1408xf32>) {
  linalg.matmul ins(%a, %b : memref<1408x256xf32>, memref<256x1408xf32>) outs(%c : memref<1408x1408xf32>)
  return
}
