"""Figures for the hostile-file attacks against one `lro` binary (run it on the old and
the new one): escapes through a symlink exchanged under an offload file's name (renameat2
RENAME_EXCHANGE, Linux), hangs on a FIFO exchanged the same way, a hard link, a far-future
name, stale temps, a lower-case name, a 0777 directory and the default directory.

usage: measure_hostile_files.py LRO_BINARY [statics symlink_cli symlink_proxy fifo_cli fifo_proxy]
"""
import ctypes, json, os, select, subprocess, sys, tempfile, time
LRO = sys.argv[1]
MOCK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "servers", "mock_server.py")
WORK = tempfile.mkdtemp(prefix="lro-hostile-")
EXCHANGE = r'''
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = (p.encode() for p in sys.argv[1:3])
print("swapping", flush=True)
while True:
    libc.renameat2(-100, a, -100, b, 2)
'''
def memories(n):
    return json.dumps([{"id": f"m{i}", "memory_type": "semantic", "namespace": "_semantic/a", "title": f"Memory {i} about caching"} for i in range(n)])
def offload(d):
    out = subprocess.run([LRO, "offload", "--operation", "recall", "--output-dir", d], input=memories(200), capture_output=True, text=True)
    return json.loads(out.stdout)["file_path"]
def swapper(a, b):
    p = subprocess.Popen([sys.executable, "-c", EXCHANGE, a, b], stdout=subprocess.PIPE, text=True)
    p.stdout.readline()
    return p
class Proxy:
    def __init__(self, d):
        self.p = subprocess.Popen(["/usr/bin/time", "-f", "%M", LRO, "proxy", "--output-dir", d, "--", "python3", MOCK],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    def call(self, i, method, params, timeout=10):
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                return None
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == i and "method" not in m:
                return m
    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill(); self.p.wait()
            return "killed (outlived EOF)"
        return int(self.p.stderr.read().strip().splitlines()[-1]) // 1024
def setup():
    root = tempfile.mkdtemp(dir=WORK)
    d = os.path.join(root, "out"); os.makedirs(d, mode=0o700)
    f = offload(d)
    secret = os.path.join(root, "secret.jsonl")
    open(secret, "w").write('{"type":"lro_header","operation":"recall","count":1}\n{"id":"OUTSIDE"}\n')
    return root, d, f, secret
def symlink_proxy(n):
    root, d, f, secret = setup()
    link = os.path.join(d, "link"); os.symlink(secret, link)
    pr = Proxy(d); sw = swapper(f, link)
    esc = 0; t = time.time()
    for i in range(n):
        r = pr.call(10 + i, "resources/read", {"uri": "lro://offloads/" + os.path.basename(f)})
        esc += "OUTSIDE" in json.dumps(r)
    el = time.time() - t
    sw.kill(); rss = pr.close()
    return f"resources/read x{n}: {esc} escapes, {el:.1f} s, proxy peak RSS {rss} MB"
def symlink_cli(n):
    root, d, f, secret = setup()
    link = os.path.join(d, "link"); os.symlink(secret, link)
    sw = swapper(f, link); esc = 0; t = time.time()
    for _ in range(n):
        o = subprocess.run([LRO, "extract", "--output-dir", d, f, "--query", ".id"], capture_output=True, text=True)
        esc += "OUTSIDE" in o.stdout
    el = time.time() - t; sw.kill()
    return f"lro extract x{n}: {esc} escapes, {el:.1f} s ({el / n * 1000:.0f} ms/run)"
def fifo_proxy(n):
    root, d, f, secret = setup()
    fifo = os.path.join(d, "fifo"); os.mkfifo(fifo)
    pr = Proxy(d); sw = swapper(f, fifo); t = time.time(); hung = None
    for i in range(n):
        if pr.call(10 + 2 * i, "resources/list", {}) is None:
            hung = "list %d" % i; break
        if pr.call(11 + 2 * i, "resources/read", {"uri": "lro://offloads/" + os.path.basename(f)}) is None:
            hung = "read %d" % i; break
    el = time.time() - t; sw.kill()
    ping = pr.call(99999, "ping", {}, timeout=5)
    rss = pr.close()
    return f"resources/list+read x{n} under FIFO exchange: {'hung at %s' % hung if hung is not None else 'all answered'}, {el:.1f} s; ping {'answered' if ping else 'unanswered'}; exit on EOF: {rss if isinstance(rss, str) else 'yes, peak RSS %d MB' % rss}"
def fifo_cli(n):
    root, d, f, secret = setup()
    fifo = os.path.join(d, "fifo"); os.mkfifo(fifo)
    sw = swapper(f, fifo); hung = 0; t = time.time()
    for _ in range(n):
        try:
            subprocess.run([LRO, "extract", "--output-dir", d, f, "--describe"], capture_output=True, timeout=15)
        except subprocess.TimeoutExpired:
            hung += 1
    el = time.time() - t; sw.kill()
    return f"lro extract --describe x{n} under FIFO exchange: {hung} hung past 15 s, {el:.1f} s"
def statics():
    root, d, f, secret = setup()
    name = os.path.basename(f)
    linked = os.path.join(d, name.replace("recall", "linked")); os.link(f, linked)
    o = subprocess.run([LRO, "extract", "--output-dir", d, linked, "--count"], capture_output=True, text=True)
    hard = f"hard link: exit {o.returncode} {'served' if o.returncode == 0 else o.stderr.strip()[:60]}"
    os.unlink(linked)
    planted = os.path.join(d, "atlatl-x-7ZZZZZZZZZZZZZZZZZZZZZZZZZ.jsonl")
    open(planted, "w").write(open(f).read())
    pr = Proxy(d)
    listed = pr.call(1, "resources/list", {})
    first = listed["result"]["resources"][0]["name"]; pr.close()
    if not os.path.exists(planted):
        open(planted, "w").write(open(f).read())
    old = "atlatl-recall-" + "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    temp = os.path.join(d, old + ".jsonl.tmp-123"); open(temp, "w").write("x")
    lower = os.path.join(d, "atlatl-recall-01arz3ndektsv4rrffq69g5fav.jsonl"); open(lower, "w").write("x")
    subprocess.run([LRO, "cleanup", "--output-dir", d], capture_output=True)
    far = f"far-future name: listed first={first.startswith('atlatl-x-')}, kept by cleanup={os.path.exists(planted)}"
    cl = f"cleanup: stale temp removed={not os.path.exists(temp)}, lower-case name removed={not os.path.exists(lower)}"
    shared = os.path.join(root, "shared"); os.makedirs(shared); os.chmod(shared, 0o777)
    o = subprocess.run([LRO, "offload", "--operation", "recall", "--output-dir", shared], input=memories(200), capture_output=True, text=True)
    sh = f"0777 output dir: offloaded={json.loads(o.stdout).get('offloaded')}"
    tmp = tempfile.mkdtemp(dir=WORK)
    o = subprocess.run([LRO, "offload", "--operation", "recall"], input=memories(200), capture_output=True, text=True, env={**os.environ, "TMPDIR": tmp})
    df = f"default dir: {os.path.dirname(json.loads(o.stdout)['file_path']).replace(tmp, '$TMPDIR')}"
    return "\n  ".join([hard, far, cl, sh, df])
print(LRO)
for fn, n in [x for x in [(statics, None), (symlink_cli, 300), (symlink_proxy, 3000), (fifo_cli, 30), (fifo_proxy, 2000)] if len(sys.argv) < 3 or x[0].__name__ in sys.argv[2:]]:
    print(" ", fn(n) if n else fn(), flush=True)
