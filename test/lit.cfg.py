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
    ToolSubst("%offload-wrapper", os.path.join(config.lld_offload_tools_dir,
                                               "offload-wrapper")),
    ToolSubst("%offload-bundler", os.path.join(config.lld_offload_tools_dir,
                                               "offload-bundler")),
    ToolSubst("%offload-inspect", os.path.join(config.lld_offload_tools_dir,
                                               "offload-inspect")),
    ToolSubst("%offload-prune", os.path.join(config.lld_offload_tools_dir,
                                             "offload-prune")),
    ToolSubst("%ld-offload", os.path.join(config.lld_offload_tools_dir,
                                          "ld.lld-offload")),
    ToolSubst("%llvm-bin", config.llvm_tools_dir),
]
llvm_config.add_tool_substitutions(tools)
config.substitutions.append(("%host-triple", config.host_triple))
config.substitutions.append(("%llvm-lib", config.llvm_lib_dir))

# Under the sanitizer build: the features "asan" and "ubsan", and the
# sanitizers' options for every test.
import sys
sys.path.insert(0, os.path.dirname(__file__))
import sanitizers
sanitizers.configure(config)

# offload-bundler, offload-packager and offload-inspect link LLVM's static
# libraries instead of libLLVM.so (LLD_OFFLOAD_STATIC_TOOLS).
if config.lld_offload_static_tools:
    config.available_features.add("static-llvm-tools")

# Tests that run offload programs need LLVM 22's offload runtime.
if os.path.exists(os.path.join(config.llvm_lib_dir, "libomptarget.so")):
    config.available_features.add("libomptarget")
config.environment["LD_LIBRARY_PATH"] = config.llvm_lib_dir
# Offloaded programs must run on the offload device, never fall back.
config.environment["OMP_TARGET_OFFLOAD"] = "MANDATORY"

# Compiling OpenMP for the host's CPU as offload target, and linking through
# clang with ld.lld-offload as the linker.
config.substitutions.append(
    ("%clang-omp", "clang -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu"))
config.substitutions.append(
    ("%link-offload", "-fuse-ld=lld --ld-path=" +
     os.path.join(config.lld_offload_tools_dir, "ld.lld-offload")))

import shutil
if shutil.which("zstd"):
    config.available_features.add("zstd-tool")

# comgr (libamd_comgr; Debian 12: libamd-comgr-dev 5.2.3), the HIP runtime's
# code object lookup: tests compile a small C program against it, so the
# header and the unversioned library (the -dev package's link) must be there.
# %comgr-cflags: where <amd_comgr.h> is (newer ROCm puts it in amd_comgr/).
import glob
import subprocess
def _comgr_include_dir():
    for d in ("/usr/include", "/usr/include/amd_comgr"):
        if os.path.exists(os.path.join(d, "amd_comgr.h")):
            return d
    return None
def _has_comgr_library():
    if glob.glob("/usr/lib/x86_64-linux-gnu/libamd_comgr.so"):
        return True
    try:
        cache = subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True).stdout
    except OSError:
        return False
    return any(line.split()[0] == "libamd_comgr.so"
               for line in cache.splitlines()[1:] if line.strip())
comgr_include_dir = _comgr_include_dir()
if comgr_include_dir and _has_comgr_library():
    config.available_features.add("comgr")
    config.substitutions.append(
        ("%comgr-cflags", "" if comgr_include_dir == "/usr/include"
         else "-I" + comgr_include_dir))

# CUDA tests need a toolkit (nvlink, fatbinary, cudart); where it lives can be
# set with CUDA_PATH.
cuda_path = os.environ.get("CUDA_PATH", "/usr/local/cuda")
if all(os.path.exists(os.path.join(cuda_path, p))
       for p in ("bin/nvlink", "bin/fatbinary", "lib64/libcudart_static.a")):
    config.available_features.add("cuda")
    config.substitutions.append(("%cuda-path", cuda_path))

# Fault tests fill a small file system: only where tmpfs can be mounted (as
# root, outside a container that forbids it).
import subprocess
import tempfile
def _can_mount_tmpfs():
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    d = tempfile.mkdtemp(prefix="lit-tmpfs-")
    try:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", d],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            return False
        subprocess.run(["umount", d])
        return True
    finally:
        os.rmdir(d)
if _can_mount_tmpfs():
    config.available_features.add("tmpfs-mount")

# Tests of sizes past 4 GiB use sparse input files (`truncate -s 5G`), which
# cost nothing, but the tools' outputs are real data: at most about 10 GiB at
# a time. Only where the file system keeps holes and has that room, with a
# margin.
def _large_sparse_files(path):
    os.makedirs(path, exist_ok=True)
    if shutil.disk_usage(path).free < 24 << 30:
        return False
    probe = tempfile.NamedTemporaryFile(dir=path, prefix="sparse-probe-")
    try:
        probe.truncate(5 << 30)
        probe.flush()
        return os.stat(probe.name).st_blocks * 512 < (1 << 20)
    except OSError:
        return False
    finally:
        probe.close()
if _large_sparse_files(config.test_exec_root):
    config.available_features.add("large-sparse-files")

# nginx (with WebDAV) for the remote-cache tests; its executable is usually
# in /usr/sbin, which a normal user's PATH may lack.
if shutil.which("nginx") or os.path.exists("/usr/sbin/nginx"):
    config.available_features.add("nginx")
# The remote-cache tests' servers are local: never through a proxy that the
# environment may name.
config.environment["no_proxy"] = "127.0.0.1,localhost"
config.environment["NO_PROXY"] = "127.0.0.1,localhost"
