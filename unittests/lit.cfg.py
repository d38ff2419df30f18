# lit configuration that runs the GoogleTest binaries (*Tests) under unittests/.
import os

import lit.formats

config.name = "lld-offload-unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.lld_offload_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# Under the sanitizer build, the sanitizers' options (test/sanitizers.py).
import sys
sys.path.insert(0, os.path.join(config.lld_offload_src_root, "test"))
import sanitizers
sanitizers.configure(config)
