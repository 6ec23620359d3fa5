//===- GpuEmulator.cpp - running GPU kernels on the CPU -------------------===//
//
// One launch runs its blocks in order; the threads of a block are fibers
// (ucontext) on the calling thread. A fiber runs until it blocks at a
// barrier or a warp-wide instruction, or ends; then the first ready one (in
// thread order) runs. This schedule is deterministic and adversarial for
// missing barriers: warp 0 runs ahead of all later warps until it must wait,
// so a read of shared memory that another thread writes without a barrier in
// between sees the poison (all bits set: NaN) or stale data, and a buffer
// refilled too early is poison for the warps that still read it.
//
// The warp-wide instructions follow the PTX ISA (9.7.14, "Warp-level Matrix
// Multiply-Accumulate Instructions"): fragment layouts of mma.m16n8k16
// (.f16, .bf16) and mma.m16n8k8 (.tf32), and ldmatrix .m8n8 .x1/.x2/.x4
// (.trans). A cp.async makes its destination poison at once and is queued
// per thread; the data lands when a cp.async.wait_group retires its group.
// So a kernel that reads a stage before waiting for it, or refills a stage
// that other warps still read, reads poison.
//
//===----------------------------------------------------------------------===//

#include "mpt/Runtime/GpuEmulator.h"

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <ucontext.h>
#include <vector>

namespace {

constexpr size_t kStackBytes = size_t(256) << 10;
constexpr int64_t kMaxThreads = 1024;
constexpr int64_t kMaxSharedBytes = 227 * 1024;
constexpr int kWarp = 32;

[[noreturn]] void fail(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

enum class State { Ready, AtBarrier, AtWarp, Done };

struct Copy {
  char *dst;
  const char *src;
  int32_t dstBytes, srcBytes;
};

struct Fiber {
  ucontext_t context;
  State state = State::Ready;
  int64_t tid[3] = {0, 0, 0};
  int64_t linear = 0;
  std::vector<Copy> uncommitted;
  std::deque<std::vector<Copy>> groups; // committed, oldest first
};

/// What the lanes of one warp bring to a warp-wide instruction.
struct WarpOp {
  int kind = -1; // 0: ldmatrix, 1..3: mma, 4..6: wmma load/store/mma
  int arrived = 0;
  int32_t numTiles = 0, transpose = 0;
  int32_t rows = 0, cols = 0, depth = 0, elementBytes = 0, mmaKind = 0;
  int64_t leadDimension = 0;
  int64_t addr[kWarp], base[kWarp], span[kWarp];
  char *in[kWarp][3];
  char *out[kWarp];
};

struct Launch {
  std::string kernel;
  int64_t grid[3], block[3], blockId[3];
  int64_t threads = 0;
  void (*fn)(void *, void *, int64_t) = nullptr;
  void *args = nullptr;
  char *shared = nullptr;
  int64_t sharedBytes = 0;
  std::vector<Fiber> fibers;
  std::vector<char *> stacks;
  std::vector<WarpOp> warps;
  ucontext_t scheduler;
  Fiber *current = nullptr;
  int64_t atBarrier = 0;
};

Launch *active = nullptr;

void fail(const char *format, ...) {
  std::fprintf(stderr, "mpt-emulate-gpu: error: ");
  if (active) {
    std::fprintf(stderr, "kernel %s, block (%lld, %lld, %lld)",
                 active->kernel.c_str(), (long long)active->blockId[0],
                 (long long)active->blockId[1], (long long)active->blockId[2]);
    if (active->current)
      std::fprintf(stderr, ", thread (%lld, %lld, %lld)",
                   (long long)active->current->tid[0],
                   (long long)active->current->tid[1],
                   (long long)active->current->tid[2]);
    std::fprintf(stderr, ": ");
  }
  va_list list;
  va_start(list, format);
  std::vfprintf(stderr, format, list);
  va_end(list);
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
  std::_Exit(3);
}

Launch &launch() {
  if (!active || !active->current)
    fail("a kernel function ran outside of a launch");
  return *active;
}

/// Suspends the current fiber in `state` until another one makes it ready.
void block(State state) {
  Launch &l = launch();
  Fiber *self = l.current;
  self->state = state;
  swapcontext(&self->context, &l.scheduler);
}

void perform(const std::vector<Copy> &group) {
  for (const Copy &c : group) {
    if (c.srcBytes > 0)
      std::memcpy(c.dst, c.src, c.srcBytes);
    std::memset(c.dst + c.srcBytes, 0, c.dstBytes - c.srcBytes);
  }
}

void finishCopies(Fiber &f) {
  while (!f.groups.empty()) {
    perform(f.groups.front());
    f.groups.pop_front();
  }
  perform(f.uncommitted);
  f.uncommitted.clear();
}

void fiberMain() {
  Launch &l = *active;
  l.fn(l.args, l.shared, l.sharedBytes);
  finishCopies(*l.current);
  l.current->state = State::Done;
  // Returning resumes uc_link: the scheduler.
}

const char *describe(State s) {
  switch (s) {
  case State::AtBarrier:
    return "wait at gpu.barrier";
  case State::AtWarp:
    return "wait at a warp-wide instruction";
  case State::Done:
    return "have exited";
  case State::Ready:
    break;
  }
  return "are ready";
}

void runBlock(Launch &l) {
  std::memset(l.shared, 0xff, l.sharedBytes);
  for (WarpOp &w : l.warps)
    w = WarpOp();
  l.atBarrier = 0;
  for (int64_t i = 0; i < l.threads; ++i) {
    Fiber &f = l.fibers[i];
    f = Fiber();
    f.linear = i;
    f.tid[0] = i % l.block[0];
    f.tid[1] = (i / l.block[0]) % l.block[1];
    f.tid[2] = i / (l.block[0] * l.block[1]);
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = l.stacks[i];
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &l.scheduler;
    makecontext(&f.context, fiberMain, 0);
  }
  // Always the first ready thread: warp 0 runs as far ahead as it can
  // before warp 1 starts, and so on.
  for (;;) {
    Fiber *next = nullptr;
    for (Fiber &f : l.fibers)
      if (f.state == State::Ready) {
        next = &f;
        break;
      }
    if (next) {
      l.current = next;
      swapcontext(&l.scheduler, &next->context);
      l.current = nullptr;
      continue;
    }
    bool done = true;
    int64_t count[4] = {0, 0, 0, 0};
    for (Fiber &f : l.fibers) {
      count[static_cast<int>(f.state)]++;
      done &= f.state == State::Done;
    }
    if (done)
      return;
    {
      std::string what;
      for (State s : {State::AtBarrier, State::AtWarp, State::Done})
        if (count[static_cast<int>(s)])
          what += (what.empty() ? "" : ", ") +
                  std::to_string(count[static_cast<int>(s)]) + " threads " +
                  describe(s);
      fail("deadlock: %s (a barrier or warp-wide instruction that not every "
           "thread reaches)",
           what.c_str());
    }
  }
}

//===----------------------------------------------------------------------===//
// Number formats
//===----------------------------------------------------------------------===//

float halfToFloat(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 31, mantissa = h & 1023;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  return sign ? -magnitude : magnitude;
}

float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint32_t floatToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

float bf16ToFloat(uint16_t h) { return bitsToFloat(uint32_t(h) << 16); }

//===----------------------------------------------------------------------===//
// Warp-wide instructions
//===----------------------------------------------------------------------===//

void checkRange(const char *what, int64_t addr, int64_t bytes, int64_t base,
                int64_t span) {
  if (addr < base || addr + bytes > base + span)
    fail("%s reads or writes bytes [%lld, %lld) of a buffer of %lld bytes",
         what, (long long)(addr - base), (long long)(addr - base + bytes),
         (long long)span);
}

/// Joins the warp's other lanes at a warp-wide instruction of `kind`; the
/// last lane to arrive runs `compute` for all 32.
template <typename Fill, typename Compute>
void warpWide(int kind, const char *name, Fill fill, Compute compute) {
  Launch &l = launch();
  if (l.threads % kWarp)
    fail("%s in a block of %lld threads, not whole warps", name,
         (long long)l.threads);
  int64_t lane = l.current->linear % kWarp;
  WarpOp &w = l.warps[l.current->linear / kWarp];
  if (w.arrived == 0)
    w.kind = kind;
  else if (w.kind != kind)
    fail("lane %lld executes %s while other lanes of its warp execute a "
         "different warp-wide instruction",
         (long long)lane, name);
  fill(w, lane);
  if (++w.arrived < kWarp) {
    block(State::AtWarp);
    return;
  }
  compute(w);
  w.arrived = 0;
  int64_t first = l.current->linear - lane;
  for (int64_t i = 0; i < kWarp; ++i)
    if (l.fibers[first + i].state == State::AtWarp)
      l.fibers[first + i].state = State::Ready;
}

void computeLdmatrix(WarpOp &w) {
  for (int64_t t = 0; t < w.numTiles * 8; ++t) {
    checkRange("ldmatrix", w.addr[t], 16, w.base[t], w.span[t]);
    if (w.addr[t] % 16)
      fail("ldmatrix row address of lane %lld is not 16-byte aligned",
           (long long)t);
  }
  for (int lane = 0; lane < kWarp; ++lane) {
    auto *out = reinterpret_cast<uint16_t *>(w.out[lane]);
    for (int i = 0; i < w.numTiles; ++i)
      for (int j = 0; j < 2; ++j) {
        // Row r of matrix i comes from the address of lane 8i + r.
        int row = w.transpose ? 2 * (lane % 4) + j : lane / 4;
        int col = w.transpose ? lane / 4 : 2 * (lane % 4) + j;
        const auto *src =
            reinterpret_cast<const uint16_t *>(w.addr[i * 8 + row]);
        out[i * 2 + j] = src[col];
      }
  }
}

/// D = A B + C for one m16n8kK tile; `kind` 1: f16, 2: bf16 (K = 16), 3:
/// tf32 (K = 8).
void computeMma(WarpOp &w) {
  const int k = w.kind == 3 ? 8 : 16;
  float a[16][16], b[16][8], c[16][8];
  for (int lane = 0; lane < kWarp; ++lane) {
    int g = lane / 4, t = lane % 4;
    if (w.kind == 3) {
      const auto *ra = reinterpret_cast<const uint32_t *>(w.in[lane][0]);
      const auto *rb = reinterpret_cast<const uint32_t *>(w.in[lane][1]);
      // The Tensor Cores read the 19 bits of tf32.
      auto tf32 = [](uint32_t bits) { return bitsToFloat(bits & ~0x1fffu); };
      for (int r = 0; r < 4; ++r)
        a[g + 8 * (r % 2)][t + 4 * (r / 2)] = tf32(ra[r]);
      for (int r = 0; r < 2; ++r)
        b[t + 4 * r][g] = tf32(rb[r]);
    } else {
      const auto *ha = reinterpret_cast<const uint16_t *>(w.in[lane][0]);
      const auto *hb = reinterpret_cast<const uint16_t *>(w.in[lane][1]);
      auto convert = [&](uint16_t h) {
        return w.kind == 1 ? halfToFloat(h) : bf16ToFloat(h);
      };
      for (int e = 0; e < 8; ++e) {
        int r = e / 2, h = e % 2;
        a[g + 8 * (r % 2)][2 * t + h + 8 * (r / 2)] = convert(ha[e]);
      }
      for (int e = 0; e < 4; ++e)
        b[2 * t + e % 2 + 8 * (e / 2)][g] = convert(hb[e]);
    }
    const auto *fc = reinterpret_cast<const float *>(w.in[lane][2]);
    for (int e = 0; e < 4; ++e)
      c[g + 8 * (e / 2)][2 * t + e % 2] = fc[e];
  }
  for (int lane = 0; lane < kWarp; ++lane) {
    int g = lane / 4, t = lane % 4;
    auto *d = reinterpret_cast<float *>(w.out[lane]);
    for (int e = 0; e < 4; ++e) {
      int row = g + 8 * (e / 2), col = 2 * t + e % 2;
      double sum = 0;
      for (int kk = 0; kk < k; ++kk)
        sum += double(a[row][kk]) * double(b[kk][col]);
      d[e] = static_cast<float>(sum + double(c[row][col]));
    }
  }
}

//===----------------------------------------------------------------------===//
// WMMA
//===----------------------------------------------------------------------===//
//
// A WMMA fragment's distribution over the lanes is unspecified, so the
// emulator gives every lane the whole matrix. The PTX ISA requires the
// lanes to pass the same address, stride and layout (wmma.load, 9.7.14.5):
// lanes that differ, or fragments that differ between lanes at a wmma.mma
// or wmma.store, are an error.

/// Checks what every lane brings to a wmma.load/store: the same matrix at
/// an address aligned to 32 bytes, rows a multiple of 16 bytes apart, in
/// bounds.
void checkWmmaMemory(WarpOp &w, const char *name) {
  for (int lane = 1; lane < kWarp; ++lane)
    if (w.addr[lane] != w.addr[0])
      fail("lanes 0 and %d of a warp pass different addresses to %s", lane,
           name);
  if (w.addr[0] % 32)
    fail("%s address is not 32-byte aligned", name);
  if ((w.leadDimension * w.elementBytes) % 16)
    fail("%s with rows %lld elements apart, not a multiple of 16 bytes", name,
         (long long)w.leadDimension);
  int64_t lines = w.transpose ? w.cols : w.rows,
          length = w.transpose ? w.rows : w.cols;
  for (int64_t r = 0; r < lines; ++r)
    checkRange(name, w.addr[0] + r * w.leadDimension * w.elementBytes,
               length * w.elementBytes, w.base[0], w.span[0]);
}

/// The byte offset of element (r, c) of a matrix in memory.
int64_t wmmaOffset(const WarpOp &w, int64_t r, int64_t c) {
  int64_t line = w.transpose ? c : r, at = w.transpose ? r : c;
  return (line * w.leadDimension + at) * w.elementBytes;
}

void computeWmmaLoad(WarpOp &w) {
  checkWmmaMemory(w, "wmma.load");
  const char *src = reinterpret_cast<const char *>(w.addr[0]);
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t c = 0; c < w.cols; ++c)
      for (int lane = 0; lane < kWarp; ++lane)
        std::memcpy(w.out[lane] + (r * w.cols + c) * w.elementBytes,
                    src + wmmaOffset(w, r, c), w.elementBytes);
}

void checkSameFragment(const WarpOp &w, int operand, int64_t bytes,
                       const char *name) {
  for (int lane = 1; lane < kWarp; ++lane)
    if (std::memcmp(w.in[lane][operand], w.in[0][operand], bytes))
      fail("lanes 0 and %d of a warp hold different fragments at %s", lane,
           name);
}

void computeWmmaStore(WarpOp &w) {
  checkWmmaMemory(w, "wmma.store");
  checkSameFragment(w, 0, w.rows * w.cols * w.elementBytes, "wmma.store");
  char *dst = reinterpret_cast<char *>(w.addr[0]);
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t c = 0; c < w.cols; ++c)
      std::memcpy(dst + wmmaOffset(w, r, c),
                  w.in[0][0] + (r * w.cols + c) * w.elementBytes,
                  w.elementBytes);
}

/// D = A B + C on whole matrices: A rows x depth and B depth x cols of f16
/// (mmaKind 1) or bf16 (2), C and D f32.
void computeWmmaMma(WarpOp &w) {
  checkSameFragment(w, 0, w.rows * w.depth * 2, "wmma.mma");
  checkSameFragment(w, 1, w.depth * w.cols * 2, "wmma.mma");
  checkSameFragment(w, 2, w.rows * w.cols * 4, "wmma.mma");
  const auto *a = reinterpret_cast<const uint16_t *>(w.in[0][0]);
  const auto *b = reinterpret_cast<const uint16_t *>(w.in[0][1]);
  const auto *c = reinterpret_cast<const float *>(w.in[0][2]);
  auto convert = [&](uint16_t h) {
    return w.mmaKind == 1 ? halfToFloat(h) : bf16ToFloat(h);
  };
  std::vector<float> d(w.rows * w.cols);
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t col = 0; col < w.cols; ++col) {
      double sum = c[r * w.cols + col];
      for (int64_t k = 0; k < w.depth; ++k)
        sum += double(convert(a[r * w.depth + k])) *
               double(convert(b[k * w.cols + col]));
      d[r * w.cols + col] = static_cast<float>(sum);
    }
  for (int lane = 0; lane < kWarp; ++lane)
    std::memcpy(w.out[lane], d.data(), d.size() * 4);
}

/// The shape and memory operands of a wmma.load or wmma.store.
void fillWmmaMemory(WarpOp &w, int64_t lane, const char *name, int64_t addr,
                    int64_t base, int64_t span, int32_t rows, int32_t cols,
                    int64_t leadDimension, int32_t elementBytes,
                    int32_t transpose) {
  if (w.arrived == 0) {
    w.rows = rows;
    w.cols = cols;
    w.leadDimension = leadDimension;
    w.elementBytes = elementBytes;
    w.transpose = transpose;
  } else if (w.rows != rows || w.cols != cols ||
             w.leadDimension != leadDimension ||
             w.elementBytes != elementBytes || w.transpose != transpose) {
    fail("lanes of a warp execute %s with different shapes, strides or "
         "layouts",
         name);
  }
  w.addr[lane] = addr;
  w.base[lane] = base;
  w.span[lane] = span;
}

} // namespace

//===----------------------------------------------------------------------===//
// The functions that kernels and launches call
//===----------------------------------------------------------------------===//

extern "C" {

void mpt_emu_launch(int64_t name, int64_t gx, int64_t gy, int64_t gz,
                    int64_t bx, int64_t by, int64_t bz, int64_t sharedBytes,
                    void (*fn)(void *, void *, int64_t), void *args) {
  Launch l;
  l.kernel = reinterpret_cast<const char *>(name);
  int64_t grid[3] = {gx, gy, gz}, blockDims[3] = {bx, by, bz};
  std::memcpy(l.grid, grid, sizeof grid);
  std::memcpy(l.block, blockDims, sizeof blockDims);
  std::memset(l.blockId, 0, sizeof l.blockId);
  l.threads = bx * by * bz;
  if (active)
    fail("a kernel launched another kernel");
  active = &l;
  for (int64_t d : {gx, gy, gz, bx, by, bz})
    if (d < 1)
      fail("launch with an empty grid or block (%lld x %lld x %lld blocks of "
           "%lld x %lld x %lld threads)",
           (long long)gx, (long long)gy, (long long)gz, (long long)bx,
           (long long)by, (long long)bz);
  if (l.threads > kMaxThreads)
    fail("block of %lld threads; at most %lld", (long long)l.threads,
         (long long)kMaxThreads);
  if (sharedBytes < 0 || sharedBytes > kMaxSharedBytes)
    fail("%lld bytes of dynamic shared memory; at most %lld",
         (long long)sharedBytes, (long long)kMaxSharedBytes);
  l.fn = fn;
  l.args = args;
  l.sharedBytes = sharedBytes;
  // Aligned like the GPU's shared memory window (the kernels align their
  // TMA/ldmatrix buffers relative to it).
  l.shared = static_cast<char *>(std::aligned_alloc(1024, sharedBytes + 1024));
  l.fibers.resize(l.threads);
  l.warps.resize((l.threads + kWarp - 1) / kWarp);
  for (int64_t i = 0; i < l.threads; ++i)
    l.stacks.push_back(static_cast<char *>(std::malloc(kStackBytes)));
  for (int64_t z = 0; z < gz; ++z)
    for (int64_t y = 0; y < gy; ++y)
      for (int64_t x = 0; x < gx; ++x) {
        l.blockId[0] = x;
        l.blockId[1] = y;
        l.blockId[2] = z;
        runBlock(l);
      }
  for (char *stack : l.stacks)
    std::free(stack);
  std::free(l.shared);
  active = nullptr;
}

/// 0-2: thread id, 3-5: block id, 6-8: block size, 9-11: grid size (x, y,
/// z).
int64_t mpt_emu_id(int32_t which) {
  Launch &l = launch();
  int d = which % 3;
  switch (which / 3) {
  case 0:
    return l.current->tid[d];
  case 1:
    return l.blockId[d];
  case 2:
    return l.block[d];
  default:
    return l.grid[d];
  }
}

void mpt_emu_barrier() {
  Launch &l = launch();
  if (++l.atBarrier < l.threads) {
    block(State::AtBarrier);
    return;
  }
  l.atBarrier = 0;
  for (Fiber &f : l.fibers)
    if (f.state == State::AtBarrier)
      f.state = State::Ready;
}

void mpt_emu_ldmatrix(int64_t addr, int64_t base, int64_t span,
                      int32_t numTiles, int32_t transpose, int64_t out) {
  warpWide(
      0, "ldmatrix",
      [&](WarpOp &w, int64_t lane) {
        if (w.arrived == 0) {
          w.numTiles = numTiles;
          w.transpose = transpose;
        } else if (w.numTiles != numTiles || w.transpose != transpose) {
          fail("lanes of a warp execute ldmatrix with different shapes");
        }
        w.addr[lane] = addr;
        w.base[lane] = base;
        w.span[lane] = span;
        w.out[lane] = reinterpret_cast<char *>(out);
      },
      computeLdmatrix);
}

void mpt_emu_mma(int32_t kind, int64_t a, int64_t b, int64_t c, int64_t d) {
  if (kind < 1 || kind > 3)
    fail("unknown mma kind %d", kind);
  warpWide(
      kind, "mma.sync",
      [&](WarpOp &w, int64_t lane) {
        w.in[lane][0] = reinterpret_cast<char *>(a);
        w.in[lane][1] = reinterpret_cast<char *>(b);
        w.in[lane][2] = reinterpret_cast<char *>(c);
        w.out[lane] = reinterpret_cast<char *>(d);
      },
      computeMma);
}

void mpt_emu_wmma_load(int64_t addr, int64_t base, int64_t span, int32_t rows,
                       int32_t cols, int64_t leadDimension,
                       int32_t elementBytes, int32_t transpose, int64_t out) {
  warpWide(
      4, "wmma.load",
      [&](WarpOp &w, int64_t lane) {
        fillWmmaMemory(w, lane, "wmma.load", addr, base, span, rows, cols,
                       leadDimension, elementBytes, transpose);
        w.out[lane] = reinterpret_cast<char *>(out);
      },
      computeWmmaLoad);
}

void mpt_emu_wmma_store(int64_t addr, int64_t base, int64_t span, int32_t rows,
                        int32_t cols, int64_t leadDimension,
                        int32_t elementBytes, int32_t transpose, int64_t in) {
  warpWide(
      5, "wmma.store",
      [&](WarpOp &w, int64_t lane) {
        fillWmmaMemory(w, lane, "wmma.store", addr, base, span, rows, cols,
                       leadDimension, elementBytes, transpose);
        w.in[lane][0] = reinterpret_cast<char *>(in);
      },
      computeWmmaStore);
}

void mpt_emu_wmma_mma(int32_t kind, int32_t rows, int32_t cols, int32_t depth,
                      int64_t a, int64_t b, int64_t c, int64_t d) {
  if (kind != 1 && kind != 2)
    fail("unknown wmma.mma kind %d", kind);
  warpWide(
      6, "wmma.mma",
      [&](WarpOp &w, int64_t lane) {
        if (w.arrived == 0) {
          w.mmaKind = kind;
          w.rows = rows;
          w.cols = cols;
          w.depth = depth;
        } else if (w.mmaKind != kind || w.rows != rows || w.cols != cols ||
                   w.depth != depth) {
          fail("lanes of a warp execute wmma.mma with different shapes or "
               "types");
        }
        w.in[lane][0] = reinterpret_cast<char *>(a);
        w.in[lane][1] = reinterpret_cast<char *>(b);
        w.in[lane][2] = reinterpret_cast<char *>(c);
        w.out[lane] = reinterpret_cast<char *>(d);
      },
      computeWmmaMma);
}

void mpt_emu_cp_async(int64_t dst, int64_t dstBase, int64_t dstSpan,
                      int64_t src, int64_t srcBase, int64_t srcSpan,
                      int32_t dstBytes, int32_t srcBytes) {
  Launch &l = launch();
  if (dstBytes != 4 && dstBytes != 8 && dstBytes != 16)
    fail("cp.async of %d bytes; 4, 8 or 16 are valid", dstBytes);
  if (srcBytes < 0 || srcBytes > dstBytes)
    fail("cp.async of %d source bytes into %d", srcBytes, dstBytes);
  if (dst % dstBytes || (srcBytes > 0 && src % dstBytes))
    fail("cp.async of %d bytes from or to an address not aligned to %d",
         dstBytes, dstBytes);
  checkRange("cp.async (shared memory)", dst, dstBytes, dstBase, dstSpan);
  if (srcBytes > 0)
    checkRange("cp.async (global memory)", src, srcBytes, srcBase, srcSpan);
  // The destination is undefined until the copy completes: a thread that
  // still reads it (a missing barrier before the buffer is refilled) reads
  // poison.
  std::memset(reinterpret_cast<void *>(dst), 0xff, dstBytes);
  l.current->uncommitted.push_back({reinterpret_cast<char *>(dst),
                                    reinterpret_cast<const char *>(src),
                                    dstBytes, srcBytes});
}

void mpt_emu_cp_async_commit() {
  Fiber &f = *launch().current;
  f.groups.push_back(std::move(f.uncommitted));
  f.uncommitted.clear();
}

/// cp.async.wait_group n: all but the n most recent committed groups are
/// complete.
void mpt_emu_cp_async_wait(int32_t n) {
  Fiber &f = *launch().current;
  while (f.groups.size() > static_cast<size_t>(n < 0 ? 0 : n)) {
    perform(f.groups.front());
    f.groups.pop_front();
  }
}

/// cvt.rna.tf32.f32: round to 19 bits, ties away from zero.
int32_t mpt_emu_tf32(float x) {
  uint32_t bits = floatToBits(x);
  if (!std::isfinite(x))
    return static_cast<int32_t>(bits);
  bits = (bits + 0x1000u) & ~0x1fffu;
  return static_cast<int32_t>(bits);
}

/// Device memory starts with all bits set (NaN in every float format).
void mpt_emu_poison(int64_t ptr, int64_t bytes) {
  std::memset(reinterpret_cast<void *>(ptr), 0xff, bytes);
}

} // extern "C"

namespace mpt::emu {

const RuntimeFunction *getRuntimeFunctions(size_t &count) {
  static const RuntimeFunction functions[] = {
      {"mpt_emu_launch", reinterpret_cast<void *>(&mpt_emu_launch)},
      {"mpt_emu_id", reinterpret_cast<void *>(&mpt_emu_id)},
      {"mpt_emu_barrier", reinterpret_cast<void *>(&mpt_emu_barrier)},
      {"mpt_emu_ldmatrix", reinterpret_cast<void *>(&mpt_emu_ldmatrix)},
      {"mpt_emu_mma", reinterpret_cast<void *>(&mpt_emu_mma)},
      {"mpt_emu_wmma_load", reinterpret_cast<void *>(&mpt_emu_wmma_load)},
      {"mpt_emu_wmma_store", reinterpret_cast<void *>(&mpt_emu_wmma_store)},
      {"mpt_emu_wmma_mma", reinterpret_cast<void *>(&mpt_emu_wmma_mma)},
      {"mpt_emu_cp_async", reinterpret_cast<void *>(&mpt_emu_cp_async)},
      {"mpt_emu_cp_async_commit",
       reinterpret_cast<void *>(&mpt_emu_cp_async_commit)},
      {"mpt_emu_cp_async_wait",
       reinterpret_cast<void *>(&mpt_emu_cp_async_wait)},
      {"mpt_emu_tf32", reinterpret_cast<void *>(&mpt_emu_tf32)},
      {"mpt_emu_poison", reinterpret_cast<void *>(&mpt_emu_poison)},
  };
  count = sizeof(functions) / sizeof(functions[0]);
  return functions;
}

} // namespace mpt::emu
