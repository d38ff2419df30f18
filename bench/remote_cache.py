#!/usr/bin/env python3
"""The device-link cache's HTTP tier (--offload-remote-cache=) against a real
nginx (WebDAV) on this machine, in one run, medians of interleaved rounds:

  machine B   the HIP program of gpu_link.py for 4 and 10 AMDGPU archs,
              linked from another directory with an empty local cache after
              "machine A" filled the server: against clang's pipeline
              (clang --offload-link, which has no cache), and against a warm
              local-cache relink
  cold        a link whose lookups all miss (a namespace of its own each
              round), uploading beside the host link, against the same link
              with no cache
  dead        a server whose port is closed, against no cache
  unroutable  a server that never answers (10.255.255.1), connect-timeout
              of 100 ms: the link waits that long at most
  none        a link without a remote cache: libcurl is not loaded (ldd)

Machine B's floor: the warm local relink plus what no client of the server
can skip, the curl tool (the same libcurl, loaded the same way) fetching
what machine B fetches: the registration object (the largest entry of
those machine A's link put on the server: its fat binary holds every
image; the images are fetched only when it is missing).

  bench/remote_cache.py [--build BUILD] [--repeat 3] [--quick]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import gpu_link
from benchlib import timed

CLANG = gpu_link.CLANG
HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "..", "test", "ld.lld-offload", "Inputs",
                      "remote", "server.py")


def stored(srv):
    """The files of the server's store, as paths under its URL."""
    root = os.path.join(srv, "store")
    return {os.path.relpath(os.path.join(d, f), root)
            for d, _, files in os.walk(root) for f in files}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="smaller device code, 1 and 2 archs")
    args = parser.parse_args()
    linker = os.path.join(os.path.abspath(args.build), "bin",
                          "ld.lld-offload")
    funcs, kernels = (10, 5) if args.quick else (40, 20)
    sizes = (1, 2) if args.quick else (4, 10)
    work = tempfile.mkdtemp(prefix="lld-offload-remote-bench-")
    srv = os.path.join(work, "srv")
    # The server's watchdog ends it after an hour, not a test's 5 minutes.
    port = subprocess.check_output(
        [sys.executable, SERVER, "nginx", srv], text=True,
        env=dict(os.environ, LLD_OFFLOAD_SERVER_LIFETIME="3600")).strip()
    url = "http://127.0.0.1:" + port
    rows = []
    try:
        for n in sizes:
            a = os.path.join(work, "a%d" % n)
            b = os.path.join(work, "b%d" % n)
            os.makedirs(a)
            objects = gpu_link.make_program(a, gpu_link.ARCHS[:n], funcs,
                                            kernels)
            shutil.copytree(a, b)
            ours = [CLANG] + objects + ["-fuse-ld=lld", "--ld-path=" + linker,
                                        "-o", "out"]
            up = [CLANG, "--offload-link"] + objects + ["-fuse-ld=lld", "-o",
                                                        "up"]
            remote = "-Wl,--offload-remote-cache=" + url + "|namespace=b%d" % n
            # Machine A fills the server; a warm local cache for the relink.
            before = stored(srv)
            timed(ours + [remote, "-Wl,--offload-cache-dir=" +
                          os.path.join(a, "local")], a, quiet=True)
            entries = sorted(stored(srv) - before, key=lambda e: -os.path.getsize(
                os.path.join(srv, "store", e)))
            fetch = ["curl", "-s", "-f", url + "/" + entries[0], "-o",
                     "/dev/null"]
            t_b, t_up, t_warm, t_cold, t_none, t_dead, t_unr, t_fetch = (
                [], [], [], [], [], [], [], [])
            for r in range(args.repeat):
                local_b = os.path.join(b, "local%d" % r)
                runs = [
                    (t_b, ours + [remote, "-Wl,--offload-cache-dir=" + local_b], b),
                    (t_up, up, a),
                    (t_warm, ours + ["-Wl,--offload-cache-dir=" +
                                     os.path.join(a, "local")], a),
                    (t_cold, ours + ["-Wl,--offload-remote-cache=" + url +
                                     "|namespace=cold%d-%d" % (n, r)], a),
                    (t_none, ours, a),
                    (t_dead, ours + ["-Wl,--offload-remote-cache=http://127.0.0.1:1"], a),
                    (t_unr, ours + ["-Wl,--offload-remote-cache=http://10.255.255.1:8080|connect-timeout=100"], a),
                    (t_fetch, fetch, b),
                ]
                for times, cmd, cwd in (runs if r % 2 == 0 else runs[::-1]):
                    times.append(timed(cmd, cwd, quiet=True))
            m = {k: statistics.median(v) for k, v in (
                ("b", t_b), ("up", t_up), ("warm", t_warm), ("cold", t_cold),
                ("none", t_none), ("dead", t_dead), ("unr", t_unr),
                ("fetch", t_fetch))}
            rows.append((n, m))
    finally:
        subprocess.call([sys.executable, SERVER, "stop", srv])
        shutil.rmtree(work, ignore_errors=True)
    print("%-6s %9s %9s %9s %8s %9s %9s %9s %9s %9s %9s %9s %9s" % (
        "archs", "B s", "clang s", "warm s", "clang/B", "B/warm",
        "fetch s", "floor/warm", "B/floor", "cold s", "none s", "cold/none",
        "dead/none") + " %11s" % "unroutable")
    for n, m in rows:
        floor = m["warm"] + m["fetch"]
        print("%-6d %9.3f %9.3f %9.3f %8.1f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %+10.3fs" % (
            n, m["b"], m["up"], m["warm"], m["up"] / m["b"],
            m["b"] / m["warm"], m["fetch"], floor / m["warm"], m["b"] / floor,
            m["cold"], m["none"], m["cold"] / m["none"],
            m["dead"] / m["none"], m["unr"] - m["none"]))
    libs = subprocess.check_output(["ldd", linker], text=True)
    print("libcurl linked into ld.lld-offload: %s" %
          ("yes" if "curl" in libs else "no (loaded only for a remote cache)"))


if __name__ == "__main__":
    sys.exit(main())
