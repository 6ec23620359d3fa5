//===- SharedBanks.h - bank conflicts of shared memory accesses -*- C++ -*-===//
//
// The emulator's model of how an SM serves a warp's shared memory access
// (Volta and later): 32 banks of 4 bytes. The lanes of a warp are served in
// phases: all 32 at once for accesses of up to 4 bytes a lane, two
// half-warps for 8 bytes, four quarter-warps for 16 bytes (and ldmatrix's
// rows: each 8x8 matrix is a phase). A phase takes as many wavefronts as
// the most distinct 4-byte words that its lanes touch in one bank (lanes
// touching the same word share it); without conflicts, one. So the extra
// wavefronts are the bank conflicts, independent of how many lanes are
// active.
//
// SharedBankCounter groups the accesses that the lanes of a warp make, one
// lane at a time as the emulator's fibers run, into the warp's requests:
// the k-th execution of an access site by each lane of the warp is one
// request, as on the GPU when the warp runs converged.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_SHAREDBANKS_H
#define MPT_RUNTIME_SHAREDBANKS_H

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>

namespace mpt::emu {

constexpr int kBanks = 32;
constexpr int kBankBytes = 4;

struct Wavefronts {
  int64_t actual = 0;   // what the access takes
  int64_t conflict = 0; // of them, beyond one per phase with an active lane
};

/// The wavefronts of one warp's access of `bytes` bytes a lane at
/// `addr[lane]` by the lanes whose bit is set in `active`.
Wavefronts countWavefronts(const int64_t addr[32], uint32_t active, int bytes);

/// Requests, wavefronts and conflicts of one access site (or kernel).
struct BankCount {
  int64_t requests = 0, wavefronts = 0, conflicts = 0;
  void add(const BankCount &other) {
    requests += other.requests;
    wavefronts += other.wavefronts;
    conflicts += other.conflicts;
  }
};

/// The shared memory accesses of one block, grouped into warp requests.
class SharedBankCounter {
public:
  /// Lane `lane` of warp `warp` (of `lanes` lanes, the last warp of a
  /// block may have fewer) accesses `bytes` bytes at `addr` for the access
  /// site named `site`.
  void access(int64_t warp, int lanes, int lane, const char *site, int64_t addr,
              int bytes);
  /// Counts one whole-warp request (ldmatrix: its row addresses).
  void request(const char *site, const int64_t addr[32], uint32_t active,
               int bytes);
  /// Counts the requests still waiting for lanes (lanes that never came,
  /// as in divergent code, are inactive) and adds every count into
  /// `sites`, by site name.
  void flush(std::map<std::string, BankCount> &sites);

private:
  struct Request {
    int64_t addr[32] = {};
    uint32_t active = 0;
    int bytes = 0, arrived = 0;
  };
  /// One site of one warp: how many times each lane executed it, and the
  /// requests from the oldest that some lane has not reached yet.
  struct Pending {
    int64_t executed[32] = {};
    int64_t first = 0; // the index of requests.front()
    int lanes = 32;
    std::deque<Request> requests;
  };
  void count(const char *site, const Request &r);

  std::map<std::pair<int64_t, const char *>, Pending> pending;
  std::map<const char *, BankCount> counts;
};

} // namespace mpt::emu

#endif // MPT_RUNTIME_SHAREDBANKS_H
