# lit configuration for the tool and end-to-end tests.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "lld-offload"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".test", ".c", ".ll", ".s", ".yaml"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.lld_offload_obj_root, "test")

# Our tools first, then LLVM 22's: `clang`, `ld.lld`, `llvm-offload-binary`
# and friends in a RUN line are always the reference versions.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.lld_offload_tools_dir,
                             append_path=True)
llvm_config.use_default_substitutions()  # FileCheck, not, count, split-file

tools = [
    ToolSubst("%offload-packager", os.path.join(config.lld_offload_tools_dir,
                                                "offload-packager")),
    ToolSubst("%llvm-bin", config.llvm_tools_dir),
]
llvm_config.add_tool_substitutions(tools)
config.substitutions.append(("%host-triple", config.host_triple))

# Tests that compile offload programs need clang-22 with its OpenMP runtime.
if os.path.exists(os.path.join(config.llvm_lib_dir, "libomptarget.so")):
    config.available_features.add("libomptarget")
