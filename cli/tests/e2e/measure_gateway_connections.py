"""How many of N HTTP clients connecting to `lro proxy --listen` at the same moment get an
answer: each sends `GET /healthz` on a keep-alive connection, waits up to 10 s, then keeps the
connection open and idle, as an HTTP client's pool does. No MCP is involved: this measures the
HTTP server's dispatch of connections to threads, which `make bench-gateway` found stalling
sessions that start together.

usage: python measure_gateway_connections.py --lro PATH [--clients 50]"""

import argparse
import re
import socket
import subprocess
import tempfile
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--lro", required=True)
parser.add_argument("--clients", type=int, default=50)
args = parser.parse_args()

with tempfile.TemporaryDirectory() as output_dir:
    gateway = subprocess.Popen([args.lro, "proxy", "--listen", "127.0.0.1:0", "--output-dir", output_dir, "--", "true"],
                               stderr=subprocess.PIPE, text=True)
    port = None
    for line in gateway.stderr:
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", line)
        if found:
            port = int(found[1])
            break
    assert port, "the gateway never said where it listens"

    together = threading.Barrier(args.clients)
    # Every client has its answer or gave up: the connections are then let go, all at once
    # (one that closed earlier would free a thread for a stalled one).
    settled = threading.Barrier(args.clients + 1)
    waited = [None] * args.clients

    def client(n):
        together.wait()
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n")
            sock.settimeout(10)
            begun = time.monotonic()
            try:
                if sock.recv(100):
                    waited[n] = time.monotonic() - begun
            except socket.timeout:
                pass
            settled.wait()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
    for thread in threads:
        thread.start()
    settled.wait()
    for thread in threads:
        thread.join()
    gateway.terminate()
    gateway.wait()

answered = sorted(w for w in waited if w is not None)
print(f"{args.clients} clients at once: {len(answered)} answered within 10 s"
      + (f" (slowest {answered[-1]:.2f} s)" if answered else "") + f", {args.clients - len(answered)} not")
