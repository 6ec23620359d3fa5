//===- SharedBanks.cpp - bank conflicts of shared memory accesses ---------===//

#include "mpt/Runtime/SharedBanks.h"

#include <algorithm>

using namespace mpt::emu;

Wavefronts mpt::emu::countWavefronts(const int64_t addr[32], uint32_t active,
                                     int bytes) {
  Wavefronts w;
  if (bytes > 16) { // served as 16-byte pieces, one request each
    for (int piece = 0; piece * 16 < bytes; ++piece) {
      int64_t at[32];
      for (int lane = 0; lane < 32; ++lane)
        at[lane] = addr[lane] + 16 * piece;
      Wavefronts p =
          countWavefronts(at, active, std::min(16, bytes - 16 * piece));
      w.actual += p.actual;
      w.conflict += p.conflict;
    }
    return w;
  }
  const int perPhase = bytes <= 4 ? 32 : bytes <= 8 ? 16 : 8;
  for (int first = 0; first < 32; first += perPhase) {
    // The distinct words of the phase, by bank.
    int64_t words[32 * 4];
    int n = 0;
    for (int lane = first; lane < first + perPhase; ++lane) {
      if (!(active >> lane & 1))
        continue;
      for (int64_t word = addr[lane] / kBankBytes;
           word <= (addr[lane] + bytes - 1) / kBankBytes; ++word)
        words[n++] = word;
    }
    if (n == 0)
      continue;
    std::sort(words, words + n);
    n = std::unique(words, words + n) - words;
    int perBank[kBanks] = {};
    int most = 0;
    for (int i = 0; i < n; ++i)
      most = std::max(most, ++perBank[words[i] % kBanks]);
    w.actual += most;
    w.conflict += most - 1;
  }
  return w;
}

void SharedBankCounter::count(const char *site, const Request &r) {
  Wavefronts w = countWavefronts(r.addr, r.active, r.bytes);
  BankCount &c = counts[site];
  ++c.requests;
  c.wavefronts += w.actual;
  c.conflicts += w.conflict;
}

void SharedBankCounter::access(int64_t warp, int lanes, int lane,
                               const char *site, int64_t addr, int bytes) {
  Pending &p = pending[{warp, site}];
  p.lanes = lanes;
  int64_t index = p.executed[lane]++ - p.first;
  if (index >= static_cast<int64_t>(p.requests.size()))
    p.requests.resize(index + 1);
  Request &r = p.requests[index];
  r.addr[lane] = addr;
  r.active |= uint32_t(1) << lane;
  r.bytes = std::max(r.bytes, bytes);
  ++r.arrived;
  while (!p.requests.empty() && p.requests.front().arrived == p.lanes) {
    count(site, p.requests.front());
    p.requests.pop_front();
    ++p.first;
  }
}

void SharedBankCounter::request(const char *site, const int64_t addr[32],
                                uint32_t active, int bytes) {
  Request r;
  std::copy(addr, addr + 32, r.addr);
  r.active = active;
  r.bytes = bytes;
  count(site, r);
}

void SharedBankCounter::flush(std::map<std::string, BankCount> &sites) {
  for (auto &[key, p] : pending)
    for (const Request &r : p.requests)
      if (r.arrived > 0)
        count(key.second, r);
  pending.clear();
  for (const auto &[site, c] : counts)
    sites[site].add(c);
  counts.clear();
}
