# Shared by test/lit.cfg.py and unittests/lit.cfg.py: how our binaries run
# when the build is instrumented (-DLLD_OFFLOAD_SANITIZE=ON; see
# docs/sanitizers.md).
import os


def configure(config):
    if not getattr(config, "lld_offload_sanitize", False):
        return
    config.available_features.add("asan")
    config.available_features.add("ubsan")
    test_dir = os.path.join(config.lld_offload_src_root, "test")
    # Every finding aborts (SIGABRT), so that `not tool ...` can never pass on
    # a sanitizer report: a plain exit status 1 would look like the clean
    # error the test expects.
    # allocator_may_return_null: LLVM sizes some buffers from the input and
    # allocates them with nothrow new, handling a null result (an error, not
    # a crash); without it ASan aborts where malloc would return null.
    config.environment["ASAN_OPTIONS"] = ":".join([
        "abort_on_error=1", "detect_leaks=1", "allocator_may_return_null=1",
        "strict_string_checks=1",
        # Full stacks for leaks: libLLVM.so has no frame pointers, and the
        # LLD suppression (test/lsan.supp) needs to see lld::lldMain.
        "fast_unwind_on_malloc=0",
        "suppressions=" + os.path.join(test_dir, "asan.supp"),
    ])
    config.environment["LSAN_OPTIONS"] = "suppressions=" + os.path.join(
        test_dir, "lsan.supp")
    config.environment["UBSAN_OPTIONS"] = ":".join([
        "abort_on_error=1", "halt_on_error=1", "print_stacktrace=1",
    ])
