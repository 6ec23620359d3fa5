//===- step_check.h - a training step against its CPU reference -*- C++ -*-===//
//
// The GPU benchmark's check of a whole training step (host code, standard
// C++ only). bench/gpu/step_reference.py ran the step on the CPU with
// mpt-run and wrote, per step, how each argument was drawn and a sample of
// each result (the checks file, format in step_reference.py). Here the
// arguments are drawn again with mpt-run's own code (HostValues.h: the same
// std::mt19937_64 streams, so the same values without carrying them), and
// the results of the step under test are compared with the sample:
//
//   error(result) = || (out - base) - (ref - base) || / || ref - base ||
//
// over the sampled elements, where `base` is the argument that a parameter
// result updates (so that the update lr * gradient is compared, not the
// weights it barely moves) and 0 for the other results (loss, loss-scale
// state). The norm of an update is at least kUpdateFloor times the step's
// largest (in RMS over its sample, times the square root of the sample's
// size): a smaller update is rounding noise. When the norm is 0, the error
// is the norm of the difference itself. A NaN or infinity where the reference
// is finite is an error of infinity. A step passes when its largest error is at
// most the tolerance of its checks-file entry.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_BENCH_GPU_STEP_CHECK_H
#define MPT_BENCH_GPU_STEP_CHECK_H

#include "HostValues.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace stepcheck {

using mpt::run::ElementKind;

/// "784x128" -> {784, 128}, "scalar" -> {}; false if malformed.
inline bool parseShape(const std::string &token, std::vector<int64_t> &shape) {
  shape.clear();
  if (token == "scalar")
    return true;
  size_t start = 0;
  while (start <= token.size()) {
    size_t end = token.find('x', start);
    if (end == std::string::npos)
      end = token.size();
    std::string dim = token.substr(start, end - start);
    if (dim.empty() || dim.find_first_not_of("0123456789") != std::string::npos)
      return false;
    shape.push_back(std::stoll(dim));
    start = end + 1;
  }
  return true;
}

inline int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

struct Argument {
  ElementKind type = ElementKind::f32;
  std::vector<int64_t> shape;
  int64_t elements = 0;
  uint64_t seed = 0;
  mpt::run::Draw draw;
};

struct Result {
  ElementKind type = ElementKind::f32;
  std::vector<int64_t> shape;
  int64_t elements = 0;
  /// The argument this result updates, or -1.
  int base = -1;
  int64_t stride = 1;
  /// The reference at elements 0, stride, 2 * stride, ...
  std::vector<double> reference;
};

struct Check {
  std::string step;
  double tolerance = 0;
  std::vector<Argument> arguments;
  std::vector<Result> results;
};

/// Reads the checks file at `path`. Returns false with `error` set when the
/// file is malformed; a missing file is an empty list.
inline bool loadChecks(const char *path, std::vector<Check> &checks,
                       std::string &error) {
  std::ifstream in(path);
  if (!in)
    return true;
  std::string word;
  auto fail = [&](const std::string &what) {
    error = std::string(path) + ": " + what;
    return false;
  };
  while (in >> word) {
    if (word != "step")
      return fail("expected 'step', found '" + word + "'");
    Check check;
    size_t numArguments, numResults;
    if (!(in >> check.step >> check.tolerance >> numArguments >> numResults))
      return fail("malformed step line");
    for (size_t a = 0; a < numArguments; ++a) {
      Argument arg;
      std::string tag, type, shape, kind;
      size_t index;
      if (!(in >> tag >> index >> type >> shape >> kind) || tag != "arg" ||
          index != a || !mpt::run::parseElementKind(type, arg.type) ||
          !parseShape(shape, arg.shape))
        return fail(check.step + ": malformed argument #" + std::to_string(a));
      arg.elements = numElements(arg.shape);
      mpt::run::Draw &draw = arg.draw;
      draw.stream = unsigned(a);
      bool ok = true;
      if (kind == "values") {
        draw.kind = mpt::run::Draw::Kind::values;
        size_t n = 0;
        ok = bool(in >> n);
        draw.values.resize(n);
        for (double &v : draw.values)
          ok = ok && bool(in >> v);
      } else if (kind == "first") {
        draw.kind = mpt::run::Draw::Kind::first;
        draw.values.resize(1);
        ok = bool(in >> draw.values[0]);
      } else if (kind == "integers") {
        draw.kind = mpt::run::Draw::Kind::integers;
        ok = bool(in >> arg.seed >> draw.stream >> draw.bound);
      } else if (kind == "normal") {
        draw.kind = mpt::run::Draw::Kind::normal;
        std::string logical;
        ok = bool(in >> arg.seed >> draw.stream >> draw.stddev >> logical);
        if (ok && logical != "-") {
          draw.shape = arg.shape;
          ok = parseShape(logical, draw.logicalShape) &&
               draw.logicalShape.size() == arg.shape.size();
        }
      } else {
        ok = false;
      }
      if (!ok)
        return fail(check.step + ": malformed draw of argument #" +
                    std::to_string(a));
      check.arguments.push_back(arg);
    }
    for (size_t r = 0; r < numResults; ++r) {
      Result result;
      std::string tag, type, shape;
      size_t index, count;
      bool ok = (in >> tag >> index >> type >> shape >> result.base >>
                 result.stride >> count) &&
                parseShape(shape, result.shape);
      result.elements = numElements(result.shape);
      if (!ok || tag != "result" || index != r ||
          !mpt::run::parseElementKind(type, result.type) ||
          result.base >= int(numArguments) || result.stride < 1 ||
          int64_t(count - 1) * result.stride >= result.elements)
        return fail(check.step + ": malformed result #" + std::to_string(r));
      result.reference.resize(count);
      for (double &v : result.reference) {
        if (!(in >> v))
          return fail(check.step + ": malformed values of result #" +
                      std::to_string(r));
        // The value the result's type holds (9 digits give back an f32
        // exactly only once rounded to f32).
        uint8_t bytes[8];
        mpt::run::storeElement(result.type, bytes, 0, v);
        v = mpt::run::loadElement(result.type, bytes, 0);
      }
      check.results.push_back(result);
    }
    if (!(in >> word) || word != "end")
      return fail(check.step + ": expected 'end'");
    checks.push_back(check);
  }
  return true;
}

inline const Check *findCheck(const std::vector<Check> &checks,
                              const std::string &step) {
  for (const Check &c : checks)
    if (c.step == step)
      return &c;
  return nullptr;
}

/// The bytes of `arg` as mpt-run drew them.
inline std::vector<uint8_t> drawArgument(const Argument &arg) {
  std::vector<uint8_t> bytes(
      size_t(arg.elements) * mpt::run::getElementSize(arg.type), 0);
  mpt::run::forEachDrawnValue(
      arg.draw, arg.seed, arg.elements, [&](int64_t i, double value) {
        mpt::run::storeElement(arg.type, bytes.data(), i, value);
      });
  return bytes;
}

/// What compare() found.
struct Verdict {
  /// The error of each result.
  std::vector<double> errors;
  /// The largest error, and the result that has it.
  double error = 0;
  int worst = -1;
  bool ok = false;
};

/// An update smaller (in RMS) than this fraction of the step's largest one
/// is compared with that fraction instead: it is rounding noise, such as the
/// update of attention's K bias, whose gradient is zero in exact arithmetic.
constexpr double kUpdateFloor = 1e-2;

/// Compares the results of a run (`results[r]`: the bytes of result r) with
/// the reference; `arguments` are the drawn arguments.
inline Verdict compare(const Check &check,
                       const std::vector<std::vector<uint8_t>> &arguments,
                       const std::vector<std::vector<uint8_t>> &results) {
  struct Sums {
    double difference = 0, norm = 0;
    bool finite = true;
  };
  std::vector<Sums> sums(check.results.size());
  double largestUpdate = 0;
  for (size_t r = 0; r < check.results.size(); ++r) {
    const Result &result = check.results[r];
    const Argument *base =
        result.base >= 0 ? &check.arguments[result.base] : nullptr;
    Sums &sum = sums[r];
    for (size_t s = 0; s < result.reference.size(); ++s) {
      int64_t i = int64_t(s) * result.stride;
      double offset = base && i < base->elements
                          ? mpt::run::loadElement(
                                base->type, arguments[result.base].data(), i)
                          : 0.0;
      double out =
          mpt::run::loadElement(result.type, results[r].data(), i) - offset;
      double ref = result.reference[s] - offset;
      if (!std::isfinite(out) && std::isfinite(ref))
        sum.finite = false;
      sum.difference += (out - ref) * (out - ref);
      sum.norm += ref * ref;
    }
    if (base && !result.reference.empty())
      largestUpdate = std::max(
          largestUpdate, std::sqrt(sum.norm / double(result.reference.size())));
  }
  Verdict verdict;
  for (size_t r = 0; r < check.results.size(); ++r) {
    const Sums &sum = sums[r];
    double norm = std::sqrt(sum.norm);
    if (check.results[r].base >= 0)
      norm = std::max(norm,
                      kUpdateFloor * largestUpdate *
                          std::sqrt(double(check.results[r].reference.size())));
    double error = !sum.finite ? std::numeric_limits<double>::infinity()
                   : norm > 0  ? std::sqrt(sum.difference) / norm
                               : std::sqrt(sum.difference);
    verdict.errors.push_back(error);
    if (verdict.worst < 0 || !(error <= verdict.error)) {
      verdict.error = error;
      verdict.worst = int(r);
    }
  }
  verdict.ok = verdict.error <= check.tolerance;
  return verdict;
}

} // namespace stepcheck

#endif // MPT_BENCH_GPU_STEP_CHECK_H
