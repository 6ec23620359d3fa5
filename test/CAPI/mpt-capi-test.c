/*===- mpt-capi-test.c - the mpt C API, used from C ----------------------===*/
// RUN: mpt-capi-test 2>&1 | FileCheck %s

#include "mpt-c/Dialects.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>

static void printToStdout(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stdout);
}

static MlirContext makeContext(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mptRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  return ctx;
}

static const char *kModule =
    "func.func @f(%x: tensor<4x8xf32> {mpt.role = #mpt.role<input>},\n"
    "             %w: tensor<8x16xf32> {mpt.role = #mpt.role<parameter>})\n"
    "    -> tensor<4x16xf16> {\n"
    "  %y = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>)"
    " -> tensor<4x16xf32>\n"
    "  %a = mpt.cast %y : tensor<4x16xf32> to tensor<4x16xf32>\n"
    "  %h = mpt.cast %a : tensor<4x16xf32> to tensor<4x16xf16>\n"
    "  return %h : tensor<4x16xf16>\n"
    "}\n";

int main(void) {
  /* Keep stdout and the diagnostics on stderr in order. */
  setvbuf(stdout, NULL, _IONBF, 0);
  MlirContext ctx = makeContext();

  /* The dialect handle loads the dialect. */
  MlirDialectHandle handle = mlirGetDialectHandle__mpt__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(handle);
  printf("namespace: %.*s\n", (int)ns.length, ns.data);
  // CHECK: namespace: mpt

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    return 1;
  }
  MlirOperation op = mlirModuleGetOperation(module);
  printf("verified: %d\n", mlirOperationVerify(op));
  // CHECK: verified: 1

  /* Passes registered through the C API run from a textual pipeline. */
  mptRegisterAllPasses();
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString("builtin.module(canonicalize)"),
      printToStdout, NULL);
  if (mlirLogicalResultIsFailure(parsed))
    return 2;
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, op)))
    return 3;
  mlirOperationPrint(op, printToStdout, NULL);
  printf("\n");
  // The identity cast folds away: one cast remains.
  // CHECK: mpt.matmul
  // CHECK-NEXT: mpt.cast %{{.*}} : tensor<4x16xf32> to tensor<4x16xf16>
  // CHECK-NEXT: return
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);

  /* Embedders build the whole mixed-precision training pipeline from its
   * registered name (the C++ function mpt::buildAMPPipeline behind it). */
  MlirModule model = mlirModuleCreateParse(
      ctx,
      mlirStringRefCreateFromCString(
          "func.func @m(%x: tensor<4x8xf32> {mpt.role = #mpt.role<input>},\n"
          "  %w: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},\n"
          "  %y: tensor<4xi64> {mpt.role = #mpt.role<label>})\n"
          "    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {\n"
          "  %l = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x3xf32>)"
          " -> tensor<4x3xf32>\n"
          "  %c = mpt.softmax_cross_entropy %l, %y : (tensor<4x3xf32>, "
          "tensor<4xi64>) -> tensor<f32>\n"
          "  return %c : tensor<f32>\n}\n"));
  MlirPassManager amp = mlirPassManagerCreate(ctx);
  if (mlirLogicalResultIsFailure(mlirParsePassPipeline(
          mlirPassManagerGetAsOpPassManager(amp),
          mlirStringRefCreateFromCString(
              "builtin.module(mpt-amp-pipeline{type=f16 optimizer=adam "
              "loss-scaling=dynamic growth-interval=100})"),
          printToStdout, NULL)))
    return 4;
  if (mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(amp, mlirModuleGetOperation(model))))
    return 5;
  mlirOperationPrint(mlirModuleGetOperation(model), printToStdout, NULL);
  printf("\n");
  // CHECK: func.func @train_step(
  // CHECK: mpt.unscale_and_check
  // CHECK: mpt.adam_update
  // CHECK: mpt.update_scale {{.*}} growth_interval = 100
  mlirPassManagerDestroy(amp);
  mlirModuleDestroy(model);

  /* A module that breaks a verifier rule does not parse. */
  MlirModule bad = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @g(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>) {\n"
               "  %y = mpt.matmul %a, %b : (tensor<4x8xf32>, "
               "tensor<7x16xf32>) -> tensor<4x16xf32>\n"
               "  return\n}\n"));
  printf("bad module rejected: %d\n", mlirModuleIsNull(bad));
  // CHECK: contracting dimensions differ
  // CHECK: bad module rejected: 1

  mlirContextDestroy(ctx);
  return 0;
}
