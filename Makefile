# mpt: `make run` and `make test` install what is missing, configure, build
# incrementally and run. See README.md.

BUILD ?= build
LLVM_DIR := /usr/lib/llvm-22
CMAKE_FLAGS := -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld

.PHONY: all deps configure build run test docs format clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: configure
	@ninja -C $(BUILD)

run: build
	@bash scripts/run-example.sh $(BUILD)

test: build
	@bash scripts/run-tests.sh $(BUILD)

# Refresh the generated reference docs (checked by a lit test).
docs: build
	@bash scripts/gen-docs.sh $(BUILD) docs
	@echo "generated docs updated: docs/Dialects/MPT.md docs/Passes.md docs/ConversionPasses.md docs/PrecisionPolicy.md docs/Targets.md"

format:
	@git ls-files '*.cpp' '*.h' '*.c' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
