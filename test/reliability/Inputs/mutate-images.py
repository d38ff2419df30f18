#!/usr/bin/env python3
"""Links mutated device images with ld.lld-offload and checks that each link
ends in success or in a clean error: never a signal, never a silent exit
code, never a file left in TMPDIR or a partial output.

  mutate-images.py LD_LLD_OFFLOAD WORK_DIR OBJECT KIND COUNT SEED

OBJECT is a host object from clang-22 with one device image in
.llvm.offloading (an OpenMP unit for a CPU, a HIP unit for AMDGPU). For
each of COUNT variants, 8 bytes of the image (never the OffloadBinary
header) are changed at positions drawn from SEED; the image is packed again
with llvm-offload-binary and put back with llvm-objcopy; the object is
linked with `ld.lld-offload -shared`. Prints one line per outcome kind and
exits 1 if any link broke the rules.
"""
import os
import random
import shutil
import subprocess
import sys

LLVM = "/usr/lib/llvm-22/bin"


def main():
    linker, work, obj, kind, count, seed = sys.argv[1:7]
    count, seed = int(count), int(seed)
    os.makedirs(work, exist_ok=True)
    # The image and its strings, as llvm-offload-binary extracts them.
    section = os.path.join(work, "section.bin")
    subprocess.check_call([os.path.join(LLVM, "llvm-objcopy"),
                           "--dump-section=.llvm.offloading=" + section, obj,
                           os.path.join(work, "scratch.o")])
    out = subprocess.check_output(
        [os.path.join(LLVM, "llvm-objdump"), "--offloading", obj], text=True)
    strings = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("arch", "triple", "producer",
                                            "kind"):
            strings[parts[0]] = parts[1]
    image = os.path.join(work, "image")
    subprocess.check_call([os.path.join(LLVM, "llvm-offload-binary"), section,
                           "--image=file=%s,triple=%s,arch=%s" % (
                               image, strings["triple"], strings["arch"])])
    with open(image, "rb") as f:
        original = f.read()
    rng = random.Random(seed)
    tmp = os.path.join(work, "tmp")
    outcomes = {}
    bad = []
    for n in range(count):
        data = bytearray(original)
        for _ in range(8):
            data[rng.randrange(len(data))] = rng.randrange(256)
        # llvm-offload-binary tells the image kind by the extension.
        variant = os.path.join(work, "image.%d.%s" % (
            n, "bc" if original.startswith(b"BC") else "o"))
        with open(variant, "wb") as f:
            f.write(data)
        packed = os.path.join(work, "packed.%d.bin" % n)
        subprocess.check_call([
            os.path.join(LLVM, "llvm-offload-binary"), "-o", packed,
            "--image=file=%s,triple=%s,arch=%s,kind=%s" % (
                variant, strings["triple"], strings["arch"],
                strings["producer"])])
        mutated = os.path.join(work, "mutated.%d.o" % n)
        subprocess.check_call([
            os.path.join(LLVM, "llvm-objcopy"),
            "--update-section=.llvm.offloading=" + packed, obj, mutated])
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        output = os.path.join(work, "out.%d.so" % n)
        proc = subprocess.run(
            [linker, mutated, "-shared", "-o", output],
            env=dict(os.environ, TMPDIR=tmp), capture_output=True, text=True,
            errors="replace")
        rc = proc.returncode
        if rc == 0:
            outcome = "linked"
        elif rc == 1 and "error:" in proc.stderr:
            outcome = "error"
        else:
            outcome = "BROKEN (exit %d)" % rc
            bad.append((n, rc, proc.stderr[-600:]))
        if os.listdir(tmp):
            bad.append((n, rc, "left in TMPDIR: %s" % os.listdir(tmp)))
        if rc != 0 and os.path.exists(output):
            bad.append((n, rc, "an output after a failure"))
        if "PLEASE submit" in proc.stderr:
            bad.append((n, rc, "a crash report"))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    for outcome in sorted(outcomes):
        print("%s: %s" % (outcome, "any" if outcomes[outcome] else 0))
    for n, rc, why in bad:
        print("variant %d (%s, exit %d): %s" % (n, kind, rc, why))
    print("%d variants, %d broke the rules" % (count, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
