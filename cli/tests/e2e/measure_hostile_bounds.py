"""Figures for the extraction attacks against one `lro` binary (run it on the old and the new
one): each hostile jq filter through `lro extract` (exit code, the last stderr line, peak
memory, wall time), then through `lro proxy`'s extract tool with an ordinary call in flight
beside it (is the attack answered, is the other call answered, does `ping` still get an
answer, the proxy's peak memory), and a header whose sections claim more records than the
file holds (`--describe`).

usage: measure_hostile_bounds.py LRO_BINARY [cli proxy header]
"""
import json, os, select, subprocess, sys, tempfile, time

LRO = sys.argv[1]
MOCK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "servers", "mock_server.py")
WORK = tempfile.mkdtemp(prefix="lro-bounds-")
OUT = os.path.join(WORK, "out")
os.makedirs(OUT, mode=0o700)

# The attacks of issue 26: deep values (built, printed, through tojson, parsed from XML) and
# values that grow without end.
ATTACKS = [
    ("deep reduce", "first(reduce range(100000) as $i (0;[.]))"),
    ("deep tojson", "[limit(100000; repeat(0))] | reduce .[] as $x (0; [.]) | tojson | length"),
    ("deep output", "reduce range(100000) as $i (0; [.])"),
    ("fromxml", '("<a>"*20000) | fromxml'),
    ("array doubling", "[1] | until(length > 1e10; . + .)"),
    ("string doubling", '"x" | until(length > 1e10; . + .)'),
    ("range(1e9)", "[range(1e9)]"),
    # Natives that print, join, split, format or parse: many times their input in one step.
    ("tojson 6x", '"\\u0001" * 400000000 | tojson | length'),
    ("interpolation", '"x" * 100000000 | "' + "\\(.)" * 60 + '" | length'),
    ("@uri 3x", '"é" * 200000000 | @uri | length'),
    ("@csv 2x", '["\\"" * 300000000] | @csv | length'),
    ("strftime 12x", '0 | strftime("%c" * 200000000) | length'),
    ("join", '[range(1000000)] | join("x" * 3000) | length'),
    ("update +=", '[range(1000000) | ""] | .[] += "x" * 3000 | length'),
    ("sort_by keys", '[range(1000000)] | sort_by("x" * 3000) | length'),
    ("fromjson 8x", '"[" + ("0," * 200000000) + "0]" | fromjson | length'),
]

# Every run in a 4 GB address space (as the red team ran them): a binary that does not bound
# these aborts on a failed allocation instead of taking the machine's memory.
ADDRESS_SPACE = 4_000_000_000


def capped():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def memories(n):
    return json.dumps([{"id": f"m{i}", "memory_type": "semantic", "namespace": "_semantic/a",
                        "title": f"Memory {i} about caching"} for i in range(n)])


def offload():
    out = subprocess.run([LRO, "offload", "--operation", "recall", "--output-dir", OUT],
                         input=memories(200), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["file_path"]


def timed(args, timeout=120):
    """Runs args under /usr/bin/time: (exit code, last stderr line, peak MB, seconds)."""
    t = time.time()
    try:
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + args, capture_output=True, text=True, timeout=timeout,
                           preexec_fn=capped)
    except subprocess.TimeoutExpired:
        return "timeout", "", None, time.time() - t
    lines = p.stderr.strip().splitlines()
    peak = int(lines[-1]) // 1024 if lines and lines[-1].isdigit() else None
    code = p.returncode
    for line in lines:
        if line.startswith("Command terminated by signal"):
            code = "signal " + line.split()[-1]
    ours = [l for l in lines[:-1] if l.strip() and not l.startswith("Command ")]
    note = ours[-1] if ours else ""
    return code, note[:90], peak, time.time() - t


def cli(path):
    print("lro extract FILE --query Q   (exit, stderr, peak MB, seconds)")
    for name, q in ATTACKS:
        code, note, peak, secs = timed([LRO, "extract", "--output-dir", OUT, path, "--query", q])
        print(f"  {name:16} exit {code!s:9} {peak!s:>6} MB {secs:5.1f} s  {note}", flush=True)


class Proxy:
    def __init__(self):
        self.p = subprocess.Popen(["/usr/bin/time", "-f", "%M", LRO, "proxy", "--output-dir", OUT, "--", sys.executable, MOCK],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
                                  preexec_fn=capped)
        self.pending = {}
        self.call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "m", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = self.call(1, "tools/list", {})["result"]["tools"]
        self.extract = next(t["name"] for t in tools if t["name"].startswith("lro_extract"))

    def send(self, msg):
        try:
            self.p.stdin.write(json.dumps(msg) + "\n")
            self.p.stdin.flush()
        except BrokenPipeError:
            pass

    def wait(self, ids, timeout):
        """Answers to ids that arrive within timeout, by id."""
        got, deadline = {}, time.time() + timeout
        while set(ids) - set(got):
            left = deadline - time.time()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                break
            line = self.p.stdout.readline()
            if not line:
                break
            m = json.loads(line)
            if "id" in m and "method" not in m:
                got[m["id"]] = m
        return got

    def call(self, i, method, params, timeout=10):
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        return self.wait([i], timeout).get(i)

    def close(self):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill(); self.p.wait()
        code = self.p.returncode
        last = self.p.stderr.read().strip().splitlines()
        peak = int(last[-1]) // 1024 if last and last[-1].isdigit() else None
        return code, peak


def proxy(path):
    print("lro proxy: the attack and an ordinary call in flight together (answers, ping, exit on EOF, peak MB)")
    name_of = os.path.basename(path)
    for n, (name, q) in enumerate(ATTACKS):
        pr = Proxy()
        t = time.time()
        pr.send({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
                 "params": {"name": pr.extract, "arguments": {"file_path": name_of, "query": q}}})
        pr.send({"jsonrpc": "2.0", "id": 11, "method": "tools/call",
                 "params": {"name": pr.extract, "arguments": {"file_path": name_of, "recipe": 6}}})
        got = pr.wait([10, 11], 60)
        secs = time.time() - t
        ping = pr.call(12, "ping", {}, timeout=5) is not None
        attack = got.get(10)
        if attack is None:
            verdict = "no answer"
        elif "error" in attack:
            verdict = f"JSON-RPC error {attack['error'].get('code')}"
        else:
            text = attack["result"]["content"][0]["text"]
            verdict = ("isError: " if attack["result"].get("isError") else "answered: ") + text.replace("\n", " ")[:60]
        code, peak = pr.close()
        print(f"  {name:16} {verdict:72} other call {'answered' if 11 in got else 'lost'}; ping {'yes' if ping else 'no'};"
              f" exit {code}; {peak} MB; {secs:.1f} s", flush=True)


def header():
    """A real two-section offload whose header then claims 100,000 relations (the file holds
    300): `--describe`, and a count of that section."""
    graph = {"entities": [{"id": i} for i in range(300)], "relations": [{"from": i, "to": i + 1} for i in range(300)]}
    out = subprocess.run([LRO, "offload", "--operation", "graph", "--output-dir", OUT, "--threshold", "1"],
                         input=json.dumps(graph), capture_output=True, text=True, check=True)
    lying = json.loads(out.stdout)["file_path"]
    with open(lying) as f:
        head, rest = f.readline(), f.read()
    meta = json.loads(head)
    meta["sections"][1]["count"] = 100000
    with open(lying, "w") as f:
        f.write(json.dumps(meta) + "\n" + rest)
    for args in (["--describe"], ["--section", "relations", "--count"]):
        code, note, peak, secs = timed([LRO, "extract", "--output-dir", OUT, lying] + args)
        print(f"lying header: lro extract {' '.join(args):28} exit {code}, {peak} MB, {secs:.1f} s  {note}")


path = offload()
print(LRO)
for fn in [cli, proxy, header]:
    if len(sys.argv) < 3 or fn.__name__ in sys.argv[2:]:
        fn(path) if fn is not header else fn()
