#!/usr/bin/python3
"""Compiles the GPU benchmark's kernels on a machine with mpt (no GPU needed).

The GPU machine has CUDA but no MLIR, so everything MLIR does happens here:
for each GEMM of the benchmark, an MLIR function is lowered with
`mpt-lower-to-nvvm{chip=sm_90a format=bin}` (cubin embedded, ptxas from the
CUDA toolkit), translated to LLVM IR and compiled to a host object that
calls the mgpu* runtime. Two variants per shape and type:

  kernel  linalg.matmul on memrefs, f16/bf16 A and B, f32 C (C += A B): the
          Tensor Core kernel alone, compared with cublasGemmEx (f32 output,
          f32 compute);
  op      mpt.matmul acc(f32) on tensors, f16/bf16 result: the whole op as
          mpt lowers it (zero fill, the kernel into an f32 buffer, rounding).

and, for sm_90a, `mma` (the `kernel` function built for sm_90: mma.sync),
`ws` (the `kernel` function with warp-specialize=1: a producer warpgroup
for the TMA copies), `pers` (persistent=1: one block per SM, each looping
over tiles, the epilogue from registers) and `ping` (pingpong=1: the same
with two consumers on alternate tiles of 128 x 128), side by side with
`kernel`; at 4096^3 and 8192^3 also `ping256` (ping-pong with tiles of
64 x 256), `rows` (the `kernel` function with group-m=1: blocks row by
row, not in groups of 8 rows of tiles), to measure the block order, and
`t192` (block-tile=192x256x64: three consumer warpgroups, a fifth less L2
traffic per flop than 128 x 256), `clu` (cluster-m=2: `ws` in clusters of
two blocks one above the other, each copying half of their common B tile
to both with TMA multicast: a third less L2 traffic per flop at 128 x 256),
`pclu` (persistent=1 cluster-m=2: `pers` in such clusters), `clu4`
(cluster-m=2 cluster-n=2: `ws` in clusters of 2 x 2 blocks, each copying
half its A tile to its row and half its B tile to its column: half the L2
traffic per flop) and `pclu4` (`pers` in clusters of 2 x 2); and, since
the TMA store epilogue applies to kernels that store a fused epilogue's
output (not to those that add to C), `opers` (the `op` function with
persistent=1), `otma` (tma-store=1: its epilogue through shared memory and
TMA stores), `oping` (pingpong=1) and `otping` (pingpong=1 tma-store=1);
and at shapes whose output has too few tiles for the GPU (256 x 256 and
512 x 512 with long K, as weight gradients have), `op` and `osplit` (the
`op` function with split-k=16: a batch over slices of K, their f32
products summed by a second kernel).

and f32 GEMMs lowered with tf32=1 (`kernel` only, type tf32), and plain
f32 GEMMs (`kernel` and `op`, type f32: the tiled SIMT kernel, which the
fp32 training steps' matmuls get; `op` stores into its zero-filled result
without reading it), next to cuBLAS's fp32 SGEMM, so that the fp32 side of
the fp32-vs-mixed comparison is known to be a fair one. Training
steps: fp32, fp32 with tf32 matmuls, mixed precision, and mixed precision
with one loop or reduction per SIMT kernel (fuse=1), and mixed precision
with the row kernels' values through memory (register-columns=0), and
mixed precision with one iteration a SIMT thread (simt-vector-bytes=1),
and mixed precision with its bias gradients as kernels of their own
(column-sums=0), and mixed precision with an f16 working copy for every
matmul (cast-on-load=0).

Each training step is also run once on the CPU (mpt-run, the CPU lowering,
arguments drawn by role with a fixed seed): OUT/step_checks.txt holds how
the arguments were drawn and a sample of the results, and step_bench checks
the GPU's results of the same step against it (bench/gpu/step_check.h).

It writes OUT/objects/*.o, OUT/manifest.h (one X(name, type, M, N, K,
variant) line per function), OUT/smoke.txt (the GEMMs at small shapes,
which run.sh runs first), OUT/step_checks.txt, and copies the harness
and the runtime next to them; OUT is what run.sh needs on the GPU machine
(about 24 MB: what a device run carries). The intermediate MLIR and LLVM IR
and the CPU references go to OUT-work.

Usage: bench/gpu/prepare.py [--build build] [--out bench/gpu/out]
                            [--work OUT-work]
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys

import step_reference

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LLVM_BIN = "/usr/lib/llvm-22/bin"

# (M, N, K): large shapes, non-square ones, and shapes the tiles do not
# divide (partial tiles at the edges: 2064 = 16 x 129, 1000, 4104).
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (1024, 4096, 4096),
          (4096, 4096, 1024), (2064, 2064, 2064), (1000, 1000, 1000),
          (4104, 4104, 4104)]
TYPES = ["f16", "bf16"]
SMALL_SHAPES = [(128, 256, 64), (100, 100, 100)]
# Shapes with the `rows`, `t192`, `ping256`, `clu` and `pclu` variants
# (blocks row by row, 192 x 256 tiles, ping-pong on 64 x 256 tiles,
# clusters); 128 x 256 x 64 (2 x 2 tiles of 64 x 128) for --small.
ROWS_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (128, 256, 64)]
# Shapes whose output has too few tiles for the GPU (a weight gradient's:
# 16 and 64 tiles of 64 x 64 with long K), as `op` and as `osplit` (the
# same with split-k=16: a batch over slices of K, summed in f32).
SPLITK_SHAPES = [(256, 256, 16384), (512, 512, 8192)]
SMALL_SPLITK_SHAPES = [(128, 128, 2048)]

# Training steps, fp32 (mpt-build-train-step) and mixed (mpt-amp-pipeline,
# f16 with dynamic loss scaling): the examples, and an MLP and a
# transformer block large enough for the matmuls to matter (batch 512,
# 1024 -> 4096 -> 1024 -> 16; BIG_TRANSFORMER below).
BIG_MLP = """func.func @mlp(%x: tensor<512x1024xf32> {mpt.role = #mpt.role<input>},
    %w1: tensor<1024x4096xf32> {mpt.role = #mpt.role<parameter>},
    %b1: tensor<4096xf32> {mpt.role = #mpt.role<parameter>},
    %w2: tensor<4096x1024xf32> {mpt.role = #mpt.role<parameter>},
    %b2: tensor<1024xf32> {mpt.role = #mpt.role<parameter>},
    %w3: tensor<1024x16xf32> {mpt.role = #mpt.role<parameter>},
    %y: tensor<512xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h = mpt.matmul %x, %w1 : (tensor<512x1024xf32>, tensor<1024x4096xf32>) -> tensor<512x4096xf32>
  %hb = mpt.add %h, %b1 : (tensor<512x4096xf32>, tensor<4096xf32>) -> tensor<512x4096xf32>
  %r = mpt.relu %hb : tensor<512x4096xf32>
  %g = mpt.matmul %r, %w2 : (tensor<512x4096xf32>, tensor<4096x1024xf32>) -> tensor<512x1024xf32>
  %gb = mpt.add %g, %b2 : (tensor<512x1024xf32>, tensor<1024xf32>) -> tensor<512x1024xf32>
  %s = mpt.relu %gb : tensor<512x1024xf32>
  %l = mpt.matmul %s, %w3 : (tensor<512x1024xf32>, tensor<1024x16xf32>) -> tensor<512x16xf32>
  %loss = mpt.softmax_cross_entropy %l, %y : (tensor<512x16xf32>, tensor<512xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
"""


def transformer_block(b, t, d, heads, f):
    """examples/transformer_block.mlir at other sizes: batch b, sequence t,
    model width d in `heads` heads, MLP width f."""
    dh = d // heads
    rows = b * t

    def ty(*dims):
        return "tensor<" + "x".join(str(x) for x in dims) + "xf32>"

    x, r, w, vec = ty(b, t, d), ty(rows, d), ty(d, d), ty(d)
    split, split_t = ty(b, t, heads, dh), ty(b, heads, t, dh)
    bh, scores = ty(b * heads, t, dh), ty(b * heads, t, t)
    params = [("ln1_g", vec), ("ln1_b", vec), ("wq", w), ("bq", vec),
              ("wk", w), ("bk", vec), ("wv", w), ("bv", vec), ("wo", w),
              ("bo", vec), ("ln2_g", vec), ("ln2_b", vec),
              ("w_fc1", ty(d, f)), ("b_fc1", ty(f)), ("w_fc2", ty(f, d)),
              ("b_fc2", vec)]
    args = [f"%x: {x} {{mpt.role = #mpt.role<input>}}"] + [
        f"%{n}: {t_} {{mpt.role = #mpt.role<parameter>}}" for n, t_ in params
    ] + [f"%target: {x} {{mpt.role = #mpt.role<label>}}"]
    body = [f"%h = mpt.layer_norm %x, %ln1_g, %ln1_b epsilon = 1.0e-5 : "
            f"({x}, {vec}, {vec}) -> {x}",
            f"%h_rows = mpt.reshape %h : {x} to {r}"]
    for p in "qkv":
        body += [f"%{p}_lin = mpt.matmul %h_rows, %w{p} : ({r}, {w}) -> {r}",
                 f"%{p}_rows = mpt.add %{p}_lin, %b{p} : ({r}, {vec}) -> {r}",
                 f"%{p}_split = mpt.reshape %{p}_rows : {r} to {split}",
                 f"%{p}_t = mpt.transpose %{p}_split perm = [0, 2, 1, 3] : "
                 f"{split} -> {split_t}",
                 f"%{p} = mpt.reshape %{p}_t : {split_t} to {bh}"]
    body += [f"%scores_raw = mpt.batch_matmul %q, %k transpose_b : "
             f"({bh}, {bh}) -> {scores}",
             f"%scale = mpt.constant dense<{1.0 / dh ** 0.5!r}> : tensor<f32>",
             f"%scores = mpt.mul %scores_raw, %scale : "
             f"({scores}, tensor<f32>) -> {scores}",
             f"%probs = mpt.softmax %scores axis = -1 : {scores}",
             f"%ctx = mpt.batch_matmul %probs, %v : ({scores}, {bh}) -> {bh}",
             f"%ctx_split = mpt.reshape %ctx : {bh} to {split_t}",
             f"%ctx_t = mpt.transpose %ctx_split perm = [0, 2, 1, 3] : "
             f"{split_t} -> {split}",
             f"%ctx_rows = mpt.reshape %ctx_t : {split} to {r}",
             f"%attn_lin = mpt.matmul %ctx_rows, %wo : ({r}, {w}) -> {r}",
             f"%attn_rows = mpt.add %attn_lin, %bo : ({r}, {vec}) -> {r}",
             f"%attn = mpt.reshape %attn_rows : {r} to {x}",
             f"%y1 = mpt.add %x, %attn : ({x}, {x}) -> {x}",
             f"%m = mpt.layer_norm %y1, %ln2_g, %ln2_b epsilon = 1.0e-5 : "
             f"({x}, {vec}, {vec}) -> {x}",
             f"%m_rows = mpt.reshape %m : {x} to {r}",
             f"%fc1_lin = mpt.matmul %m_rows, %w_fc1 : "
             f"({r}, {ty(d, f)}) -> {ty(rows, f)}",
             f"%fc1 = mpt.add %fc1_lin, %b_fc1 : "
             f"({ty(rows, f)}, {ty(f)}) -> {ty(rows, f)}",
             f"%act = mpt.gelu %fc1 : {ty(rows, f)}",
             f"%fc2_lin = mpt.matmul %act, %w_fc2 : "
             f"({ty(rows, f)}, {ty(f, d)}) -> {r}",
             f"%fc2_rows = mpt.add %fc2_lin, %b_fc2 : ({r}, {vec}) -> {r}",
             f"%mlp = mpt.reshape %fc2_rows : {r} to {x}",
             f"%y2 = mpt.add %y1, %mlp : ({x}, {x}) -> {x}",
             f"%loss = mpt.mse_loss %y2, %target : ({x}, {x}) -> tensor<f32>",
             "func.return %loss : tensor<f32>"]
    return ("func.func @transformer_block(\n    " + ",\n    ".join(args)
            + ")\n    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {\n  "
            + "\n  ".join(body) + "\n}\n")


# A transformer block large enough for its matmuls to matter: 2048 tokens
# (batch 8, sequence 256), width 512 in 8 heads of 64 (wgmma reads the
# head splits and merges in place), MLP 2048.
BIG_TRANSFORMER = transformer_block(8, 256, 512, 8, 2048)
STEP_MODELS = ["mlp", "transformer_block", "big_mlp", "big_transformer"]
BIG_MODELS = {"big_mlp": BIG_MLP, "big_transformer": BIG_TRANSFORMER}
STEP_VARIANTS = {
    "fp32": ["--mpt-build-train-step=optimizer=sgd lr=0.01", "-canonicalize"],
    "tf32": ["--mpt-build-train-step=optimizer=sgd lr=0.01", "-canonicalize"],
    "mixed": ["--mpt-amp-pipeline=type=f16 optimizer=sgd lr=0.01"],
    "mixed1": ["--mpt-amp-pipeline=type=f16 optimizer=sgd lr=0.01"],
    "mixedmem": ["--mpt-amp-pipeline=type=f16 optimizer=sgd lr=0.01"],
    "mixedscalar": ["--mpt-amp-pipeline=type=f16 optimizer=sgd lr=0.01"],
    "mixedbias": ["--mpt-amp-pipeline=type=f16 optimizer=sgd lr=0.01"],
    "mixedcopy": ["--mpt-amp-pipeline=type=f16 optimizer=sgd lr=0.01"],
}
# Extra mpt-lower-to-nvvm options: the tf32 step is the fp32 one with its
# matmuls (and convolutions) on Tensor Cores as tf32.
# The mixed1 step is the mixed one with one loop or reduction per SIMT
# kernel (fuse=1, no horizontal fusion), to measure what fusing launches
# saves. The mixedmem step is the mixed one with every op of a row kernel
# (softmax, layer norm) reading its operands from memory and a block
# barrier after every op (register-columns=0), to measure what keeping
# them in registers (and so dropping the barriers) saves. The mixedscalar
# step is the mixed one with one iteration a SIMT thread and one element a
# load or store in the SIMT and reduction kernels (simt-vector-bytes=1), to
# measure what a thread's 16-byte vectors save. The mixedbias step is the
# mixed one with its bias gradients as reduction kernels of their own
# (column-sums=0), to measure what computing them in the weight gradients'
# kernels saves (or costs: the first row of tiles does the extra work).
# The mixedcopy step is the mixed one with f16 working copies for every
# matmul (cast-on-load=0: its small matmuls read the copies, on wgmma on
# sm_90a), to measure what reading the f32 weights and batch and rounding
# them as they load (on mma.sync) saves or costs.
LOWERING = {"tf32": " tf32=1", "mixed1": " fuse=1",
            "mixedmem": " register-columns=0",
            "mixedscalar": " simt-vector-bytes=1",
            "mixedbias": " column-sums=0",
            "mixedcopy": " cast-on-load=0"}
# The check of each step on the GPU (step_bench, bench/gpu/step_check.h):
# the step module whose CPU run is its reference, and the tolerance of the
# error of its updates (relative, in the 2-norm, over a sample of up to
# STEP_SAMPLES elements a result). In the emulator (sm_80 and sm_90a; the
# big MLP on sm_90a only), the fp32 steps agreed with the CPU within
# 1.8e-5 (the transformer block; 4.4e-6 for the big MLP), the mixed steps
# within 4e-4 (1.2e-3 for the big MLP's first layer; 3.6e-3 for
# attention's K bias, whose update is rounding noise compared at
# step_check.h's floor); tf32 matmuls against the fp32 reference differ by
# up to 2e-2 (the small MLP's first layer: a ReLU whose input changes sign
# under tf32 rounding; 3.1e-3 for the transformer block, 5e-4 for the big
# MLP), hence its tolerance. The fp32 tolerance leaves room for the GPU's
# own exp, erf and reciprocal approximations, which the emulator does not
# share.
REFERENCES = {"fp32": ("fp32", 1e-3), "tf32": ("fp32", 5e-2),
              "mixed": ("mixed", 1e-2)}
STEP_SEED = 1
STEP_SAMPLES = 1024
# f32 GEMMs on Tensor Cores as tf32 (the `kernel` variant only), next to
# cuBLAS's tf32 mode.
TF32_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)]
SMALL_TF32_SHAPES = [(128, 256, 64)]
# f32 GEMMs on the tiled SIMT kernel (`kernel` and `op`), next to cuBLAS's
# SGEMM (no tf32).
F32_SHAPES = [(4096, 4096, 4096), (2064, 2064, 2064)]
SMALL_F32_SHAPES = [(128, 256, 64)]
ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i1": 1}
TENSOR = re.compile(r"tensor<((?:\d+x)*)(f32|f16|bf16|i64|i32|i1)>")


def kernel_module(name, t, m, n, k):
    return (f"func.func @{name}(%a: memref<{m}x{k}x{t}>, "
            f"%b: memref<{k}x{n}x{t}>, %c: memref<{m}x{n}xf32>) {{\n"
            f"  linalg.matmul ins(%a, %b : memref<{m}x{k}x{t}>, "
            f"memref<{k}x{n}x{t}>) outs(%c : memref<{m}x{n}xf32>)\n"
            f"  return\n}}\n")


def op_module(name, t, m, n, k):
    acc = "" if t == "f32" else " acc(f32)"
    return (f"func.func @{name}(%a: tensor<{m}x{k}x{t}>, "
            f"%b: tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}x{t}> {{\n"
            f"  %c = mpt.matmul %a, %b{acc} : (tensor<{m}x{k}x{t}>, "
            f"tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}x{t}>\n"
            f"  return %c : tensor<{m}x{n}x{t}>\n}}\n")


def signature(text, name):
    """The argument and result tensor types of @name: [(shape, type)]; the
    results become out-parameters after the arguments."""
    start = text.index(f"func.func @{name}(")
    depth, i = 0, text.index("(", start)
    while True:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            break
        i += 1
    args = text[text.index("(", start):i]
    body = text.index("{\n", i)
    results = text[i:body]
    out = []
    for part in (args, results):
        # Attribute dictionaries (mpt.initial_value holds a tensor type).
        part = re.sub(r"\{[^{}]*\}", "", part)
        for dims, ty in TENSOR.findall(part):
            shape = [int(d) for d in dims.split("x") if d]
            out.append((shape, ty))
    return out


def step_declarations(name, sig, kernels, copies):
    """C++: the extern declaration of a lowered step and a caller taking one
    device buffer per argument; `kernels`: its kernel launches per call,
    `copies`: its device copies and memsets (stream operations too)."""
    params, call = [], []
    for i, (shape, _) in enumerate(sig):
        params += ["void *", "void *", "int64_t"] + ["int64_t"] * (2 * len(shape))
        strides, stride = [], 1
        for d in reversed(shape):
            strides.insert(0, stride)
            stride *= d
        call += [f"b[{i}]", f"b[{i}]", "0"] + [str(d) for d in shape] + \
            [str(s) for s in strides]
    decl = f'extern "C" void {name}({", ".join(params)});\n'
    caller = (f"static void call_{name}(void **b) {{\n  {name}("
              + ", ".join(call) + ");\n}\n")
    args = ", ".join("{%d, %d, %d}" % (ELEMENT_BYTES[ty], math.prod(shape),
                                         ty in ("f32", "f16", "bf16"))
                     for shape, ty in sig)
    table = (f'  {{"{name}", call_{name}, {len(sig)}, '
             f"(const ArgSpec[]){{{args}}}, {kernels}, {copies}}},\n")
    return decl + caller, table


def compile_step(args, model, variant, workdir, objdir):
    """Builds the training step of `model` (fp32 or mixed), renames it, and
    compiles it like the GEMMs; returns its C++ declaration and table row."""
    source = os.path.join(workdir, model + ".mlir")
    if not os.path.exists(source):
        text = BIG_MODELS[model] if model in BIG_MODELS else open(
            os.path.join(ROOT, "examples", model + ".mlir")).read()
        with open(source, "w") as f:
            f.write(text)
    name = f"step_{model}_{variant}"
    step = os.path.join(workdir, name + ".step.mlir")
    subprocess.run([os.path.join(args.build, "bin", "mpt-opt"), source,
                    *STEP_VARIANTS[variant], "-o", step], check=True,
                   capture_output=True)
    text = open(step).read()
    # Unique symbols across the objects: the step, and the forward function
    # that the module still holds (unused by the step).
    for fn in set(re.findall(r"func\.func @(\w+)\(", text)):
        new = name if fn == "train_step" else f"{name}__{fn}"
        text = text.replace(f"@{fn}(", f"@{new}(")
    sig = signature(text, name)
    compile_module(args, text, name, workdir, objdir,
                   options=LOWERING.get(variant, ""))
    # The C++ declaration must match the lowered function parameter for
    # parameter: count them in the LLVM IR.
    ll = open(os.path.join(workdir, name + ".ll")).read()
    define = re.search(r"define void @" + name + r"\((.*)\)", ll).group(1)
    expected = sum(3 + 2 * len(shape) for shape, _ in sig)
    if define.count(",") + 1 != expected:
        sys.exit(f"{name}: the lowered function has {define.count(',') + 1} "
                 f"parameters, the signature parsed from MLIR gives {expected}")
    # Kernel launches per step (the steps have no loops on the host), in the
    # step's function only: the module also holds the forward function.
    lowered = open(os.path.join(workdir, name + ".nvvm.mlir")).read()
    start = lowered.index(f"\n  llvm.func @{name}(")
    body = lowered[start:lowered.index("\n  }\n", start)]
    kernels = body.count("gpu.launch_func")
    copies = len(re.findall(r"llvm\.call @mgpuMem(?:cpy|set)", body))
    return step_declarations(name, sig, kernels, copies)


def write_step_checks(args, workdir):
    """OUT/step_checks.txt: for each step, how step_bench draws its arguments
    and the CPU reference of its results (bench/gpu/step_reference.py: the
    step module run by mpt-run, with arguments drawn by role)."""
    summaries = {}
    with open(os.path.join(args.out, "step_checks.txt"), "w") as f:
        for model in STEP_MODELS[:2] if args.small else STEP_MODELS:
            for variant in STEP_VARIANTS:
                base, tolerance = REFERENCES.get(variant, REFERENCES["mixed"])
                if (model, base) not in summaries:
                    summaries[model, base] = step_reference.run_reference(
                        os.path.join(args.build, "bin", "mpt-run"),
                        os.path.join(workdir, f"step_{model}_{base}.step.mlir"),
                        "train_step", STEP_SEED,
                        os.path.join(workdir, f"reference_{model}_{base}"))
                    print(f"step_{model}_{base}: CPU reference")
                f.write(step_reference.reference_block(
                    summaries[model, base], f"step_{model}_{variant}",
                    tolerance, STEP_SAMPLES))


def compile_module(args, text, name, workdir, objdir, chip=None, options=""):
    src = os.path.join(workdir, name + ".mlir")
    low = os.path.join(workdir, name + ".nvvm.mlir")
    ll = os.path.join(workdir, name + ".ll")
    obj = os.path.join(objdir, name + ".o")
    with open(src, "w") as f:
        f.write(text)
    env = dict(os.environ)
    env["PATH"] = "/usr/local/cuda/bin:" + env.get("PATH", "")
    proc = subprocess.run(
        [os.path.join(args.build, "bin", "mpt-opt"), src,
         f"--mpt-lower-to-nvvm=chip={chip or args.chip} format=bin{options}",
         "-o", low],
        capture_output=True, text=True, env=env)
    if proc.returncode:
        sys.exit(f"{name}: mpt-opt failed:\n{proc.stderr}")
    remarks = [line.split("remark: ", 1)[1] for line in proc.stderr.splitlines()
               if "remark: matmul" in line]
    subprocess.run([os.path.join(LLVM_BIN, "mlir-translate"),
                    "--mlir-to-llvmir", low, "-o", ll], check=True)
    subprocess.run([os.path.join(LLVM_BIN, "llc"), "-O2", "-filetype=obj",
                    "-relocation-model=pic", ll, "-o", obj], check=True)
    return remarks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "gpu",
                                                      "out"))
    parser.add_argument("--work", default=None,
                        help="the intermediate MLIR and LLVM IR (default: "
                        "OUT-work, beside OUT, so that OUT holds only what "
                        "the GPU machine needs)")
    parser.add_argument("--chip", default="sm_90a")
    parser.add_argument("--small", action="store_true",
                        help="the small GEMMs and the example steps only "
                        "(to test the script; a full run has the small "
                        "GEMMs too, which run.sh runs first as a smoke "
                        "test)")
    args = parser.parse_args()
    objdir = os.path.join(args.out, "objects")
    workdir = args.work or os.path.normpath(args.out) + "-work"
    os.makedirs(objdir, exist_ok=True)
    os.makedirs(workdir, exist_ok=True)
    # The manifest's lines, and the functions at small shapes: run.sh runs
    # those first, as a smoke test of every kernel (a hang costs seconds
    # there, and its larger shapes are skipped).
    lines, smoke = [], []
    small = set(SMALL_SHAPES + SMALL_SPLITK_SHAPES + SMALL_TF32_SHAPES
                + SMALL_F32_SHAPES)

    def record(name, t, m, n, k, variant):
        lines.append(f"  X({name}, {t.upper()}, {m}, {n}, {k}, "
                     f"{variant.upper()})")
        if (m, n, k) in small:
            smoke.append(name)

    variants = [("kernel", kernel_module, args.chip, ""),
                ("op", op_module, args.chip, "")]
    if args.chip == "sm_90a":
        variants.insert(1, ("mma", kernel_module, "sm_90", ""))
        variants.insert(2, ("ws", kernel_module, "sm_90a",
                            " warp-specialize=1"))
        variants.insert(3, ("pers", kernel_module, "sm_90a",
                            " persistent=1"))
        variants.insert(4, ("ping", kernel_module, "sm_90a", " pingpong=1"))
        variants.insert(5, ("ping256", kernel_module, "sm_90a",
                            " pingpong=1 block-tile=64x256x64"))
        variants.insert(6, ("rows", kernel_module, "sm_90a", " group-m=1"))
        variants.insert(7, ("t192", kernel_module, "sm_90a",
                            " block-tile=192x256x64"))
        variants.insert(8, ("clu", kernel_module, "sm_90a", " cluster-m=2"))
        variants.insert(9, ("pclu", kernel_module, "sm_90a",
                            " persistent=1 cluster-m=2"))
        variants.insert(10, ("clu4", kernel_module, "sm_90a",
                             " cluster-m=2 cluster-n=2"))
        variants.insert(11, ("pclu4", kernel_module, "sm_90a",
                             " persistent=1 cluster-m=2 cluster-n=2"))
        variants += [("opers", op_module, "sm_90a", " persistent=1"),
                     ("otma", op_module, "sm_90a", " tma-store=1"),
                     ("oping", op_module, "sm_90a", " pingpong=1"),
                     ("otping", op_module, "sm_90a",
                      " pingpong=1 tma-store=1")]
    for t in TYPES:
        for m, n, k in SMALL_SHAPES + ([] if args.small else SHAPES):
            for variant, make, chip, options in variants:
                if (variant in ("rows", "t192", "ping256", "clu", "pclu",
                                "clu4", "pclu4", "opers", "otma", "oping",
                                "otping")
                        and (m, n, k) not in ROWS_SHAPES):
                    continue
                name = f"gemm_{variant}_{t}_{m}x{n}x{k}"
                remarks = compile_module(args, make(name, t, m, n, k), name,
                                         workdir, objdir, chip, options)
                record(name, t, m, n, k, variant)
                print(f"{name}: {'; '.join(remarks)}")
    for t in TYPES:
        for m, n, k in SMALL_SPLITK_SHAPES + ([] if args.small
                                            else SPLITK_SHAPES):
            for variant, options in (("op", ""), ("osplit", " split-k=16")):
                name = f"gemm_{variant}_{t}_{m}x{n}x{k}"
                remarks = compile_module(args, op_module(name, t, m, n, k),
                                         name, workdir, objdir,
                                         options=options)
                record(name, t, m, n, k, variant)
                print(f"{name}: {'; '.join(remarks)}")
    for m, n, k in SMALL_TF32_SHAPES + ([] if args.small else TF32_SHAPES):
        name = f"gemm_kernel_tf32_{m}x{n}x{k}"
        remarks = compile_module(args, kernel_module(name, "f32", m, n, k),
                                 name, workdir, objdir, options=" tf32=1")
        record(name, "tf32", m, n, k, "kernel")
        print(f"{name}: {'; '.join(remarks)}")
    for m, n, k in SMALL_F32_SHAPES + ([] if args.small else F32_SHAPES):
        for variant, make in (("kernel", kernel_module), ("op", op_module)):
            name = f"gemm_{variant}_f32_{m}x{n}x{k}"
            remarks = compile_module(args, make(name, "f32", m, n, k), name,
                                     workdir, objdir)
            record(name, "f32", m, n, k, variant)
            print(f"{name}: {'; '.join(remarks)}")
    with open(os.path.join(args.out, "smoke.txt"), "w") as f:
        f.write("".join(name + "\n" for name in smoke))
    with open(os.path.join(args.out, "manifest.h"), "w") as f:
        f.write("// Generated by bench/gpu/prepare.py.\n"
                "#define MPT_GEMMS(X) \\\n" + " \\\n".join(lines) + "\n")
    decls, rows = [], []
    for model in STEP_MODELS[:2] if args.small else STEP_MODELS:
        for variant in STEP_VARIANTS:
            decl, row = compile_step(args, model, variant, workdir, objdir)
            decls.append(decl)
            rows.append(row)
            print(f"step_{model}_{variant}: compiled")
    with open(os.path.join(args.out, "steps.h"), "w") as f:
        f.write("// Generated by bench/gpu/prepare.py.\n"
                + "".join(decls)
                + "static const StepEntry kSteps[] = {\n" + "".join(rows)
                + "};\n")
    write_step_checks(args, workdir)
    for name in ("gemm_bench.cu", "step_bench.cu", "run.sh", "step_check.h"):
        shutil.copy(os.path.join(ROOT, "bench", "gpu", name), args.out)
    shutil.copy(os.path.join(ROOT, "tools", "mpt-run", "HostValues.h"),
                args.out)
    shutil.copy(os.path.join(ROOT, "lib", "Runtime", "CudaRuntime.cpp"),
                args.out)
    print(f"wrote {len(lines)} functions to {args.out}")


if __name__ == "__main__":
    main()
