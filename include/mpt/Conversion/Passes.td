//===- Passes.td - mpt conversion passes -------------------*- tablegen -*-===//

#ifndef MPT_CONVERSION_PASSES_TD
#define MPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMPTToLinalg : Pass<"convert-mpt-to-linalg"> {
  let summary = "Lower every mpt op to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites mpt ops into named linalg ops where they exist (matmul,
    batch_matmul, conv_2d_nchw_fchw / nhwc_hwcf, pooling, transpose) and
    linalg.generic otherwise, plus tensor/arith/math ops, on tensors.

    Precision is explicit: an op on f16/bf16 data computes in f32 and rounds
    its result once to the element type, as a GPU kernel does; a contraction
    with `acc(f32)` extends its operands inside the contraction, accumulates
    in f32 and rounds once; without `acc` it accumulates in the element type.
    Reductions, normalizations and losses accumulate in f32 for narrower
    types.

    `mpt.sm_count` (a GPU's multiprocessor count, asked by host code) stays
    with `gpu=1`, which `mpt-lower-to-nvvm` and `mpt-emulate-gpu` pass, for
    `mpt-lower-sm-count`; in a CPU program (`gpu=0`) it is an error.
  }];
  let options = [
    Option<"gpu", "gpu", "bool", /*default=*/"false",
           "The program's kernels are for a GPU: mpt.sm_count, its host "
           "code's query of the device, stays for mpt-lower-sm-count">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

def DistinctResults : Pass<"mpt-distinct-results", "::mlir::func::FuncOp"> {
  let summary = "A copy for each result that repeats an earlier one";
  let description = [{
    A function that returns one tensor value as several results (two equal
    ops that CSE merged, or `return %t, %t`) gets, for each repetition, a
    copy of its own (`bufferization.alloc_tensor() copy(%t)`). After
    bufferization each result is an out-parameter of its own, and
    upstream's `buffer-results-to-out-params` crashes on one buffer returned
    twice. Function arguments returned as results are left alone (that pass
    copies them into the out-parameter). Runs right before
    `one-shot-bufferize` in `mpt-lower-to-cpu` and `mpt-lower-to-nvvm`.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def ConvertLinalgToTensorCores
    : Pass<"mpt-linalg-to-tensor-cores", "::mlir::func::FuncOp"> {
  let summary = "Low-precision linalg matmuls to Tensor Core kernels";
  let description = [{
    Rewrites every `linalg.matmul` and `linalg.batch_matmul` on memrefs with
    f16 or bf16 operands and an f32 accumulator (what `acc(f32)` contractions
    lower to) into a `gpu.launch` that runs it on Tensor Cores, chosen by
    `chip`:

    - `sm_70`, `sm_75` (f16): WMMA, `gpu.subgroup_mma_*` on 16x16x16
      fragments loaded from global memory; each warp computes a tile of
      fragments.
    - `sm_80` and later (f16, bf16): `mma.sync` m16n8k16. The block's tiles of
      A and B are copied to shared memory with `cp.async` (16 bytes per copy,
      bypassing L1) into a ring of `stages` buffers (default 2), so that the
      copies of the next K tiles overlap the products of this one; warps load
      their fragments with `ldmatrix` (B transposed) and accumulate in f32
      registers. Rows of the shared tiles are padded to an odd number of
      16-byte units (by 8 elements, or none for rows of one unit) against
      bank conflicts, and the copies of rows shorter than 8 chunks go down
      8 rows at a time (`mpt-emulate-gpu{banks=1}` counts no conflict in
      these kernels). `sm_90` (without the `a`) uses this kernel too.
    - `sm_90a` (f16, bf16): warpgroup `wgmma.mma_async` m64nNk16 reading both
      operands from shared memory through matrix descriptors. Thread 0 copies
      the tiles with TMA (`cp.async.bulk.tensor`, 128-byte swizzle; the
      tensor-map descriptors are made on the host) into a ring of `stages`
      buffers (default: as many as fit, up to 4), each with an mbarrier that
      counts the bytes that landed; each warpgroup computes 64 rows of the
      block tile while the copies of the next K tiles are in flight. The
      block tile is `BM x BN x 64` (default 128 x 256, halved while the grid
      has fewer blocks than an H100/H200 has SMs). TMA zero-fills what lies
      outside A and B and the stores are guarded, so the tile need not
      divide the shape (each batch of a batch_matmul is a coordinate of
      the tensor maps of its own, so K need not divide into K tiles
      either); N and K must be multiples of 8 (16-byte rows), otherwise
      the matmul gets the mma.sync kernel and the remark says why. `warp-tile` does not apply. With
      `warp-specialize=1`, one more warpgroup (the producer) issues all the
      copies, a stage at a time once every consumer warpgroup has released
      it through a second mbarrier per stage, and the consumers compute and
      run the epilogue between named barriers: no block-wide barrier in the
      K loop; with two consumers of m64n256, registers move from the
      producer to them (`setmaxnreg` 40 / 232). With `persistent=1`
      (which implies `warp-specialize=1`) the grid has a block per SM of
      the device, counted when the program runs (`mpt.sm_count`; in whole
      clusters, at most one per tile), each of which takes tile after tile
      of C (block b the tiles b, b + grid, ..., in the `group-m` order), so
      that the kernel fills any GPU without a second wave: `sms` only
      guides the tile choice and the remark's block count. The producer
      runs ahead through the K tiles of all of them, one ring of stages, so
      that the loads of a tile's first stages overlap the previous tile's
      epilogue, and the consumers store their accumulators straight from registers
      (pairs of columns, no shared staging) so that the stages stay free for
      the producer; the stages are not capped by K's tile count. With
      `tma-store=1` (which implies `persistent=1`) a consumer instead
      evaluates the fused epilogue on 32 columns of its rows at a time,
      writes them to one of two shared buffers of its own (after the
      stages), and one thread stores the buffer with one TMA store
      (`cp.async.bulk.tensor` shared to global, clipped at the tensor's
      edges); before a buffer is written again, `cp.async.bulk.wait_group
      .read 1` ensures that the store issued from it has read it. A kernel
      that adds to C, or an output that is not a static tensor of 16-byte
      rows, keeps the stores from registers (the remark says why). With
      `pingpong=1` (which implies `persistent=1`) the two consumer
      warpgroups take alternate tiles of the block, each computing a whole
      tile (default 128 x 128: two m64n128k16 per 16 of K, 128
      accumulators per thread; `block-tile` at most 64x256 or 128x128) from
      stages of that tile alone (up to 6); the ring orders them, so that one
      consumer's products run while the other stores its tile (CUTLASS's
      ping-pong schedule). With `cluster-m=2` (which implies
      `warp-specialize=1`, and combines with `persistent` and `pingpong`)
      the blocks form thread-block clusters of two whose tiles of C lie one
      above the other; each block's producer copies half of their common B
      tile (whole 64-column boxes, so BN a multiple of 128, or half the
      rows of a transposed B) to both blocks with one multicast TMA copy,
      and a stage is refilled once the consumers of both blocks have
      released it (each consumer arrives on both blocks' release barriers
      through `mapa`); the cluster synchronizes after initializing its
      barriers and before it exits. `cluster-n=2` is the same along N:
      clusters of two blocks side by side that share A's tile (each copies
      half of its rows, or with a transposed A half of its 64 x 64 boxes,
      so BM a multiple of 128). Both give clusters of 2 x 2, in which each
      block multicasts to the blocks of its row (A) and column (B), and a
      stage's release barrier counts the consumers of those three blocks.
      The block order and the persistent loop go over the clusters' tiles
      (CM BM x CN BN). An operand that a `linalg.transpose` of its last
      two dimensions wrote (the backward pass's `transpose_a` /
      `transpose_b`: dW = X^T dY, dX = dY W^T) is read from the transpose's
      input as it lies in memory: A^T (K x M) as M-major tiles of 64 x 64
      boxes, B^T (N x K) as a K-major tile of one BN x 64 box, the wgmma
      layouts transposed to match (M must then be a multiple of 8 for A^T;
      nothing in between may write either buffer). The `mma.sync` kernel
      does the same with K x M tiles of A^T loaded by `ldmatrix.trans` and
      N x K tiles of B^T loaded by `ldmatrix`, and more: any chain of
      transposes (through reshapes) whose input keeps 16-byte rows along
      the operand's rows or columns, such as attention's head split and
      merge ([B, T, H, D] <-> [B, H, T, D]) and the swap of K after it, is
      read through a strided view of the first transpose's input. wgmma
      reads such a view too where its tile is a TMA box of the input: one
      input dimension of rows and the contiguous one of columns, the
      others batch dimensions (the head split's Q, K^T and V: boxes of
      [1, rows, 1, 64] of [B, T, H, D]), or rows and columns each over
      several dimensions (the head merge: [1, 1, rows, 64] of
      [B, H, T, D]). A box stays within the last dimension of the rows:
      where a sequence T is shorter than the tile, the tile is boxes of T
      rows (T a multiple of 8 that divides the tile's rows). Heads that
      are not a multiple of 64 (16-bit elements, a multiple of 8) are
      boxes of w columns of one head each, [1, 1, rows, w], w the largest
      of 32, 16 and 8 that divides the head (heads of 16: 16; 24: 8; 48:
      16), that lie in the stage box after box in rows of 2 w bytes with
      the 32- or 64-byte swizzle (w = 8: none, the interleaved layout of 8
      x 16-byte core matrices), which the wgmma descriptors state (A or B^T
      read along a box's row and on to the next box's; A^T and B with the
      boxes 64 rows apart); B^T in such heads takes `cluster-m=1`. At
      most 64 boxes a tile; other shapes keep the transpose. The transposes
      go when nothing after them reads their results; the remark says ", A
      read from the transpose's input (M-major tiles)" (B: K-major;
      mma.sync: "through N transposes", "strided view", the tiles and the
      ldmatrix; wgmma: "boxes of T rows", "heads of D in 2D-byte swizzled
      rows", "heads of D in boxes of w columns: 2w-byte swizzled rows").

    Block order: the GPU starts blocks in the order of their linear id, so
    the kernels map that id to tiles of C in groups of `group-m` rows of
    tiles (default 8, as Triton's GROUP_SIZE_M): the blocks resident at
    once go down a group of rows before they move right, and read fewer
    panels of A and B from DRAM (the first 132 blocks of 128 x 256 at
    8192^3 cover 8 rows and 17 columns of tiles, 84 MiB of f16 panels,
    rather than 5 rows and 32 columns, 138 MiB).
    `group-m=1` takes them row by row. The remark says ", blocks in groups
    of G rows of tiles" where that changes the order.

    Bias gradients: a `linalg.generic` before a `linalg.matmul` (f16 or
    bf16, not a batch) that sums the columns of the matmul's B over K into
    an f32 vector (db[n] += sum over k of dY[k, n], where the matmul is
    dW = X^T dY) is computed by the mma.sync and wgmma kernels, and by the
    tiled SIMT kernel (`column-sums`, on by default): the blocks of C's
    first row of tiles read every K tile of their columns of B from shared
    memory anyway, and add them up in f32 registers as well (mma.sync and
    wgmma: 8 elements a thread per step, shuffles combine them; SIMT: a
    column a thread); the generic goes, and with it a kernel and a read of
    B. Where a zero fill of the vector comes right before the
    generic, the kernel stores the sums and the fill goes too. Nothing
    between the generic and the matmul may write B or touch the sums, and
    the matmul's epilogue must not touch them. The remark says ", B's
    column sums (a bias gradient) added up in the kernel". The order of
    the additions is fixed (the same sums on every run).

    With every Tensor Core kernel, when the matmul writes a zero-filled f32
    temporary (what `mpt.matmul acc(f32)` lowers to) that an elementwise
    `linalg.generic` then reads (the rounding to f16/bf16, and whatever
    elementwise fusion put with it: bias, activation, residual), the kernel
    starts from zero and evaluates that generic on its results in its
    epilogue: no fill, no temporary, no kernel of its own. The generic may
    read a view of the temporary from its origin instead (the unpadded part
    of a padded product: a padded weight gradient's unscaling): then the
    kernel evaluates it and stores, element by element, only inside the
    view (remark: "stored inside MxN"), and the temporary is never
    allocated. The generic's
    other inputs are read through dimension maps (a bias by column); it must
    compute the same where the matmul is (no op in between writes what it
    reads or touches what it writes) and must not write A or B. WMMA
    fragments lower few elementwise ops, so the WMMA kernel stores each
    warp row of its tile to shared memory (`wmma.store`, WM x (BN + 8)
    floats) and evaluates the generic on rows of four from there; where that
    does not fit in shared memory the generic stays a kernel of its own.
    Without such a generic, a matmul whose C a zero fill (or a copy of
    zeros) wrote just before still starts from zero: the last op before it
    that touches C's buffer is that fill, of all of it, and C is not A or B
    (two function arguments may be the same buffer, unless one is a
    `bufferize.result`). The kernel, the tiled SIMT one too, stores its
    products rather than adding them to C, so it does not read C, and the
    fill goes (remark: `products stored into C (its zero fill dropped)`);
    with `tma-store=1`, through TMA stores of f32. A tensor map that a
    kernel stores through carries `mpt.tma_store`, so that the passes after
    this one see the kernel write its tensor.

    Block tile (`BM x BN x BK`) and warp tile (`WM x WN`) of WMMA and mma.sync
    are chosen from the shape (the largest power of two up to 128 x 128 x 32
    that divides it, two by two warps; for mma.sync, where that is small,
    the smallest power of two up to 128 x 128 x 32 that covers it, with
    partial tiles), or set with `block-tile=BMxBNxBK` and `warp-tile=WMxWN`.
    The mma.sync kernel handles partial tiles: copies at the edges of A and
    B read fewer bytes and zero-fill the rest (cp.async's source size), and
    loads and stores of C are guarded; M may be anything, N and K must be
    multiples of 8 (4 for tf32). A matmul the Tensor Cores cannot take (N or
    K not such a multiple, any dimension not a multiple of 16 for WMMA, f32
    operands without `tf32`, bf16 or tf32 before sm_80, an accumulator that
    is not f32, non-identity layouts, tiles or stages that do not fit) gets
    a tiled SIMT kernel instead when its operands are floats of one type
    and C is f32 (128 x 128 tiles of C with 8 x 8 outputs per thread and K
    in steps of 8 when 132 or more such tiles fill the GPU, otherwise 64 x
    64, 4 x 4 and 16; any shape; K staged through two shared buffers, the
    next step's loads in flight during the products; A, B and C loaded and
    the shared slices read in vectors of up to `simt-vector-bytes` of f32,
    4 by default, as many as divide K or N; transposed operands and chains
    of transposes read in place as `mma.sync` reads them, with rows of any
    length: ", A read from the transpose's input (K x M)", "B ... (strided
    view, N x K)"), otherwise stays a
    linalg op for the one-thread-per-element SIMT lowering; the remark says
    why and which.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "GPU architecture: sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a">,
    Option<"blockTile", "block-tile", "std::string", /*default=*/"\"\"",
           "Block tile BMxBNxBK (default: from the shape)">,
    Option<"warpTile", "warp-tile", "std::string", /*default=*/"\"\"",
           "Warp tile WMxWN (default: half the block tile, at most 64x64)">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "Run f32 matmuls on Tensor Cores (sm_80+), operands rounded to "
           "tf32 (10-bit mantissa), f32 accumulation">,
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Shared-memory pipeline stages, 1 to 8 (default 0: 2 for mma.sync, "
           "as many as fit up to 4 for wgmma)">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "wgmma kernels (sm_90a) with a producer warpgroup that issues the "
           "TMA copies and consumer warpgroups that release stages through "
           "mbarriers (no block barrier in the K loop)">,
    Option<"persistent", "persistent", "bool", /*default=*/"false",
           "wgmma kernels (sm_90a) as persistent warp-specialized kernels: a "
           "block per SM of the device at run time, each computing tile "
           "after tile while its producer already loads the next tile's "
           "stages">,
    Option<"pingpong", "pingpong", "bool", /*default=*/"false",
           "Persistent wgmma kernels (sm_90a) whose two consumer warpgroups "
           "take alternate tiles, one's products running while the other "
           "stores (implies persistent)">,
    Option<"tmaStore", "tma-store", "bool", /*default=*/"false",
           "Persistent wgmma kernels (sm_90a) whose epilogue writes the "
           "fused epilogue's output to shared memory and stores it with TMA, "
           "32 columns at a time, double-buffered (implies persistent)">,
    Option<"clusterM", "cluster-m", "int64_t", /*default=*/"1",
           "wgmma kernels (sm_90a) in thread-block clusters of this many "
           "blocks along M (1 or 2), each copying its share of their common "
           "B tile to all of them with TMA multicast (2 implies "
           "warp-specialize)">,
    Option<"clusterN", "cluster-n", "int64_t", /*default=*/"1",
           "wgmma kernels (sm_90a) in thread-block clusters of this many "
           "blocks along N (1 or 2), each copying its share of their common "
           "A tile to all of them with TMA multicast (2 implies "
           "warp-specialize; with cluster-m=2, clusters of 2 x 2)">,
    Option<"groupM", "group-m", "int64_t", /*default=*/"8",
           "Blocks of the Tensor Core kernels in groups of this many rows of "
           "tiles, for L2 reuse (1: row by row)">,
    Option<"sms", "sms", "int64_t", /*default=*/"132",
           "Streaming multiprocessors of the target GPU: the block counts the "
           "tile choices aim to fill (default 132: H100/H200 SXM; persistent "
           "kernels size their grids by the device's count at run time)">,
    Option<"columnSums", "column-sums", "bool", /*default=*/"true",
           "Add up the columns of a matmul's B that a generic before it sums "
           "(a bias gradient) in the mma.sync, wgmma and tiled SIMT "
           "kernels">,
    Option<"simtVectorBytes", "simt-vector-bytes", "int64_t",
           /*default=*/"16",
           "Widest access of the tiled SIMT matmul kernel, in bytes of its "
           "f32 staging (1, 2, 4, 8 or 16; 4 or less: one element at a "
           "time)">,
    Option<"castOnLoad", "cast-on-load", "bool", /*default=*/"true",
           "A matmul of at most 2^30 multiply-adds whose f16/bf16 operand a "
           "cast from f32 just made (a working copy) reads the cast's f32 "
           "input and rounds it as it loads (mma.sync; on sm_90a instead of "
           "wgmma, whose TMA copies cannot round), zeros outside it for a "
           "zero-padded copy; the copy goes when nothing else reads it">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::math::MathDialect", "::mpt::MPTDialect"
  ];
}

def ParallelLoopsToGPU
    : Pass<"mpt-parallel-loops-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Each top-level scf.parallel to a SIMT kernel, a thread per iteration or vector of iterations";
  let description = [{
    Rewrites every `scf.parallel` directly in a function body (as
    `convert-linalg-to-parallel-loops` leaves them) into a `gpu.launch` with
    one thread per iteration (or per vector of iterations of the innermost
    loop, below): `threads` threads per block, as many blocks as
    needed, the linear thread id delinearized into the induction variables,
    and a guard for the last block. Loops nested in the body (reductions)
    stay sequential in the thread. Bounds must be constants.

    Horizontal fusion: consecutive loops that are independent (no buffer
    that one writes and another reads or writes; buffers are told apart by
    what they are views of, allocations are distinct, function arguments may
    alias one another except a function's result buffers, marked
    `bufferize.result`, and `llvm.noalias` arguments, which overlap no other
    buffer) and separated only by ops without memory effects,
    allocations and deallocations share one kernel, up to `fuse` loops: each
    loop gets its own range of blocks (a block runs one loop, the block size
    is that of the largest loop) and runs as it would alone. What a later
    loop uses from between the loops moves above the kernel. `fuse=1` gives
    every loop its own kernel.

    Fills of padded buffers: a loop that fills a whole static buffer with
    one value, followed (with only ops without memory effects between) by a
    loop from zero in steps of one over a static unit-stride subview of it
    that stores to that subview at its induction variables in its body's
    block and touches the buffer no other way (the zero-padded f16 copy of
    a weight: the cast into the interior), becomes one loop over the
    buffer: an iteration inside the subview runs the second loop's body at
    its induction variables less the subview's offsets, one outside stores
    the fill's value. One kernel rather than two that must run in turn,
    and no element written twice.

    Vector accesses: a thread runs `width` consecutive iterations of the
    innermost loop, where that lets it load and store up to `vector-bytes`
    bytes at once. An access whose last index is the innermost induction
    variable (other indices and the buffer the same for those iterations,
    a strided buffer with last stride 1, of ints or floats of whole bytes)
    becomes one `vector.load` or `vector.store` of `width` elements that
    states its alignment: `width` is `vector-bytes` divided by the widest
    such element (16 bytes: 4 f32, 8 f16), halved until the loop's lower
    bound and trip count and each such buffer's offset and other strides
    are multiples of it. The ops that do not depend on the variable run
    once for the thread's iterations, an `scf.for` or `scf.if` whose bounds
    or condition do not depend on it runs once with its body split the same
    way (a column sum's loop over rows: a vector of columns a row), and the
    other ops once per iteration (a transposed load). A loop whose body has
    an op with memory effects other than loads and stores, or a store that
    every iteration makes to the same place, keeps one iteration a thread.
    `vector-bytes=1`: one iteration a thread everywhere.

    Accumulators in registers: a sequential loop in a thread's iterations
    that loads one place of a buffer and later stores to the same place in
    every trip (the same indices, defined outside the loop: a reduction's
    accumulator, such as a bias gradient's column sums) carries the value
    in an `scf.for` iter_arg instead, loaded once before the loop and
    stored once after it, where no other op in the loop may read or write
    that buffer (by the aliasing rules above). The NVVM backend cannot do
    it: kernel parameters carry no aliasing information.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"256",
           "Threads per block">,
    Option<"fuse", "fuse", "int64_t", /*default=*/"16",
           "At most this many independent consecutive loops per kernel "
           "(1: one loop per kernel)">,
    Option<"vectorBytes", "vector-bytes", "int64_t", /*default=*/"16",
           "The bytes a thread loads or stores at once along a loop's "
           "innermost dimension: 1, 2, 4, 8 or 16 (1: one iteration a "
           "thread)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def FuseElementwise : Pass<"mpt-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Elementwise fusion that keeps matmuls named";
  let description = [{
    Upstream's `linalg-fuse-elementwise-ops` (elementwise producers into
    their consumers, reshapes propagated by expanding the ops they touch,
    the same clean-ups), except that no reshape is propagated into a
    `linalg.matmul` or `linalg.batch_matmul`, nor into the ops of its
    epilogue chain (the elementwise ops that read its result, up to four
    back, through reshapes). Upstream's pass expands a matmul between a
    `tensor.collapse_shape` and a `tensor.expand_shape` (what a projection
    of a batch of tokens, or `mpt.batch_matmul` with more than one batch
    dimension, lowers to) into a `linalg.generic` contraction, which no
    Tensor Core kernel takes; and it expands the rounding after a matmul,
    which then no longer fuses into the matmul's epilogue. Here the
    reshapes stay views (free after bufferization) and the matmuls stay
    matmuls. An elementwise op that reads an expand_shape of a chain value
    (the bias add or residual add after a projection, at [B, T, D]) runs
    at the chain's shape instead (its dimensions collapsed as the
    expand_shape's groups), so that it fuses into the chain and the Tensor
    Core kernel's epilogue computes it.

    Pads and slices of elementwise results. A `tensor.pad` with a constant
    value of the result of an all-parallel `linalg.generic` (one result,
    one user, a payload that does not read its output) becomes the
    result inserted (`insert_slice`) into a `linalg.fill` of the padded
    shape made before the generic: `eliminate-empty-tensors` then has the
    generic write into the fill's interior, one buffer with no unpadded
    copy (the zero-padded f16 copy of a weight or a batch when
    `mpt-pad-for-tensor-cores` pads). An `extract_slice` (static, unit
    strides) of such a generic's result, whose indexing maps are projected
    permutations and which uses no `linalg.index`, becomes the generic over
    slices of its inputs: only what is read is computed. And an
    `extract_slice` of a `tensor.pad` that lies within the pad's source is
    a slice of the source. Together, the padded f16 loss gradient (a cast
    of `(y - pad(t)) * s`, sliced to the model's size and padded again) is
    one generic writing the padded tensor's interior and reading the label
    itself. None of these touches a generic that reads a matmul's result or
    the one use of a value of its epilogue chain, which may still become
    the Tensor Core kernel's epilogue; except that a slice from the origin
    of the rounding right after a matmul that keeps f32 (a padded weight
    gradient's, widened again) becomes the rounding over the slice of the
    product, which then fuses with the slice's reader (the unscaling): the
    Tensor Core kernel evaluates both and stores only the unpadded part.

    Convolution gradients that `mpt-conv-to-gemm` takes to Tensor Cores
    (16-bit operands, or f32 ones with `tf32`) take no producer: that pass
    rewrites the generic only with the two operands `convert-mpt-to-linalg`
    gave it. The output gradient of the first convolution (its batch norm's
    or activation's backward, which nothing else reads) would otherwise fuse
    in and keep the gradient a SIMT loop, and so would the f16 copy of a
    filter or an input that `mpt-master-weights` makes right before it.
    Into an f32 gradient without `tf32` (a loop either way) producers fuse.
  }];
  let options = [
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "f32 convolution gradients go to Tensor Cores (as in "
           "mpt-conv-to-gemm{tf32}): no producer fuses into them">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ConsumeEarly : Pass<"mpt-consume-early", "::mlir::func::FuncOp"> {
  let summary = "Elementwise ops that free more than they take run as early as their operands allow";
  let description = [{
    Moves an all-parallel `linalg.generic` with one result to right after
    the last op of the function's block that makes a value it reads (its
    operands, the operands of the slices it reads, the values its body takes
    from outside), when the tensors that die in it (inputs made in the
    block with no other user, or whose one `tensor.extract_slice` only it
    reads) have more bytes than its result; or as many, when it only reads
    a matmul's result that nothing else reads and makes a tensor of that
    type (the rounding of a low-precision gradient to f16 and back to f32,
    which the Tensor Core kernel's epilogue computes, and which elementwise
    fusion with a widening cast made late leaves far from its matmul). An
    `extract_slice` that only it reads moves with it, and so does its
    static `tensor.empty` destination (which other ops may share: an
    in-place update keeps writing over it). Scalar arithmetic that it reads
    (pure ops that make scalars or rank-0 tensors, up to eight back: the
    reciprocal of the loss scale) moves up too, each op as early as its own
    operands allow.

    From there on, the memory it frees is free, and its result takes less.
    In a mixed step whose weights `mpt-pad-for-tensor-cores` pads, each
    weight gradient is a slice of a padded f32 accumulator that the
    unscaling reads; the unscaling of all of them otherwise waits for the
    last gradient, and every layer's accumulator is alive at the end of the
    backward pass. An op that frees only as much as it takes otherwise (the
    unscaling of an unpadded gradient, in place) stays where it is, with
    the independent ops that horizontal fusion puts into its kernel.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def UntieEmptyTensors
    : Pass<"mpt-untie-empty-tensors", "::mlir::func::FuncOp"> {
  let summary = "One tensor.empty for each chain of ops that write into one";
  let description = [{
    CSE merges the empties of unrelated ops' outputs (they are equal and
    pure), and one-shot bufferization then writes those results into one
    buffer wherever the first result is dead before the second is written.
    On the GPU that order is a false dependence: the kernels that make the
    results can no longer run in one launch, and a matmul cannot read a
    head-split transpose's input in place (`mpt-linalg-to-tensor-cores`)
    once the next projection has overwritten it. This pass splits the
    users of each `tensor.empty` into chains, an op joining the chain of
    another when it reads a value that bufferization writes into that op's
    buffer (its result, or the result of an op that took it as its
    destination, such as a matmul accumulating into a fill), and gives each
    chain after the first a clone of the empty, made right after it. A fill
    of an empty that several ops take as their destination (CSE merges the
    zero fills that matmuls and reductions start from) is cloned first, for
    each of those ops but the first, right after the last value the op
    reads (in its operands or its body) that is made in the fill's block:
    a buffer's lifetime starts at its fill, and a fill next to the
    original would keep, say, a pooling gradient's buffer live through the
    whole forward pass. Within
    a chain bufferization may still write a result over the value it reads
    (a weight's gradient becomes the updated weight in place); unrelated
    results get buffers of their own. Run before bufferization;
    `mpt-gpu-reuse-buffers` shares memory again, by lifetime, once the
    kernels are built.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def ElementwiseInPlace
    : Pass<"mpt-elementwise-in-place", "::mlir::func::FuncOp"> {
  let summary = "Elementwise ops write their results over inputs that "
                "nothing else reads";
  let description = [{
    A `linalg.generic` of parallel loops whose one destination is a
    `tensor.empty` (its payload does not read it) takes instead an input of
    the destination's type, read at the same indices, that the op alone
    reads and an op of the same block makes (not a view or a slice of
    another tensor). Bufferization then writes the result over that input
    (the input's last reader is this op, and each element is read before it
    is written, by the thread that writes it), one buffer fewer live at a
    time; where it finds a conflict it still gives the result a buffer of
    its own, without a copy, as the destination is not read. In a training
    step this is the backward of an activation: the gradient of a GELU's
    input overwrites the gradient of its output, which is what keeps the
    transformer block's feed-forward backward at two hidden-sized buffers
    instead of three. Run after `mpt-untie-empty-tensors`, before
    bufferization.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CopiesToFills : Pass<"mpt-copies-to-fills", "::mlir::func::FuncOp"> {
  let summary = "Copies of buffers that hold one constant as fills";
  let description = [{
    Rewrites a `memref.copy` whose source is a view of a buffer that a
    `linalg.fill` of a constant set as a whole (the buffer itself or
    reshapes and casts of it), with no op in the same block between the
    fill and the copy that may write that buffer, into a `linalg.fill` of
    the copy's target with the same constant. One-shot bufferization
    allocates one buffer for a filled tensor with several users (the zeros
    that matmuls, reductions and gradients accumulate into) and copies it
    for each user that writes into it; on the GPU each such copy is a
    stream operation of its own, while a fill is a loop that
    `mpt-parallel-loops-to-gpu` fuses into a neighbouring kernel, and an
    initial value that `mpt-reductions-to-gpu` folds into its kernel.

    A copy whose source and target are the same view (the same value, or
    `memref.subview`s of one buffer with the same offsets, sizes and
    strides) is erased: bufferization leaves one where an `insert_slice`
    inserts a result that was computed in place into that slice (the padded f16 copy of a weight, which
    `mpt-fuse-elementwise` has the cast write into the interior of the
    zero-filled padded buffer).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def SplitBuffers : Pass<"mpt-split-buffers", "::mlir::func::FuncOp"> {
  let summary = "A new buffer for each value an allocation holds in turn";
  let description = [{
    One-shot bufferization gives the results that share a `tensor.empty`
    destination one allocation when their lifetimes do not meet: a forward
    activation and, much later, a backward value of the same shape. Such an
    allocation lives from its first write to its last read, and
    `mpt-gpu-reuse-buffers`, which places whole allocations, cannot use the
    gap between the values.

    This pass splits it. An op of the function's body that writes a whole
    allocation without reading it (a `linalg.fill`, a `linalg.transpose`, an
    all-parallel `linalg.generic` whose body ignores the old values, a
    `memref.copy` into it) starts a new value. The first op of each later
    value gets a new allocation of the same type, and every later reader and
    writer uses it, through copies of the views they read it by. Each new
    allocation is freed after its last use. The allocation must not escape:
    only views, linalg ops, copies and its dealloc may use it, all in the
    function's body.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def FoldTransposesIntoLoads
    : Pass<"mpt-fold-transposes-into-loads", "::mlir::func::FuncOp"> {
  let summary = "Loop nests read a transpose's input instead of its result";
  let description = [{
    Runs on buffers, after `mpt-linalg-to-tensor-cores` has read what
    transposes it could through views: a `linalg.transpose` left whose
    result is read only by linalg ops that become loop nests (reductions
    such as a bias gradient over a head merge, elementwise ops; not
    matmuls, convolutions or transposes) is folded into them. Each reader
    is lowered to `scf.parallel` loops (as `convert-linalg-to-parallel-loops`
    would next) and its loads of the result, through any reshapes of it,
    load the element of the transpose's input at the permuted indices,
    split and joined over a common refinement of the two shapes with
    `affine.delinearize_index` and `affine.linearize_index`. The transpose
    and its buffer are erased: one kernel and one buffer fewer.

    It applies when the result buffer is an allocation of the transpose's
    block, every use of it (through `memref.expand_shape` and
    `collapse_shape`) is the transpose, an input of such a reader later in
    the block, or its `memref.dealloc`; nothing from the transpose to the
    last reader may write the transpose's input; and, when more than one
    op reads the result, the permutation keeps the innermost dimension
    innermost (otherwise each reader would pay the strided reads that the
    transpose pays once).
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def RowsToGPU : Pass<"mpt-rows-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Row-wise chains (softmax, layer norm) as one kernel, a "
                "team of threads per row";
  let description = [{
    Runs on buffers, before the remaining linalg ops become loops. A run of
    consecutive linalg ops over the same rows and columns (the last loop),
    with at least one reduction of each row along its columns, becomes one
    `gpu.launch` (allocations, views and constants may come between them).
    Rows are matched by their count, row-major: ops over [B, T, D] and over
    [B * T, D] take the same rows. The ops are the row reductions of
    softmax (max, sum of exponentials), layer norm (mean, variance) and
    their gradients, the elementwise ops over rows and columns that read
    their results broadcast along the row, and the fills and elementwise
    ops over the rows alone (the reduction's initial value, the reciprocal
    of a standard deviation).

    A team of threads takes each row: up to 32 threads for rows of up to
    128 columns, else about a quarter of the columns (at most 256); a
    block holds teams for at least 128 threads. Thread `lane` of a team
    takes columns lane, lane + lanes, ...: adjacent threads read adjacent
    elements of a row, where one thread per row walked the row alone. A
    reduction combines each thread's columns from the neutral element of
    its combining op, then the values of each warp in a butterfly of
    `gpu.shuffle xor` (offsets from the team's width, at most 16, down to
    1; a value moves as one 32-bit word, or two for 64 bits), with no
    shared memory and no barrier; a team wider than a warp puts its
    warps' values in shared memory (one slot per warp of the block, two
    sets that reductions take in turn) for one barrier, and every thread
    reads the team's slots.

    Every thread of a team holds its row's per-row values: it combines a
    reduction's result with the output's value itself, and runs the ops
    over the rows alone; a buffer the group reads and writes only at the
    row is read from registers once written, and its last write is stored
    by the team's first thread, or never, if the group allocates it, uses
    it alone and writes it before reading it (a softmax's max and sum).
    As a lane also owns the same columns in every op, no op reads another
    thread's writes and no block barrier separates the ops (one goes
    before the store of a per-row value the lanes loaded from memory).
    With `register-columns=0` per-row values go through memory instead:
    the team's first thread combines, stores, and runs the ops over rows,
    and a block barrier follows every op.

    Where a lane takes at most `register-columns` columns of a row, its
    columns are unrolled (one region per column, run where the column is
    in the row) and the values of the buffers that the group's ops read
    and write at their elements only stay in registers from op to op: an
    op's region yields the values it loaded or computed that a later op
    reads, and a buffer is loaded from memory once. A buffer the group
    allocates, uses alone and writes before reading (a softmax's
    exponentials) is not stored at all, and its allocation goes; one that
    is stored is stored at its last write only. There a lane also takes
    its columns in vectors of 16 bytes of the widest element that an op
    reads or writes along the row (halved until it divides the row; where
    every such buffer is row-major): the operands read along the row are
    loaded, and the results stored, as aligned `vector.load`s and
    `vector.store`s, and the team is sized to the row's vectors. With more
    columns a lane, or `register-columns=0`, a lane walks its columns one
    at a time in a loop and every op reads its operands at its elements
    from memory.

    A team must need no other team's results: a buffer the group writes is
    read at the indices it was written at (the row, or the row and
    column), or as a per-row value by an op over columns; it is not read
    or written through another view, and two buffers the group writes are
    not possibly the same memory. Reductions with a combining op that has
    a neutral element (`arith::getNeutralElement`: sums, products,
    minimum, maximum, and, or) and accumulators of up to 64 bits go. A
    group holds at most `max-ops` ops (`fuse` of the GPU pipelines); a
    longer run is split.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"16",
           "At most this many ops per kernel (1: each reduction alone)">,
    Option<"registerColumns", "register-columns", "int64_t",
           /*default=*/"8",
           "Keep the values the ops pass on in registers where a lane takes "
           "at most this many columns of a row, and per-row values unless "
           "0 (0 to 32; 0: every op reads and writes memory)">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ReductionsToGPU
    : Pass<"mpt-reductions-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Reductions of whole tensors as one kernel each, grouped";
  let description = [{
    Rewrites each `linalg.generic` on buffers that reduces a whole tensor
    to a scalar (every loop a reduction, one rank-0 output, static shape of
    at least `min-size` elements, inputs indexed by loop indices and
    constants, a body that ends in one associative and commutative combining
    op of the accumulator, `arith` ops with a neutral element: sums,
    products, min, max, and, or, xor) into one kernel launch:

    - each thread reduces elements i, i + G·T, i + 2·G·T, ... of the
      iteration space (G blocks of T threads; adjacent threads read adjacent
      elements) starting from the neutral element, the generic's body applied
      as it is (a loss's or an inf/NaN check's elementwise part needs no
      temporary);
    - the block combines its threads' values in a shared-memory tree;
    - with more than one block, thread 0 writes the block's value to a
      buffer of partial results, makes it visible to the device
      (`membar.gl`) and counts the block done (an atomic add on a counter
      that the host zeroes before the launch, `gpu.memset`); the block that
      counts last reduces the partial results the same way and combines the
      total with the output's initial value.

    A thread takes `width` consecutive elements of the last loop at a time
    where an input's last index is that loop's: such inputs are loaded as
    one `vector.load` of `width` elements that states its alignment (16
    bytes of the widest, `vector-bytes`, halved until the loop's range and
    each such input's offset and other strides are multiples of it; strided
    buffers with last stride 1 of ints or floats of whole bytes), the
    others one element each or, where the last loop does not index them,
    once; the body then runs for each element in turn.

    G is the number of blocks that gives each thread about 8 elements, at
    most 8 per SM (`sms`). The order of the operations depends on the shape
    only: results are the same from run to run (no floating-point atomics).
    A `linalg.fill` of a constant into the output just before the reduction
    (with no use of the output in between; `mpt-copies-to-fills` turns the
    copy of a filled buffer into such a fill) becomes the initial value
    inside the kernel.

    Up to `fuse` consecutive reductions share one kernel, each on its own
    range of blocks, if they are independent of one another (see
    `mpt-parallel-loops-to-gpu` for how buffers are told apart): the unscale
    checks of the gradients, a loss and a norm. The ops between them that
    use what an earlier reduction writes (the scalar code that reads a
    loss) move below the kernel, and the ops that those depend on with
    them; the others stay above it.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"256",
           "Threads per block (a power of 2; fewer for small reductions)">,
    Option<"vectorBytes", "vector-bytes", "int64_t", /*default=*/"16",
           "The bytes of an input a thread loads at once along the last "
           "loop: 1, 2, 4, 8 or 16 (1: one element at a time)">,
    Option<"minSize", "min-size", "int64_t", /*default=*/"256",
           "Leave smaller reductions alone (one thread loops over them)">,
    Option<"fuse", "fuse", "int64_t", /*default=*/"16",
           "At most this many independent consecutive reductions per kernel "
           "(1: one reduction per kernel)">,
    Option<"sms", "sms", "int64_t", /*default=*/"132",
           "Streaming multiprocessors of the target GPU: at most 8 blocks "
           "each per reduction">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect"
  ];
}

def ConvToGemm : Pass<"mpt-conv-to-gemm", "::mlir::func::FuncOp"> {
  let summary = "Low-precision 2-D convolutions as im2col and a matmul";
  let description = [{
    Rewrites `linalg.conv_2d_nhwc_hwcf` and `linalg.conv_2d_nchw_fchw` on
    tensors with f16 or bf16 operands into an explicit im2col (a
    `linalg.generic` that gathers each output pixel's receptive field into a
    row) and one `linalg.matmul` of the (N·OH·OW) x (KH·KW·C) patch matrix
    with the filter as a (KH·KW·C) x F matrix, accumulating in the
    convolution's accumulator type, so that `mpt-linalg-to-tensor-cores` runs
    the convolution on Tensor Cores. NHWC/HWCF needs no other copy (the filter
    and the output are reshaped in place); NCHW/FCHW transposes the filter
    and adds the product back in NCHW order. When KH·KW·C is not a multiple
    of 16, the patch matrix and the filter are padded with zeros to the next
    one. The filter gradients that convert-mpt-to-linalg marks (ungrouped
    `mpt.conv2d_backward_filter`) become the same kind of matmul: an im2col
    of the input times the output gradient, and the data gradients it marks
    (ungrouped `mpt.conv2d_backward_data`) one matmul of the transposed
    filter with the output gradient (C·KH·KW x N·OH·OW columns) followed by
    a col2im gather over (KH, KW). The sums are the convolution's, in
    another order. With `tf32`, f32 convolutions and filter gradients are
    rewritten too (for `mpt-linalg-to-tensor-cores{tf32=1}`).
  }];
  let options = [
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "Also rewrite f32 convolutions (their matmuls run as tf32)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def SplitK : Pass<"mpt-split-k", "::mlir::func::FuncOp"> {
  let summary = "Matmuls with too few output tiles for the GPU as a batch "
                "over slices of K, summed in f32";
  let description = [{
    A matmul whose output has few tiles (a weight gradient: M and N the
    layer's sizes, K the batch's tokens) keeps most SMs idle: 256 x 256
    is 16 blocks of 64 x 64 on a GPU of 132 SMs, however long K is. This
    pass rewrites such a `linalg.matmul` on tensors with an f32 output
    (`acc(f32)`, and the f32 gradients of the training steps) into a
    `linalg.batch_matmul` over S slices of K, with f32 products, and an
    elementwise `linalg.generic` that adds them to the matmul's output,
    slice after slice (one input per slice; from the first slice where the
    output is a fill of zeros, as `acc(f32)` lowers), joined by the
    elementwise op that is its only user (the rounding to f16/bf16, with
    the bias and activation fused with it):

    ```
    P[s, m, n] = sum_k A[m, s·Ks + k] B[s·Ks + k, n]     (Ks = K / S)
    C[m, n]   += P[0, m, n] + P[1, m, n] + ... + P[S-1, m, n]
    ```

    A's slices are a transpose of its expanded shape (M x S x Ks to
    S x M x Ks), which `mpt-linalg-to-tensor-cores` reads in place (a
    strided view, a 3-D TMA box on sm_90a); B's are its expanded shape. The
    result is the same f32 sum in another order, the same on every run
    (no atomics). S is the largest power of two up to `splits` for which
    the 64 x 64 tiles of the output times S stay within `sms`, each slice
    is whole K tiles of 64 and at least `min-slice` long; 1 (no rewrite)
    otherwise. `splits=1` (the default) turns the pass off. A remark
    reports each split.
  }];
  let options = [
    Option<"splits", "splits", "int64_t", /*default=*/"1",
           "The most slices of K a matmul is split into (1: none)">,
    Option<"sms", "sms", "int64_t", /*default=*/"132",
           "Streaming multiprocessors that the slices' tiles aim to fill">,
    Option<"minSlice", "min-slice", "int64_t", /*default=*/"256",
           "The fewest elements of K in a slice (at least 64)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def SplitReductions
    : Pass<"mpt-split-reductions", "::mlir::func::FuncOp"> {
  let summary = "Reductions in parallel stages of short per-thread loops";
  let description = [{
    A `linalg.generic` that reduces a whole tensor to a scalar (every loop a
    reduction, one input read in order, at least `min-size` elements) is
    rewritten (one that elementwise fusion merged with its producers, with
    several inputs or broadcasts, a loss, is first separated into an
    elementwise generic into a temporary and a reduction of that, when its
    body ends in one combining op of the accumulator and one value) as a reduction over a 1-D view of its input, split
    (`linalg::splitReduction`) into R partial results computed in parallel
    and a reduction of those, which is split the same way while more than
    `chunk` partial results remain. Each partial result reduces about
    `chunk` elements (the smallest divisor of the size from `chunk` and
    from size / `parts` on; where there is none, the largest number of
    parts up to `parts` that divides the size). Partial result p reduces
    elements p, p + R, p + 2 R, ... (adjacent threads read adjacent
    elements: coalesced loads) in a loop nest whose outer loop is the
    parallel one. On the GPU the partial results of a stage are one thread
    each: a gradient of 4M elements (the inf/NaN check of loss scaling)
    is 65536 threads of 64 loads, then 1024 of 64, then one of 16, rather
    than one thread of 4M loads or 1024 threads of 4096 each, whose
    dependent chains of loads (not the bandwidth) set the time.

    With `keep-column-sums`, the sums of the columns of an f16 or bf16
    matrix that a `linalg.matmul` with an f32 result takes as B (a bias
    gradient beside its weight gradient), N and K multiples of 8, stay
    whole: `mpt-linalg-to-tensor-cores` computes them in the matmul's
    mma.sync or wgmma kernel (its `column-sums`); the GPU pipelines set it
    for sm_80 and later. With `keep-simt-column-sums`, so do the sums of
    the columns of a B that the tiled SIMT matmul kernel takes: f32
    operands (without tf32), or f16 or bf16 ones whose N or K is not a
    multiple of 8 (the MLP's last layer, 10 classes); the GPU pipelines
    set it on every chip. With `tf32` (set by the pipelines for sm_80 and
    later with their `tf32`), f32 matmuls whose N and K are multiples of 4
    take tf32 mma.sync, which computes the sums of an f32 B whose N is a
    multiple of 8 (`keep-column-sums`); the SIMT kernel takes the others.

    A reduction along one loop beside parallel loops (a bias gradient, a
    sum over the batch for each column; a row sum) with fewer than `parts`
    parallel iterations and at least 2 `chunk` elements to reduce is split
    the same way, once: into as many parts as give up to `parts` threads
    in all, each part at least `chunk` long, then a reduction of the parts.

    Every `linalg.generic` on tensors also gets its parallel loops
    outermost and its reductions innermost (the parallel loop that indexes
    the innermost dimension of its first input last among the parallel
    ones): the SIMT lowering runs the outermost parallel loops as threads
    and what is inside them in each thread, so a sum over the batch written
    with the reduction loop outside (as `mpt.reduce_sum` axes = [0] lowers)
    was a kernel of one thread. Sums are taken in another order.
  }];
  let options = [
    Option<"parts", "parts", "int64_t", /*default=*/"65536",
           "Most partial results of one stage">,
    Option<"chunk", "chunk", "int64_t", /*default=*/"64",
           "Elements a partial result reduces (the smallest divisor of the "
           "size from this on); stages repeat while more partial results "
           "remain">,
    Option<"minSize", "min-size", "int64_t", /*default=*/"256",
           "Do not split smaller reductions">,
    Option<"keepColumnSums", "keep-column-sums", "bool",
           /*default=*/"false",
           "Leave whole the sums of the columns of an f16 or bf16 matmul's B "
           "(a bias gradient), which mpt-linalg-to-tensor-cores computes in "
           "the matmul's kernel">,
    Option<"keepSimtColumnSums", "keep-simt-column-sums", "bool",
           /*default=*/"false",
           "Leave whole the sums of the columns of a matmul's B that the "
           "tiled SIMT kernel takes (f32 operands without tf32, or f16 or "
           "bf16 ones whose N or K is not a multiple of 8), which it "
           "computes">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "f32 matmuls whose N and K are multiples of 4 take tf32 "
           "mma.sync (the Tensor Core pass's tf32 on sm_80 and later): "
           "keep-column-sums covers their f32 B (N a multiple of 8), "
           "keep-simt-column-sums the others">,
    Option<"full", "full", "bool", /*default=*/"true",
           "Split reductions of a whole tensor too (mpt-lower-to-nvvm leaves "
           "them to mpt-reductions-to-gpu: one kernel each)">,
    Option<"rows", "rows", "bool", /*default=*/"true",
           "Split reductions along the innermost dimension of their input "
           "too (mpt-lower-to-nvvm leaves them to mpt-rows-to-gpu: a team "
           "of threads per row)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def GPUHostMemory : Pass<"mpt-gpu-host-memory", "::mlir::func::FuncOp"> {
  let summary = "Device memory for the buffers of a host function";
  let description = [{
    After the kernels of a function are `gpu.launch` ops, makes the rest of
    the function host code over device memory: `memref.alloc`/`dealloc`
    become `gpu.alloc`/`gpu.dealloc`, `memref.copy` becomes `gpu.memcpy`,
    and a constant (`memref.get_global`) is copied to a device buffer once.
    Runs of host ops that still read or write memory (scalar code left by
    bufferization) are wrapped into one single-thread `gpu.launch` each.
    The function's memref arguments are taken to be device memory. Static
    allocations, constants and views move to the start of the function,
    and after them the TMA descriptors of the wgmma kernels: a host op with
    effects in the middle would end the stream that `gpu-async-region`
    builds, a host synchronization before every wgmma kernel.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GPUCheckAlignment : Pass<"mpt-gpu-check-alignment", "::mlir::ModuleOp"> {
  let summary = "Host functions check that their buffer arguments are 16-byte aligned";
  let description = [{
    The GPU kernels load and store 16 bytes at once (SIMT and row kernels,
    reductions and the tiled SIMT matmul in vectors, `cp.async` and TMA
    copies in the Tensor Core kernels), and take a buffer whose first
    element is 16-byte aligned to put every such access on a multiple of
    its size: allocations are, and so are `mgpuMemAlloc` and `cudaMalloc`
    (256 bytes). A buffer argument that is not would make a kernel fault
    with a misaligned address, or TMA reject its tensor map. So at the
    entry of every function that launches kernels, each memref argument of
    rank 1 or more is checked: if the address of its first element (aligned
    pointer plus offset) is not a multiple of 16, the function writes a
    message that names itself, the argument and its type to the standard
    error (`write(2, ...)`, unbuffered, so that it is seen) and calls
    `abort()`, before any kernel runs. Part of `mpt-lower-to-nvvm` and
    `mpt-emulate-gpu`, after the host code is final.
  }];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect", "::mlir::LLVM::LLVMDialect"
  ];
}

def LowerSmCount : Pass<"mpt-lower-sm-count", "::mlir::ModuleOp"> {
  let summary = "The GPU's multiprocessor count (mpt.sm_count) from the "
                "runtime, or a constant";
  let description = [{
    Lowers each `mpt.sm_count` of the host code: with `sms=0` (the default)
    to a call of `mgpuDeviceMultiprocessorCount() -> i32`, which the mpt
    runtime (`lib/Runtime/CudaRuntime.cpp`) answers with the current
    device's `CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT` (read once per
    device), and for `cluster N` to a call of
    `mgpuDeviceClusterMultiprocessorCount(N) -> i32`, which answers N times
    the clusters of N blocks that the device runs at once with a block per
    SM (`cuOccupancyMaxActiveClusters`: a cluster runs in one GPC, so GPCs
    whose SMs are not a multiple of N leave some idle), each declared in
    the module if it is not; with `sms=N`, to the constant N, rounded down
    to whole clusters (`mpt-emulate-gpu`, whose device has `device-sms`
    SMs and no GPCs). A function asks once per cluster size, at its entry,
    for all its queries: the count is
    fixed while the program runs, and a call among the launches would end
    the stream that `gpu-async-region` builds (a call is a host op with
    effects to it); `mpt-lower-to-nvvm` runs this pass after that one.

    ```mlir
    %sms = mpt.sm_count
    // becomes (sms=0)
    %0 = call @mgpuDeviceMultiprocessorCount() : () -> i32
    %sms = arith.index_cast %0 : i32 to index

    %in_fours = mpt.sm_count cluster 4
    // becomes (sms=0)
    %c4 = arith.constant 4 : i32
    %1 = call @mgpuDeviceClusterMultiprocessorCount(%c4) : (i32) -> i32
    %in_fours = arith.index_cast %1 : i32 to index
    ```
  }];
  let options = [
    Option<"sms", "sms", "int64_t", /*default=*/"0",
           "0: ask the runtime; N > 0: every device has N multiprocessors">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

def GPUReuseBuffers : Pass<"mpt-gpu-reuse-buffers", "::mlir::func::FuncOp"> {
  let summary = "Device buffers whose lifetimes do not overlap share memory";
  let description = [{
    Runs after `mpt-gpu-host-memory`, on a host function of one block whose
    kernels run in program order on one stream. Each static `gpu.alloc` of
    the function body that is freed by one `gpu.dealloc` of the body, and
    whose uses (seen through views, casts and TMA descriptors) are all ops
    of the body, lives from its first use to its last, counted in ops of
    the body (a kernel launch, or a host op with a region, is one step).
    Buffers whose lifetimes are disjoint may take the same memory: they are
    placed in one arena, each at the lowest offset (a multiple of 256
    bytes) that no buffer live at the same time covers, and become
    `memref.view`s of it; one `gpu.alloc` and one `gpu.dealloc` remain. The
    placement order is the one of three that gives the smallest arena:
    largest first (TFLite's greedy by size), first used first, or largest
    footprint (bytes times ops live) first. Two buffers one kernel reads or writes never share memory.
    Bufferization reuses buffers only through the in-place writes it
    finds on tensors, which `mpt-untie-empty-tensors` undoes to keep
    kernels apart; this pass reuses memory after the kernels are built,
    by when reuse orders nothing.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
}

def GPUEmulation : Pass<"mpt-gpu-emulation", "::mlir::ModuleOp"> {
  let summary = "Outlined GPU kernels and their launches as host code that "
                "mpt's GPU emulator runs on the CPU";
  let description = [{
    Turns the outlined kernels of `mpt-lower-to-nvvm` (before NVVM) into
    host functions, so that the SIMT and `mma.sync` kernels can run on the
    CPU and their results be checked without a GPU (`mpt-emulate-gpu`,
    `mpt-run --emulate-gpu`). Each `gpu.func` becomes a `func.func` with an
    extra `memref<?xi8>` argument for the block's dynamic shared memory;
    thread and block ids, `gpu.barrier`, `nvgpu.ldmatrix`,
    `nvgpu.mma.sync`, `nvvm.mma.sync` (m16n8k16 f16/bf16, m16n8k8 tf32),
    `nvgpu.device_async_copy` with its groups and waits,
    `nvvm.cp.async.wait.group`, `nvvm.cvt.float.to.tf32` and WMMA's
    `gpu.subgroup_mma_load_matrix`, `gpu.subgroup_mma_compute` and
    `gpu.subgroup_mma_store_matrix` become calls into the emulator runtime
    (`lib/Runtime/GpuEmulator.cpp`); a WMMA fragment, whose distribution
    over the lanes is unspecified, becomes a vector of the whole matrix in
    every lane. On sm_90a, nvgpu's warpgroup ops are first lowered as
    `convert-nvgpu-to-nvvm` lowers them (so the emulator runs the very wgmma
    matrix descriptors and accumulator maps the GPU gets), and
    `nvgpu.mbarrier.*`, `nvgpu.tma.async.load`,
    `nvgpu.tma.create.descriptor` (on the host) and `nvvm.wgmma.*` become
    calls into the emulator. Each
    `gpu.launch_func` becomes a call to `mpt_emu_launch` with the kernel's
    operands packed in a struct and a trampoline that unpacks them;
    `gpu.alloc` becomes `memref.alloc` (aligned to 256 bytes, like
    `cudaMalloc`) filled with all-ones bits (NaN),
    `gpu.memcpy` `memref.copy`. Memory spaces are dropped.

    The runtime runs a launch's blocks in order and a block's threads as
    fibers; warp-wide instructions compute each lane's fragment as the PTX
    ISA specifies, asynchronous copies land when a wait retires their group,
    and a deadlock at a barrier, an out-of-bounds or misaligned copy,
    `ldmatrix` or `wmma.load`/`wmma.store`, lanes of one warp at different
    warp-wide instructions, or WMMA lanes with different addresses or
    fragments end the run with an error, and so does a kernel's memref or
    vector load or store with an index outside its dimension in device
    memory, or bytes outside the block's in shared memory, or a vector
    access not aligned as it states (each access is preceded by a check
    that names the access, its location and the index). A TMA copy lands (128-byte
    swizzle, out-of-bounds elements zero) when a thread waits on its
    mbarrier; a wgmma computes at issue and records the shared memory it
    read, which must be unchanged when a `wgmma.wait_group` retires it.
    The threads get tags of their wgmma accumulators (NaNs that name the
    wgmma and the register) rather than the values: a later wgmma takes
    them as its C (as PTX allows while they are in flight), and every other
    read of an accumulator (the f32 `llvm.extractvalue`s of a kernel with
    wgmma) goes through `mpt_emu_wgmma_read`, which gives the value once a
    `wgmma.wait_group` retired the wgmma and is an error before. An op the
    emulator does not know is an error.
  }];
  let options = [
    Option<"traffic", "traffic", "bool", /*default=*/"false",
           "Count the bytes and the instructions with which each kernel's "
           "threads load from and store to device memory (memref and "
           "vector loads and stores, cp.async and TMA copies and stores: "
           "what they read or write there); the emulator prints them per "
           "kernel, with its launches and their blocks, when the program "
           "exits">,
    Option<"banks", "banks", "bool", /*default=*/"false",
           "Count the wavefronts of each kernel's shared memory accesses "
           "(memref and vector loads and stores, ldmatrix, the shared "
           "memory side of cp.async) and how many of them are bank "
           "conflicts; the emulator prints them per kernel, and per access "
           "with its location where it has conflicts, when the program "
           "exits">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // MPT_CONVERSION_PASSES_TD
