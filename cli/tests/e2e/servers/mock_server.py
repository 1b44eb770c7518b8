"""A scriptable stdio MCP server (standard library only) for the proxy's robustness tests and
benchmark. Newline-delimited JSON-RPC on stdin/stdout, as MCP's stdio transport says.

Tools:
  echo {text}          -> the text (declares an outputSchema, returns structuredContent)
  records {count}      -> a JSON array of `count` raw records as text
  memories {count}     -> `count` MIF memories as JSON text (what a recall returns)
  big {mb, accents}    -> about `mb` MB of raw records as text, built in one string (with
                          `accents`, labels with a non-ASCII letter, which the message escapes)
  slow {ms, n}         -> answers after `ms` milliseconds (calls run on threads)
  die                  -> exits without answering
  progress             -> sends notifications/progress for the call's progressToken, then answers
  garbage              -> writes a malformed line, then answers
  raw_numbers          -> an answer spelled with 1.50 and 1e3 (byte-exact pass-through check)
  whoami               -> the clientInfo this server received in initialize
  pid                  -> this server's process id
  hang                 -> never answers
  progress_slow {ms, steps} -> progress notifications every ms/steps, then answers (after ms)
  cancelled            -> the requestIds of the notifications/cancelled received so far
  die_mid              -> writes the first half of its answer, then exits
  bad_utf8             -> an answer whose text is not UTF-8
  log_noise            -> log lines on stdout (not JSON), then answers
  close_stdout         -> closes stdout and stays alive, reading nothing more
  received             -> every line this server has read from its stdin, as JSON text
  answer_twice         -> answers the call twice (same id)
  answer_unknown       -> answers a request nobody sent (id "nobody", and a null id), then the call
  answer_invalid       -> an answer to the call with both result and error
  invalid_lines        -> lines that are JSON but no message (123, [], {}, a method that is a
                          number, a batch of one notification), then answers
  ask_client           -> sends the client a request (id "srv-1", roots/list), then answers
  gate                 -> answers once an open_gate call has come (at once after one)
  open_gate            -> opens the gate: every gate call answers
  stop_reading         -> stops reading its stdin for good (the main loop sleeps)
  long_line {mb, order} -> an answer of `mb` MB on one line: "id_first" (Python SDK order),
                          "id_last" (TypeScript SDK order: result, jsonrpc, id), or "no_id"
                          (a line of that size that names no id, then the real answer), or
                          "unended" (id first, and no newline ever)

MOCK_SERVER_NAME=NAME names the server (default mock; empty: no name in serverInfo);
MOCK_NO_TOOLS=1 leaves the tools capability out of initialize; MOCK_IGNORE_TERM=1 ignores
SIGTERM (only SIGKILL stops it).
"""

import json
import os
import signal
import sys
import threading
import time

LOCK = threading.Lock()
CLIENT_INFO = {}
CANCELLED = []
RECEIVED = []
# Held shut by `gate` calls until an `open_gate` call: an answer that comes when a test says.
GATE = threading.Event()


def send(message):
    line = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"))
    with LOCK:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def text_result(text, **extra):
    result = {"content": [{"type": "text", "text": text}], "isError": False}
    result.update(extra)
    return result


def record(i):
    return {"id": f"r{i}", "kind": ["alpha", "beta", "gamma"][i % 3], "label": f"record number {i}", "score": i % 97}


def memory(i):
    return {
        "id": f"mem-{i:05d}",
        "memory_type": ["semantic", "episodic", "procedural"][i % 3],
        "namespace": ["_semantic/decisions", "_episodic/sessions", "_procedural/howto"][i % 3],
        "title": f"Decision {i} about caching layers and storage layout",
        "content": f"Memory {i}: we chose write-through caching for the index because of read amplification.",
        "tags": ["architecture", f"t{i % 7}"],
        "status": "active",
        "created": f"2025-01-{1 + i % 28:02d}T10:00:00Z",
        "modified": f"2025-02-{1 + i % 28:02d}T10:00:00Z",
        "provenance": {"confidence": (i % 10) / 10, "source_type": "user"},
    }


SERVER_INFO = {"version": "1.0"}
if os.environ.get("MOCK_SERVER_NAME", "mock"):
    SERVER_INFO["name"] = os.environ.get("MOCK_SERVER_NAME", "mock")

TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
     "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "records", "inputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}}},
    {"name": "memories", "inputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}}},
    {"name": "big", "inputSchema": {"type": "object", "properties": {"mb": {"type": "integer"}}}},
    {"name": "slow", "inputSchema": {"type": "object", "properties": {"ms": {"type": "integer"}}}},
    {"name": "die", "inputSchema": {"type": "object"}},
    {"name": "progress", "inputSchema": {"type": "object"}},
    {"name": "garbage", "inputSchema": {"type": "object"}},
    {"name": "raw_numbers", "inputSchema": {"type": "object"}},
    {"name": "lone_surrogate", "inputSchema": {"type": "object"}},
    {"name": "whoami", "inputSchema": {"type": "object"}},
    {"name": "pid", "inputSchema": {"type": "object"}},
    {"name": "hang", "inputSchema": {"type": "object"}},
    {"name": "gate", "inputSchema": {"type": "object"}},
    {"name": "open_gate", "inputSchema": {"type": "object"}},
    {"name": "progress_slow", "inputSchema": {"type": "object"}},
    {"name": "cancelled", "inputSchema": {"type": "object"}},
    {"name": "die_mid", "inputSchema": {"type": "object"}},
    {"name": "bad_utf8", "inputSchema": {"type": "object"}},
    {"name": "log_noise", "inputSchema": {"type": "object"}},
    {"name": "close_stdout", "inputSchema": {"type": "object"}},
    {"name": "long_line", "inputSchema": {"type": "object"}},
]


def send_bytes(data):
    with LOCK:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def call_tool(msg_id, params):
    name = params.get("name")
    args = params.get("arguments") or {}
    if name == "echo":
        text = args.get("text", "")
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(text, structuredContent={"text": text})})
    if name == "records":
        body = json.dumps([record(i) for i in range(int(args.get("count", 10)))], separators=(",", ":"))
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(body)})
    if name == "memories":
        body = json.dumps([memory(i) for i in range(int(args.get("count", 10)))], separators=(",", ":"))
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(body)})
    if name == "big":
        target = int(args.get("mb", 1)) * 1_000_000
        parts, size, i = [], 0, 0
        accents = bool(args.get("accents"))
        while size < target:
            item = record(i)
            if accents:
                item["label"] = f"r\u00e9cord {i}"
            part = json.dumps(item, separators=(",", ":"), ensure_ascii=not accents)
            parts.append(part)
            size += len(part) + 1
            i += 1
        body = "[" + ",".join(parts) + "]"
        del parts
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(body)})
    if name == "slow":
        def later():
            time.sleep(int(args.get("ms", 10)) / 1000)
            send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(f"slow {args.get('n', '')}")})
        return threading.Thread(target=later, daemon=True).start()
    if name == "gate":
        def through():
            GATE.wait()
            send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("through the gate")})
        return threading.Thread(target=through, daemon=True).start()
    if name == "open_gate":
        GATE.set()
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("opened")})
    if name == "die":
        sys.stdout.flush()
        os._exit(3)
    if name == "progress":
        token = (params.get("_meta") or {}).get("progressToken")
        for step in (1, 2):
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": step, "total": 2}})
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("done")})
    if name == "garbage":
        send("this is not json {")
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("after garbage")})
    if name == "raw_numbers":
        ident = json.dumps(msg_id)
        return send('{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"n"}],'
                    '"structuredContent":{"a":1.50,"b":1e3,"c":"\\u00e9"}}}' % ident)
    if name == "lone_surrogate":
        # JSON allows the escape `\ud800` alone; no string holds it (json.dumps writes it so).
        lines = int(args.get("lines", 10))
        if args.get("structured"):
            rows = [{"a": i, "b": "z" * 40} for i in range(lines)] + ["\ud800"]
            return send({"jsonrpc": "2.0", "id": msg_id,
                         "result": text_result("rows", structuredContent={"rows": rows})})
        text = "\n".join(f"log line {i} of the tool" for i in range(lines)) + " \ud800"
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(text)})
    if name == "whoami":
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(json.dumps(CLIENT_INFO))})
    if name == "pid":
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(str(os.getpid()))})
    if name == "hang":
        return None
    if name == "progress_slow":
        token = (params.get("_meta") or {}).get("progressToken")
        steps = int(args.get("steps", 5))

        def working():
            for step in range(steps):
                time.sleep(int(args.get("ms", 1000)) / 1000 / steps)
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": step + 1, "total": steps}})
            send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("worked")})
        return threading.Thread(target=working, daemon=True).start()
    if name == "cancelled":
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(json.dumps(CANCELLED))})
    if name == "die_mid":
        line = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": text_result("x" * 1000)})
        send_bytes(line[: len(line) // 2].encode())
        os._exit(4)
    if name == "bad_utf8":
        line = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": text_result("BAD")})
        return send_bytes(line.encode().replace(b"BAD", b"\xff\xfe") + b"\n")
    if name == "log_noise":
        send("INFO starting the tool")
        send("{ not json either")
        send("")
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("after noise")})
    if name == "received":
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(json.dumps(RECEIVED))})
    if name == "answer_twice":
        send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("first")})
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("second")})
    if name == "answer_unknown":
        send({"jsonrpc": "2.0", "id": "nobody", "result": text_result("to nobody")})
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("answered")})
    if name == "answer_invalid":
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("both"),
                     "error": {"code": 1, "message": "and an error"}})
    if name == "invalid_lines":
        for line in ("123", "[]", "{}", '"str"', '{"jsonrpc":"2.0","method":5}',
                     '{"jsonrpc":"1.0","method":"notifications/message","params":{}}',
                     '[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"batched"}}]'):
            send(line)
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("after invalid lines")})
    if name == "ask_client":
        send({"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list", "params": {}})
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("asked")})
    if name == "long_line":
        text = "a" * (int(args.get("mb", 1)) * 1_000_000)
        order = args.get("order", "id_first")
        if order == "id_first":
            return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(text)})
        if order == "id_last":
            return send({"result": text_result(text), "jsonrpc": "2.0", "id": msg_id})
        if order == "unended":
            line = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": text_result(text)})
            return send_bytes(line.encode())  # no newline: the line never ends
        send(text)
        return send({"jsonrpc": "2.0", "id": msg_id, "result": text_result("after the long line")})
    if name == "stop_reading":
        time.sleep(3600)
    if name == "close_stdout":
        with LOCK:
            sys.stdout.flush()
            os.close(1)
        time.sleep(3600)
    send({"jsonrpc": "2.0", "id": msg_id, "result": text_result(f"unknown tool {name}") | {"isError": True}})


def handle(msg):
    method, msg_id = msg.get("method"), msg.get("id")
    if method == "notifications/cancelled":
        CANCELLED.append((msg.get("params") or {}).get("requestId"))
    if method is None or msg_id is None:
        return  # notifications and responses
    if method == "initialize":
        CLIENT_INFO.update(msg["params"].get("clientInfo", {}))
        caps = {} if os.environ.get("MOCK_NO_TOOLS") else {"tools": {"listChanged": False}}
        caps["resources"] = {}
        return send({"jsonrpc": "2.0", "id": msg_id, "result": {
            "protocolVersion": msg["params"].get("protocolVersion", "2025-06-18"),
            "capabilities": caps, "serverInfo": SERVER_INFO}})
    if method == "tools/list" and not os.environ.get("MOCK_NO_TOOLS"):
        tools = TOOLS
        if os.environ.get("MOCK_LONE_SURROGATE"):
            # A description holding the escape `\ud800` alone (json.dumps writes it so).
            tools = [dict(TOOLS[0], description="echoes \ud800", outputSchema={"type": "object"})]
            tools += TOOLS[1:]
        return send({"jsonrpc": "2.0", "id": msg_id, "result": {"tools": tools}})
    if method == "tools/call":
        return call_tool(msg_id, msg.get("params") or {})
    if method == "ping":
        return send({"jsonrpc": "2.0", "id": msg_id, "result": {}})
    if method == "resources/list":
        return send({"jsonrpc": "2.0", "id": msg_id,
                     "result": {"resources": [{"uri": "mock://one", "name": "one"}]}})
    send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"no method {method}"}})


def main():
    if os.environ.get("MOCK_IGNORE_TERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for line in sys.stdin:
        RECEIVED.append(line.rstrip("\n"))
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            sys.stderr.write(f"mock: malformed line {line[:60]!r}\n")
            continue
        handle(msg)


if __name__ == "__main__":
    main()
