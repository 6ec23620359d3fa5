//===- GpuEmulator.h - running GPU kernels on the CPU -----------*- C++ -*-===//
//
// The runtime of mpt-emulate-gpu: kernels that mpt-gpu-emulation turned into
// host functions run here, one block at a time, each GPU thread a fiber on
// the calling thread. Warp-wide instructions (ldmatrix, mma.sync) gather the
// operands of the 32 lanes and compute what the PTX ISA specifies for each
// lane (WMMA fragments, whose layout is unspecified, hold the whole matrix in
// every lane; wgmma reads shared memory through its matrix descriptors);
// cp.async copies happen when a wait_group retires their group, TMA copies
// when a thread waits on their mbarrier.
// Errors (a barrier not every thread reaches, an out-of-bounds or misaligned
// copy, lanes that diverge at a warp-wide instruction) print a message and
// exit the process with status 3.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_GPUEMULATOR_H
#define MPT_RUNTIME_GPUEMULATOR_H

#include <cstddef>
#include <cstdint>

namespace mpt::emu {

struct RuntimeFunction {
  const char *name;
  void *address;
};

/// The functions that emulated kernels and their launches call, for a JIT
/// to resolve.
const RuntimeFunction *getRuntimeFunctions(size_t &count);

} // namespace mpt::emu

// The functions themselves (the ABI that mpt-gpu-emulation calls).
// Addresses travel as int64_t.
extern "C" {
/// Runs `kernel(args, shared, sharedBytes)` for every thread of every block,
/// the blocks of each cluster of `clusterX` x `clusterY` x `clusterZ` (1 x
/// 1 x 1 without clusters) together; `name` is the kernel's NUL-terminated
/// name (for errors).
void mpt_emu_launch(
    int64_t name, int64_t gridX, int64_t gridY, int64_t gridZ, int64_t blockX,
    int64_t blockY, int64_t blockZ, int64_t sharedBytes,
    void (*kernel)(void *args, void *shared, int64_t sharedBytes), void *args,
    int64_t clusterX, int64_t clusterY, int64_t clusterZ);
/// 0-2: thread id, 3-5: block id, 6-8: block size, 9-11: grid size.
int64_t mpt_emu_id(int32_t which);
void mpt_emu_barrier();
/// barrier.sync `id`, `count`: the first `count` threads at barrier `id` go
/// on together.
void mpt_emu_named_barrier(int32_t id, int32_t count);
/// ldmatrix.sync.aligned.m8n8.x{numTiles}[.trans].b16: `addr` is this
/// lane's row address within [base, base + span); `out` gets numTiles x 2
/// 16-bit elements.
void mpt_emu_ldmatrix(int64_t addr, int64_t base, int64_t span,
                      int32_t numTiles, int32_t transpose, int64_t out);
/// mma.sync.aligned.m16n8k16 (kind 1: f16, 2: bf16) or m16n8k8 (3: tf32)
/// with f32 accumulators: `a`, `b`, `c` this lane's fragments (8/4/4
/// 16-bit elements or 4/2/4 words), `d` gets 4 floats.
void mpt_emu_mma(int32_t kind, int64_t a, int64_t b, int64_t c, int64_t d);
/// wmma.load / wmma.store of a rows x cols matrix of `elementBytes`
/// elements at `addr` within [base, base + span), rows (columns when
/// `transpose`) `leadDimension` elements apart; `out` / `in` is this lane's
/// fragment, the whole matrix row-major.
void mpt_emu_wmma_load(int64_t addr, int64_t base, int64_t span, int32_t rows,
                       int32_t cols, int64_t leadDimension,
                       int32_t elementBytes, int32_t transpose, int64_t out);
void mpt_emu_wmma_store(int64_t addr, int64_t base, int64_t span, int32_t rows,
                        int32_t cols, int64_t leadDimension,
                        int32_t elementBytes, int32_t transpose, int64_t in);
/// wmma.mma: D = A B + C, A rows x depth and B depth x cols of f16 (kind 1)
/// or bf16 (kind 2), C and D f32, whole matrices row-major.
void mpt_emu_wmma_mma(int32_t kind, int32_t rows, int32_t cols, int32_t depth,
                      int64_t a, int64_t b, int64_t c, int64_t d);
/// cp.async of `dstBytes` (4, 8, 16), of which the first `srcBytes` come
/// from `src` and the rest are zeros; queued until a wait retires it.
void mpt_emu_cp_async(int64_t dst, int64_t dstBase, int64_t dstSpan,
                      int64_t src, int64_t srcBase, int64_t srcSpan,
                      int32_t dstBytes, int32_t srcBytes);
void mpt_emu_cp_async_commit();
void mpt_emu_cp_async_wait(int32_t pendingGroups);
int32_t mpt_emu_tf32(float x);
/// A tensor map (cuTensorMapEncodeTiled) of a tensor at `base` with `rank`
/// dimensions: `sizes`, `strides` (elements) and `box` point at `rank`
/// int64_t each, outermost first; swizzle of 0, 32, 64 or 128 bytes;
/// out-of-bounds elements read as zero or (`oobNan`) NaN. Returns the map.
int64_t mpt_emu_tensor_map(int64_t base, int32_t rank, int64_t sizes,
                           int64_t strides, int64_t box, int32_t elementBytes,
                           int32_t swizzleBytes, int32_t oobNan);
/// mbarriers of the current block, named by `key` (an nvgpu mbarrier group's
/// key plus the index, or the mbarrier's address in shared memory).
void mpt_emu_mbarrier_init(int64_t key, int64_t count);
void mpt_emu_mbarrier_arrive_expect_tx(int64_t key, int64_t bytes);
/// Waits until the phase with parity `parity` has completed.
void mpt_emu_mbarrier_wait(int64_t key, int32_t parity);
/// cp.async.bulk.tensor of `map`'s box at `coords` (`numCoords` int64_t,
/// innermost first) to `dst` within [dstBase, dstBase + dstSpan),
/// completing transaction bytes of mbarrier `key`; with a `multicast` mask
/// of block ranks, to the same offset in each of those blocks of the
/// cluster, completing bytes of mbarrier `key` in each.
void mpt_emu_tma_load(int64_t dst, int64_t dstBase, int64_t dstSpan,
                      int64_t map, int64_t key, int64_t coords,
                      int32_t numCoords, int32_t multicast);
/// cp.async.bulk.tensor from shared to global memory: the box at `src`
/// (within [srcBase, srcBase + srcSpan)) to `map`'s box at `coords`
/// (innermost first), clipped at the tensor's edges; into the thread's
/// current bulk async-group.
void mpt_emu_tma_store(int64_t src, int64_t srcBase, int64_t srcSpan,
                       int64_t map, int64_t coords, int32_t numCoords);
/// cp.async.bulk.commit_group.
void mpt_emu_bulk_commit();
/// cp.async.bulk.wait_group(.read) `n`: retires all but the `n` most recent
/// bulk async-groups, failing if shared memory their stores read changed.
void mpt_emu_bulk_wait(int32_t n);
/// mapa: `addr` in this block's shared memory mapped to block `rank` of the
/// cluster.
int64_t mpt_emu_mapa(int64_t addr, int32_t rank);
/// mbarrier.arrive on the mbarrier at `addr` (this block's, or from mapa,
/// another block's of the cluster).
void mpt_emu_mbarrier_arrive(int64_t addr);
/// barrier.cluster.arrive and barrier.cluster.wait (all threads of the
/// cluster that have not exited).
void mpt_emu_cluster_arrive();
void mpt_emu_cluster_wait();
/// wgmma.mma_async m64n`n`k`k` (kind 1: f16, 2: bf16, 3: tf32) with
/// descriptors `descA`, `descB`, layouts 0: row, 1: col; `c` and `d` are
/// this thread's n / 2 f32 accumulators (C ignored unless `accumulate`).
/// D gets tags of the accumulators, which a later wgmma takes as its C and
/// mpt_emu_wgmma_read turns into values once a wait_group retired it.
void mpt_emu_wgmma(int64_t descA, int64_t descB, int32_t n, int32_t k,
                   int32_t kind, int32_t layoutA, int32_t layoutB,
                   int32_t accumulate, int64_t c, int64_t d);
void mpt_emu_wgmma_commit();
void mpt_emu_wgmma_wait(int32_t pending);
/// A value read from wgmma accumulators: the accumulator if `value` is the
/// tag of one (an error unless a wgmma.wait_group retired its wgmma),
/// otherwise `value`.
float mpt_emu_wgmma_read(float value);
/// gpu.shuffle of a 32-bit `value` (mode 0: xor, 1: down, 2: up, 3: idx,
/// gpu::ShuffleMode's values) over the whole warp (`width` 32): the result
/// in the low 32 bits, whether the source lane was in range in bit 32.
int64_t mpt_emu_shuffle(int32_t mode, int32_t value, int32_t offset,
                        int32_t width);
/// Counts `bytes` loaded (`store` 0) or stored by the calling thread in
/// device memory; a process that counted any prints the bytes of each
/// kernel (summed over its launches) to stderr when it exits.
void mpt_emu_traffic(int64_t bytes, int32_t store);
/// Called at the start of a kernel with traffic=1: the block's asynchronous
/// copies (cp.async, TMA loads and stores) count as loads and stores too,
/// with the bytes they read from or write to device memory.
void mpt_emu_count_async();
/// Called at the start of a kernel with banks=1: the block's shared memory
/// accesses (mpt_emu_shared_access, ldmatrix, cp.async's shared side) are
/// grouped into warp requests and their wavefronts counted
/// (mpt/Runtime/SharedBanks.h); a process that counted any prints them per
/// kernel, and per access with bank conflicts, to stderr when it exits.
void mpt_emu_count_banks();
/// Fails: `elements` elements from `index` along dimension `dim` (of `size`
/// elements) of the access that the string at `what` describes are not all
/// in it.
void mpt_emu_out_of_bounds(int64_t what, int32_t dim, int64_t index,
                           int64_t elements, int64_t size);
/// Fails unless the `bytes` bytes at `addr` (of the access that the string
/// at `what` describes) are in the block's shared memory, and in the shared
/// buffer of `bufferBytes` bytes at `bufferAddr` (unless -1).
void mpt_emu_shared_access(int64_t what, int64_t addr, int64_t bytes,
                           int64_t bufferAddr, int64_t bufferBytes);
/// Fails unless `addr` (of the vector access that the string at `what`
/// describes) is a multiple of `alignment`.
void mpt_emu_aligned(int64_t what, int64_t addr, int64_t alignment);
void mpt_emu_poison(int64_t ptr, int64_t bytes);
}

#endif // MPT_RUNTIME_GPUEMULATOR_H
