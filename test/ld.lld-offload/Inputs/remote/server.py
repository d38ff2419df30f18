"""Starts and stops the HTTP servers of the remote-cache tests, each on a
free local port, with everything under a directory of its own (so that it
runs as a normal user too), and each killed by a watchdog after five
minutes should a test end before stopping it.

  server.py nginx DIR          nginx with WebDAV (PUT, GET), files in DIR/store
  server.py faulty DIR MODE    a server that misbehaves as MODE says
  server.py stop DIR

Prints the port. Modes of the faulty server:
  error500   every answer is 500
  slow       answers after 3 s
  put403     GET 404, PUT 403;  put413: PUT 413 (too large)
  garbage    GET 200 with bytes that are no entry
  truncated  GET 200 whose body ends before its Content-Length
  redirect   every answer redirects to itself
  refuse     nothing listens on the port (the server exits at once)
"""
import http.server
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

# Benchmarks run longer than a test, and say so.
LIFETIME = int(os.environ.get("LLD_OFFLOAD_SERVER_LIFETIME", "300"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("server on port %d did not start" % port)


def nginx_config(d, port):
    return """
daemon off;
master_process off;
worker_processes 1;
pid %(d)s/nginx.pid;
error_log %(d)s/error.log;
events { worker_connections 64; }
http {
  access_log %(d)s/access.log;
  client_body_temp_path %(d)s/body;
  proxy_temp_path %(d)s/proxy;
  fastcgi_temp_path %(d)s/fastcgi;
  uwsgi_temp_path %(d)s/uwsgi;
  scgi_temp_path %(d)s/scgi;
  server {
    listen 127.0.0.1:%(port)d;
    root %(d)s/store;
    location / {
      dav_methods PUT DELETE;
      create_full_put_path on;
      client_max_body_size 0;
    }
  }
}
""" % {"d": d, "port": port}


class Faulty(http.server.BaseHTTPRequestHandler):
    mode = ""
    store = {}

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", length=None):
        self.send_response(status)
        self.send_header("Content-Length",
                         str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        m = self.mode
        if m == "error500":
            return self.answer(500)
        if m == "slow":
            time.sleep(3)
            return self.answer(404)
        if m == "redirect":
            self.send_response(302)
            self.send_header("Location", self.path)
            self.send_header("Content-Length", "0")
            return self.end_headers()
        if m == "garbage":
            return self.answer(200, b"not an entry of ld.lld-offload" * 10)
        if m == "truncated":
            self.answer(200, b"LLDOFFR1" + b"\0" * 100, length=100000)
            self.close_connection = True
            return
        if m == "huge":
            # A length no memory holds, and a short body.
            self.answer(200, b"LLDOFFR1" + b"\0" * 100, length=1 << 62)
            self.close_connection = True
            return
        self.answer(404)

    def do_PUT(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        m = self.mode
        if m in ("put403", "put413", "error500"):
            return self.answer(int(m[-3:]))
        if m == "slow":
            time.sleep(3)
        if m == "redirect":
            return self.do_GET()
        self.answer(201)


def serve(argv):
    kind, d = argv[1], os.path.abspath(argv[2])
    os.makedirs(d, exist_ok=True)
    port = free_port()
    if kind == "faulty" and argv[3] == "refuse":
        print(port)
        return
    if not detach(d, port):
        return
    # The watchdog's child is the server; the watchdog ends it.
    if kind == "nginx":
        os.makedirs(os.path.join(d, "store"), exist_ok=True)
        conf = os.path.join(d, "nginx.conf")
        with open(conf, "w") as f:
            f.write(nginx_config(d, port))
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        server = subprocess.Popen([nginx, "-p", d, "-c", conf])
    else:
        pid = os.fork()
        if pid == 0:
            Faulty.mode = argv[3]
            httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port),
                                                    Faulty)
            httpd.serve_forever()
            os._exit(0)

        class Child:
            def __init__(self, pid):
                self.pid = pid

            def kill(self):
                os.kill(self.pid, signal.SIGKILL)

            def wait(self):
                os.waitpid(self.pid, 0)
        server = Child(pid)
    watch(d, lambda: (server.kill(), server.wait()), LIFETIME)


def detach(d, port):
    """In this process, prints PORT once something listens on it and returns
    False; in a detached grandchild whose output goes to D/server.log, the
    watchdog that is to start the server, returns True."""
    if os.fork():
        wait_for(port)
        print(port)
        return False
    os.setsid()
    if os.fork():
        os._exit(0)
    with open(os.devnull, "rb") as null_in, \
            open(os.path.join(d, "server.log"), "ab") as log:
        os.dup2(null_in.fileno(), 0)
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
    return True


def watch(d, stop_server, lifetime):
    """Notes this process in D/watchdog.pid and waits, to stop the server
    (stop_server()) and exit when told to (SIGTERM) or after LIFETIME
    seconds, should the test end before it stops it."""
    with open(os.path.join(d, "watchdog.pid"), "w") as f:
        f.write(str(os.getpid()))

    def stop(*_):
        stop_server()
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGALRM, stop)
    signal.alarm(lifetime)
    while True:
        signal.pause()


def main(argv):
    if argv[1] == "stop":
        path = os.path.join(os.path.abspath(argv[2]), "watchdog.pid")
        if os.path.exists(path):
            try:
                os.kill(int(open(path).read()), signal.SIGTERM)
            except ProcessLookupError:
                pass
            os.remove(path)
        return
    serve(argv)


if __name__ == "__main__":
    main(sys.argv)
