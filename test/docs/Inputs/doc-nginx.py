"""Runs the nginx that docs/user-guide.md sets up for the remote device-link
cache ("Sharing the cache across machines"), as the guide says, on a free
local port: its configuration (the ```nginx file=nginx.conf block) and the
commands that install and start it (the ```sh norun= block naming this
test), with the guide's /srv/lld-offload-cache replaced by a directory of
the test's.

  doc-nginx.py start DOC DIR   prints the port; DIR/srv.txt names the
                               server's directory
  doc-nginx.py stop DIR

As root the server's directory is under /tmp, where nginx's workers (the
configuration's user, www-data) can reach it, and the guide's commands run
as they are; as another user it is DIR/srv, and the `chown` the guide gives
for root is left out (nginx then serves as that user). nginx runs in the
foreground (-g 'daemon off;') under a watchdog that stops it after five
minutes should the test end before `stop`.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# The remote-cache tests' server helpers: a free port, and waiting for it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "ld.lld-offload", "Inputs",
                                "remote"))
from server import detach, free_port, watch  # noqa: E402

DOC_ROOT = "/srv/lld-offload-cache"
LIFETIME = 300


def blocks(doc):
    """(info, text) of each fenced block of \\p doc."""
    out = []
    lines = open(doc, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*(```+)\s*(.*)$", lines[i])
        if not m:
            i += 1
            continue
        fence, info, body = m.group(1), m.group(2), []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        out.append((info, "\n".join(body) + "\n"))
        i += 1
    return out


def start(doc, d):
    found = blocks(doc)
    config = [t for info, t in found if "file=nginx.conf" in info.split()]
    commands = [t for info, t in found
                if "norun=test/docs/nginx-cache-config.test" in info.split()]
    if len(config) != 1 or len(commands) != 1:
        sys.exit("%s: no single nginx.conf block and block of commands" % doc)
    config, commands = config[0], commands[0]
    port = free_port()
    if "listen 8080;" not in config:
        sys.exit("the guide's nginx.conf does not say `listen 8080;`")
    config = config.replace("listen 8080;", "listen 127.0.0.1:%d;" % port)

    root = os.geteuid() == 0
    if root:
        srv = tempfile.mkdtemp(prefix="lld-offload-nginx-", dir="/tmp")
        os.chmod(srv, 0o755)
    else:
        srv = os.path.join(d, "srv")
        os.makedirs(srv)
    with open(os.path.join(d, "srv.txt"), "w") as f:
        f.write(srv + "\n")
    conf_dir = os.path.join(d, "conf")
    os.makedirs(conf_dir)
    with open(os.path.join(conf_dir, "nginx.conf"), "w") as f:
        f.write(config)

    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"
    lines = [l.replace(DOC_ROOT, srv) for l in commands.strip().split("\n")]
    start_line = lines.pop()
    if not start_line.startswith("nginx "):
        sys.exit("the guide's last command does not start nginx")
    for line in lines:
        if line.startswith("chown ") and not root:
            continue
        subprocess.run(["bash", "-c", line], cwd=conf_dir, env=env,
                       check=True)

    if not detach(d, port):
        return
    # The watchdog: the server is its child.
    server = subprocess.Popen(["bash", "-c",
                               "exec " + start_line + " -g 'daemon off;'"],
                              cwd=conf_dir, env=env)
    watch(d, lambda: (server.terminate(), server.wait()), LIFETIME)


def stop(d):
    path = os.path.join(d, "watchdog.pid")
    if os.path.exists(path):
        pid = int(open(path).read())
        try:
            os.kill(pid, signal.SIGTERM)
            for _ in range(100):
                os.kill(pid, 0)
                time.sleep(0.05)
        except ProcessLookupError:
            pass
        os.remove(path)
    srv_txt = os.path.join(d, "srv.txt")
    if os.path.exists(srv_txt):
        srv = open(srv_txt).read().strip()
        if srv.startswith("/tmp/lld-offload-nginx-"):
            shutil.rmtree(srv, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1] == "start":
        start(sys.argv[2], os.path.abspath(sys.argv[3]))
    else:
        stop(os.path.abspath(sys.argv[2]))
