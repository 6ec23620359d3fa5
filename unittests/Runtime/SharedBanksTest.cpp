//===- SharedBanksTest.cpp - the emulator's shared memory bank model ------===//
//
// Access patterns whose wavefronts are known from the banks' layout (32
// banks of 4 bytes; phases of 32, 16 or 8 lanes for accesses of 4, 8 or 16
// bytes a lane), and the grouping of lanes' accesses into warp requests.
//
//===----------------------------------------------------------------------===//

#include "mpt/Runtime/SharedBanks.h"

#include "gtest/gtest.h"

using namespace mpt::emu;

namespace {

/// Lane l at base + l * stride (bytes).
Wavefronts strided(int64_t stride, int bytes, uint32_t active = ~0u) {
  int64_t addr[32];
  for (int lane = 0; lane < 32; ++lane)
    addr[lane] = 4096 + lane * stride;
  return countWavefronts(addr, active, bytes);
}

TEST(SharedBanks, ConsecutiveWordsTakeOneWavefront) {
  Wavefronts w = strided(4, 4);
  EXPECT_EQ(w.actual, 1);
  EXPECT_EQ(w.conflict, 0);
}

TEST(SharedBanks, StridesOfTwoWordsAreTwoWayConflicts) {
  Wavefronts w = strided(8, 4);
  EXPECT_EQ(w.actual, 2);
  EXPECT_EQ(w.conflict, 1);
  // A column of a row-major 32 x 32 f32 tile: every lane in bank 0.
  EXPECT_EQ(strided(128, 4).actual, 32);
  // Padded by one word (33 a row): conflict-free.
  EXPECT_EQ(strided(132, 4).actual, 1);
}

TEST(SharedBanks, LanesReadingOneWordShareIt) {
  Wavefronts w = strided(0, 4);
  EXPECT_EQ(w.actual, 1);
  EXPECT_EQ(w.conflict, 0);
  // Half-bytes of the same word (f16): one word.
  EXPECT_EQ(strided(2, 2).actual, 1);
}

TEST(SharedBanks, WideAccessesGoByHalfAndQuarterWarps) {
  EXPECT_EQ(strided(8, 8).actual, 2);
  EXPECT_EQ(strided(8, 8).conflict, 0);
  EXPECT_EQ(strided(16, 16).actual, 4);
  EXPECT_EQ(strided(16, 16).conflict, 0);
  // Only the first quarter-warp active: one phase.
  EXPECT_EQ(strided(16, 16, 0xff).actual, 1);
  // 16 bytes with a stride of 32: a quarter-warp spans 256 bytes, twice
  // the banks.
  EXPECT_EQ(strided(32, 16).actual, 8);
  EXPECT_EQ(strided(32, 16).conflict, 4);
  // 32 bytes a lane: two requests of 16 at a stride of 32.
  EXPECT_EQ(strided(32, 32).actual, 16);
  EXPECT_EQ(strided(32, 32).conflict, 8);
}

TEST(SharedBanks, LdmatrixRowsOfAPaddedTileAreConflictFree) {
  // Rows of 64 bytes (32 f16): rows 0, 2, 4 and 6 of a matrix share banks.
  EXPECT_EQ(strided(64, 16).actual, 16);
  // Padded to 80 bytes (by 8 f16): the eight rows cover the 32 banks.
  EXPECT_EQ(strided(80, 16).actual, 4);
}

TEST(SharedBanks, LanesOfAWarpMakeOneRequestPerExecution) {
  SharedBankCounter counter;
  static const char site[] = "site", other[] = "other";
  // Two executions of `site` by 32 lanes, one lane at a time as fibers
  // run: lane l at 4 l (conflict-free), then at 8 l (two-way).
  for (int lane = 0; lane < 32; ++lane) {
    counter.access(0, 32, lane, site, 4 * lane, 4);
    counter.access(0, 32, lane, site, 8 * lane, 4);
  }
  // Warp 1 of 4 lanes: only they are active; 16 lanes of `other` that the
  // rest never reach (divergence) count at the flush.
  for (int lane = 0; lane < 4; ++lane)
    counter.access(1, 4, lane, site, 128 * lane, 4);
  for (int lane = 0; lane < 16; ++lane)
    counter.access(0, 32, lane, other, 4 * lane, 4);
  std::map<std::string, BankCount> sites;
  counter.flush(sites);
  EXPECT_EQ(sites["site"].requests, 3);
  EXPECT_EQ(sites["site"].wavefronts, 1 + 2 + 4);
  EXPECT_EQ(sites["site"].conflicts, 0 + 1 + 3);
  EXPECT_EQ(sites["other"].requests, 1);
  EXPECT_EQ(sites["other"].wavefronts, 1);
  // The flush empties the counter.
  std::map<std::string, BankCount> again;
  counter.flush(again);
  EXPECT_TRUE(again.empty());
}

} // namespace
