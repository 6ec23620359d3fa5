// The warp-specialized wgmma kernel (sm_90a, warp-specialize=1): a producer
// warpgroup issues the TMA copies, a stage at a time once the consumers
// have released it (a second mbarrier per stage), the consumers compute and
// run the epilogue between named barriers; registers move from the
// producer to the consumers (setmaxnreg) with two consumers of m64n256.
// ptxas assembles it within the registers of 384 threads, without spills,
// and without injecting a warpgroup.arrive (C7519: accumulators written
// between wgmma.fence and the wgmma, as when the first iteration is peeled).
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=128x256x64 warp-specialize=1" -o %t/ws.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %extract_kernels %t/ws.mlir %t/ws > /dev/null && cat %t/ws/*.ptx | FileCheck %s --check-prefix=PTX
// RUN: %if cuda-toolkit %{ for ptx in %t/ws/*.ptx; do %ptxas -arch=sm_90a -v $ptx -o $ptx.cubin 2>&1 || exit 1; done | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7519 %}
// Without the option, the kernel of every thread issuing and computing.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=128x256x64" -o %t/plain.mlir 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: %extract_kernels %t/plain.mlir %t/plain > /dev/null && cat %t/plain/*.ptx | FileCheck %s --check-prefix=PLAIN-PTX --implicit-check-not=setmaxnreg

// REMARK: remark: matmul 256x512x512 on Tensor Cores: wgmma m64n256k16 from TMA tiles (128-byte swizzle), block 128x256x64, 2 warpgroups of 64x256, 4-stage mbarrier pipeline, 197632 bytes of shared memory, warp-specialized (a producer warpgroup issues the copies), fused rounding to f16
// PTX: .maxntid 384, 1, 1
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}232;
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 {{[[:space:]]*}}40;
// PTX-DAG: mbarrier.arrive.shared.b64
// PTX-DAG: mbarrier.arrive.expect_tx.shared.b64
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX-DAG: bar.sync {{[[:space:]]*}}1, 256;
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PLAIN: remark: matmul 256x512x512 on Tensor Cores: wgmma m64n256k16 {{.*}}, 4-stage mbarrier pipeline, 197632 bytes of shared memory, fused rounding to f16
// PLAIN-PTX: .maxntid 256, 1, 1
// persistent=1: at most 132 blocks, each looping over tiles (15 or 16 for
// @gemm_many); the epilogue stores pairs of columns from registers (two f32
// added to C, ld/st.global.v2.b32; two f16 of the fused rounding in one
// st.global.b32), no named barrier; ptxas as above.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=128x256x64 persistent=1" -o %t/pp.mlir 2>&1 | FileCheck %s --check-prefix=PERSISTENT
// RUN: %extract_kernels %t/pp.mlir %t/pp > /dev/null && cat %t/pp/*.ptx | FileCheck %s --check-prefix=PERSISTENT-PTX --implicit-check-not="bar.sync {{[[:space:]]*}}1"
// RUN: %if cuda-toolkit %{ for ptx in %t/pp/*.ptx; do %ptxas -arch=sm_90a -v $ptx -o $ptx.cubin 2>&1 || exit 1; done | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7519 %}
// PERSISTENT: remark: matmul 256x512x512 on Tensor Cores: {{.*}}, warp-specialized (a producer warpgroup issues the copies), persistent (4 blocks over 4 tiles with sms=132; a block per SM at run time, epilogue from registers), fused rounding to f16
// PERSISTENT: remark: matmul 128x256x4096 on Tensor Cores: {{.*}}, persistent (1 block over 1 tile with sms=132; a block per SM at run time, epilogue from registers)
// PERSISTENT: remark: matmul 8192x8192x512 on Tensor Cores: {{.*}}, persistent (132 blocks over 2048 tiles with sms=132; a block per SM at run time, epilogue from registers), blocks in groups of 8 rows of tiles
// pingpong=1: the two consumers on alternate tiles of 128 x 128 (an
// accumulator of two m64n128 halves, 128 floats per thread), turn
// barriers between them; ptxas as above.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a pingpong=1" -o %t/ping.mlir 2>&1 | FileCheck %s --check-prefix=PINGPONG
// RUN: %extract_kernels %t/ping.mlir %t/ping > /dev/null && cat %t/ping/*.ptx | FileCheck %s --check-prefix=PINGPONG-PTX
// RUN: %if cuda-toolkit %{ for ptx in %t/ping/*.ptx; do %ptxas -arch=sm_90a -v $ptx -o $ptx.cubin 2>&1 || exit 1; done | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7519 %}
// PINGPONG: remark: matmul 8192x8192x512 on Tensor Cores: wgmma m64n128k16 {{.*}}, block 128x128x64, 2 warpgroups of 128x128 on alternate tiles, 6-stage mbarrier pipeline, 197632 bytes of shared memory, {{.*}}, persistent (132 blocks over 4096 tiles with sms=132; a block per SM at run time, epilogue from registers, ping-pong)
// cluster-m=2: clusters of two blocks one above the other (1 x 2 x 1; 2 x
// 1 x 1 when persistent), each copying half of their common B tile to both
// (TMA multicast), each releasing a stage on the release barriers of both
// (mapa, mbarrier.arrive.release.cluster), which lie in dynamic shared
// memory after the stages (32 more bytes); the cluster synchronizes after
// the barriers are initialized and before it exits. ptxas as above.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=128x256x64 cluster-m=2" -o %t/cl.mlir 2>&1 | FileCheck %s --check-prefix=CLUSTER
// RUN: %extract_kernels %t/cl.mlir %t/cl > /dev/null && cat %t/cl/gemm_kernel.ptx | FileCheck %s --check-prefix=CLUSTER-PTX
// RUN: FileCheck %s --check-prefix=CLUSTER-HOST < %t/cl.mlir
// RUN: %if cuda-toolkit %{ for ptx in %t/cl/*.ptx; do %ptxas -arch=sm_90a -v $ptx -o $ptx.cubin 2>&1 || exit 1; done | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7519 %}
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=128x256x64 persistent=1 cluster-m=2" -o %t/pcl.mlir 2>&1 | FileCheck %s --check-prefix=PCLUSTER
// RUN: %extract_kernels %t/pcl.mlir %t/pcl > /dev/null && cat %t/pcl/gemm_many_kernel.ptx | FileCheck %s --check-prefix=CLUSTER-PTX
// RUN: %if cuda-toolkit %{ for ptx in %t/pcl/*.ptx; do %ptxas -arch=sm_90a -v $ptx -o $ptx.cubin 2>&1 || exit 1; done | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7519 %}
// CLUSTER: remark: matmul 256x512x512 on Tensor Cores: wgmma m64n256k16 {{.*}}, 4-stage mbarrier pipeline, 197664 bytes of shared memory, warp-specialized (a producer warpgroup issues the copies), clusters of 2 x 1 blocks (M x N) sharing B's tiles (TMA multicast), fused rounding to f16
// CLUSTER: remark: matmul 8192x8192x512 on Tensor Cores: {{.*}}, clusters of 2 x 1 blocks (M x N) sharing B's tiles (TMA multicast), blocks in groups of 8 rows of tiles (of clusters)
// CLUSTER-HOST: gpu.launch_func {{.*}}@gemm_kernel::@gemm_kernel clusters in (%[[ONE:[0-9]+]], %[[TWO:[0-9]+]], %[[ONE]]) blocks in (%[[TWO]], %[[TWO]], %[[ONE]])
// CLUSTER-PTX: .maxntid 384, 1, 1
// CLUSTER-PTX-DAG: fence.mbarrier_init.release.cluster;
// CLUSTER-PTX-DAG: barrier.cluster.arrive;
// CLUSTER-PTX-DAG: barrier.cluster.wait;
// CLUSTER-PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CLUSTER-PTX-DAG: mapa.shared::cluster.u64 {{.*}}, 0;
// CLUSTER-PTX-DAG: mapa.shared::cluster.u64 {{.*}}, 1;
// CLUSTER-PTX-DAG: mbarrier.arrive.release.cluster.shared::cluster.b64
// CLUSTER-PTX-DAG: mbarrier.try_wait.parity.shared.b64
// CLUSTER-PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PCLUSTER: remark: matmul 8192x8192x512 on Tensor Cores: {{.*}}, clusters of 2 x 1 blocks (M x N) sharing B's tiles (TMA multicast), persistent (132 blocks over 2048 tiles with sms=132; a block per SM at run time, epilogue from registers)
// cluster-m=2 cluster-n=2: clusters of 2 x 2 blocks (2 x 2 x 1, 4 x 1 x 1
// when persistent). A block copies half of its A tile to the blocks of
// its row and half of its B tile to those of its column (two multicast
// copies of each stage, masks shifted by the block's place in the cluster),
// and releases a stage on the barriers of its row and column (three
// blocks: mapa to ranks computed from its own). ptxas as above.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=128x256x64 cluster-m=2 cluster-n=2" -o %t/quad.mlir 2>&1 | FileCheck %s --check-prefix=QUAD
// RUN: %extract_kernels %t/quad.mlir %t/quad > /dev/null && cat %t/quad/gemm_kernel.ptx | FileCheck %s --check-prefix=QUAD-PTX
// RUN: FileCheck %s --check-prefix=QUAD-HOST < %t/quad.mlir
// RUN: %if cuda-toolkit %{ for ptx in %t/quad/*.ptx; do %ptxas -arch=sm_90a -v $ptx -o $ptx.cubin 2>&1 || exit 1; done | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7519 %}
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=128x256x64 persistent=1 cluster-m=2 cluster-n=2" -o %t/pquad.mlir 2>&1 | FileCheck %s --check-prefix=PQUAD
// RUN: FileCheck %s --check-prefix=PQUAD-HOST < %t/pquad.mlir
// RUN: %extract_kernels %t/pquad.mlir %t/pquad > /dev/null && cat %t/pquad/gemm_many_kernel.ptx | FileCheck %s --check-prefix=QUAD-PTX
// RUN: %if cuda-toolkit %{ for ptx in %t/pquad/*.ptx; do %ptxas -arch=sm_90a -v $ptx -o $ptx.cubin 2>&1 || exit 1; done | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7519 %}
// QUAD: remark: matmul 256x512x512 on Tensor Cores: wgmma m64n256k16 {{.*}}, 4-stage mbarrier pipeline, 197664 bytes of shared memory, warp-specialized (a producer warpgroup issues the copies), clusters of 2 x 2 blocks (M x N) sharing A's and B's tiles (TMA multicast), fused rounding to f16
// QUAD-HOST: gpu.launch_func {{.*}}@gemm_kernel::@gemm_kernel clusters in (%[[TWO:[0-9]+]], %[[TWO]], %[[ONE:[0-9]+]]) blocks in (%[[TWO]], %[[TWO]], %[[ONE]])
// QUAD-PTX: .maxntid 384, 1, 1
// QUAD-PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// QUAD-PTX-DAG: mapa.shared::cluster.u64
// QUAD-PTX-DAG: mapa.shared::cluster.u64
// QUAD-PTX-DAG: mapa.shared::cluster.u64
// QUAD-PTX-DAG: barrier.cluster.wait;
// QUAD-PTX-DAG: mbarrier.arrive.release.cluster.shared::cluster.b64
// QUAD-PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PQUAD: remark: matmul 8192x8192x512 on Tensor Cores: {{.*}}, clusters of 2 x 2 blocks (M x N) sharing A's and B's tiles (TMA multicast), persistent (132 blocks over 2048 tiles with sms=132; a block per SM at run time, epilogue from registers)
// PQUAD-HOST: gpu.launch_func {{.*}}@gemm_many_kernel::@gemm_many_kernel clusters in (%[[FOUR:[0-9]+]], %[[ONE:[0-9]+]], %[[ONE]]) blocks in (%{{[0-9]+}}, %[[ONE]], %[[ONE]])
// tma-store=1 (persistent too): the matmul whose kernel stores a fused
// epilogue's output writes it to shared buffers (two a consumer, 64 x 32
// f16) and stores them with TMA, 8 chunks a tile: a proxy fence and the
// warpgroup's named barrier before each store, wait_group.read 1 before a
// buffer is written again, wait_group 0 before the block exits. The
// matmuls that add to C keep the stores from registers, and say why.
// ptxas as above.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=128x256x64 tma-store=1" -o %t/tma.mlir 2>&1 | FileCheck %s --check-prefix=TMASTORE
// RUN: %extract_kernels %t/tma.mlir %t/tma > /dev/null && cat %t/tma/gemm_kernel.ptx | FileCheck %s --check-prefix=TMASTORE-PTX
// RUN: %if cuda-toolkit %{ for ptx in %t/tma/*.ptx; do %ptxas -arch=sm_90a -v $ptx -o $ptx.cubin 2>&1 || exit 1; done | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7519 %}
// TMASTORE: remark: matmul 256x512x512 on Tensor Cores: wgmma m64n256k16 {{.*}}, 4-stage mbarrier pipeline, 214016 bytes of shared memory, {{.*}}, persistent (4 blocks over 4 tiles with sms=132; a block per SM at run time, epilogue through shared memory, TMA stores of 64x32), fused rounding to f16
// TMASTORE: remark: matmul 128x256x4096 on Tensor Cores: {{.*}}, persistent (1 block over 1 tile with sms=132; a block per SM at run time, epilogue from registers (no TMA store: the kernel adds its products to C))
// TMASTORE-PTX: cp.async.bulk.wait_group.read {{[[:space:]]*}}1;
// TMASTORE-PTX: fence.proxy.async.shared::cta;
// TMASTORE-PTX-NEXT: bar.sync {{[[:space:]]*}}%r{{[0-9]+}}, 128;
// TMASTORE-PTX-COUNT-8: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// TMASTORE-PTX-NEXT: cp.async.bulk.commit_group;
// TMASTORE-PTX-NOT: cp.async.bulk.tensor.2d.global.shared
// TMASTORE-PTX: cp.async.bulk.wait_group {{[[:space:]]*}}0;
// PINGPONG-PTX: .maxntid 384, 1, 1
// PINGPONG-PTX-DAG: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}232;
// PINGPONG-PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PERSISTENT-PTX: .maxntid 384, 1, 1
// PERSISTENT-PTX-DAG: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}232;
// PERSISTENT-PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PERSISTENT-PTX-DAG: ld.global.v2.b32
// PERSISTENT-PTX-DAG: st.global.v2.b32
// PERSISTENT-PTX-DAG: cvt.rn.f16x2.f32
// PERSISTENT-PTX-DAG: st.global.b32

func.func @gemm(%a: tensor<256x512xf16>, %b: tensor<512x512xf16>) -> tensor<256x512xf16> {
  %r = mpt.matmul %a, %b acc(f32) : (tensor<256x512xf16>, tensor<512x512xf16>) -> tensor<256x512xf16>
  return %r : tensor<256x512xf16>
}

// A long K loop (64 tiles): LLVM peeled the first iteration of the
// consumers' loop while its release was conditional (C7519 above).
func.func @gemm_long(%a: memref<128x4096xf16>, %b: memref<4096x256xf16>, %c: memref<128x256xf32>) {
  linalg.matmul ins(%a, %b : memref<128x4096xf16>, memref<4096x256xf16>) outs(%c : memref<128x256xf32>)
  return
}

// Many tiles per block (persistent=1): 2048 tiles of 128 x 256 over 132
// blocks.
func.func @gemm_many(%a: memref<8192x512xf16>, %b: memref<512x8192xf16>, %c: memref<8192x8192xf32>) {
  linalg.matmul ins(%a, %b : memref<8192x512xf16>, memref<512x8192xf16>) outs(%c : memref<8192x8192xf32>)
  return
}
