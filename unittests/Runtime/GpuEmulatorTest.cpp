//===- GpuEmulatorTest.cpp - the GPU emulator's runtime -------------------===//
//
// Kernels written by hand against the emulator's ABI: the warp-wide
// instructions compose as on the hardware (ldmatrix fragments are mma.sync
// operands, so a 16x16 tile loaded with ldmatrix and multiplied gives the
// matrix product), copies land when waited for, and the errors the
// emulator promises are raised.
//
//===----------------------------------------------------------------------===//

#include "mpt/Runtime/GpuEmulator.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace {

int64_t addr(const void *p) { return reinterpret_cast<int64_t>(p); }

int64_t tid() { return mpt_emu_id(0); }

void launch(void (*kernel)(void *, void *, int64_t), void *args,
            int64_t threads, int64_t sharedBytes = 1024, int64_t gridX = 1) {
  static const char name[] = "test";
  mpt_emu_launch(addr(name), gridX, 1, 1, threads, 1, 1, sharedBytes, kernel,
                 args, 1, 1, 1);
}

uint16_t toHalf(float x) {
  _Float16 h = static_cast<_Float16>(x);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}

uint16_t toBF16(float x) { // exact for the small integers used here
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  return static_cast<uint16_t>(bits >> 16);
}

//===----------------------------------------------------------------------===//
// ldmatrix + mma.sync: the product of a 16x16 and a 16x8 tile
//===----------------------------------------------------------------------===//

struct MmaArgs {
  const uint16_t *a; // 16x16, row-major
  const uint16_t *b; // 16x8 (K x N), row-major
  const float *c;    // 16x8
  float *d;          // 16x8
  int32_t kind;
};

/// The fragment layouts of the PTX ISA (mma.m16n8k16): lane = 4 g + t.
void mmaKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<MmaArgs *>(argsPtr);
  auto *sa = static_cast<uint16_t *>(shared);
  uint16_t *sb = sa + 256;
  int64_t lane = tid();
  if (lane == 0) {
    std::memcpy(sa, args.a, 512);
    std::memcpy(sb, args.b, 256);
  }
  mpt_emu_barrier();
  // A: four 8x8 matrices, lanes 8i..8i+7 point at the rows of matrix i:
  // (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (0-7, 8-15), (8-15, 8-15).
  int64_t row = lane % 8 + 8 * ((lane / 8) % 2), col = 8 * (lane / 16);
  uint16_t a[8], b[4];
  mpt_emu_ldmatrix(addr(sa + row * 16 + col), addr(sa), 512, 4, 0, addr(a));
  // B: rows k = 0..15 of the K x N tile, transposed.
  mpt_emu_ldmatrix(addr(sb + (lane % 16) * 8), addr(sb), 256, 2, 1, addr(b));
  int64_t g = lane / 4, t = lane % 4;
  float c[4], d[4];
  for (int e = 0; e < 4; ++e)
    c[e] = args.c[(g + 8 * (e / 2)) * 8 + 2 * t + e % 2];
  mpt_emu_mma(args.kind, addr(a), addr(b), addr(c), addr(d));
  for (int e = 0; e < 4; ++e)
    args.d[(g + 8 * (e / 2)) * 8 + 2 * t + e % 2] = d[e];
}

void checkProduct(int32_t kind, uint16_t (*convert)(float)) {
  std::vector<float> a(256), b(128), c(128), d(128, -1.0f);
  std::vector<uint16_t> a16(256), b16(128);
  for (int i = 0; i < 256; ++i) {
    a[i] = static_cast<float>((i * 7) % 11 - 5);
    a16[i] = convert(a[i]);
  }
  for (int i = 0; i < 128; ++i) {
    b[i] = static_cast<float>((i * 5) % 9 - 4);
    b16[i] = convert(b[i]);
    c[i] = static_cast<float>(i % 13) - 6.0f;
  }
  MmaArgs args{a16.data(), b16.data(), c.data(), d.data(), kind};
  launch(mmaKernel, &args, 32);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      float expected = c[m * 8 + n];
      for (int k = 0; k < 16; ++k)
        expected += a[m * 16 + k] * b[k * 8 + n];
      EXPECT_EQ(d[m * 8 + n], expected) << "row " << m << ", column " << n;
    }
}

TEST(GpuEmulator, LdmatrixFragmentsMultiplyToTheProductF16) {
  checkProduct(1, toHalf);
}

TEST(GpuEmulator, LdmatrixFragmentsMultiplyToTheProductBF16) {
  checkProduct(2, toBF16);
}

struct Tf32Args {
  const float *a; // 16x8
  const float *b; // 8x8
  float *d;       // 16x8
};

/// mma.m16n8k8.tf32: A holds (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4);
/// B (t, g), (t + 4, g).
void tf32Kernel(void *argsPtr, void *, int64_t) {
  auto &args = *static_cast<Tf32Args *>(argsPtr);
  int64_t lane = tid(), g = lane / 4, t = lane % 4;
  int32_t a[4], b[2];
  for (int r = 0; r < 4; ++r)
    std::memcpy(&a[r], &args.a[(g + 8 * (r % 2)) * 8 + t + 4 * (r / 2)], 4);
  for (int r = 0; r < 2; ++r)
    b[r] = mpt_emu_tf32(args.b[(t + 4 * r) * 8 + g]);
  float c[4] = {0, 0, 0, 0}, d[4];
  mpt_emu_mma(3, addr(a), addr(b), addr(c), addr(d));
  for (int e = 0; e < 4; ++e)
    args.d[(g + 8 * (e / 2)) * 8 + 2 * t + e % 2] = d[e];
}

TEST(GpuEmulator, Tf32MmaReadsNineteenBits) {
  // A's low mantissa bits are not rounded (no cvt): the Tensor Cores ignore
  // them. B is rounded to nearest, ties away (cvt.rna).
  const float low = 1.0f + 0x1p-20f; // tf32: 1
  const float tie = 1.0f + 0x1p-11f; // halfway between tf32 neighbours
  std::vector<float> a(128), b(64), d(128);
  for (int i = 0; i < 128; ++i)
    a[i] = (i % 3 == 0) ? low : static_cast<float>(i % 5);
  for (int i = 0; i < 64; ++i)
    b[i] = (i % 4 == 0) ? tie : static_cast<float>(i % 3 - 1);
  Tf32Args args{a.data(), b.data(), d.data()};
  launch(tf32Kernel, &args, 32);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double expected = 0;
      for (int k = 0; k < 8; ++k) {
        double x = a[m * 8 + k] == low ? 1.0 : a[m * 8 + k];
        double y = b[k * 8 + n] == tie ? 1.0 + 0x1p-10 : b[k * 8 + n];
        expected += x * y;
      }
      EXPECT_EQ(d[m * 8 + n], static_cast<float>(expected));
    }
}

//===----------------------------------------------------------------------===//
// Barriers, ids and asynchronous copies
//===----------------------------------------------------------------------===//

struct NeighbourArgs {
  float *out;
  bool barrier;
};

void neighbourKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<NeighbourArgs *>(argsPtr);
  auto *s = static_cast<float *>(shared);
  int64_t i = tid();
  s[i] = static_cast<float>(i);
  if (args.barrier)
    mpt_emu_barrier();
  args.out[i] = s[(i + 1) % 64];
}

TEST(GpuEmulator, BarrierOrdersSharedMemory) {
  std::vector<float> out(64);
  NeighbourArgs args{out.data(), true};
  launch(neighbourKernel, &args, 64);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(out[i], static_cast<float>((i + 1) % 64));
  // Without the barrier, each thread runs ahead of the later ones and reads
  // the shared memory's poison.
  args.barrier = false;
  launch(neighbourKernel, &args, 64);
  EXPECT_TRUE(std::isnan(out[0]));
}

void idKernel(void *argsPtr, void *, int64_t) {
  auto *out = static_cast<int64_t *>(argsPtr);
  int64_t x = mpt_emu_id(0), y = mpt_emu_id(1), bx = mpt_emu_id(3),
          by = mpt_emu_id(4);
  int64_t nx = mpt_emu_id(6), ny = mpt_emu_id(7), gx = mpt_emu_id(9);
  int64_t block = by * gx + bx;
  out[block * nx * ny + y * nx + x] = 1000 * block + 10 * y + x;
}

TEST(GpuEmulator, EveryThreadOfEveryBlockRuns) {
  std::vector<int64_t> out(2 * 3 * 4 * 2, -1);
  static const char name[] = "ids";
  mpt_emu_launch(addr(name), 2, 3, 1, 4, 2, 1, 0, idKernel, out.data(), 1, 1,
                 1);
  for (int64_t block = 0; block < 6; ++block)
    for (int64_t y = 0; y < 2; ++y)
      for (int64_t x = 0; x < 4; ++x)
        EXPECT_EQ(out[block * 8 + y * 4 + x], 1000 * block + 10 * y + x);
}

//===----------------------------------------------------------------------===//
// gpu.shuffle: each mode's source lane, and a butterfly sum
//===----------------------------------------------------------------------===//

/// Per thread of two warps: xor 1, 2, 4, 8, 16, down 1, up 3, idx 31 - lane
/// (value, valid), then the butterfly sum of the warp.
void shuffleKernel(void *argsPtr, void *, int64_t) {
  auto *out = static_cast<int64_t *>(argsPtr);
  int64_t t = tid();
  int32_t value = static_cast<int32_t>(1000 * (t / 32) + t % 32);
  int64_t *mine = out + t * 9;
  for (int i = 0; i < 5; ++i)
    mine[i] = mpt_emu_shuffle(0, value, 1 << i, 32);
  mine[5] = mpt_emu_shuffle(1, value, 1, 32);
  mine[6] = mpt_emu_shuffle(2, value, 3, 32);
  mine[7] = mpt_emu_shuffle(3, value, static_cast<int32_t>(31 - t % 32), 32);
  int32_t sum = value;
  for (int32_t s = 16; s >= 1; s /= 2)
    sum += static_cast<int32_t>(mpt_emu_shuffle(0, sum, s, 32));
  mine[8] = sum;
}

TEST(GpuEmulator, ShufflesReadTheirSourceLanes) {
  std::vector<int64_t> out(64 * 9, -1);
  launch(shuffleKernel, out.data(), 64);
  auto valueOf = [](int64_t warp, int64_t lane) { return 1000 * warp + lane; };
  auto packed = [](int64_t v, bool valid) {
    return v | (int64_t(valid) << 32);
  };
  for (int64_t t = 0; t < 64; ++t) {
    int64_t warp = t / 32, lane = t % 32;
    const int64_t *got = out.data() + t * 9;
    for (int i = 0; i < 5; ++i)
      EXPECT_EQ(got[i], packed(valueOf(warp, lane ^ (1 << i)), true))
          << "thread " << t << ", xor " << (1 << i);
    EXPECT_EQ(got[5], lane + 1 < 32 ? packed(valueOf(warp, lane + 1), true)
                                    : packed(valueOf(warp, lane), false))
        << "thread " << t << ", down 1";
    EXPECT_EQ(got[6], lane >= 3 ? packed(valueOf(warp, lane - 3), true)
                                : packed(valueOf(warp, lane), false))
        << "thread " << t << ", up 3";
    EXPECT_EQ(got[7], packed(valueOf(warp, 31 - lane), true))
        << "thread " << t << ", idx";
    int64_t sum = 0;
    for (int64_t l = 0; l < 32; ++l)
      sum += valueOf(warp, l);
    EXPECT_EQ(got[8], sum) << "thread " << t << ", butterfly sum";
  }
}

struct CopyArgs {
  const uint8_t *src;
  uint8_t *seen; // 3 x 16 bytes: before the wait, after wait 1, after wait 0
};

void copyKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<CopyArgs *>(argsPtr);
  auto *s = static_cast<uint8_t *>(shared);
  // Two groups: 8 of 16 bytes (zero fill), then 16 of 16.
  mpt_emu_cp_async(addr(s), addr(s), 64, addr(args.src), addr(args.src), 32, 16,
                   8);
  mpt_emu_cp_async_commit();
  mpt_emu_cp_async(addr(s + 16), addr(s), 64, addr(args.src + 16),
                   addr(args.src), 32, 16, 16);
  mpt_emu_cp_async_commit();
  std::memcpy(args.seen, s, 16);
  mpt_emu_cp_async_wait(1);
  std::memcpy(args.seen + 16, s, 16);
  std::memcpy(args.seen + 32, s + 16, 16);
  mpt_emu_cp_async_wait(0);
  std::memcpy(args.seen + 48, s + 16, 16);
}

TEST(GpuEmulator, AsyncCopiesLandWhenTheirGroupIsWaitedFor) {
  std::vector<uint8_t> src(32), seen(64);
  for (int i = 0; i < 32; ++i)
    src[i] = static_cast<uint8_t>(i + 1);
  CopyArgs args{src.data(), seen.data()};
  launch(copyKernel, &args, 1);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(seen[i], 0xff) << "before any wait";
    EXPECT_EQ(seen[16 + i], i < 8 ? i + 1 : 0) << "first group, zero fill";
    EXPECT_EQ(seen[32 + i], 0xff) << "second group, still in flight";
    EXPECT_EQ(seen[48 + i], 17 + i) << "second group, waited for";
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

void divergentBarrierKernel(void *, void *, int64_t) {
  if (tid() < 16)
    mpt_emu_barrier();
}

TEST(GpuEmulatorDeathTest, BarrierNotAllThreadsReach) {
  EXPECT_EXIT(launch(divergentBarrierKernel, nullptr, 32),
              testing::ExitedWithCode(3),
              "kernel test, block \\(0, 0, 0\\).*deadlock: 16 threads wait "
              "at gpu.barrier, 16 threads have exited");
}

void misalignedKernel(void *, void *shared, int64_t) {
  auto *s = static_cast<char *>(shared);
  uint16_t out[2];
  mpt_emu_ldmatrix(addr(s + 2 * tid() + 2), addr(s), 1024, 1, 0, addr(out));
}

TEST(GpuEmulatorDeathTest, LdmatrixRowsMustBeAligned) {
  EXPECT_EXIT(launch(misalignedKernel, nullptr, 32), testing::ExitedWithCode(3),
              "ldmatrix row address of lane 0 is not 16-byte aligned");
}

void outOfBoundsKernel(void *argsPtr, void *shared, int64_t) {
  auto *src = static_cast<const char *>(argsPtr);
  auto *s = static_cast<char *>(shared);
  mpt_emu_cp_async(addr(s), addr(s), 64, addr(src + 32), addr(src), 40, 16, 16);
}

TEST(GpuEmulatorDeathTest, CopiesStayInTheirBuffers) {
  alignas(16) static char src[64];
  EXPECT_EXIT(launch(outOfBoundsKernel, src, 1), testing::ExitedWithCode(3),
              "cp.async \\(global memory\\) reads or writes bytes \\[32, 48\\) "
              "of a buffer of 40 bytes");
}

void mixedWarpKernel(void *, void *shared, int64_t) {
  auto *s = static_cast<char *>(shared);
  uint16_t out[8];
  float f[4] = {0, 0, 0, 0};
  if (tid() == 5)
    mpt_emu_mma(1, addr(out), addr(out), addr(f), addr(f));
  else
    mpt_emu_ldmatrix(addr(s), addr(s), 1024, 1, 0, addr(out));
}

TEST(GpuEmulatorDeathTest, LanesOfAWarpExecuteOneInstruction) {
  EXPECT_EXIT(launch(mixedWarpKernel, nullptr, 32), testing::ExitedWithCode(3),
              "lane 5 executes mma.sync while other lanes of its warp "
              "execute a different warp-wide instruction");
}

//===----------------------------------------------------------------------===//
// WMMA: load, multiply-accumulate, store
//===----------------------------------------------------------------------===//

void narrowShuffleKernel(void *, void *, int64_t) {
  mpt_emu_shuffle(0, 1, 1, 16);
}

TEST(GpuEmulatorDeathTest, ShufflesTakeWholeWarps) {
  EXPECT_EXIT(launch(narrowShuffleKernel, nullptr, 32),
              testing::ExitedWithCode(3),
              "gpu.shuffle with width 16: the emulator runs shuffles of whole "
              "warps \\(width 32\\) only");
}

struct WmmaArgs {
  const uint16_t *a; // 16 x 16 in a 16 x 24 buffer (row-major, ld 24)
  const uint16_t *b; // 16 x 16, stored column-major (ld 16)
  float *c;          // 16 x 16 in a 16 x 20 buffer (ld 20), C in, D out
  int64_t aOffset = 0;
};

void wmmaKernel(void *argsPtr, void *, int64_t) {
  auto &args = *static_cast<WmmaArgs *>(argsPtr);
  uint16_t a[256], b[256];
  float c[256], d[256];
  mpt_emu_wmma_load(addr(args.a) + args.aOffset, addr(args.a), 16 * 24 * 2, 16,
                    16, 24, 2, 0, addr(a));
  mpt_emu_wmma_load(addr(args.b), addr(args.b), 256 * 2, 16, 16, 16, 2, 1,
                    addr(b));
  mpt_emu_wmma_load(addr(args.c), addr(args.c), 16 * 20 * 4, 16, 16, 20, 4, 0,
                    addr(c));
  mpt_emu_wmma_mma(1, 16, 16, 16, addr(a), addr(b), addr(c), addr(d));
  mpt_emu_wmma_store(addr(args.c), addr(args.c), 16 * 20 * 4, 16, 16, 20, 4, 0,
                     addr(d));
}

TEST(GpuEmulator, WmmaLoadsMultipliesAndStoresWholeMatrices) {
  alignas(32) static uint16_t a16[16 * 24], b16[256];
  alignas(32) static float c[16 * 20];
  std::vector<float> a(256), b(256), expected(256);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 24; ++j) {
      float v = static_cast<float>((i * 24 + j) * 7 % 11 - 5);
      a16[i * 24 + j] = toHalf(v);
      if (j < 16)
        a[i * 16 + j] = v;
    }
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 16; ++n) {
      b[k * 16 + n] = static_cast<float>((k * 16 + n) * 5 % 9 - 4);
      b16[n * 16 + k] = toHalf(b[k * 16 + n]); // column-major
    }
  for (int i = 0; i < 16 * 20; ++i)
    c[i] = static_cast<float>(i % 13) - 6.0f;
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      expected[m * 16 + n] = c[m * 20 + n];
      for (int k = 0; k < 16; ++k)
        expected[m * 16 + n] += a[m * 16 + k] * b[k * 16 + n];
    }
  WmmaArgs args{a16, b16, c};
  launch(wmmaKernel, &args, 32);
  for (int m = 0; m < 16; ++m) {
    for (int n = 0; n < 16; ++n)
      EXPECT_EQ(c[m * 20 + n], expected[m * 16 + n])
          << "row " << m << ", column " << n;
    for (int n = 16; n < 20; ++n) // the padding stays
      EXPECT_EQ(c[m * 20 + n], static_cast<float>((m * 20 + n) % 13) - 6.0f);
  }
}

TEST(GpuEmulatorDeathTest, WmmaAddressesMustBeAligned) {
  alignas(32) static uint16_t a16[16 * 24], b16[256];
  alignas(32) static float c[16 * 20];
  WmmaArgs args{a16, b16, c, /*aOffset=*/16};
  EXPECT_EXIT(launch(wmmaKernel, &args, 32), testing::ExitedWithCode(3),
              "wmma.load address is not 32-byte aligned");
}

void wmmaDivergentKernel(void *argsPtr, void *, int64_t) {
  auto *m = static_cast<uint16_t *>(argsPtr);
  uint16_t a[256];
  mpt_emu_wmma_load(addr(m + (tid() == 9 ? 16 : 0)), addr(m), 32 * 16 * 2, 16,
                    16, 16, 2, 0, addr(a));
}

TEST(GpuEmulatorDeathTest, WmmaLanesPassOneAddress) {
  alignas(32) static uint16_t m[32 * 16];
  EXPECT_EXIT(launch(wmmaDivergentKernel, m, 32), testing::ExitedWithCode(3),
              "lanes 0 and 9 of a warp pass different addresses to wmma.load");
}

void wmmaOutOfBoundsKernel(void *argsPtr, void *, int64_t) {
  auto *m = static_cast<uint16_t *>(argsPtr);
  uint16_t a[256];
  // 16 rows of 16 elements 16 apart from element 16: the last row ends at
  // element 272 of 256.
  mpt_emu_wmma_load(addr(m + 16), addr(m), 256 * 2, 16, 16, 16, 2, 0, addr(a));
}

TEST(GpuEmulatorDeathTest, WmmaStaysInItsBuffer) {
  alignas(32) static uint16_t m[256 + 16];
  EXPECT_EXIT(launch(wmmaOutOfBoundsKernel, m, 32), testing::ExitedWithCode(3),
              "wmma.load reads or writes bytes \\[512, 544\\) of a buffer "
              "of 512 bytes");
}

void wmmaFragmentsDifferKernel(void *, void *, int64_t) {
  uint16_t a[256] = {}, b[256] = {};
  float c[256] = {}, d[256];
  if (tid() == 31)
    c[17] = 1.0f;
  mpt_emu_wmma_mma(1, 16, 16, 16, addr(a), addr(b), addr(c), addr(d));
}

TEST(GpuEmulatorDeathTest, WmmaLanesHoldOneFragment) {
  EXPECT_EXIT(launch(wmmaFragmentsDifferKernel, nullptr, 32),
              testing::ExitedWithCode(3),
              "lanes 0 and 31 of a warp hold different fragments at wmma.mma");
}

//===----------------------------------------------------------------------===//
// TMA, mbarriers and wgmma
//===----------------------------------------------------------------------===//

/// A 10 x 64 f16 tensor (128-byte rows) and one 8 x 64 box of it from row 4:
/// rows 10 and 11 lie outside and read as zero.
struct TmaArgs {
  const uint16_t *tensor;
  uint16_t *out;      // the box as it lands in shared memory
  bool poisonedEarly; // the destination read as poison before the wait
};

void tmaKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<TmaArgs *>(argsPtr);
  int64_t sizes[2] = {10, 64}, strides[2] = {64, 1}, box[2] = {8, 64};
  static int64_t map;
  if (tid() == 0) {
    map = mpt_emu_tensor_map(addr(args.tensor), 2, addr(sizes), addr(strides),
                             addr(box), 2, 128, 0);
    mpt_emu_mbarrier_init(7, 1);
    mpt_emu_mbarrier_arrive_expect_tx(7, 8 * 128);
    int64_t coords[2] = {0, 4}; // innermost first
    mpt_emu_tma_load(addr(shared), addr(shared), 1024, map, 7, addr(coords), 2,
                     0);
    args.poisonedEarly = static_cast<const uint16_t *>(shared)[0] == 0xffff;
  }
  mpt_emu_barrier();
  mpt_emu_mbarrier_wait(7, 0);
  if (tid() == 0)
    std::memcpy(args.out, shared, 1024);
}

TEST(GpuEmulator, TmaCopiesLandSwizzledWhenTheirMbarrierIsWaitedOn) {
  alignas(16) static uint16_t tensor[10 * 64];
  static uint16_t out[8 * 64];
  for (int i = 0; i < 10 * 64; ++i)
    tensor[i] = static_cast<uint16_t>(i + 1);
  TmaArgs args{tensor, out, false};
  launch(tmaKernel, &args, 32);
  EXPECT_TRUE(args.poisonedEarly);
  // Row r's 16-byte chunk c lands at chunk c ^ (r mod 8) (128-byte swizzle).
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c)
      for (int e = 0; e < 8; ++e) {
        uint16_t expected = 4 + r < 10 ? tensor[(4 + r) * 64 + 8 * c + e] : 0;
        EXPECT_EQ(out[r * 64 + 8 * (c ^ r) + e], expected)
            << "row " << r << ", chunk " << c;
      }
}

void waitBeforeInitKernel(void *, void *, int64_t) {
  mpt_emu_mbarrier_wait(3, 0);
}

TEST(GpuEmulatorDeathTest, MbarriersAreInitializedBeforeUse) {
  EXPECT_EXIT(launch(waitBeforeInitKernel, nullptr, 32),
              testing::ExitedWithCode(3),
              "mbarrier.try_wait.parity on an mbarrier before mbarrier.init");
}

TEST(GpuEmulatorDeathTest, TensorMapStridesAreMultiplesOf16Bytes) {
  alignas(16) static uint16_t tensor[10 * 60];
  int64_t sizes[2] = {10, 60}, strides[2] = {60, 1}, box[2] = {8, 64};
  EXPECT_EXIT(mpt_emu_tensor_map(addr(tensor), 2, addr(sizes), addr(strides),
                                 addr(box), 2, 128, 0),
              testing::ExitedWithCode(3),
              "tensor map stride of dimension 0 is 120 bytes, not a multiple "
              "of 16");
}

/// One wgmma m64n8k16 (f16): A (64 x 16) K-major at shared byte 0, B (16 x
/// 8) K-major (8 rows of 16 along K) at byte 8192, both in 128-byte rows,
/// swizzled, 8-row groups 1024 bytes apart.
struct WgmmaArgs {
  const float *a;         // 64 x 16
  const float *b;         // 16 x 8
  float *d;               // 64 x 8
  bool clobber = false;   // overwrite A before the wait retires the wgmma
  int chained = 1;        // wgmmas, each accumulating onto the one before
  bool readEarly = false; // read D before the wait
};

int64_t descriptor(int64_t start) {
  return (start >> 4) | (int64_t(1024 >> 4) << 32) | (int64_t(1) << 62);
}

/// Stores `v` as f16 at byte `offset` of shared memory `s` through the
/// 128-byte swizzle (bits [4, 7) ^= bits [7, 10)).
void putSwizzled(char *s, int64_t offset, float v) {
  uint16_t h = toHalf(v);
  std::memcpy(s + (offset ^ (((offset >> 7) & 7) << 4)), &h, 2);
}

/// A (64 x 16) K-major at shared byte 0: 128-byte rows.
void putA(char *s, const float *a) {
  for (int i = 0; i < 64; ++i)
    for (int k = 0; k < 16; ++k)
      putSwizzled(s, i * 128 + 2 * k, a[i * 16 + k]);
}

void wgmmaKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<WgmmaArgs *>(argsPtr);
  auto *s = static_cast<char *>(shared);
  int64_t t = tid();
  if (t == 0) {
    putA(s, args.a);
    for (int n = 0; n < 8; ++n)
      for (int k = 0; k < 16; ++k)
        putSwizzled(s, 8192 + n * 128 + 2 * k, args.b[k * 8 + n]);
  }
  mpt_emu_barrier();
  // The first wgmma ignores C (scale-d 0); each later one takes the
  // accumulators of the one before, still in flight, as its C.
  float c[4] = {0, 0, 0, 0}, d[4];
  for (int i = 0; i < args.chained; ++i) {
    mpt_emu_wgmma(descriptor(0), descriptor(8192), 8, 16, 1, /*row=*/0,
                  /*col=*/1, /*accumulate=*/i > 0, addr(c), addr(d));
    std::memcpy(c, d, sizeof c);
  }
  mpt_emu_wgmma_commit();
  if (args.clobber && t == 0)
    s[2] ^= 1;
  if (args.readEarly)
    mpt_emu_wgmma_read(d[0]);
  mpt_emu_wgmma_wait(0);
  int64_t warp = t / 32, g = (t % 32) / 4, q = t % 4;
  for (int r = 0; r < 4; ++r)
    args.d[(16 * warp + g + 8 * (r / 2)) * 8 + 2 * q + r % 2] =
        mpt_emu_wgmma_read(d[r]);
}

/// `chained` wgmmas of A B, each adding onto the one before: D = chained A B.
void expectWgmmaProduct(int chained) {
  std::vector<float> a(64 * 16), b(16 * 8), d(64 * 8, -1.0f);
  for (int i = 0; i < 64 * 16; ++i)
    a[i] = static_cast<float>((i * 7) % 11 - 5);
  for (int i = 0; i < 16 * 8; ++i)
    b[i] = static_cast<float>((i * 5) % 9 - 4);
  WgmmaArgs args{a.data(), b.data(), d.data()};
  args.chained = chained;
  launch(wgmmaKernel, &args, 128, 16384);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 8; ++n) {
      float expected = 0;
      for (int k = 0; k < 16; ++k)
        expected += a[m * 16 + k] * b[k * 8 + n];
      EXPECT_EQ(d[m * 8 + n], chained * expected)
          << "row " << m << ", column " << n;
    }
}

TEST(GpuEmulator, WgmmaReadsItsOperandsThroughDescriptors) {
  expectWgmmaProduct(1);
}

TEST(GpuEmulator, WgmmaTakesTheAccumulatorsOfWgmmasInFlight) {
  expectWgmmaProduct(3);
}

/// wgmma m64n128k16 with B N-major (imm-trans-b 1), laid out as CUTLASS's
/// canonical 128-byte-swizzle MN-major layout (cute's make_gmma_desc):
/// Swizzle<3,4,3> o ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)), T = 8 halves:
/// 64 consecutive N in a 128-byte row, blocks of 64 N `LBO` bytes apart,
/// K rows 128 bytes apart in groups of 8 `SBO` bytes apart. Written from
/// that formula, not from the emulator's decoding.
struct WgmmaMNArgs {
  const float *a; // 64 x 16
  const float *b; // 16 x 128
  float *d;       // 64 x 128
};

void wgmmaMNKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<WgmmaMNArgs *>(argsPtr);
  auto *s = static_cast<char *>(shared);
  const int64_t bBase = 8192, lbo = 4096, sbo = 1024;
  int64_t t = tid();
  if (t == 0) {
    putA(s, args.a);
    for (int k = 0; k < 16; ++k)
      for (int n = 0; n < 128; ++n)
        putSwizzled(s,
                    bBase + (n % 64) * 2 + (n / 64) * lbo + (k % 8) * 128 +
                        (k / 8) * sbo,
                    args.b[k * 128 + n]);
  }
  mpt_emu_barrier();
  int64_t descB = (bBase >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) |
                  (int64_t(1) << 62);
  float c[64] = {}, d[64];
  mpt_emu_wgmma(descriptor(0), descB, 128, 16, 1, /*row=*/0, /*row=*/0, 0,
                addr(c), addr(d));
  mpt_emu_wgmma_commit();
  mpt_emu_wgmma_wait(0);
  int64_t warp = t / 32, g = (t % 32) / 4, q = t % 4;
  for (int r = 0; r < 64; ++r)
    args.d[(16 * warp + g + 8 * ((r % 4) / 2)) * 128 + 8 * (r / 4) + 2 * q +
           r % 2] = mpt_emu_wgmma_read(d[r]);
}

TEST(GpuEmulator, WgmmaReadsNMajorBInCutlassCanonicalLayout) {
  std::vector<float> a(64 * 16), b(16 * 128), d(64 * 128, -1.0f);
  for (int i = 0; i < 64 * 16; ++i)
    a[i] = static_cast<float>((i * 7) % 11 - 5);
  for (int i = 0; i < 16 * 128; ++i)
    b[i] = static_cast<float>((i * 5) % 13 - 6);
  WgmmaMNArgs args{a.data(), b.data(), d.data()};
  launch(wgmmaMNKernel, &args, 128, 16384);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 128; ++n) {
      float expected = 0;
      for (int k = 0; k < 16; ++k)
        expected += a[m * 16 + k] * b[k * 128 + n];
      ASSERT_EQ(d[m * 128 + n], expected) << "row " << m << ", column " << n;
    }
}

/// One wgmma m64n64k16 (f16) with A K-major and B N-major in a layout
/// given by formulas: A's element (i, k) at byte `aAt(i, k)`, B's (k, n) at
/// `bAt(k, n)`, swizzled by 16 * 2^bits bytes (Swizzle<bits, 4, 3>), read
/// through descriptors `descA` and `descB`.
struct WgmmaLayout {
  int64_t (*aAt)(int64_t i, int64_t k);
  int64_t (*bAt)(int64_t k, int64_t n);
  int aBits, bBits;
  int64_t descA, descB;
};
struct WgmmaLayoutArgs {
  const float *a; // 64 x 16
  const float *b; // 16 x 64
  float *d;       // 64 x 64
  WgmmaLayout layout;
};

/// Stores `v` as f16 at byte `offset` of `s` through the swizzle of
/// 16 * 2^bits bytes (Swizzle<bits, 4, 3>).
void putSwizzledBy(char *s, int64_t offset, float v, int bits) {
  uint16_t h = toHalf(v);
  std::memcpy(s + (offset ^ (((offset >> 7) & ((1 << bits) - 1)) << 4)), &h, 2);
}

void wgmmaLayoutKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<WgmmaLayoutArgs *>(argsPtr);
  const WgmmaLayout &l = args.layout;
  auto *s = static_cast<char *>(shared);
  int64_t t = tid();
  if (t == 0) {
    for (int i = 0; i < 64; ++i)
      for (int k = 0; k < 16; ++k)
        putSwizzledBy(s, l.aAt(i, k), args.a[i * 16 + k], l.aBits);
    for (int k = 0; k < 16; ++k)
      for (int n = 0; n < 64; ++n)
        putSwizzledBy(s, l.bAt(k, n), args.b[k * 64 + n], l.bBits);
  }
  mpt_emu_barrier();
  float c[32] = {}, d[32];
  mpt_emu_wgmma(l.descA, l.descB, 64, 16, 1, /*row=*/0, /*row=*/0, 0, addr(c),
                addr(d));
  mpt_emu_wgmma_commit();
  mpt_emu_wgmma_wait(0);
  int64_t warp = t / 32, g = (t % 32) / 4, q = t % 4;
  for (int r = 0; r < 32; ++r)
    args.d[(16 * warp + g + 8 * ((r % 4) / 2)) * 64 + 8 * (r / 4) + 2 * q +
           r % 2] = mpt_emu_wgmma_read(d[r]);
}

/// A B in `layout` equals the product.
void expectLayoutProduct(const WgmmaLayout &layout) {
  std::vector<float> a(64 * 16), b(16 * 64), d(64 * 64, -1.0f);
  for (int i = 0; i < 64 * 16; ++i)
    a[i] = static_cast<float>((i * 7) % 11 - 5);
  for (int i = 0; i < 16 * 64; ++i)
    b[i] = static_cast<float>((i * 5) % 13 - 6);
  WgmmaLayoutArgs args{a.data(), b.data(), d.data(), layout};
  launch(wgmmaLayoutKernel, &args, 128, 16384);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 64; ++n) {
      float expected = 0;
      for (int k = 0; k < 16; ++k)
        expected += a[m * 16 + k] * b[k * 64 + n];
      ASSERT_EQ(d[m * 64 + n], expected) << "row " << m << ", column " << n;
    }
}

/// A K-major in 32-byte rows and B N-major in 64-byte rows (swizzle modes
/// 3 and 2), laid out as CUTLASS's canonical layouts (cute's
/// make_gmma_desc, T = 8 halves): K-major
/// Swizzle<1,4,3> o ((8,m),(T,2)):((2T,SBO),(1,T)), SBO = 256; MN-major
/// Swizzle<2,4,3> o ((T,4,m),(8,k)):((1,T,LBO),(4T,SBO)), LBO = 2048, SBO =
/// 512, at byte 4096. Attention's head merge lies so in heads of 16 (A)
/// and 32 (B). Written from those formulas, not from the emulator's
/// decoding.
TEST(GpuEmulator, WgmmaReadsNarrowSwizzlesInCutlassCanonicalLayouts) {
  expectLayoutProduct(WgmmaLayout{
      [](int64_t i, int64_t k) { return (i % 8) * 32 + (i / 8) * 256 + 2 * k; },
      [](int64_t k, int64_t n) {
        return 4096 + (n % 32) * 2 + (n / 32) * 2048 + (k % 8) * 64 +
               (k / 8) * 512;
      },
      1, 2, (int64_t(256 >> 4) << 32) | (int64_t(3) << 62),
      (4096 >> 4) | (int64_t(2048 >> 4) << 16) | (int64_t(512 >> 4) << 32) |
          (int64_t(2) << 62)});
}

/// Both operands unswizzled (mode 0), laid out as CUTLASS's interleaved
/// canonical layouts of 8 x 16-byte core matrices: K-major
/// ((8,m),(T,2)):((1T,SBO),(1,LBO)), SBO = 128, LBO = 1024 (the second 8 K
/// a core matrix LBO on: attention's heads of 8, a head's rows apart) and
/// MN-major ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)), SBO = 256, LBO = 128, at
/// byte 2048 (the next 8 of N SBO on, the next 8 K LBO on: the offsets'
/// roles swapped from the swizzled layouts).
TEST(GpuEmulator, WgmmaReadsInterleavedOperandsInCutlassCanonicalLayouts) {
  expectLayoutProduct(WgmmaLayout{
      [](int64_t i, int64_t k) {
        return (i % 8) * 16 + (i / 8) * 128 + (k % 8) * 2 + (k / 8) * 1024;
      },
      [](int64_t k, int64_t n) {
        return 2048 + (n % 8) * 2 + (n / 8) * 256 + (k % 8) * 16 +
               (k / 8) * 128;
      },
      0, 0, (int64_t(1024 >> 4) << 16) | (int64_t(128 >> 4) << 32),
      (2048 >> 4) | (int64_t(128 >> 4) << 16) | (int64_t(256 >> 4) << 32)});
}

/// A TMA copy of a box of 32-byte rows (32-byte swizzle) to shared byte
/// 128: not a multiple of the swizzle's 256-byte pattern.
void tmaMisalignedKernel(void *argsPtr, void *shared, int64_t) {
  alignas(16) static uint16_t tensor[8 * 16];
  int64_t sizes[2] = {8, 16}, strides[2] = {16, 1}, box[2] = {8, 16};
  int64_t map = mpt_emu_tensor_map(addr(tensor), 2, addr(sizes), addr(strides),
                                   addr(box), 2, 32, 0);
  mpt_emu_mbarrier_init(0, 1);
  int64_t coords[2] = {0, 0};
  auto *s = static_cast<char *>(shared);
  mpt_emu_tma_load(addr(s + 128), addr(s), 1024, map, 0, addr(coords), 2, 0);
}

TEST(GpuEmulatorDeathTest, SwizzledBoxesLieAtTheirPattern) {
  EXPECT_EXIT(launch(tmaMisalignedKernel, nullptr, 1, 1024),
              testing::ExitedWithCode(3),
              "TMA copy to shared memory at an address not aligned to the "
              "256-byte pattern of its 32-byte swizzle");
}

TEST(GpuEmulatorDeathTest, WgmmaOperandsStayUntilRetired) {
  std::vector<float> a(64 * 16, 1.0f), b(16 * 8, 1.0f), d(64 * 8);
  WgmmaArgs args{a.data(), b.data(), d.data()};
  args.clobber = true;
  EXPECT_EXIT(launch(wgmmaKernel, &args, 128, 16384),
              testing::ExitedWithCode(3),
              "shared memory that a wgmma reads \\(byte 2\\) changed before "
              "wgmma.wait_group retired the wgmma");
}

TEST(GpuEmulatorDeathTest, WgmmaAccumulatorsAreReadOnlyOnceRetired) {
  std::vector<float> a(64 * 16, 1.0f), b(16 * 8, 1.0f), d(64 * 8);
  WgmmaArgs args{a.data(), b.data(), d.data()};
  args.readEarly = true;
  EXPECT_EXIT(launch(wgmmaKernel, &args, 128, 16384),
              testing::ExitedWithCode(3),
              "an accumulator of a wgmma.mma_async is "
              "read before wgmma.wait_group retired the wgmma \\(0 of 1 "
              "issued are retired\\)");
}

TEST(GpuEmulator, WgmmaReadPassesOtherValues) {
  // Not tags: x86's default NaN, poison (all bits set), numbers.
  for (uint32_t bits : {0xffc00000u, 0xffffffffu, 0x3f800000u}) {
    float v;
    std::memcpy(&v, &bits, 4);
    float r = mpt_emu_wgmma_read(v);
    uint32_t out;
    std::memcpy(&out, &r, 4);
    EXPECT_EQ(out, bits);
  }
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

/// Warps 0 and 1 meet at barrier 1 (64 threads); warp 2 does not wait.
void namedBarrierKernel(void *argsPtr, void *, int64_t) {
  auto *order = static_cast<std::vector<int> *>(argsPtr);
  int64_t t = tid();
  if (t >= 64) {
    if (t == 64)
      order->push_back(2);
    return;
  }
  if (t == 32)
    order->push_back(1); // warp 1 reaches the barrier
  mpt_emu_named_barrier(1, 64);
  if (t == 0)
    order->push_back(0); // warp 0 passes it only after warp 1 arrived
}

TEST(GpuEmulator, NamedBarriersWaitForTheirThreadCount) {
  std::vector<int> order;
  launch(namedBarrierKernel, &order, 96);
  // Warp 0 runs first and waits; warp 1 arrives and releases it before
  // warp 2 runs.
  EXPECT_EQ(order, (std::vector<int>{1, 0, 2}));
}

void mismatchedNamedBarrierKernel(void *, void *, int64_t) {
  mpt_emu_named_barrier(2, tid() < 32 ? 64 : 96);
}

TEST(GpuEmulatorDeathTest, NamedBarrierCountsAgree) {
  EXPECT_EXIT(launch(mismatchedNamedBarrierKernel, nullptr, 96),
              testing::ExitedWithCode(3),
              "threads arrive at barrier 2 expecting 96 and 64 threads");
}

} // namespace

//===----------------------------------------------------------------------===//
// Thread-block clusters: mapa, remote mbarrier arrivals, multicast TMA and
// barrier.cluster
//===----------------------------------------------------------------------===//

namespace {

void clusterLaunch(void (*kernel)(void *, void *, int64_t), void *args,
                   int64_t gridY, int64_t clusterY, int64_t threads = 32) {
  static const char name[] = "cluster";
  mpt_emu_launch(addr(name), 1, gridY, 1, threads, 1, 1, 2048, kernel, args, 1,
                 clusterY, 1);
}

/// Block y of a cluster of two writes y + 1 into its shared memory, the
/// cluster synchronizes, and each block reads its partner's value through
/// mapa.
struct ExchangeArgs {
  int64_t seen[4];
};

void exchangeKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<ExchangeArgs *>(argsPtr);
  int64_t y = mpt_emu_id(4), rank = y % 2;
  if (tid() == 0)
    *static_cast<int64_t *>(shared) = y + 1;
  mpt_emu_cluster_arrive();
  mpt_emu_cluster_wait();
  if (tid() == 0)
    args.seen[y] = *reinterpret_cast<int64_t *>(
        mpt_emu_mapa(addr(shared), static_cast<int32_t>(1 - rank)));
  // The partner reads this block's memory: it stays until both are done.
  mpt_emu_cluster_arrive();
  mpt_emu_cluster_wait();
}

TEST(GpuEmulator, BlocksOfAClusterReachEachOthersSharedMemory) {
  ExchangeArgs args{{0, 0, 0, 0}};
  clusterLaunch(exchangeKernel, &args, 4, 2);
  EXPECT_EQ(args.seen[0], 2);
  EXPECT_EQ(args.seen[1], 1);
  EXPECT_EQ(args.seen[2], 4);
  EXPECT_EQ(args.seen[3], 3);
}

/// Block 0 waits on its mbarrier (at shared byte 64), which only block 1's
/// remote arrival completes.
struct RemoteArgs {
  bool completed = false;
};

void remoteArriveKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<RemoteArgs *>(argsPtr);
  int64_t rank = mpt_emu_id(4) % 2;
  int64_t barrier = addr(shared) + 64;
  if (tid() == 0)
    mpt_emu_mbarrier_init(barrier, 1);
  mpt_emu_cluster_arrive();
  mpt_emu_cluster_wait();
  if (tid() == 0 && rank == 1)
    mpt_emu_mbarrier_arrive(mpt_emu_mapa(barrier, 0));
  if (rank == 0) {
    mpt_emu_mbarrier_wait(barrier, 0);
    args.completed = true;
  }
  mpt_emu_cluster_arrive();
  mpt_emu_cluster_wait();
}

TEST(GpuEmulator, RemoteArrivalsCompleteAnotherBlocksMbarrier) {
  RemoteArgs args;
  clusterLaunch(remoteArriveKernel, &args, 2, 2);
  EXPECT_TRUE(args.completed);
}

/// Each block of a cluster of two copies half of an 8 x 64 f16 tensor (rows
/// 4 rank .. 4 rank + 3) to both blocks (mask 0b11): each block's mbarrier
/// expects the whole box, and each block sees all 8 rows.
struct MulticastArgs {
  const uint16_t *tensor;
  uint16_t *out[2];
};

void multicastKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<MulticastArgs *>(argsPtr);
  int64_t rank = mpt_emu_id(4) % 2;
  int64_t sizes[2] = {8, 64}, strides[2] = {64, 1}, box[2] = {4, 64};
  static int64_t map;
  if (tid() == 0) {
    if (rank == 0)
      map = mpt_emu_tensor_map(addr(args.tensor), 2, addr(sizes), addr(strides),
                               addr(box), 2, 0, 0);
    mpt_emu_mbarrier_init(5, 1);
  }
  mpt_emu_cluster_arrive();
  mpt_emu_cluster_wait();
  if (tid() == 0) {
    int64_t coords[2] = {0, 4 * rank};
    char *half = static_cast<char *>(shared) + 512 * rank;
    mpt_emu_tma_load(addr(half), addr(shared), 1024, map, 5, addr(coords), 2,
                     0b11);
    mpt_emu_mbarrier_arrive_expect_tx(5, 1024);
  }
  mpt_emu_mbarrier_wait(5, 0);
  if (tid() == 0)
    std::memcpy(args.out[rank], shared, 1024);
  mpt_emu_cluster_arrive();
  mpt_emu_cluster_wait();
}

TEST(GpuEmulator, MulticastCopiesLandInEveryBlockOfTheMask) {
  alignas(16) static uint16_t tensor[8 * 64];
  static uint16_t out0[8 * 64], out1[8 * 64];
  for (int i = 0; i < 8 * 64; ++i)
    tensor[i] = static_cast<uint16_t>(3 * i + 1);
  MulticastArgs args{tensor, {out0, out1}};
  clusterLaunch(multicastKernel, &args, 2, 2);
  for (int i = 0; i < 8 * 64; ++i) {
    ASSERT_EQ(out0[i], tensor[i]) << "block 0, element " << i;
    ASSERT_EQ(out1[i], tensor[i]) << "block 1, element " << i;
  }
}

void clusterBarrierOnceKernel(void *, void *, int64_t) {
  // Block 1's threads never arrive.
  if (mpt_emu_id(4) % 2 == 0) {
    mpt_emu_cluster_arrive();
    mpt_emu_cluster_wait();
  } else {
    mpt_emu_barrier();
  }
}

void clusterSpinKernel(void *, void *, int64_t) {
  // Block 1's threads wait on an mbarrier that never completes: block 0
  // waits at the cluster barrier for them.
  if (mpt_emu_id(4) % 2 == 1) {
    mpt_emu_mbarrier_init(9, 1);
    mpt_emu_mbarrier_wait(9, 0);
  }
  mpt_emu_cluster_arrive();
  mpt_emu_cluster_wait();
}

TEST(GpuEmulatorDeathTest, ClusterBarrierWaitsForEveryBlock) {
  // Threads that exit without arriving do not count: block 0 goes on.
  clusterLaunch(clusterBarrierOnceKernel, nullptr, 2, 2);
  EXPECT_EXIT(clusterLaunch(clusterSpinKernel, nullptr, 2, 2),
              testing::ExitedWithCode(3),
              "deadlock: 32 threads wait on an mbarrier phase that does not "
              "complete, 32 threads wait at barrier.cluster");
}

void mapaOutsideKernel(void *, void *, int64_t) {
  int64_t local = 0;
  mpt_emu_mapa(addr(&local), 1);
}

TEST(GpuEmulatorDeathTest, MapaTakesSharedAddresses) {
  EXPECT_EXIT(clusterLaunch(mapaOutsideKernel, nullptr, 2, 2),
              testing::ExitedWithCode(3),
              "mapa of an address outside the block's shared memory");
}

void multicastOutsideKernel(void *, void *shared, int64_t) {
  alignas(16) static uint16_t tensor[8 * 64];
  int64_t sizes[2] = {8, 64}, strides[2] = {64, 1}, box[2] = {4, 64};
  int64_t map = mpt_emu_tensor_map(addr(tensor), 2, addr(sizes), addr(strides),
                                   addr(box), 2, 0, 0);
  int64_t coords[2] = {0, 0};
  mpt_emu_mbarrier_init(5, 1);
  mpt_emu_tma_load(addr(shared), addr(shared), 1024, map, 5, addr(coords), 2,
                   0b100);
}

TEST(GpuEmulatorDeathTest, MulticastMasksNameBlocksOfTheCluster) {
  EXPECT_EXIT(clusterLaunch(multicastOutsideKernel, nullptr, 2, 2),
              testing::ExitedWithCode(3),
              "multicast TMA copy to blocks 0x4 of a cluster of 2 blocks");
}

/// A TMA store of a 4 x 8 f32 box (no swizzle) from shared memory to a
/// 6 x 12 tensor at (row 3, column 8): rows 6 and beyond and columns 12
/// and beyond lie outside and are not written. `mode` 0 waits for the
/// store correctly; 1 writes the box again before the wait; 2 exits without
/// a wait.
struct StoreArgs {
  float *tensor;
  int mode = 0;
};

void storeKernel(void *argsPtr, void *shared, int64_t) {
  auto &args = *static_cast<StoreArgs *>(argsPtr);
  int64_t sizes[2] = {6, 12}, strides[2] = {12, 1}, box[2] = {4, 8};
  auto *box32 = static_cast<float *>(shared);
  box32[tid()] = 100.0f + static_cast<float>(tid());
  mpt_emu_barrier();
  if (tid() != 0)
    return;
  int64_t map = mpt_emu_tensor_map(addr(args.tensor), 2, addr(sizes),
                                   addr(strides), addr(box), 4, 0, 0);
  int64_t coords[2] = {8, 3}; // innermost first
  mpt_emu_tma_store(addr(shared), addr(shared), 1024, map, addr(coords), 2);
  mpt_emu_bulk_commit();
  if (args.mode == 1)
    box32[5] = -1.0f;
  if (args.mode != 2)
    mpt_emu_bulk_wait(0);
}

TEST(GpuEmulator, TmaStoresClipAtTheTensorsEdges) {
  alignas(16) static float tensor[6 * 12];
  for (float &x : tensor)
    x = -7.0f;
  StoreArgs args{tensor};
  launch(storeKernel, &args, 32);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 12; ++c) {
      bool inBox = r >= 3 && c >= 8;
      float expected =
          inBox ? 100.0f + static_cast<float>((r - 3) * 8 + (c - 8)) : -7.0f;
      EXPECT_EQ(tensor[r * 12 + c], expected) << "row " << r << ", col " << c;
    }
}

TEST(GpuEmulatorDeathTest, TmaStoreBuffersStayUntilRetired) {
  alignas(16) static float tensor[6 * 12];
  StoreArgs args{tensor, 1};
  // (Byte 22: the first that differs of the float at byte 20, 105 -> -1.)
  EXPECT_EXIT(launch(storeKernel, &args, 32), testing::ExitedWithCode(3),
              "shared memory that a TMA store reads \\(byte 22\\) changed "
              "between the store and the cp.async.bulk.wait_group that "
              "retired it");
}

TEST(GpuEmulatorDeathTest, TmaStoresAreRetiredBeforeExit) {
  alignas(16) static float tensor[6 * 12];
  StoreArgs args{tensor, 2};
  EXPECT_EXIT(launch(storeKernel, &args, 32), testing::ExitedWithCode(3),
              "a thread exits with TMA stores that no cp.async.bulk.wait_group "
              "retired");
}

TEST(GpuEmulatorDeathTest, ClustersTileTheGrid) {
  EXPECT_EXIT(clusterLaunch(exchangeKernel, nullptr, 3, 2),
              testing::ExitedWithCode(3),
              "clusters of 1 x 2 x 1 blocks do not tile the grid of 1 x 3 x "
              "1 blocks");
}

} // namespace

//===----------------------------------------------------------------------===//
// Bank conflicts (banks=1)
//===----------------------------------------------------------------------===//

/// 64 threads: f32 stores 2 words apart (two-way conflicts), then loads of
/// consecutive words (none), and 4 ldmatrix rows of a 64-byte-wide tile
/// (rows 0, 2, 4 and 6 of each matrix in the same banks: four-way).
void bankKernel(void *, void *shared, int64_t) {
  mpt_emu_count_banks();
  static const char strided[] = "strided store", dense[] = "dense load";
  auto *s = static_cast<char *>(shared);
  mpt_emu_shared_access(addr(strided), addr(s + 8 * tid()), 4, addr(s), 1024);
  mpt_emu_shared_access(addr(dense), addr(s + 4 * tid()), 4, addr(s), 1024);
  uint16_t out[8];
  mpt_emu_ldmatrix(addr(s + 64 * (tid() % 32)), addr(s), 4096, 4, 0, addr(out));
}

TEST(GpuEmulatorDeathTest, BankConflictsArePrintedPerKernelAndAccess) {
  EXPECT_EXIT(
      {
        launch(bankKernel, nullptr, 64, 4096);
        std::exit(0);
      },
      testing::ExitedWithCode(0),
      "banks: test: 6 shared requests, 38 wavefronts, 26 of them bank "
      "conflicts\n"
      ".*banks:   2 requests, 32 wavefronts, 24 conflicts: nvgpu.ldmatrix "
      "\\(rows of 16 bytes\\)\n"
      ".*banks:   2 requests, 4 wavefronts, 2 conflicts: strided store\n"
      ".*banks: total: 6 shared requests");
}
