//===- GpuEmulator.cpp - running GPU kernels on the CPU -------------------===//
//
// One launch runs its blocks in order (in reverse with
// MPT_EMU_BLOCK_ORDER=reverse), the blocks of a thread-block cluster
// together; the threads of a block (cluster) are fibers (ucontext) on the
// calling thread. A fiber runs until it blocks at a barrier or a
// warp-wide instruction, or ends; then the first ready one (in thread order,
// block rank by block rank) runs. This schedule is deterministic and
// adversarial for missing barriers: warp 0 runs ahead of all later warps until
// it must wait, so a read of shared memory that another thread writes without a
// barrier in between sees the poison (all bits set: NaN) or stale data, and a
// buffer refilled too early is poison for the warps that still read it.
//
// The warp-wide instructions follow the PTX ISA (9.7.14, "Warp-level Matrix
// Multiply-Accumulate Instructions"): fragment layouts of mma.m16n8k16
// (.f16, .bf16) and mma.m16n8k8 (.tf32), and ldmatrix .m8n8 .x1/.x2/.x4
// (.trans); shfl.sync (9.7.9.6) exchanges the values the lanes bring. A
// cp.async makes its destination poison at once and is queued per thread; the
// data lands when a cp.async.wait_group retires its group. So a kernel that
// reads a stage before waiting for it, or refills a stage that other warps
// still read, reads poison.
//
//===----------------------------------------------------------------------===//

#include "mpt/Runtime/GpuEmulator.h"
#include "mpt/Runtime/SharedBanks.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <ucontext.h>
#include <vector>

namespace {

constexpr size_t kStackBytes = size_t(256) << 10;
constexpr int64_t kMaxThreads = 1024;
constexpr int64_t kMaxSharedBytes = 227 * 1024;
/// Shared memory lies in a window of 2^18 bytes (wgmma descriptors hold
/// bits [4, 18) of an address).
constexpr int64_t kSharedWindow = int64_t(1) << 18;
constexpr int kWarp = 32;
constexpr int kWarpgroup = 128;

[[noreturn]] void fail(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

enum class State {
  Ready,
  AtBarrier,
  AtNamedBarrier,
  AtWarp,
  AtMbarrier,
  AtCluster,
  Done
};

struct Copy {
  char *dst;
  const char *src;
  int32_t dstBytes, srcBytes;
};

/// A TMA store (shared to global memory) and the bytes it read from shared
/// memory, which must not change before a wait_group retires it.
struct BulkStore {
  const char *src;
  std::vector<char> bytes;
};

struct Fiber {
  ucontext_t context;
  State state = State::Ready;
  int64_t tid[3] = {0, 0, 0};
  int64_t linear = 0;
  int32_t namedBarrier = -1;   // the named barrier it waits at
  int64_t clusterArrival = -1; // the cluster barrier phase it arrived in
  std::vector<Copy> uncommitted;
  std::deque<std::vector<Copy>> groups; // committed, oldest first
  /// TMA stores, in bulk async-groups as cp.async.bulk.commit_group made them.
  std::vector<BulkStore> uncommittedStores;
  std::deque<std::vector<BulkStore>> storeGroups; // oldest first
};

/// What the lanes of one warp (or warpgroup) bring to a warp-wide
/// (warpgroup-wide) instruction.
struct WarpOp {
  int kind = -1; // 0: ldmatrix, 1..3: mma, 4..6: wmma load/store/mma,
                 // 7..9: wgmma mma_async/commit/wait, 10: shfl.sync
  int arrived = 0;
  int32_t numTiles = 0, transpose = 0;
  int32_t rows = 0, cols = 0, depth = 0, elementBytes = 0, mmaKind = 0;
  int32_t layoutA = 0, layoutB = 0, accumulate = 0;
  int64_t leadDimension = 0;
  int64_t addr[kWarpgroup], base[kWarpgroup], span[kWarpgroup];
  int64_t descA[kWarpgroup], descB[kWarpgroup]; // wgmma descriptors
  int32_t mode = 0, width = 0;                  // shfl.sync
  uint32_t value[kWarp], offset[kWarp];
  int64_t shuffled[kWarp];
  char *in[kWarpgroup][3];
  char *out[kWarpgroup];
};

/// A tensor map (cuTensorMapEncodeTiled): a tensor in global memory and the
/// box that a TMA copy moves. Dimensions in memref order (outermost first).
struct TensorMap {
  const char *base;
  int rank;
  int64_t sizes[5], strides[5], box[5];
  int elementBytes, swizzleBytes;
  bool oobNan;
  int64_t boxBytes() const {
    int64_t n = elementBytes;
    for (int d = 0; d < rank; ++d)
      n *= box[d];
    return n;
  }
};

/// A TMA copy that has been issued and not yet landed.
struct TmaCopy {
  char *dst;
  const TensorMap *map;
  int64_t coords[5]; // memref order
};

/// An mbarrier: arrivals and transaction bytes pending in the current
/// phase, and the TMA copies that will complete its transactions.
struct Mbarrier {
  bool initialized = false;
  int64_t expected = 0, pending = 0, tx = 0, phase = 0;
  std::vector<TmaCopy> copies;
};

/// What a wgmma read from shared memory, to check that it is unchanged
/// when a wgmma.wait_group retires it.
struct WgmmaGroup {
  std::vector<std::pair<const char *, uint32_t>> reads; // address, bits
  int elementBytes = 2;
  int64_t serial = 0; // of the wgmma (see Warpgroup)
};

/// How many wgmma results of a warpgroup the emulator holds: the
/// accumulators a thread gets from a wgmma are tags (NaNs that name the
/// wgmma and the register) until wgmma.wait_group retires it; a read of an
/// older one fails.
constexpr int kAccumulatorSlots = 32;

/// The accumulators that one wgmma computed, 128 threads x `count`.
struct AccumulatorSlot {
  int64_t serial = 0;
  int32_t count = 0;
  std::vector<float> values;
};

struct Warpgroup {
  std::vector<WgmmaGroup> uncommitted;
  std::deque<std::vector<WgmmaGroup>> groups;
  /// wgmmas are numbered from 1 in issue order; those up to `retired` are
  /// retired (wait_group retires groups oldest first).
  int64_t issued = 0, retired = 0;
  std::vector<AccumulatorSlot> slots; // serial % kAccumulatorSlots
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
  std::vector<WarpOp> warps, warpgroupOps;
  std::vector<Warpgroup> warpgroups;
  std::map<int64_t, Mbarrier> mbarriers;
  std::map<int32_t, std::pair<int64_t, int64_t>> named; // arrived, count
  ucontext_t scheduler;
  Fiber *current = nullptr;
  int64_t atBarrier = 0;
  int64_t loaded = 0, stored = 0; // bytes (mpt-gpu-emulation{traffic=1})
  int64_t loads = 0, stores = 0;  // threads' load and store instructions
  bool countAsync = false;        // asynchronous copies count (traffic=1)
  bool countBanks = false;        // shared accesses count (banks=1)
  mpt::emu::SharedBankCounter banks;
};

/// The blocks of a thread-block cluster, which run together: their shared
/// memories are distinct, and each reaches the others' through mapa
/// (remote mbarrier arrivals) and multicast TMA copies.
struct Cluster {
  std::vector<Launch *> blocks; // by rank (x fastest)
  int64_t threads = 0, exited = 0;
  /// barrier.cluster: arrivals in the current phase, and the phase.
  int64_t arrived = 0, phase = 0;
};

/// The block whose thread runs (or, between fibers, that the scheduler
/// looks at), and its cluster.
Launch *active = nullptr;
Cluster *cluster = nullptr;

/// Per kernel, the launches and their blocks, and the bytes and
/// instructions that mpt_emu_traffic counted.
struct Traffic {
  int64_t launches = 0, loaded = 0, stored = 0, loads = 0, stores = 0;
  int64_t blocks = 0;
};
std::map<std::string, Traffic> *traffic = nullptr;

void printTraffic() {
  Traffic total;
  for (const auto &[kernel, t] : *traffic) {
    std::fprintf(stderr,
                 "mpt-emulate-gpu: traffic: %s: %lld launches, %lld bytes "
                 "loaded, %lld bytes stored, %lld loads, %lld stores, %lld "
                 "blocks\n",
                 kernel.c_str(), (long long)t.launches, (long long)t.loaded,
                 (long long)t.stored, (long long)t.loads, (long long)t.stores,
                 (long long)t.blocks);
    total.launches += t.launches;
    total.blocks += t.blocks;
    total.loaded += t.loaded;
    total.stored += t.stored;
    total.loads += t.loads;
    total.stores += t.stores;
  }
  std::fprintf(stderr,
               "mpt-emulate-gpu: traffic: total: %lld launches, %lld bytes "
               "loaded, %lld bytes stored, %lld loads, %lld stores, %lld "
               "blocks\n",
               (long long)total.launches, (long long)total.loaded,
               (long long)total.stored, (long long)total.loads,
               (long long)total.stores, (long long)total.blocks);
}

/// Per kernel, per access site, the shared memory requests and their
/// wavefronts (banks=1).
std::map<std::string, std::map<std::string, mpt::emu::BankCount>> *bankSites =
    nullptr;

void printBanks() {
  mpt::emu::BankCount total;
  for (const auto &[kernel, sites] : *bankSites) {
    mpt::emu::BankCount sum;
    std::vector<std::pair<std::string, mpt::emu::BankCount>> conflicting;
    for (const auto &[site, c] : sites) {
      sum.add(c);
      if (c.conflicts)
        conflicting.push_back({site, c});
    }
    total.add(sum);
    std::fprintf(stderr,
                 "mpt-emulate-gpu: banks: %s: %lld shared requests, %lld "
                 "wavefronts, %lld of them bank conflicts\n",
                 kernel.c_str(), (long long)sum.requests,
                 (long long)sum.wavefronts, (long long)sum.conflicts);
    std::stable_sort(conflicting.begin(), conflicting.end(),
                     [](const auto &x, const auto &y) {
                       return x.second.conflicts > y.second.conflicts;
                     });
    for (const auto &[site, c] : conflicting)
      std::fprintf(stderr,
                   "mpt-emulate-gpu: banks:   %lld requests, %lld "
                   "wavefronts, %lld conflicts: %s\n",
                   (long long)c.requests, (long long)c.wavefronts,
                   (long long)c.conflicts, site.c_str());
  }
  std::fprintf(stderr,
               "mpt-emulate-gpu: banks: total: %lld shared requests, %lld "
               "wavefronts, %lld of them bank conflicts\n",
               (long long)total.requests, (long long)total.wavefronts,
               (long long)total.conflicts);
}

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

void releaseCluster();

void fiberMain() {
  Launch &l = *active;
  l.fn(l.args, l.shared, l.sharedBytes);
  finishCopies(*l.current);
  if (!l.current->uncommittedStores.empty() || !l.current->storeGroups.empty())
    fail("a thread exits with TMA stores that no cp.async.bulk.wait_group "
         "retired (they may still read the block's shared memory)");
  l.current->state = State::Done;
  // barrier.cluster waits for the threads that have not exited.
  ++cluster->exited;
  releaseCluster();
  // Returning resumes uc_link: the scheduler.
}

const char *describe(State s) {
  switch (s) {
  case State::AtBarrier:
    return "wait at gpu.barrier";
  case State::AtNamedBarrier:
    return "wait at a named barrier";
  case State::AtWarp:
    return "wait at a warp-wide instruction";
  case State::AtMbarrier:
    return "wait on an mbarrier phase that does not complete";
  case State::AtCluster:
    return "wait at barrier.cluster";
  case State::Done:
    return "have exited";
  case State::Ready:
    break;
  }
  return "are ready";
}

bool landAllCopies(Launch &l);

void startBlock(Launch &l) {
  std::memset(l.shared, 0xff, l.sharedBytes);
  for (WarpOp &w : l.warps)
    w = WarpOp();
  for (WarpOp &w : l.warpgroupOps)
    w = WarpOp();
  for (Warpgroup &w : l.warpgroups)
    w = Warpgroup();
  l.mbarriers.clear();
  l.named.clear();
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
}

/// Runs the blocks of `c` (a cluster of one block without clusters) to
/// their end.
void runCluster(Cluster &c) {
  for (Launch *l : c.blocks)
    startBlock(*l);
  c.exited = c.arrived = c.phase = 0;
  // Always the first ready thread: warp 0 runs as far ahead as it can
  // before warp 1 starts, and so on; block rank 0 before rank 1.
  for (;;) {
    Fiber *next = nullptr;
    for (Launch *l : c.blocks) {
      for (Fiber &f : l->fibers)
        if (f.state == State::Ready) {
          next = &f;
          break;
        }
      if (next) {
        active = l;
        break;
      }
    }
    if (next) {
      Launch &l = *active;
      l.current = next;
      swapcontext(&l.scheduler, &next->context);
      l.current = nullptr;
      continue;
    }
    bool done = true;
    int64_t count[7] = {0, 0, 0, 0, 0, 0, 0};
    for (Launch *l : c.blocks)
      for (Fiber &f : l->fibers) {
        count[static_cast<int>(f.state)]++;
        done &= f.state == State::Done;
      }
    if (done)
      return;
    // No thread can run: the TMA copies in flight complete now (as late as
    // they can), which may complete mbarrier phases that threads wait on.
    bool landed = false;
    for (Launch *l : c.blocks) {
      active = l;
      landed |= landAllCopies(*l);
    }
    if (landed)
      continue;
    {
      std::string what;
      for (State s : {State::AtBarrier, State::AtNamedBarrier, State::AtWarp,
                      State::AtMbarrier, State::AtCluster, State::Done})
        if (count[static_cast<int>(s)])
          what += (what.empty() ? "" : ", ") +
                  std::to_string(count[static_cast<int>(s)]) + " threads " +
                  describe(s);
      fail("deadlock: %s (a barrier, warp-wide instruction or mbarrier "
           "phase that not every thread reaches)",
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

/// Joins the warp's (with `size` 128: the warpgroup's) other lanes at a
/// warp-wide instruction of `kind`; the last lane to arrive runs `compute`
/// for all of them.
template <typename Fill, typename Compute>
void warpWide(int kind, const char *name, Fill fill, Compute compute,
              int size = kWarp) {
  Launch &l = launch();
  if (l.threads % size)
    fail("%s in a block of %lld threads, not whole %s", name,
         (long long)l.threads, size == kWarp ? "warps" : "warpgroups");
  int64_t lane = l.current->linear % size;
  WarpOp &w =
      (size == kWarp ? l.warps : l.warpgroupOps)[l.current->linear / size];
  if (w.arrived == 0)
    w.kind = kind;
  else if (w.kind != kind)
    fail("lane %lld executes %s while other lanes of its warp execute a "
         "different warp-wide instruction",
         (long long)lane, name);
  fill(w, lane);
  if (++w.arrived < size) {
    block(State::AtWarp);
    return;
  }
  compute(w);
  w.arrived = 0;
  int64_t first = l.current->linear - lane;
  for (int64_t i = 0; i < size; ++i)
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
  // Lane 8i + r gives row r of matrix i: each matrix is a phase.
  if (Launch &l = launch(); l.countBanks)
    l.banks.request(
        "nvgpu.ldmatrix (rows of 16 bytes)", w.addr,
        w.numTiles * 8 >= kWarp ? ~0u : (1u << (w.numTiles * 8)) - 1, 16);
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

//===----------------------------------------------------------------------===//
// TMA, mbarriers and wgmma (sm_90a)
//===----------------------------------------------------------------------===//
//
// A TMA copy makes its destination poison at once and lands when a thread
// waits on its mbarrier or, failing that, when no thread can run; landing
// completes its transaction bytes (the whole box, out-of-bounds elements
// included). A phase of an mbarrier completes when its arrivals and its
// transaction bytes are all in. wgmma reads its operands through matrix
// descriptors (start address, leading and stride byte offsets, a swizzle of
// 128, 64 or 32 bytes) as the PTX ISA lays them out (9.7.15.5.1, "Matrix
// Descriptor"), computes at issue, and records what it read; a wgmma.wait_group
// that retires it checks that shared memory still holds it, so a stage refilled
// while a wgmma may still read it is an error. The threads get tags of their
// accumulators (NaNs naming the wgmma and the register), not the values: a
// later wgmma may take them as its C (PTX allows that before the wait), any
// other read goes through mpt_emu_wgmma_read, which fails unless a
// wait_group has retired the wgmma.

std::vector<std::unique_ptr<TensorMap>> &tensorMaps() {
  static std::vector<std::unique_ptr<TensorMap>> maps;
  return maps;
}

/// The address bits [4, 4 + b) XORed with bits [7, 7 + b) for a swizzle of
/// 16 * 2^b bytes (CUTLASS's Swizzle<b, 4, 3>).
int64_t swizzle(int64_t addr, int swizzleBytes) {
  int bits = swizzleBytes == 128  ? 3
             : swizzleBytes == 64 ? 2
             : swizzleBytes == 32 ? 1
                                  : 0;
  return addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4);
}

/// Mbarrier `key` of block `l` (by default the running thread's).
Mbarrier &mbarrier(int64_t key, const char *what, Launch &l = launch()) {
  Mbarrier &m = l.mbarriers[key];
  if (!m.initialized)
    fail("%s on an mbarrier before mbarrier.init", what);
  return m;
}

void completePhase(Mbarrier &m);

/// One arrival on `m`, which expects `bytes` more transaction bytes.
void arrive(Mbarrier &m, int64_t bytes) {
  m.tx += bytes;
  if (m.pending <= 0)
    fail("more arrivals on an mbarrier than its phase expects");
  --m.pending;
  completePhase(m);
}

/// Completes the phase when its arrivals and bytes are in.
void completePhase(Mbarrier &m) {
  if (m.pending != 0 || m.tx != 0)
    return;
  ++m.phase;
  m.pending = m.expected;
  // (Also called by the scheduler, between fibers.) A remote arrival or a
  // multicast copy completes another block's phase: every waiter of the
  // cluster looks again.
  for (Launch *l : cluster->blocks)
    for (Fiber &f : l->fibers)
      if (f.state == State::AtMbarrier)
        f.state = State::Ready;
}

/// Calls `f(e, inside, offset)` for element e of the box of `t` at `coords`
/// (memref order): whether it lies inside the tensor, and its offset there
/// in elements.
template <typename F>
void forEachBoxElement(const TensorMap &t, const int64_t *coords, F f) {
  int64_t count = t.boxBytes() / t.elementBytes;
  for (int64_t e = 0; e < count; ++e) {
    int64_t rest = e, offset = 0;
    bool inside = true;
    for (int d = t.rank - 1; d >= 0; --d) {
      int64_t g = coords[d] + rest % t.box[d];
      rest /= t.box[d];
      inside &= g >= 0 && g < t.sizes[d];
      offset += g * t.strides[d];
    }
    f(e, inside, offset);
  }
}

/// The coordinates of a TMA box in memref order (`coords` holds `t.rank`
/// of them, innermost first, as the instructions take them) into `at`.
void boxCoords(const TensorMap &t, int64_t coords, int64_t *at) {
  for (int d = 0; d < t.rank; ++d)
    at[d] = reinterpret_cast<const int64_t *>(coords)[t.rank - 1 - d];
}

/// The bytes of the box of `t` at `coords` that lie inside the tensor (what
/// a TMA copy reads from or writes to device memory).
int64_t insideBytes(const TensorMap &t, const int64_t *coords) {
  int64_t bytes = 0;
  forEachBoxElement(t, coords, [&](int64_t, bool inside, int64_t) {
    bytes += inside ? t.elementBytes : 0;
  });
  return bytes;
}

/// Element e of a box at `base` in shared memory, swizzled as `t` says.
char *boxElement(const TensorMap &t, const char *base, int64_t e) {
  return reinterpret_cast<char *>(swizzle(
      reinterpret_cast<int64_t>(base) + e * t.elementBytes, t.swizzleBytes));
}

void landTma(const TmaCopy &c) {
  const TensorMap &t = *c.map;
  forEachBoxElement(t, c.coords, [&](int64_t e, bool inside, int64_t offset) {
    char *dst = boxElement(t, c.dst, e);
    if (inside)
      std::memcpy(dst, t.base + offset * t.elementBytes, t.elementBytes);
    else if (t.oobNan)
      std::memset(dst, 0xff, t.elementBytes);
    else
      std::memset(dst, 0, t.elementBytes);
  });
}

/// A TMA store of the box at `src` (shared memory, swizzled as the map
/// says) to the box of `t` at `coords`: what lies outside the tensor is not
/// written.
void storeTma(const TensorMap &t, const char *src, const int64_t *coords) {
  forEachBoxElement(t, coords, [&](int64_t e, bool inside, int64_t offset) {
    if (inside)
      std::memcpy(const_cast<char *>(t.base) + offset * t.elementBytes,
                  boxElement(t, src, e), t.elementBytes);
  });
}

/// Lands the TMA copies that complete transactions of `m`.
void landCopies(Mbarrier &m) {
  std::vector<TmaCopy> copies;
  copies.swap(m.copies);
  for (const TmaCopy &c : copies) {
    landTma(c);
    m.tx -= c.map->boxBytes();
  }
  if (!copies.empty())
    completePhase(m);
}

/// A wgmma matrix descriptor: the operand's start address (in the block's
/// shared memory window), leading and stride byte offsets, and the width of
/// its swizzled rows (128, 64 or 32 bytes; 16 without a swizzle, the
/// interleaved layout of 8 x 16-byte core matrices).
struct Descriptor {
  int64_t start, leading, stride;
  int rowBytes;
};

Descriptor decode(int64_t d, const char *operand) {
  Launch &l = launch();
  int swizzleMode = static_cast<int>((uint64_t(d) >> 62) & 3);
  if ((d >> 49) & 7)
    fail("wgmma descriptor of %s with a base offset; the emulator takes "
         "operands aligned to the swizzle's pattern only",
         operand);
  Descriptor r;
  r.start = reinterpret_cast<int64_t>(l.shared) + ((d & 0x3fff) << 4);
  r.leading = ((d >> 16) & 0x3fff) << 4;
  r.stride = ((d >> 32) & 0x3fff) << 4;
  r.rowBytes = swizzleMode ? 256 >> swizzleMode : 16;
  return r;
}

/// The address of element (i, k) of an operand with rows i (M of A, N of
/// B) and K columns, in rows of R = d.rowBytes bytes swizzled by R (PTX ISA
/// 9.7.15.5.1, the canonical layouts): K-major (K contiguous within a row,
/// 8-row groups `stride` apart; an instruction's K fits in a row of 32
/// bytes or more) or MN-major (i contiguous within a row, groups of R bytes
/// of i `leading` apart, 8-row K groups `stride` apart). Without a swizzle
/// (R = 16) the rows are those of 8 x 16-byte core matrices, and the
/// offsets' roles differ: K-major, the next 8 K `leading` on; MN-major,
/// the next 8 of i `stride` on and the next 8 K `leading` on.
const char *operandAddress(const Descriptor &d, bool kMajor, int64_t i,
                           int64_t k, int elementBytes) {
  const int64_t rowBytes = d.rowBytes, perRow = rowBytes / elementBytes;
  const bool interleaved = rowBytes == 16;
  int64_t offset =
      kMajor ? (i % 8) * rowBytes + (i / 8) * d.stride +
                   (k % perRow) * elementBytes + (k / perRow) * d.leading
             : (i % perRow) * elementBytes +
                   (i / perRow) * (interleaved ? d.stride : d.leading) +
                   (k % 8) * rowBytes +
                   (k / 8) * (interleaved ? d.leading : d.stride);
  Launch &l = launch();
  int64_t a = swizzle(d.start + offset, rowBytes);
  int64_t base = reinterpret_cast<int64_t>(l.shared);
  if (a < base || a + elementBytes > base + l.sharedBytes)
    fail("wgmma reads bytes [%lld, %lld) of %lld bytes of shared memory",
         (long long)(a - base), (long long)(a - base + elementBytes),
         (long long)l.sharedBytes);
  return reinterpret_cast<const char *>(a);
}

/// The accumulators of wgmma `serial` as a thread holds them until a
/// wait_group retires it: register r is the NaN 0xffc00000 | s << 7 | r,
/// s = the serial counted in [1, 32736] (neither x86's default NaN, s = 0,
/// nor poison, all bits set; a multiple of the slots, which s picks).
constexpr uint32_t kTagBits = 0xffc00000u;
constexpr int64_t kTagSerials = 1023 * kAccumulatorSlots;

uint32_t accumulatorTag(int64_t serial, int r) {
  int64_t s = (serial - 1) % kTagSerials + 1;
  return kTagBits | uint32_t(s) << 7 | uint32_t(r);
}

bool isAccumulatorTag(uint32_t bits) {
  int64_t s = (bits >> 7) & 0x7fff;
  return (bits & kTagBits) == kTagBits && s >= 1 && s <= kTagSerials;
}

Warpgroup &currentWarpgroup() {
  Launch &l = launch();
  return l.warpgroups[l.current->linear / kWarpgroup];
}

/// The value of accumulator tag `bits` of thread `lane` of the current
/// warpgroup; unless `pending` (a wgmma reading it, which PTX allows for
/// the accumulators of the wgmmas before it), only once it is retired.
float resolveAccumulator(uint32_t bits, int64_t lane, bool pending) {
  Warpgroup &g = currentWarpgroup();
  int64_t s = (bits >> 7) & 0x7fff;
  int r = bits & 0x7f;
  if (g.slots.empty())
    fail("an accumulator tag of a wgmma.mma_async that this warpgroup did "
         "not issue");
  AccumulatorSlot &slot = g.slots[s % kAccumulatorSlots];
  if (slot.serial == 0 || (slot.serial - 1) % kTagSerials + 1 != s)
    fail("an accumulator of a wgmma.mma_async more than %d wgmmas back is "
         "read; the emulator holds the accumulators of a warpgroup's last %d",
         kAccumulatorSlots, kAccumulatorSlots);
  if (r >= slot.count)
    fail("accumulator register %d of a wgmma.mma_async with %d", r, slot.count);
  if (!pending && slot.serial > g.retired)
    fail("an accumulator of a wgmma.mma_async is read before "
         "wgmma.wait_group retired the wgmma (%lld of %lld issued are "
         "retired)",
         (long long)g.retired, (long long)g.issued);
  return slot.values[lane * slot.count + r];
}

/// D = A B (+ D) for m64nNkK: kind 1 f16, 2 bf16, 3 tf32; layouts 0: row,
/// 1: col (PTX: A row and B col are K-major, the others MN-major).
void computeWgmma(WarpOp &w) {
  for (int lane = 1; lane < kWarpgroup; ++lane)
    if (w.descA[lane] != w.descA[0] || w.descB[lane] != w.descB[0])
      fail("threads 0 and %d of a warpgroup pass different descriptors to "
           "wgmma.mma_async",
           lane);
  const int m = 64, n = w.cols, k = w.depth;
  const int eb = w.mmaKind == 3 ? 4 : 2;
  Descriptor da = decode(w.descA[0], "A"), db = decode(w.descB[0], "B");
  bool aK = w.layoutA == 0, bK = w.layoutB == 1;
  if (w.mmaKind == 3 && (!aK || !bK))
    fail("tf32 wgmma with an MN-major operand (PTX takes K-major only)");
  WgmmaGroup read;
  read.elementBytes = eb;
  auto value = [&](const char *p) {
    uint32_t bits = 0;
    std::memcpy(&bits, p, eb);
    read.reads.push_back({p, bits});
    if (w.mmaKind == 1)
      return halfToFloat(static_cast<uint16_t>(bits));
    if (w.mmaKind == 2)
      return bf16ToFloat(static_cast<uint16_t>(bits));
    return bitsToFloat(bits & ~0x1fffu); // the 19 bits of tf32
  };
  std::vector<float> a(m * k), b(k * n);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk)
      a[i * k + kk] = value(operandAddress(da, aK, i, kk, eb));
  for (int j = 0; j < n; ++j)
    for (int kk = 0; kk < k; ++kk)
      b[kk * n + j] = value(operandAddress(db, bK, j, kk, eb));
  // Thread l = 32 w + 4 g + t holds, for each 8 columns i, rows 16 w + g
  // and 16 w + g + 8, columns 8 i + 2 t and 8 i + 2 t + 1. The threads get
  // tags of their accumulators; the values stay here until a wait_group
  // retires this wgmma.
  Warpgroup &group = currentWarpgroup();
  const int count = n / 2;
  std::vector<float> values(kWarpgroup * count);
  for (int lane = 0; lane < kWarpgroup; ++lane) {
    int warp = lane / 32, g = (lane % 32) / 4, t = lane % 4;
    const auto *c = reinterpret_cast<const uint32_t *>(w.in[lane][0]);
    for (int r = 0; r < count; ++r) {
      int row = 16 * warp + g + 8 * ((r % 4) / 2),
          col = 8 * (r / 4) + 2 * t + r % 2;
      double sum = 0.0;
      if (w.accumulate)
        sum = isAccumulatorTag(c[r])
                  ? resolveAccumulator(c[r], lane, /*pending=*/true)
                  : bitsToFloat(c[r]);
      for (int kk = 0; kk < k; ++kk)
        sum += double(a[row * k + kk]) * double(b[kk * n + col]);
      values[lane * count + r] = static_cast<float>(sum);
    }
  }
  read.serial = ++group.issued;
  if (group.slots.empty())
    group.slots.resize(kAccumulatorSlots);
  AccumulatorSlot &slot =
      group.slots[((read.serial - 1) % kTagSerials + 1) % kAccumulatorSlots];
  slot.serial = read.serial;
  slot.count = count;
  slot.values = std::move(values);
  for (int lane = 0; lane < kWarpgroup; ++lane) {
    auto *d = reinterpret_cast<uint32_t *>(w.out[lane]);
    for (int r = 0; r < count; ++r)
      d[r] = accumulatorTag(read.serial, r);
  }
  group.uncommitted.push_back(std::move(read));
}

bool landAllCopies(Launch &l) {
  bool landed = false;
  for (auto &entry : l.mbarriers)
    if (!entry.second.copies.empty()) {
      landCopies(entry.second);
      landed = true;
    }
  return landed;
}

/// Completes the phase of barrier.cluster once every thread of the cluster
/// that has not exited has arrived.
void releaseCluster() {
  Cluster &c = *cluster;
  if (c.arrived == 0 || c.arrived < c.threads - c.exited)
    return;
  c.arrived = 0;
  ++c.phase;
  for (Launch *l : c.blocks)
    for (Fiber &f : l->fibers)
      if (f.state == State::AtCluster)
        f.state = State::Ready;
}

/// The block of the cluster whose shared memory holds bytes [addr, addr +
/// bytes), or null.
Launch *sharedOwner(int64_t addr, int64_t bytes) {
  for (Launch *l : cluster->blocks) {
    int64_t base = reinterpret_cast<int64_t>(l->shared);
    if (addr >= base && addr + bytes <= base + l->sharedBytes)
      return l;
  }
  return nullptr;
}

/// Fails when `to`, a block of the cluster that `what` reaches, has exited
/// (its shared memory is gone on the GPU).
void checkAlive(const Launch &to, const char *what) {
  for (const Fiber &f : to.fibers)
    if (f.state != State::Done)
      return;
  fail("%s in a block of the cluster that has exited (a block must not exit "
       "while others may still reach its shared memory)",
       what);
}

/// The tensor map at `map`, which `what` addresses with `numCoords`
/// coordinates.
const TensorMap *knownMap(int64_t map, int32_t numCoords, const char *what) {
  const auto *t = reinterpret_cast<const TensorMap *>(map);
  bool known = false;
  for (const auto &m : tensorMaps())
    known |= m.get() == t;
  if (!known)
    fail("%s with a pointer that is not a tensor map", what);
  if (numCoords != t->rank)
    fail("%s with %d coordinates of a rank-%d tensor map", what, numCoords,
         t->rank);
  return t;
}

void checkGroups(std::vector<WgmmaGroup> &groups) {
  for (const WgmmaGroup &g : groups)
    for (const auto &[p, bits] : g.reads) {
      uint32_t now = 0;
      std::memcpy(&now, p, g.elementBytes);
      if (now != bits)
        fail("shared memory that a wgmma reads (byte %lld) changed before "
             "wgmma.wait_group retired the wgmma",
             (long long)(p - launch().shared));
    }
}

/// The calling thread's access of `bytes` bytes of shared memory at `addr`
/// (banks=1), from the access site `site` names.
void countShared(Launch &l, const char *site, int64_t addr, int64_t bytes) {
  int64_t warp = l.current->linear / kWarp;
  int lanes =
      static_cast<int>(std::min<int64_t>(kWarp, l.threads - warp * kWarp));
  l.banks.access(warp, lanes, static_cast<int>(l.current->linear % kWarp), site,
                 addr, static_cast<int>(bytes));
}

} // namespace

//===----------------------------------------------------------------------===//
// The functions that kernels and launches call
//===----------------------------------------------------------------------===//

extern "C" {

void mpt_emu_launch(int64_t name, int64_t gx, int64_t gy, int64_t gz,
                    int64_t bx, int64_t by, int64_t bz, int64_t sharedBytes,
                    void (*fn)(void *, void *, int64_t), void *args, int64_t cx,
                    int64_t cy, int64_t cz) {
  if (cluster)
    fail("a kernel launched another kernel");
  const char *kernel = reinterpret_cast<const char *>(name);
  auto launchError = [&](const char *format, auto... values) {
    std::fprintf(stderr, "mpt-emulate-gpu: error: kernel %s: ", kernel);
    std::fprintf(stderr, format, values...);
    std::fprintf(stderr, "\n");
    std::fflush(stderr);
    std::_Exit(3);
  };
  for (int64_t d : {gx, gy, gz, bx, by, bz})
    if (d < 1)
      launchError("launch with an empty grid or block (%lld x %lld x %lld "
                  "blocks of %lld x %lld x %lld threads)",
                  (long long)gx, (long long)gy, (long long)gz, (long long)bx,
                  (long long)by, (long long)bz);
  const int64_t threads = bx * by * bz;
  if (threads > kMaxThreads)
    launchError("block of %lld threads; at most %lld", (long long)threads,
                (long long)kMaxThreads);
  if (sharedBytes < 0 || sharedBytes > kMaxSharedBytes)
    launchError("%lld bytes of dynamic shared memory; at most %lld",
                (long long)sharedBytes, (long long)kMaxSharedBytes);
  if (cx < 1 || cy < 1 || cz < 1 || gx % cx || gy % cy || gz % cz)
    launchError("clusters of %lld x %lld x %lld blocks do not tile the grid "
                "of %lld x %lld x %lld blocks",
                (long long)cx, (long long)cy, (long long)cz, (long long)gx,
                (long long)gy, (long long)gz);
  if (cx * cy * cz > 8)
    launchError("clusters of %lld blocks; at most 8 (the portable size)",
                (long long)(cx * cy * cz));
  Cluster c;
  std::vector<std::unique_ptr<Launch>> blocks;
  for (int64_t r = 0; r < cx * cy * cz; ++r) {
    auto owned = std::make_unique<Launch>();
    Launch &l = *owned;
    l.kernel = kernel;
    int64_t grid[3] = {gx, gy, gz}, blockDims[3] = {bx, by, bz};
    std::memcpy(l.grid, grid, sizeof grid);
    std::memcpy(l.block, blockDims, sizeof blockDims);
    std::memset(l.blockId, 0, sizeof l.blockId);
    l.threads = threads;
    l.fn = fn;
    l.args = args;
    l.sharedBytes = sharedBytes;
    // At the start of a window like the GPU's shared memory: wgmma
    // descriptors keep an address's bits [4, 18), and the swizzles of TMA
    // and wgmma act on bits [4, 10).
    l.shared =
        static_cast<char *>(std::aligned_alloc(kSharedWindow, kSharedWindow));
    l.fibers.resize(l.threads);
    l.warps.resize((l.threads + kWarp - 1) / kWarp);
    l.warpgroupOps.resize((l.threads + kWarpgroup - 1) / kWarpgroup);
    l.warpgroups.resize(l.warpgroupOps.size());
    for (int64_t i = 0; i < l.threads; ++i)
      l.stacks.push_back(static_cast<char *>(std::malloc(kStackBytes)));
    c.blocks.push_back(&l);
    blocks.push_back(std::move(owned));
  }
  c.threads = threads * cx * cy * cz;
  cluster = &c;
  active = c.blocks.front();
  // MPT_EMU_BLOCK_ORDER=reverse runs the last block (cluster) first: a
  // kernel whose blocks hand work to one another (the last block to finish
  // a reduction) must not depend on the order.
  static const bool reverse = [] {
    const char *order = std::getenv("MPT_EMU_BLOCK_ORDER");
    return order && std::strcmp(order, "reverse") == 0;
  }();
  const int64_t qx = gx / cx, qy = gy / cy, qz = gz / cz;
  const int64_t clusters = qx * qy * qz;
  for (int64_t i = 0; i < clusters; ++i) {
    int64_t q = reverse ? clusters - 1 - i : i;
    int64_t origin[3] = {q % qx * cx, q / qx % qy * cy, q / (qx * qy) * cz};
    for (int64_t r = 0; r < cx * cy * cz; ++r) {
      Launch &l = *c.blocks[r];
      l.blockId[0] = origin[0] + r % cx;
      l.blockId[1] = origin[1] + r / cx % cy;
      l.blockId[2] = origin[2] + r / (cx * cy);
    }
    runCluster(c);
    for (Launch *l : c.blocks)
      if (l->countBanks) {
        if (!bankSites) {
          bankSites =
              new std::map<std::string,
                           std::map<std::string, mpt::emu::BankCount>>();
          std::atexit(printBanks);
        }
        l->banks.flush((*bankSites)[kernel]);
      }
  }
  Traffic sum;
  for (Launch *l : c.blocks) {
    for (char *stack : l->stacks)
      std::free(stack);
    std::free(l->shared);
    sum.loaded += l->loaded;
    sum.stored += l->stored;
    sum.loads += l->loads;
    sum.stores += l->stores;
  }
  active = nullptr;
  cluster = nullptr;
  if (sum.loaded || sum.stored) {
    if (!traffic) {
      traffic = new std::map<std::string, Traffic>();
      std::atexit(printTraffic);
    }
    Traffic &t = (*traffic)[kernel];
    ++t.launches;
    t.blocks += gx * gy * gz;
    t.loaded += sum.loaded;
    t.stored += sum.stored;
    t.loads += sum.loads;
    t.stores += sum.stores;
  }
}

/// An index outside its dimension (see checkBounds in GPUEmulation.cpp):
/// `what` names the access, `elements` of a vector start at `index`.
void mpt_emu_out_of_bounds(int64_t what, int32_t dim, int64_t index,
                           int64_t elements, int64_t size) {
  if (elements > 1)
    fail("%s: elements [%lld, %lld) of dimension %d, of size %lld",
         reinterpret_cast<const char *>(what), (long long)index,
         (long long)(index + elements), dim, (long long)size);
  fail("%s: index %lld of dimension %d, of size %lld",
       reinterpret_cast<const char *>(what), (long long)index, dim,
       (long long)size);
}

/// A vector load or store at `addr` that states an alignment of `alignment`
/// bytes.
void mpt_emu_aligned(int64_t what, int64_t addr, int64_t alignment) {
  if (addr % alignment)
    fail("%s: address %#llx is not %lld-byte aligned",
         reinterpret_cast<const char *>(what), (long long)addr,
         (long long)alignment);
}

/// A load or store of `bytes` bytes at `addr` in shared memory: they must
/// be the block's, and those of the shared buffer that starts at
/// `bufferAddr` and has `bufferBytes` bytes (-1: the block's).
void mpt_emu_shared_access(int64_t what, int64_t addr, int64_t bytes,
                           int64_t bufferAddr, int64_t bufferBytes) {
  Launch &l = launch();
  int64_t base = reinterpret_cast<int64_t>(l.shared);
  if (addr < base || addr + bytes > base + l.sharedBytes)
    fail("%s: bytes [%lld, %lld) of %lld bytes of shared memory",
         reinterpret_cast<const char *>(what), (long long)(addr - base),
         (long long)(addr - base + bytes), (long long)l.sharedBytes);
  if (l.countBanks)
    countShared(l, reinterpret_cast<const char *>(what), addr, bytes);
  if (bufferBytes >= 0 &&
      (addr < bufferAddr || addr + bytes > bufferAddr + bufferBytes))
    fail("%s: bytes [%lld, %lld) of shared memory, outside its buffer, "
         "bytes [%lld, %lld)",
         reinterpret_cast<const char *>(what), (long long)(addr - base),
         (long long)(addr - base + bytes), (long long)(bufferAddr - base),
         (long long)(bufferAddr - base + bufferBytes));
}

void mpt_emu_traffic(int64_t bytes, int32_t store) {
  Launch &l = launch();
  (store ? l.stored : l.loaded) += bytes;
  ++(store ? l.stores : l.loads);
}

void mpt_emu_count_async() { launch().countAsync = true; }

void mpt_emu_count_banks() { launch().countBanks = true; }

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

/// barrier.sync id, count: the first `count` threads to arrive at barrier
/// `id` go on together.
void mpt_emu_named_barrier(int32_t id, int32_t count) {
  Launch &l = launch();
  if (id < 0 || id > 15)
    fail("barrier %d; PTX has barriers 0 to 15", id);
  if (count < kWarp || count % kWarp || count > l.threads)
    fail("barrier %d for %d threads: a multiple of 32 up to the block's %lld "
         "is valid",
         id, count, (long long)l.threads);
  auto &[arrived, expected] = l.named[id];
  if (arrived == 0)
    expected = count;
  else if (expected != count)
    fail("threads arrive at barrier %d expecting %d and %lld threads", id,
         count, (long long)expected);
  if (++arrived < expected) {
    l.current->namedBarrier = id;
    block(State::AtNamedBarrier);
    return;
  }
  arrived = 0;
  for (Fiber &f : l.fibers)
    if (f.state == State::AtNamedBarrier && f.namedBarrier == id) {
      f.namedBarrier = -1;
      f.state = State::Ready;
    }
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
  if (l.countBanks)
    countShared(l, "nvgpu.device_async_copy (its shared memory side)", dst,
                dstBytes);
  if (srcBytes > 0)
    checkRange("cp.async (global memory)", src, srcBytes, srcBase, srcSpan);
  // The destination is undefined until the copy completes: a thread that
  // still reads it (a missing barrier before the buffer is refilled) reads
  // poison.
  std::memset(reinterpret_cast<void *>(dst), 0xff, dstBytes);
  if (l.countAsync && srcBytes > 0)
    mpt_emu_traffic(srcBytes, /*store=*/0);
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

int64_t mpt_emu_tensor_map(int64_t base, int32_t rank, int64_t sizes,
                           int64_t strides, int64_t box, int32_t elementBytes,
                           int32_t swizzleBytes, int32_t oobNan) {
  auto t = std::make_unique<TensorMap>();
  if (rank < 1 || rank > 5)
    fail("tensor map of rank %d; TMA takes 1 to 5 dimensions", rank);
  t->base = reinterpret_cast<const char *>(base);
  t->rank = rank;
  t->elementBytes = elementBytes;
  t->swizzleBytes = swizzleBytes;
  t->oobNan = oobNan;
  for (int d = 0; d < rank; ++d) {
    t->sizes[d] = reinterpret_cast<const int64_t *>(sizes)[d];
    t->strides[d] = reinterpret_cast<const int64_t *>(strides)[d];
    t->box[d] = reinterpret_cast<const int64_t *>(box)[d];
    if (t->box[d] < 1 || t->box[d] > 256)
      fail("tensor map box dimension %d is %lld; TMA takes 1 to 256", d,
           (long long)t->box[d]);
    if (d < rank - 1 && (t->strides[d] * elementBytes) % 16)
      fail("tensor map stride of dimension %d is %lld bytes, not a multiple "
           "of 16",
           d, (long long)(t->strides[d] * elementBytes));
  }
  if (base % 16)
    fail("tensor map of a tensor at an address not 16-byte aligned");
  if (t->strides[rank - 1] != 1)
    fail("tensor map of a tensor whose innermost dimension is not "
         "contiguous");
  int64_t innerBytes = t->box[rank - 1] * elementBytes;
  if (innerBytes % 16)
    fail("tensor map box rows of %lld bytes, not a multiple of 16",
         (long long)innerBytes);
  if (swizzleBytes && innerBytes > swizzleBytes)
    fail("tensor map box rows of %lld bytes with a %d-byte swizzle (at most "
         "the swizzle's width)",
         (long long)innerBytes, swizzleBytes);
  tensorMaps().push_back(std::move(t));
  return reinterpret_cast<int64_t>(tensorMaps().back().get());
}

/// A swizzled box lies at a multiple of its swizzle's pattern (8 rows of
/// the swizzle's width), where the swizzle of its addresses (what the
/// emulator and wgmma apply) and a swizzle counted from the box's start
/// agree.
void checkSwizzleAlignment(const TensorMap &t, int64_t addr, const char *what) {
  int64_t pattern = 8 * t.swizzleBytes;
  if (pattern && addr % pattern)
    fail("%s shared memory at an address not aligned to the %lld-byte "
         "pattern of its %d-byte swizzle",
         what, (long long)pattern, t.swizzleBytes);
}

/// cp.async.bulk.tensor from shared to global memory: the box at `src`
/// goes to `coords` (innermost first) at once; the bytes it read are checked
/// when a wait_group retires it.
void mpt_emu_tma_store(int64_t src, int64_t srcBase, int64_t srcSpan,
                       int64_t map, int64_t coords, int32_t numCoords) {
  const TensorMap *t = knownMap(map, numCoords, "TMA store");
  if (src % 128)
    fail("TMA store from shared memory not 128-byte aligned");
  checkSwizzleAlignment(*t, src, "TMA store from");
  checkRange("TMA store (shared memory)", src, t->boxBytes(), srcBase, srcSpan);
  int64_t at[5] = {0, 0, 0, 0, 0};
  boxCoords(*t, coords, at);
  const char *from = reinterpret_cast<const char *>(src);
  storeTma(*t, from, at);
  if (launch().countAsync)
    mpt_emu_traffic(insideBytes(*t, at), /*store=*/1);
  launch().current->uncommittedStores.push_back(
      BulkStore{from, std::vector<char>(from, from + t->boxBytes())});
}

void mpt_emu_bulk_commit() {
  Fiber &f = *launch().current;
  f.storeGroups.push_back(std::move(f.uncommittedStores));
  f.uncommittedStores.clear();
}

/// cp.async.bulk.wait_group(.read) `n`: retires the thread's bulk groups but
/// the `n` most recent, checking that the shared memory their stores read
/// is unchanged (a buffer written again before its store was retired, or
/// written by another thread after the store was issued, is an error).
void mpt_emu_bulk_wait(int32_t n) {
  Fiber &f = *launch().current;
  while (f.storeGroups.size() > static_cast<size_t>(n < 0 ? 0 : n)) {
    for (const BulkStore &store : f.storeGroups.front())
      if (std::memcmp(store.src, store.bytes.data(), store.bytes.size())) {
        size_t i = 0;
        while (store.src[i] == store.bytes[i])
          ++i;
        fail("shared memory that a TMA store reads (byte %lld) changed "
             "between the store and the cp.async.bulk.wait_group that "
             "retired it",
             (long long)(store.src + i - launch().shared));
      }
    f.storeGroups.pop_front();
  }
}

void mpt_emu_mbarrier_init(int64_t key, int64_t count) {
  Mbarrier &m = launch().mbarriers[key];
  if (count < 1)
    fail("mbarrier.init with an arrival count of %lld", (long long)count);
  m = Mbarrier();
  m.initialized = true;
  m.expected = m.pending = count;
}

void mpt_emu_mbarrier_arrive_expect_tx(int64_t key, int64_t bytes) {
  arrive(mbarrier(key, "mbarrier.arrive.expect_tx"), bytes);
}

/// mbarrier.try_wait.parity in a loop: returns once the phase with parity
/// `parity` has completed (the current phase's parity differs).
void mpt_emu_mbarrier_wait(int64_t key, int32_t parity) {
  // A phase that has completed (or seems to: the parity of a phase two
  // behind is the current one's) returns at once; otherwise the copies land
  // now, as late as they can.
  for (;;) {
    Mbarrier &m = mbarrier(key, "mbarrier.try_wait.parity");
    if ((m.phase & 1) != (parity & 1))
      return;
    landCopies(m);
    if ((m.phase & 1) != (parity & 1))
      return;
    block(State::AtMbarrier);
  }
}

void mpt_emu_tma_load(int64_t dst, int64_t dstBase, int64_t dstSpan,
                      int64_t map, int64_t key, int64_t coords,
                      int32_t numCoords, int32_t multicast) {
  const TensorMap *t = knownMap(map, numCoords, "TMA copy");
  if (dst % 128)
    fail("TMA copy to shared memory not 128-byte aligned");
  checkSwizzleAlignment(*t, dst, "TMA copy to");
  checkRange("TMA copy (shared memory)", dst, t->boxBytes(), dstBase, dstSpan);
  Launch &l = launch();
  const int64_t size = static_cast<int64_t>(cluster->blocks.size());
  if (multicast >> size)
    fail("multicast TMA copy to blocks 0x%x of a cluster of %lld blocks",
         multicast, (long long)size);
  int64_t box[5] = {0, 0, 0, 0, 0};
  boxCoords(*t, coords, box);
  // (Read once from device memory, however many blocks it lands in.)
  if (l.countAsync)
    mpt_emu_traffic(insideBytes(*t, box), /*store=*/0);
  // Without multicast the copy lands in this block; with it, at the same
  // offset in each block of the mask, completing transactions of the
  // mbarrier at the same place in each.
  for (int64_t r = 0; r < size; ++r) {
    Launch *to =
        multicast ? (multicast >> r & 1 ? cluster->blocks[r] : nullptr) : &l;
    if (!to)
      continue;
    checkAlive(*to, "multicast TMA copy");
    char *at = to->shared + (dst - reinterpret_cast<int64_t>(l.shared));
    Mbarrier &m = to->mbarriers[key];
    if (!m.initialized)
      fail("TMA copy on an mbarrier before mbarrier.init (in block rank "
           "%lld of the cluster)",
           (long long)r);
    TmaCopy c{at, t, {0, 0, 0, 0, 0}};
    std::copy(box, box + 5, c.coords);
    std::memset(at, 0xff, t->boxBytes());
    m.copies.push_back(c);
    if (!multicast)
      break;
  }
}

/// mapa: the address in the shared memory of block `rank` of the cluster
/// that corresponds to `addr` in this block's.
int64_t mpt_emu_mapa(int64_t addr, int32_t rank) {
  Launch &l = launch();
  if (sharedOwner(addr, 1) != &l)
    fail("mapa of an address outside the block's shared memory");
  if (rank < 0 || rank >= static_cast<int64_t>(cluster->blocks.size()))
    fail("mapa to block rank %d of a cluster of %lld blocks", rank,
         (long long)cluster->blocks.size());
  return reinterpret_cast<int64_t>(cluster->blocks[rank]->shared) +
         (addr - reinterpret_cast<int64_t>(l.shared));
}

/// mbarrier.arrive on the mbarrier at `addr`, in the shared memory of any
/// block of the cluster (an address from mapa: a remote arrival).
void mpt_emu_mbarrier_arrive(int64_t addr) {
  launch();
  Launch *owner = sharedOwner(addr, 8);
  if (!owner)
    fail("mbarrier.arrive at an address outside the cluster's shared memory");
  checkAlive(*owner, "mbarrier.arrive");
  arrive(mbarrier(addr, "mbarrier.arrive", *owner), 0);
}

/// barrier.cluster.arrive and barrier.cluster.wait.
void mpt_emu_cluster_arrive() {
  Fiber &f = *launch().current;
  if (f.clusterArrival >= 0)
    fail("barrier.cluster.arrive twice without barrier.cluster.wait");
  f.clusterArrival = cluster->phase;
  ++cluster->arrived;
  releaseCluster();
}

void mpt_emu_cluster_wait() {
  Fiber &f = *launch().current;
  if (f.clusterArrival < 0)
    fail("barrier.cluster.wait without barrier.cluster.arrive");
  while (cluster->phase == f.clusterArrival)
    block(State::AtCluster);
  f.clusterArrival = -1;
}

void mpt_emu_wgmma(int64_t descA, int64_t descB, int32_t n, int32_t k,
                   int32_t kind, int32_t layoutA, int32_t layoutB,
                   int32_t accumulate, int64_t c, int64_t d) {
  if (kind < 1 || kind > 3 || n < 8 || n > 256 || n % 8 ||
      k != (kind == 3 ? 8 : 16))
    fail("wgmma.mma_async m64n%dk%d of kind %d is not emulated", n, k, kind);
  warpWide(
      7, "wgmma.mma_async",
      [&](WarpOp &w, int64_t lane) {
        if (w.arrived == 0) {
          w.cols = n;
          w.depth = k;
          w.mmaKind = kind;
          w.layoutA = layoutA;
          w.layoutB = layoutB;
          w.accumulate = accumulate;
        } else if (w.cols != n || w.depth != k || w.mmaKind != kind ||
                   w.layoutA != layoutA || w.layoutB != layoutB ||
                   w.accumulate != accumulate) {
          fail("threads of a warpgroup execute wgmma.mma_async with "
               "different shapes, types or layouts");
        }
        w.descA[lane] = descA;
        w.descB[lane] = descB;
        w.in[lane][0] = reinterpret_cast<char *>(c);
        w.out[lane] = reinterpret_cast<char *>(d);
      },
      computeWgmma, kWarpgroup);
}

void mpt_emu_wgmma_commit() {
  warpWide(
      8, "wgmma.commit_group", [](WarpOp &, int64_t) {},
      [](WarpOp &) {
        Warpgroup &g =
            launch().warpgroups[launch().current->linear / kWarpgroup];
        g.groups.push_back(std::move(g.uncommitted));
        g.uncommitted.clear();
      },
      kWarpgroup);
}

void mpt_emu_wgmma_wait(int32_t pending) {
  warpWide(
      9, "wgmma.wait_group", [](WarpOp &, int64_t) {},
      [&](WarpOp &) {
        Warpgroup &g =
            launch().warpgroups[launch().current->linear / kWarpgroup];
        while (g.groups.size() >
               static_cast<size_t>(pending < 0 ? 0 : pending)) {
          checkGroups(g.groups.front());
          for (const WgmmaGroup &wgmma : g.groups.front())
            g.retired = std::max(g.retired, wgmma.serial);
          g.groups.pop_front();
        }
      },
      kWarpgroup);
}

/// shfl.sync as upstream's lowering of gpu.shuffle issues it (GPUToNVVM):
/// member mask the first `width` lanes, clamp `width - 1` (mode up: `32 -
/// width`), no segments; then the PTX ISA's semantics (9.7.9.6, "shfl.sync").
void computeShuffle(WarpOp &w) {
  const uint32_t clamp = w.mode == 2 ? kWarp - w.width : w.width - 1;
  for (uint32_t lane = 0; lane < kWarp; ++lane) {
    uint32_t b = w.offset[lane] & 31;
    int64_t j = 0;
    bool valid = false;
    switch (w.mode) {
    case 0: // xor (bfly)
      j = lane ^ b;
      valid = j <= clamp;
      break;
    case 1: // down
      j = int64_t(lane) + b;
      valid = j <= clamp;
      break;
    case 2: // up
      j = int64_t(lane) - b;
      valid = j >= int64_t(clamp);
      break;
    default: // idx
      j = b;
      valid = j <= clamp;
      break;
    }
    uint32_t v = valid ? w.value[j] : w.value[lane];
    w.shuffled[lane] = int64_t(v) | (int64_t(valid) << 32);
  }
}

int64_t mpt_emu_shuffle(int32_t mode, int32_t value, int32_t offset,
                        int32_t width) {
  if (mode < 0 || mode > 3)
    fail("unknown shuffle mode %d", mode);
  if (width != kWarp)
    fail("gpu.shuffle with width %d: the emulator runs shuffles of whole "
         "warps (width 32) only",
         width);
  int64_t self = launch().current->linear % kWarp;
  WarpOp *warp = nullptr;
  warpWide(
      10, "gpu.shuffle",
      [&](WarpOp &w, int64_t lane) {
        if (w.arrived == 0) {
          w.mode = mode;
          w.width = width;
        } else if (w.mode != mode || w.width != width) {
          fail("lanes of a warp execute gpu.shuffle with different modes or "
               "widths");
        }
        w.value[lane] = uint32_t(value);
        w.offset[lane] = uint32_t(offset);
        warp = &w;
      },
      computeShuffle);
  // The warp's other lanes arrive at its next warp-wide instruction only
  // after this one has read its result.
  return warp->shuffled[self];
}

float mpt_emu_wgmma_read(float value) {
  uint32_t bits = floatToBits(value);
  if (!isAccumulatorTag(bits))
    return value;
  return resolveAccumulator(bits, launch().current->linear % kWarpgroup,
                            /*pending=*/false);
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
      {"mpt_emu_named_barrier",
       reinterpret_cast<void *>(&mpt_emu_named_barrier)},
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
      {"mpt_emu_tensor_map", reinterpret_cast<void *>(&mpt_emu_tensor_map)},
      {"mpt_emu_mbarrier_init",
       reinterpret_cast<void *>(&mpt_emu_mbarrier_init)},
      {"mpt_emu_mbarrier_arrive_expect_tx",
       reinterpret_cast<void *>(&mpt_emu_mbarrier_arrive_expect_tx)},
      {"mpt_emu_mbarrier_wait",
       reinterpret_cast<void *>(&mpt_emu_mbarrier_wait)},
      {"mpt_emu_tma_load", reinterpret_cast<void *>(&mpt_emu_tma_load)},
      {"mpt_emu_tma_store", reinterpret_cast<void *>(&mpt_emu_tma_store)},
      {"mpt_emu_bulk_commit", reinterpret_cast<void *>(&mpt_emu_bulk_commit)},
      {"mpt_emu_bulk_wait", reinterpret_cast<void *>(&mpt_emu_bulk_wait)},
      {"mpt_emu_mapa", reinterpret_cast<void *>(&mpt_emu_mapa)},
      {"mpt_emu_mbarrier_arrive",
       reinterpret_cast<void *>(&mpt_emu_mbarrier_arrive)},
      {"mpt_emu_cluster_arrive",
       reinterpret_cast<void *>(&mpt_emu_cluster_arrive)},
      {"mpt_emu_cluster_wait", reinterpret_cast<void *>(&mpt_emu_cluster_wait)},
      {"mpt_emu_wgmma", reinterpret_cast<void *>(&mpt_emu_wgmma)},
      {"mpt_emu_wgmma_commit", reinterpret_cast<void *>(&mpt_emu_wgmma_commit)},
      {"mpt_emu_wgmma_wait", reinterpret_cast<void *>(&mpt_emu_wgmma_wait)},
      {"mpt_emu_wgmma_read", reinterpret_cast<void *>(&mpt_emu_wgmma_read)},
      {"mpt_emu_shuffle", reinterpret_cast<void *>(&mpt_emu_shuffle)},
      {"mpt_emu_traffic", reinterpret_cast<void *>(&mpt_emu_traffic)},
      {"mpt_emu_count_async", reinterpret_cast<void *>(&mpt_emu_count_async)},
      {"mpt_emu_count_banks", reinterpret_cast<void *>(&mpt_emu_count_banks)},
      {"mpt_emu_out_of_bounds",
       reinterpret_cast<void *>(&mpt_emu_out_of_bounds)},
      {"mpt_emu_shared_access",
       reinterpret_cast<void *>(&mpt_emu_shared_access)},
      {"mpt_emu_aligned", reinterpret_cast<void *>(&mpt_emu_aligned)},
  };
  count = sizeof(functions) / sizeof(functions[0]);
  return functions;
}

} // namespace mpt::emu
