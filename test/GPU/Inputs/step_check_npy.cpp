// The GPU benchmark's step check (bench/gpu/step_check.h) on .npy files,
// with the same code as step_bench:
//
//   step_check_npy draw CHECKS STEP DIR
//     draws the arguments of STEP as step_bench does and writes them to
//     DIR/arg_<i>.npy (for mpt-run --input: the run that step_bench makes
//     on the GPU, made here by the emulator or the CPU);
//   step_check_npy CHECKS STEP DIR
//     compares DIR/result_<i>.npy (mpt-run --output-dir) with the CPU
//     reference and prints each result's error, then
//     "STEP: error E (result #R), tolerance T: ok" or "... FAILED".

#include "step_check.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

/// The elements of the .npy file at `path` as doubles (little-endian f4, f8,
/// f2, i8, i4 or b1, C order), or false.
static bool readNpy(const std::string &path, std::vector<double> &values) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> data((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  if (data.size() < 10 || std::string(data.data() + 1, 5) != "NUMPY")
    return false;
  size_t headerLength, start;
  if (data[6] == 1) {
    headerLength = uint8_t(data[8]) | uint8_t(data[9]) << 8;
    start = 10;
  } else {
    headerLength = uint8_t(data[8]) | uint8_t(data[9]) << 8 |
                   uint8_t(data[10]) << 16 | uint32_t(uint8_t(data[11])) << 24;
    start = 12;
  }
  std::string header(data.data() + start, headerLength);
  if (header.find("'fortran_order': False") == std::string::npos)
    return false;
  size_t d = header.find("'descr': '") + 10;
  std::string descr = header.substr(d, header.find('\'', d) - d);
  mpt::run::ElementKind type;
  if (descr == "<f4")
    type = mpt::run::ElementKind::f32;
  else if (descr == "<f8")
    type = mpt::run::ElementKind::f64;
  else if (descr == "<f2")
    type = mpt::run::ElementKind::f16;
  else if (descr == "<i8")
    type = mpt::run::ElementKind::i64;
  else if (descr == "<i4")
    type = mpt::run::ElementKind::i32;
  else if (descr == "|b1")
    type = mpt::run::ElementKind::i1;
  else
    return false;
  const uint8_t *bytes =
      reinterpret_cast<const uint8_t *>(data.data() + start + headerLength);
  size_t count = (data.size() - start - headerLength) /
                 size_t(mpt::run::getElementSize(type));
  values.resize(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = mpt::run::loadElement(type, bytes, int64_t(i));
  return true;
}

/// Writes `bytes`, the elements of `arg`, to `path` as mpt-run reads them
/// (bf16 as float32).
static bool writeNpy(const std::string &path, const stepcheck::Argument &arg,
                     const std::vector<uint8_t> &bytes) {
  using mpt::run::ElementKind;
  const char *descr = arg.type == ElementKind::f64   ? "<f8"
                      : arg.type == ElementKind::f16 ? "<f2"
                      : arg.type == ElementKind::i64 ? "<i8"
                      : arg.type == ElementKind::i32 ? "<i4"
                      : arg.type == ElementKind::i1  ? "|b1"
                                                     : "<f4";
  std::string shape = "(";
  for (int64_t d : arg.shape)
    shape += std::to_string(d) + (arg.shape.size() == 1 ? "," : ", ");
  shape += ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t length = uint16_t(header.size());
  out.put(char(length & 0xff)).put(char(length >> 8));
  out << header;
  if (arg.type == ElementKind::bf16) {
    for (int64_t i = 0; i < arg.elements; ++i) {
      float v = float(mpt::run::loadElement(arg.type, bytes.data(), i));
      out.write(reinterpret_cast<const char *>(&v), 4);
    }
  } else {
    out.write(reinterpret_cast<const char *>(bytes.data()),
              std::streamsize(bytes.size()));
  }
  return bool(out);
}

int main(int argc, char **argv) {
  bool draw = argc == 5 && std::string(argv[1]) == "draw";
  if (draw) {
    ++argv;
    --argc;
  }
  if (argc != 4) {
    std::fprintf(stderr, "usage: step_check_npy [draw] CHECKS STEP DIR\n");
    return 2;
  }
  std::vector<stepcheck::Check> checks;
  std::string error;
  if (!stepcheck::loadChecks(argv[1], checks, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  const stepcheck::Check *check = stepcheck::findCheck(checks, argv[2]);
  if (!check) {
    std::fprintf(stderr, "%s: no check named %s\n", argv[1], argv[2]);
    return 2;
  }
  std::vector<std::vector<uint8_t>> arguments, results;
  for (const stepcheck::Argument &arg : check->arguments)
    arguments.push_back(stepcheck::drawArgument(arg));
  if (draw) {
    for (size_t a = 0; a < arguments.size(); ++a) {
      std::string path =
          std::string(argv[3]) + "/arg_" + std::to_string(a) + ".npy";
      if (!writeNpy(path, check->arguments[a], arguments[a])) {
        std::fprintf(stderr, "%s: cannot write\n", path.c_str());
        return 2;
      }
    }
    return 0;
  }
  for (size_t r = 0; r < check->results.size(); ++r) {
    const stepcheck::Result &result = check->results[r];
    std::string path =
        std::string(argv[3]) + "/result_" + std::to_string(r) + ".npy";
    std::vector<double> values;
    if (!readNpy(path, values) || int64_t(values.size()) != result.elements) {
      std::fprintf(stderr, "%s: unreadable or not %lld elements\n",
                   path.c_str(), (long long)result.elements);
      return 2;
    }
    std::vector<uint8_t> bytes(values.size() *
                               size_t(mpt::run::getElementSize(result.type)));
    for (size_t i = 0; i < values.size(); ++i)
      mpt::run::storeElement(result.type, bytes.data(), int64_t(i), values[i]);
    results.push_back(std::move(bytes));
  }
  stepcheck::Verdict verdict = stepcheck::compare(*check, arguments, results);
  for (size_t r = 0; r < verdict.errors.size(); ++r)
    std::printf("result #%zu: error %.2e\n", r, verdict.errors[r]);
  std::printf("%s: error %.2e (result #%d), tolerance %.0e: %s\n", argv[2],
              verdict.error, verdict.worst, check->tolerance,
              verdict.ok ? "ok" : "FAILED");
  return 0;
}
