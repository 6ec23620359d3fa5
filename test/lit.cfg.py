# -*- Python -*-
# lit configuration of the mpt test suite.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "MPT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c", ".py"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mpt_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mpt_src_root", config.mpt_src_root))
config.substitutions.append(("%mpt_obj_root", config.mpt_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%cmake", config.cmake_executable))
config.substitutions.append(
    ("%check_casts", config.python_executable + " " +
     os.path.join(config.test_source_root, "Inputs", "check_casts.py")))
config.substitutions.append(
    ("%check_report", config.python_executable + " " +
     os.path.join(config.test_source_root, "Inputs", "check_report.py")))
config.substitutions.append(
    ("%extract_kernels", config.python_executable + " " +
     os.path.join(config.mpt_src_root, "scripts", "extract-kernels.py")))
config.substitutions.append(("%c_compiler", config.c_compiler))
config.substitutions.append(("%cxx_compiler", config.cxx_compiler))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.mpt_tools_dir, append_path=True)

tools = ["mpt-opt", "mpt-run", "mpt-capi-test"]
llvm_config.add_tool_substitutions(tools, [config.mpt_tools_dir, config.llvm_tools_dir])

# The CUDA toolkit as mpt-lower-to-nvvm looks for it: ptxas (cubins) and
# libdevice (the math functions of SIMT kernels). Tests that assemble
# kernels need both; the PTX tests need neither.
for root in [os.environ.get(v) for v in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]:
    if root and os.path.exists(os.path.join(root, "bin", "ptxas")) and \
            os.path.exists(os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")):
        config.available_features.add("cuda-toolkit")
        config.substitutions.append(("%ptxas", os.path.join(root, "bin", "ptxas")))
        nvcc = os.path.join(root, "bin", "nvcc")
        if os.path.exists(nvcc):
            config.available_features.add("nvcc")
            config.substitutions.append(("%nvcc", nvcc))
        break
if getattr(config, "mpt_cuda_runtime", "0") in ("1", "ON", "TRUE"):
    config.available_features.add("cuda-runtime")
