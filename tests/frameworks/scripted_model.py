#!/usr/bin/env python3
"""A scripted, OpenAI-compatible model server on loopback, for agent-framework tests.

Agent frameworks decide what the model sees of a tool result; to test that, each framework's
real model adapter (ChatOpenAI, the OpenAI Agents models, pydantic-ai, smolagents, LlamaIndex,
the AI SDK, Mastra) must run a real agent loop. This server stands in for the model: it answers
each request with the next step of a script (call a tool, call another, answer), fills the
arguments from what the conversation holds (the offloaded file's path), and logs what the model
received, for the tests to assert on. Python 3 standard library only.

    python3 scripted_model.py --script SCRIPT.json --log LOG.jsonl [--port 0]

prints ``listening http://127.0.0.1:PORT/v1`` once it accepts connections, then serves until
killed. It speaks Chat Completions and the Responses API, streaming or not.

SCRIPT.json is ``{"steps": [STEP, ...]}``; the step answered is the number of assistant turns
already in the conversation (the last step repeats). A STEP is one of:

- ``{"call": [{"tool": PATTERN, "args": {...}}, ...]}``: tool calls (several: parallel calls);
  PATTERN is an fnmatch glob over the names of the tools offered in the request;
- ``{"answer": TEXT}``: the final answer;
- ``{"code": SOURCE}``: for code agents (smolagents' CodeAgent), a thought and SOURCE as code.

Strings in args, TEXT and SOURCE are templates: ``{file_path}`` and ``{resource_uri}`` (from the
most recent tool result that has one), ``{last}`` (the most recent tool result's text) and
``{tool:PATTERN}`` (the offered tool name that PATTERN matches). A pattern that matches no
offered tool is answered with HTTP 400 naming the pattern and the tools, so a test fails loudly.

Each request appends one JSON line to LOG.jsonl: ``api``, ``step``, ``stream``, ``tools``,
``tool_results`` (``call_id``, ``name``, ``text``: what the model receives for each result, as
text), ``observations`` (user messages after the first), ``reply`` and ``request_chars``.
"""

import argparse
import fnmatch
import http.server
import itertools
import json
import re
import sys
import threading
import time

_ids = itertools.count(1)
_log_lock = threading.Lock()

# Where an offload descriptor names its file: as JSON (`"file_path": "..."`), as a Python
# repr (`'file_path': '...'`, how a code agent prints a dict), or in the guidance's examples.
_FIELD_PATTERNS = {
    name: [
        re.compile(r'"%s"\s*:\s*"((?:[^"\\]|\\.)*)"' % name),
        re.compile(r"'%s'\s*:\s*'((?:[^'\\]|\\.)*)'" % name),
        re.compile(r'%s="((?:[^"\\]|\\.)*)"' % name),
    ]
    for name in ("file_path", "resource_uri")
}


class ScriptError(Exception):
    """A step cannot be answered (no offered tool matches, a template has no value)."""


def part_text(part):
    """A content part as the model reads it: its text, or its JSON when it is not text."""
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and isinstance(part.get("text"), str) and part.get("type") in (
        "text", "input_text", "output_text", None,
    ):
        return part["text"]
    return json.dumps(part, ensure_ascii=False)


def content_text(content):
    """Message content (a string, a list of parts, or nothing) as text."""
    if content is None:
        return ""
    if isinstance(content, list):
        return "\n".join(part_text(p) for p in content)
    return part_text(content)


def _texts_within(text):
    """The text, then the strings a JSON text holds: a framework may send a tool result as the
    JSON of its content parts (the AI SDK on Chat Completions: `[{"type": "text", "text":
    "{\\"file_path\\": ...}"}]`), where the descriptor's quotes are escaped."""
    yield text
    try:
        stack = [json.loads(text)]
    except ValueError:
        return
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            stack.extend(reversed(value))
        elif isinstance(value, dict):
            stack.extend(reversed(list(value.values())))


class Conversation:
    """What a request holds: the assistant turns so far, the tool results, the tools offered."""

    def __init__(self, turns, tool_results, observations, tools):
        self.turns = turns
        self.tool_results = tool_results
        self.observations = observations
        self.tools = tools

    @staticmethod
    def _tools_in_prompt(texts):
        # A code agent offers its tools as Python functions in the system prompt.
        return [m.group(1) for t in texts for m in re.finditer(r"\bdef (\w+)\(", t)]

    @classmethod
    def from_chat(cls, body):
        messages = body.get("messages") or []
        names = {}
        turns, results, observations, system = 0, [], [], []
        users = 0
        for message in messages:
            role = message.get("role")
            if role == "assistant":
                turns += 1
                for call in message.get("tool_calls") or []:
                    names[call.get("id")] = (call.get("function") or {}).get("name")
            elif role == "tool":
                call_id = message.get("tool_call_id")
                results.append({"call_id": call_id, "name": names.get(call_id) or message.get("name"),
                                "text": content_text(message.get("content"))})
            elif role == "user":
                users += 1
                if users > 1:
                    observations.append(content_text(message.get("content")))
            elif role in ("system", "developer"):
                system.append(content_text(message.get("content")))
        tools = [(t.get("function") or {}).get("name") for t in body.get("tools") or []]
        return cls(turns, results, observations, [t for t in tools if t] or cls._tools_in_prompt(system))

    @classmethod
    def from_responses(cls, body):
        items = body.get("input") or []
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        names = {}
        turns, results, observations, system = 0, [], [], [content_text(body.get("instructions"))]
        users, in_turn = 0, False
        for item in items:
            kind = item.get("type", "message")
            role = item.get("role")
            assistant = kind in ("function_call", "reasoning") or (kind == "message" and role == "assistant")
            if assistant and not in_turn:
                turns += 1
            in_turn = assistant
            if kind == "function_call":
                names[item.get("call_id")] = item.get("name")
            elif kind == "function_call_output":
                call_id = item.get("call_id")
                results.append({"call_id": call_id, "name": names.get(call_id),
                                "text": content_text(item.get("output"))})
            elif kind == "message" and role == "user":
                users += 1
                if users > 1:
                    observations.append(content_text(item.get("content")))
            elif kind == "message" and role in ("system", "developer"):
                system.append(content_text(item.get("content")))
        tools = [t.get("name") for t in body.get("tools") or [] if t.get("type", "function") == "function"]
        return cls(turns, results, observations, [t for t in tools if t] or cls._tools_in_prompt(system))

    def tool(self, pattern):
        for name in self.tools:
            if fnmatch.fnmatchcase(name, pattern):
                return name
        raise ScriptError(f"no offered tool matches {pattern!r}; offered: {self.tools}")

    def _latest(self):
        """Tool results then observations, most recent first."""
        return [r["text"] for r in reversed(self.tool_results)] + list(reversed(self.observations))

    def field(self, name):
        for text in (inner for latest in self._latest() for inner in _texts_within(latest)):
            for pattern in _FIELD_PATTERNS[name]:
                match = pattern.search(text)
                if match:
                    return json.loads('"%s"' % match.group(1).replace("\\'", "'"))
        raise ScriptError(f"no tool result so far names a {name}")

    def fill(self, template):
        """Fills the templates of a string, or of every string in a JSON value."""
        if isinstance(template, dict):
            return {k: self.fill(v) for k, v in template.items()}
        if isinstance(template, list):
            return [self.fill(v) for v in template]
        if not isinstance(template, str):
            return template

        def value(match):
            key = match.group(1)
            if key.startswith("tool:"):
                return self.tool(key[len("tool:"):])
            if key in ("file_path", "resource_uri"):
                return self.field(key)
            if key == "last":
                latest = self._latest()
                return latest[0].strip() if latest else ""
            return match.group(0)

        return re.sub(r"\{((?:tool:[^{}]+)|file_path|resource_uri|last)\}", value, template)


def plan(script, conversation):
    """The reply to a conversation: ``("calls", [(name, arguments json)])`` or ``("text", str)``."""
    steps = script["steps"]
    step = steps[min(conversation.turns, len(steps) - 1)]
    if "call" in step:
        return "calls", [(conversation.tool(c["tool"]), json.dumps(conversation.fill(c.get("args", {}))))
                         for c in step["call"]]
    if "code" in step:
        source = conversation.fill(step["code"])
        # Both code formats smolagents knows; it reads only the one it is configured for.
        return "text", f"Thought: the next step.\n<code>\n{source}\n</code>\n```py\n{source}\n```"
    return "text", conversation.fill(step["answer"])


def usage_of(body_chars, reply_chars):
    return max(1, body_chars // 4), max(1, reply_chars // 4)


def chat_reply(model, kind, payload, request_chars):
    prompt, completion = usage_of(request_chars, len(json.dumps(payload)))
    if kind == "calls":
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{next(_ids)}", "type": "function", "function": {"name": n, "arguments": a}}
            for n, a in payload]}
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": payload}
        finish = "stop"
    return {
        "id": f"chatcmpl-{next(_ids)}", "object": "chat.completion", "created": int(time.time()),
        "model": model, "system_fingerprint": None,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion},
    }


def chat_chunks(reply, include_usage):
    """The Chat Completions stream of a reply built by :func:`chat_reply`."""
    base = {"id": reply["id"], "object": "chat.completion.chunk", "created": reply["created"],
            "model": reply["model"], "system_fingerprint": None}
    choice = reply["choices"][0]
    message = choice["message"]
    yield dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""},
                               "finish_reason": None, "logprobs": None}])
    if message.get("tool_calls"):
        for index, call in enumerate(message["tool_calls"]):
            yield dict(base, choices=[{"index": 0, "finish_reason": None, "logprobs": None, "delta": {
                "tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                "function": {"name": call["function"]["name"], "arguments": ""}}]}}])
            yield dict(base, choices=[{"index": 0, "finish_reason": None, "logprobs": None, "delta": {
                "tool_calls": [{"index": index, "function": {"arguments": call["function"]["arguments"]}}]}}])
    else:
        yield dict(base, choices=[{"index": 0, "delta": {"content": message["content"]},
                                   "finish_reason": None, "logprobs": None}])
    yield dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"],
                               "logprobs": None}])
    if include_usage:
        yield dict(base, choices=[], usage=reply["usage"])


def responses_reply(model, kind, payload, request_chars, tools):
    prompt, completion = usage_of(request_chars, len(json.dumps(payload)))
    if kind == "calls":
        output = [{"type": "function_call", "id": f"fc_{next(_ids)}", "call_id": f"call_{next(_ids)}",
                   "name": n, "arguments": a, "status": "completed"} for n, a in payload]
    else:
        output = [{"type": "message", "id": f"msg_{next(_ids)}", "status": "completed", "role": "assistant",
                   "content": [{"type": "output_text", "text": payload, "annotations": [], "logprobs": []}]}]
    return {
        "id": f"resp_{next(_ids)}", "object": "response", "created_at": int(time.time()),
        "status": "completed", "model": model, "output": output, "error": None,
        "incomplete_details": None, "instructions": None, "metadata": {}, "parallel_tool_calls": True,
        "temperature": 1.0, "top_p": 1.0, "tool_choice": "auto", "tools": tools,
        "text": {"format": {"type": "text"}}, "truncation": "disabled", "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None}, "store": False, "background": False,
        "max_output_tokens": None, "user": None,
        "usage": {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion,
                  "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    }


def responses_events(reply):
    """The Responses API stream of a reply built by :func:`responses_reply`."""
    started = dict(reply, status="in_progress", output=[], usage=None)
    yield "response.created", {"response": started}
    yield "response.in_progress", {"response": started}
    for index, item in enumerate(reply["output"]):
        if item["type"] == "function_call":
            yield "response.output_item.added", {"output_index": index, "item": dict(item, arguments="", status="in_progress")}
            yield "response.function_call_arguments.delta", {"output_index": index, "item_id": item["id"], "delta": item["arguments"]}
            yield "response.function_call_arguments.done", {"output_index": index, "item_id": item["id"], "arguments": item["arguments"]}
        else:
            part = item["content"][0]
            yield "response.output_item.added", {"output_index": index, "item": dict(item, content=[], status="in_progress")}
            yield "response.content_part.added", {"output_index": index, "item_id": item["id"], "content_index": 0,
                                                  "part": dict(part, text="")}
            yield "response.output_text.delta", {"output_index": index, "item_id": item["id"], "content_index": 0,
                                                 "delta": part["text"], "logprobs": []}
            yield "response.output_text.done", {"output_index": index, "item_id": item["id"], "content_index": 0,
                                                "text": part["text"], "logprobs": []}
            yield "response.content_part.done", {"output_index": index, "item_id": item["id"], "content_index": 0, "part": part}
        yield "response.output_item.done", {"output_index": index, "item": item}
    yield "response.completed", {"response": reply}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "scripted-model/1"

    def log_message(self, *args):  # the log file is the record; keep stderr for failures
        pass

    def _send_json(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, events):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for event, data in events:
            prefix = f"event: {event}\n" if event else ""
            self.wfile.write(f"{prefix}data: {data}\n\n".encode())
            self.wfile.flush()

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            return self._send_json(200, {"object": "list", "data": [
                {"id": "scripted", "object": "model", "created": 0, "owned_by": "lro-tests"}]})
        self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError as err:
            return self._send_json(400, {"error": {"message": f"bad JSON: {err}", "type": "invalid_request_error"}})
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/chat/completions"):
            api, conversation = "chat", Conversation.from_chat(body)
        elif path.endswith("/responses"):
            api, conversation = "responses", Conversation.from_responses(body)
        else:
            return self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
        stream = bool(body.get("stream"))
        record = {"api": api, "step": conversation.turns, "stream": stream, "tools": conversation.tools,
                  "tool_results": conversation.tool_results, "observations": conversation.observations,
                  "request_chars": len(raw)}
        try:
            kind, payload = plan(self.server.script, conversation)
        except ScriptError as err:
            record["error"] = str(err)
            self.server.write_log(record)
            print(f"scripted model: {err}", file=sys.stderr, flush=True)
            return self._send_json(400, {"error": {"message": f"scripted model: {err}",
                                                   "type": "invalid_request_error", "code": None, "param": None}})
        model = body.get("model") or "scripted"
        if api == "chat":
            reply = chat_reply(model, kind, payload, len(raw))
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            events = ((None, json.dumps(c)) for c in chat_chunks(reply, include_usage))
            done = [(None, "[DONE]")]
        else:
            reply = responses_reply(model, kind, payload, len(raw), body.get("tools") or [])
            numbered = ((e, dict(d, type=e, sequence_number=n)) for n, (e, d) in enumerate(responses_events(reply)))
            events = ((e, json.dumps(d)) for e, d in numbered)
            done = []
        record["reply"] = reply
        self.server.write_log(record)
        if stream:
            self._send_stream(itertools.chain(events, done))
        else:
            self._send_json(200, reply)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port, script, log_path):
        super().__init__(("127.0.0.1", port), Handler)
        self.script = script
        self.log_path = log_path

    def write_log(self, record):
        with _log_lock, open(self.log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record, ensure_ascii=False) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", required=True, help="the script: a JSON file with steps")
    parser.add_argument("--log", required=True, help="JSON lines, one per request")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args(argv)
    with open(args.script, encoding="utf-8") as f:
        script = json.load(f)
    if not script.get("steps"):
        parser.error("the script has no steps")
    server = Server(args.port, script, args.log)
    print(f"listening http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
