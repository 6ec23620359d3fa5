//===- mpt-run.cpp - JIT-compile and run mpt programs on the CPU ----------===//
//
// Parses an mpt program, reads the signature of its entry function (tensor
// types and `mpt.role`s), lowers it with mpt-lower-to-cpu, JIT-compiles it
// with MLIR's ExecutionEngine and calls it on arguments read from .npy files
// or drawn at random by role. With --steps=N it runs a training loop: the
// results that have the role of an argument (parameter, optimizer_state,
// loss_scale_state) are fed back as those arguments.
//
//   mpt-run examples/mlp.mlir --seed=1
//   mpt-run model.mlir --input=x.npy --input=w.npy --output-dir=out --json
//   mpt-run train_step.mlir --steps=100
//
//===----------------------------------------------------------------------===//

#include "Inputs.h"
#include "Jit.h"
#include "Signature.h"
#include "Tensors.h"

#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/InitAll.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <optional>

using namespace mlir;
using namespace mpt::run;
using mpt::Role;
namespace cl = llvm::cl;

static cl::OptionCategory runCategory("mpt-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<mpt program>"),
                                          cl::init("-"), cl::cat(runCategory));

static cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the first public one)"),
              cl::value_desc("name"), cl::cat(runCategory));

static cl::list<std::string> inputPaths(
    "input",
    cl::desc("Argument values, one .npy file per argument, in order. dtypes: "
             "<f4 (f32), <f8 (f64), <f2 (f16), <i8 (i64), <i4 (i32); bf16 "
             "arguments take float32 files, rounded to nearest even"),
    cl::value_desc("path.npy"), cl::cat(runCategory));

static cl::opt<uint64_t>
    seed("seed",
         cl::desc("Seed of the random arguments drawn by role when no "
                  "--input is given (see tools/mpt-run/README.md)"),
         cl::init(0), cl::cat(runCategory));

static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write result #i to DIR/result_<i>.npy (bf16 as "
                       "float32)"),
              cl::value_desc("dir"), cl::cat(runCategory));

static cl::opt<bool> emitJson("json",
                              cl::desc("Print a JSON summary on stdout"),
                              cl::cat(runCategory));

static cl::opt<unsigned> numSteps(
    "steps",
    cl::desc("Training mode: call the entry N times, feeding the parameter, "
             "optimizer_state and loss_scale_state results back as the "
             "arguments of that role, and print the loss of each step"),
    cl::value_desc("N"), cl::init(0), cl::cat(runCategory));

static cl::list<std::string> stepInputs(
    "step-input",
    cl::desc("Training mode: argument K takes row (step - 1) mod N of an "
             "N x (argument shape) .npy file at each step (one batch per "
             "step); repeatable"),
    cl::value_desc("K=path.npy"), cl::cat(runCategory));

static cl::opt<bool> saveSteps(
    "save-steps",
    cl::desc("Training mode with --output-dir: also write the results of "
             "every step to DIR/step_<s>/result_<i>.npy"),
    cl::cat(runCategory));

static cl::opt<std::string> emulateGPU(
    "emulate-gpu",
    cl::desc("Run the GPU kernels that mpt-lower-to-nvvm builds (SIMT and "
             "mma.sync) in mpt's GPU emulator on the CPU, with these "
             "mpt-emulate-gpu options (e.g. \"chip=sm_80 stages=3\"; - for "
             "the defaults)"),
    cl::value_desc("options"), cl::cat(runCategory));

static cl::opt<unsigned> misalignArguments(
    "misalign-arguments",
    cl::desc("Pass each argument in a copy whose first element lies N bytes "
             "past a 64-byte boundary, to check what the lowered function "
             "requires of its callers' buffers (default 0: aligned)"),
    cl::value_desc("N"), cl::init(0), cl::cat(runCategory));

static cl::opt<unsigned> optLevel("opt-level",
                                  cl::desc("LLVM optimization level (0-3)"),
                                  cl::init(2), cl::cat(runCategory));

static cl::list<std::string>
    sharedLibs("shared-libs",
               cl::desc("Shared libraries the compiled code may call (default: "
                        "libmlir_c_runner_utils)"),
               cl::CommaSeparated, cl::value_desc("path"),
               cl::cat(runCategory));

/// How many leading elements summaries show.
static constexpr unsigned kNumFirst = 8;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// "%.2f".
static std::string formatMs(double ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", ms);
  return buffer;
}

/// A number for JSON: integers of integer tensors as integers, non-finite
/// floats as the strings "nan", "inf" and "-inf".
static llvm::json::Value toJson(double value, ElementKind kind) {
  if (!std::isfinite(value))
    return formatValue(value, kind);
  if (!isFloatKind(kind))
    return static_cast<int64_t>(value);
  return value;
}

namespace {
/// Where the value of an argument came from.
struct ArgumentSource {
  /// The .npy path, or "" when drawn at random.
  std::string path;
  /// The random distribution, when drawn at random.
  std::string distribution;
  /// How it was drawn, when drawn at random.
  Draw draw;
};

/// The argument values and their sources.
struct Arguments {
  llvm::SmallVector<HostTensor> tensors;
  llvm::SmallVector<ArgumentSource> sources;
};

/// A result fed back as an argument in training mode.
struct Feedback {
  unsigned result;
  unsigned argument;
};

/// One step of training mode.
struct StepRecord {
  unsigned step;
  std::optional<double> loss;
  std::optional<double> scale;
  double ms;
  /// The first element of every loss_scale_state result, in order.
  llvm::SmallVector<double, 3> scaleState;
};

/// Per-step values of one argument (--step-input).
struct StepInput {
  unsigned argument;
  llvm::SmallVector<HostTensor> rows;
};

/// Everything printed at the end.
struct RunRecord {
  double lowerMs = 0;
  double jitMs = 0;
  double runMs = 0;
  unsigned numCalls = 0;
  llvm::SmallVector<StepRecord> steps;
  llvm::SmallVector<HostTensor> results;
  /// The .npy file of each result, when --output-dir is given.
  llvm::SmallVector<std::string> resultPaths;
};
} // namespace

/// Reads or draws the value of every argument.
static llvm::Expected<Arguments>
prepareArguments(const EntrySignature &signature) {
  Arguments arguments;
  if (!inputPaths.empty() && inputPaths.size() != signature.arguments.size())
    return makeError("@" + signature.name + " takes " +
                     llvm::Twine(signature.arguments.size()) + " argument" +
                     (signature.arguments.size() == 1 ? "" : "s") + ", but " +
                     llvm::Twine(inputPaths.size()) + " --input " +
                     (inputPaths.size() == 1 ? "file was" : "files were") +
                     " given (one per argument, in order)");
  for (const TensorSpec &spec : signature.arguments) {
    ArgumentSource source;
    if (!inputPaths.empty()) {
      source.path = inputPaths[spec.index];
      llvm::Expected<HostTensor> tensor = loadArgument(spec, source.path);
      if (!tensor)
        return tensor.takeError();
      arguments.tensors.push_back(std::move(*tensor));
    } else {
      source.draw = chooseDraw(spec, source.distribution);
      arguments.tensors.push_back(makeRandomArgument(spec, source.draw, seed));
    }
    arguments.sources.push_back(std::move(source));
  }
  return arguments;
}

/// Reads the --step-input files.
static llvm::Expected<llvm::SmallVector<StepInput>>
prepareStepInputs(const EntrySignature &signature) {
  llvm::SmallVector<StepInput> result;
  if (!stepInputs.empty() && numSteps == 0)
    return makeError("--step-input needs --steps");
  for (llvm::StringRef text : stepInputs) {
    auto [indexText, path] = text.split('=');
    unsigned index;
    if (path.empty() || indexText.getAsInteger(10, index))
      return makeError("--step-input=" + text +
                       ": expected K=path.npy with K an argument index");
    if (index >= signature.arguments.size())
      return makeError("--step-input=" + text + ": @" + signature.name +
                       " has " + llvm::Twine(signature.arguments.size()) +
                       " arguments (0 to " +
                       llvm::Twine(signature.arguments.size() - 1) + ")");
    if (llvm::any_of(result,
                     [&](const StepInput &in) { return in.argument == index; }))
      return makeError("--step-input: argument " + llvm::Twine(index) +
                       " is given twice");
    llvm::Expected<llvm::SmallVector<HostTensor>> rows =
        loadStepArgument(signature.arguments[index], path);
    if (!rows)
      return rows.takeError();
    result.push_back({index, std::move(*rows)});
  }
  return result;
}

/// Pairs the results with the arguments they replace in training mode: the
/// k-th result of role parameter, optimizer_state or loss_scale_state feeds
/// the k-th argument of that role, if their types match.
static llvm::SmallVector<Feedback>
matchFeedback(const EntrySignature &signature) {
  llvm::SmallVector<Feedback> feedback;
  for (Role role :
       {Role::parameter, Role::optimizer_state, Role::loss_scale_state}) {
    llvm::SmallVector<const TensorSpec *> arguments, results;
    for (const TensorSpec &spec : signature.arguments)
      if (spec.role == role)
        arguments.push_back(&spec);
    for (const TensorSpec &spec : signature.results)
      if (spec.role == role)
        results.push_back(&spec);
    for (auto [argument, result] : llvm::zip(arguments, results)) {
      if (argument->kind == result->kind && argument->shape == result->shape) {
        feedback.push_back({result->index, argument->index});
        continue;
      }
      llvm::WithColor::warning(llvm::errs(), "mpt-run")
          << result->describe() << " has type " << result->getTypeString()
          << " but " << argument->describe() << " has type "
          << argument->getTypeString() << "; it is not fed back\n";
    }
  }
  return feedback;
}

/// The result printed as the loss: the first of role loss, else the first
/// scalar float result.
static std::optional<unsigned> findLossResult(const EntrySignature &signature) {
  for (const TensorSpec &spec : signature.results)
    if (spec.role == Role::loss)
      return spec.index;
  for (const TensorSpec &spec : signature.results)
    if (spec.shape.empty() && isFloatKind(spec.kind))
      return spec.index;
  return std::nullopt;
}

/// The loss_scale_state results; the first is printed as the scale.
static llvm::SmallVector<unsigned>
findScaleResults(const EntrySignature &signature) {
  llvm::SmallVector<unsigned> result;
  for (const TensorSpec &spec : signature.results)
    if (spec.role == Role::loss_scale_state)
      result.push_back(spec.index);
  return result;
}

/// The first element of `tensor`, if it has one.
static std::optional<double> getFirstElement(const HostTensor &tensor) {
  if (tensor.getNumElements() == 0)
    return std::nullopt;
  return tensor.getDouble(0);
}

static void printStep(llvm::raw_ostream &os, const StepRecord &step) {
  os << "step " << step.step << ":";
  if (step.loss)
    os << " loss " << formatValue(*step.loss, ElementKind::f64);
  if (step.scale)
    os << " scale " << formatValue(*step.scale, ElementKind::f64);
  if (step.scaleState.size() > 1) {
    os << " (state";
    for (double value : step.scaleState)
      os << " " << formatValue(value, ElementKind::f64);
    os << ")";
  }
  os << " (" << formatMs(step.ms) << " ms)\n";
}

/// Calls the entry once, or --steps times in training mode.
static llvm::Error writeTensors(llvm::ArrayRef<HostTensor> tensors,
                                llvm::StringRef dir,
                                llvm::SmallVectorImpl<std::string> *paths);

static llvm::Error runEntry(JitEntry &jit, const EntrySignature &signature,
                            llvm::SmallVectorImpl<HostTensor> &tensors,
                            llvm::ArrayRef<StepInput> perStep,
                            RunRecord &record) {
  if (numSteps == 0) {
    llvm::Expected<CallResult> result = jit.call(tensors);
    if (!result)
      return result.takeError();
    record.runMs = result->ms;
    record.numCalls = 1;
    record.results = std::move(result->results);
    return llvm::Error::success();
  }

  llvm::SmallVector<Feedback> feedback = matchFeedback(signature);
  std::optional<unsigned> lossIndex = findLossResult(signature);
  llvm::SmallVector<unsigned> scaleIndices = findScaleResults(signature);
  bool showProgress = llvm::sys::Process::StandardErrIsDisplayed();
  for (unsigned step = 1; step <= numSteps; ++step) {
    for (const StepInput &in : perStep)
      tensors[in.argument] = in.rows[(step - 1) % in.rows.size()].clone();
    if (showProgress)
      llvm::errs() << "\r[" << step << "/" << numSteps << "]";
    llvm::Expected<CallResult> result = jit.call(tensors);
    if (showProgress)
      llvm::errs() << "\r\033[K";
    if (!result)
      return result.takeError();

    StepRecord stepRecord{step, std::nullopt, std::nullopt, result->ms, {}};
    if (lossIndex)
      stepRecord.loss = getFirstElement(result->results[*lossIndex]);
    for (unsigned index : scaleIndices)
      if (std::optional<double> value = getFirstElement(result->results[index]))
        stepRecord.scaleState.push_back(*value);
    if (!scaleIndices.empty())
      stepRecord.scale = getFirstElement(result->results[scaleIndices[0]]);
    if (saveSteps && !outputDir.empty()) {
      llvm::SmallString<128> dir(outputDir);
      llvm::sys::path::append(dir, "step_" + std::to_string(step));
      if (llvm::Error error = writeTensors(result->results, dir, nullptr))
        return error;
    }
    record.steps.push_back(stepRecord);
    record.runMs += result->ms;
    ++record.numCalls;
    if (!emitJson) {
      printStep(llvm::outs(), stepRecord);
      llvm::outs().flush();
    }

    if (step == numSteps) {
      record.results = std::move(result->results);
      break;
    }
    for (const Feedback &pair : feedback)
      tensors[pair.argument] = std::move(result->results[pair.result]);
  }
  return llvm::Error::success();
}

/// Writes `tensors` to DIR/result_<i>.npy.
static llvm::Error writeTensors(llvm::ArrayRef<HostTensor> tensors,
                                llvm::StringRef dir,
                                llvm::SmallVectorImpl<std::string> *paths) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return makeError("cannot create " + dir + ": " + ec.message());
  for (auto [index, tensor] : llvm::enumerate(tensors)) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, "result_" + std::to_string(index) + ".npy");
    if (llvm::Error error = saveTensor(tensor, path))
      return error;
    if (paths)
      paths->push_back(path.str().str());
  }
  return llvm::Error::success();
}

/// Writes the results to --output-dir.
static llvm::Error writeResults(RunRecord &record) {
  if (outputDir.empty())
    return llvm::Error::success();
  return writeTensors(record.results, outputDir, &record.resultPaths);
}

/// Prints one line per argument: its type and where its value comes from.
static void printArguments(llvm::raw_ostream &os,
                           const EntrySignature &signature,
                           llvm::ArrayRef<ArgumentSource> sources) {
  for (auto [spec, source] : llvm::zip_equal(signature.arguments, sources))
    os << spec.describe() << ": " << spec.getTypeString() << " "
       << (source.path.empty() ? source.distribution : "from " + source.path)
       << "\n";
  os.flush();
}

/// Prints the results (unless training mode printed steps) and the times.
static void printResults(llvm::raw_ostream &os, const EntrySignature &signature,
                         const RunRecord &record) {
  if (numSteps == 0) {
    for (const TensorSpec &spec : signature.results) {
      const HostTensor &tensor = record.results[spec.index];
      os << spec.describe() << ": " << spec.getTypeString();
      if (tensor.getRank() == 0) {
        os << " = " << formatValue(tensor.getDouble(0), spec.kind) << "\n";
        continue;
      }
      TensorSummary summary = summarize(tensor, kNumFirst);
      if (summary.numNaN + summary.numInf < tensor.getNumElements())
        os << " min " << formatValue(summary.min, spec.kind) << " max "
           << formatValue(summary.max, spec.kind) << " mean "
           << formatValue(summary.mean, ElementKind::f64);
      if (summary.numZero)
        os << " zeros " << summary.numZero;
      if (summary.numNaN)
        os << " nan " << summary.numNaN;
      if (summary.numInf)
        os << " inf " << summary.numInf;
      os << " [";
      llvm::interleaveComma(summary.first, os, [&](double value) {
        os << formatValue(value, spec.kind);
      });
      if (tensor.getNumElements() > kNumFirst)
        os << ", ...";
      os << "]\n";
    }
  }
  if (!record.resultPaths.empty())
    os << "wrote " << record.resultPaths.size() << " result"
       << (record.resultPaths.size() == 1 ? "" : "s") << " to " << outputDir
       << "\n";
  os << "time: lower " << formatMs(record.lowerMs) << " ms, jit "
     << formatMs(record.jitMs) << " ms, run " << formatMs(record.runMs)
     << " ms";
  if (record.numCalls > 1)
    os << " (" << record.numCalls << " calls)";
  os << "\n";
}

/// Writes the attributes shared by inputs and outputs.
static void writeSpecJson(llvm::json::OStream &json, const TensorSpec &spec) {
  json.attribute("index", spec.index);
  if (!spec.name.empty())
    json.attribute("name", spec.name);
  if (spec.role)
    json.attribute("role", spec.getRoleName());
  json.attribute("type", spec.getTypeString());
  json.attribute("dtype", getElementName(spec.kind));
  json.attributeArray("shape", [&] {
    for (int64_t dim : spec.shape)
      json.value(dim);
  });
}

/// "draw": how an argument was drawn, for programs that draw it again (the
/// GPU benchmark's training steps, with tools/mpt-run/HostValues.h).
static void writeDrawJson(llvm::json::OStream &json, const Draw &draw) {
  json.attributeObject("draw", [&] {
    switch (draw.kind) {
    case Draw::Kind::values:
      json.attribute("kind", "values");
      json.attributeArray("values", [&] {
        for (double value : draw.values)
          json.value(value);
      });
      return;
    case Draw::Kind::first:
      json.attribute("kind", "first");
      json.attribute("value", draw.values.front());
      return;
    case Draw::Kind::integers:
      json.attribute("kind", "integers");
      json.attribute("bound", draw.bound);
      break;
    case Draw::Kind::normal:
      json.attribute("kind", "normal");
      json.attribute("stddev", draw.stddev);
      if (!draw.logicalShape.empty()) {
        json.attributeArray("logical_shape", [&] {
          for (int64_t dim : draw.logicalShape)
            json.value(dim);
        });
      }
      break;
    }
    json.attribute("seed", static_cast<uint64_t>(seed));
    json.attribute("stream", static_cast<int64_t>(draw.stream));
  });
}

static void printJson(llvm::raw_ostream &os, const EntrySignature &signature,
                      llvm::ArrayRef<ArgumentSource> sources,
                      const RunRecord &record) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("entry", signature.name);
    json.attributeArray("inputs", [&] {
      for (const TensorSpec &spec : signature.arguments)
        json.object([&] {
          const ArgumentSource &source = sources[spec.index];
          writeSpecJson(json, spec);
          if (source.path.empty()) {
            json.attribute("source", "random");
            json.attribute("distribution", source.distribution);
            writeDrawJson(json, source.draw);
          } else {
            json.attribute("source", source.path);
          }
        });
    });
    json.attributeArray("outputs", [&] {
      for (const TensorSpec &spec : signature.results)
        json.object([&] {
          const HostTensor &tensor = record.results[spec.index];
          writeSpecJson(json, spec);
          if (tensor.getRank() == 0) {
            json.attribute("value", toJson(tensor.getDouble(0), spec.kind));
          } else {
            // min, max and mean of the finite elements; null if none is.
            TensorSummary summary = summarize(tensor, kNumFirst);
            bool anyFinite =
                summary.numNaN + summary.numInf < tensor.getNumElements();
            auto finite = [&](double value, ElementKind kind) {
              return anyFinite ? toJson(value, kind)
                               : llvm::json::Value(nullptr);
            };
            json.attribute("min", finite(summary.min, spec.kind));
            json.attribute("max", finite(summary.max, spec.kind));
            json.attribute("mean", finite(summary.mean, ElementKind::f64));
            json.attribute("zeros", summary.numZero);
            json.attribute("nan", summary.numNaN);
            json.attribute("inf", summary.numInf);
            json.attributeArray("first", [&] {
              for (double value : summary.first)
                json.value(toJson(value, spec.kind));
            });
          }
          if (spec.index < record.resultPaths.size())
            json.attribute("file", record.resultPaths[spec.index]);
        });
    });
    if (numSteps > 0)
      json.attributeArray("steps", [&] {
        for (const StepRecord &step : record.steps)
          json.object([&] {
            json.attribute("step", step.step);
            json.attribute("loss", step.loss
                                       ? toJson(*step.loss, ElementKind::f64)
                                       : llvm::json::Value(nullptr));
            if (step.scale)
              json.attribute("scale", toJson(*step.scale, ElementKind::f64));
            if (!step.scaleState.empty())
              json.attributeArray("scale_state", [&] {
                for (double value : step.scaleState)
                  json.value(toJson(value, ElementKind::f64));
              });
            json.attribute("ms", step.ms);
          });
      });
    json.attributeObject("timing", [&] {
      json.attribute("lower_ms", record.lowerMs);
      json.attribute("jit_ms", record.jitMs);
      json.attribute("run_ms", record.runMs);
      json.attribute("calls", record.numCalls);
    });
  });
  os << "\n";
}

static llvm::Error run() {
  if (optLevel > 3)
    return makeError("--opt-level must be 0, 1, 2 or 3");
  DialectRegistry registry;
  mpt::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);

  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &message);
  if (!file)
    return makeError(message);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnosticHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return makeError("cannot parse " + inputFilename);

  llvm::Expected<func::FuncOp> entry = findEntry(*module, entryName);
  if (!entry)
    return entry.takeError();
  llvm::Expected<EntrySignature> signature =
      getEntrySignature(*entry, sourceMgr);
  if (!signature)
    return signature.takeError();
  eraseUnreachableFunctions(*module, *entry);
  llvm::Expected<Arguments> arguments = prepareArguments(*signature);
  if (!arguments)
    return arguments.takeError();
  llvm::Expected<llvm::SmallVector<StepInput>> perStep =
      prepareStepInputs(*signature);
  if (!perStep)
    return perStep.takeError();
  if (saveSteps && (outputDir.empty() || numSteps == 0))
    return makeError("--save-steps needs --steps and --output-dir");

  if (!emitJson)
    printArguments(llvm::outs(), *signature, arguments->sources);

  RunRecord record;
  auto start = std::chrono::steady_clock::now();
  if (llvm::Error error = lowerToCPU(*module, emulateGPU))
    return makeError("cannot lower @" + signature->name +
                     " to the CPU: " + llvm::toString(std::move(error)));
  record.lowerMs = millisecondsSince(start);

  JitOptions options;
  options.optLevel = optLevel;
  options.sharedLibs.assign(sharedLibs.begin(), sharedLibs.end());
  options.misalignArguments = misalignArguments;
  if (options.sharedLibs.empty())
    options.sharedLibs.push_back(MPT_C_RUNNER_UTILS);
  start = std::chrono::steady_clock::now();
  llvm::Expected<std::unique_ptr<JitEntry>> jit =
      JitEntry::create(*module, *signature, options);
  if (!jit)
    return jit.takeError();
  record.jitMs = millisecondsSince(start);

  if (llvm::Error error =
          runEntry(**jit, *signature, arguments->tensors, *perStep, record))
    return error;
  if (llvm::Error error = writeResults(record))
    return error;
  if (emitJson)
    printJson(llvm::outs(), *signature, arguments->sources, record);
  else
    printResults(llvm::outs(), *signature, record);
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mpt::registerAllPasses();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  // libLLVM.so registers hundreds of options; --help-hidden lists them, and
  // the MLIR ones (--mlir-print-ir-after-all, ...), too.
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mpt-run: JIT-compile an mpt program for the CPU and run it\n");

  if (llvm::Error error = run()) {
    llvm::WithColor::error(llvm::errs(), "mpt-run")
        << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  return 0;
}
