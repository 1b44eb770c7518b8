"""The data the real-server tests feed their servers, generated here, deterministic and quick.

Each generator returns the source of truth the tests compute their expectations from (never
from LRO's output): the graph given to server-memory, the paths written for server-filesystem,
the rows inserted into SQLite and DuckDB, the commits written into a git repository."""

import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

# --- server-memory: a knowledge graph -----------------------------------------------------

ENTITY_TYPES = ["person", "project", "service", "team"]
RELATION_TYPES = ["depends_on", "owns", "reports_to", "deploys"]


def entity_name(i: int) -> str:
    return f"entity-{i:04d}"


def graph(entities: int, relations: int) -> tuple[list, list]:
    """`entities` entities and `relations` distinct relations between them."""
    nodes = [
        {
            "name": entity_name(i),
            "entityType": ENTITY_TYPES[i % 4],
            "observations": [f"observation {j} about entity {i}: owns the cache layer {i % 9}" for j in range(3)],
        }
        for i in range(entities)
    ]
    # Relation r links r mod n/4 to 7r + 1 mod n: distinct triples, and the first quarter of
    # the entities are hubs, each the source of several relations.
    edges = [
        {"from": entity_name(r % (entities // 4)), "to": entity_name((r * 7 + 1) % entities), "relationType": RELATION_TYPES[(r // 3) % 4]}
        for r in range(relations)
    ]
    assert len({(e["from"], e["to"], e["relationType"]) for e in edges}) == relations
    return nodes, edges


# --- server-filesystem: a nested tree of files ----------------------------------------------

EXTENSIONS = ["ts", "js", "json", "md", "ts"]
# A few names that JSON, shells and jq all have to carry exactly.
ODD_NAMES = ["résumé.md", "数据.json", "it's \"quoted\".ts", "back\\slash.txt", "🚀 launch.ts"]


def file_tree(root: Path, packages: int = 6, modules: int = 4, files: int = 18) -> dict:
    """Writes packages/module nests of small files under `root`; returns {relative path: type}
    for every directory and file below it ("directory" / "file"), paths joined by '/'."""
    entries = {}

    def add_dir(rel: str):
        (root / rel).mkdir(parents=True, exist_ok=True)
        entries[rel] = "directory"

    def add_file(rel: str):
        (root / rel).write_text("x", encoding="utf-8")
        entries[rel] = "file"

    root.mkdir(parents=True, exist_ok=True)
    add_file("README.md")
    for p in range(packages):
        package = f"pkg_{p}"
        add_dir(package)
        add_file(f"{package}/package.json")
        add_dir(f"{package}/src")
        add_dir(f"{package}/empty")  # a directory whose children array is empty
        for m in range(modules):
            module = f"{package}/src/mod_{m}"
            add_dir(module)
            add_dir(f"{module}/deep")
            for f in range(files):
                add_file(f"{module}/file_{p}{m}_{f:02d}.{EXTENSIONS[f % len(EXTENSIONS)]}")
            add_file(f"{module}/deep/leaf_{p}{m}.ts")
    add_dir("odd")
    for name in ODD_NAMES:
        add_file(f"odd/{name}")
    return entries


# --- mcp-server-sqlite and mcp-server-duckdb: rows with hard strings --------------------------

REGIONS = ["emea", "amer", "apac", "latam", "emea"]
NOTES = [
    "O'Brien's order",
    'the "priority" lane',
    "both 'single' and \"double\" quotes",
    "C:\\exports\\q3\\report.csv",
    "café crème, naïve façade",
    "東京支店の注文",
    "🚀 launch 🎉",
    "tab\there",
    "price\u00a0€ (a no-break space, which repr() escapes as \\xa0)",
    "line one\nline two",
    "",
]
CUSTOMERS = ["Zoë", "Łukasz", "李雷", "O'Neil", 'Ana "AJ"']
SALES_COLUMNS = ["id", "customer", "region", "amount", "note", "paid"]


def sales_rows(count: int) -> list[dict]:
    """`count` rows of a sales table: ints, floats, NULLs, booleans, and strings with both
    quotes, backslashes, control characters and non-ASCII text (accents, CJK, emoji)."""
    return [
        {
            "id": i,
            "customer": f"cust-{i % 97:03d} {CUSTOMERS[i % 5]}",
            "region": REGIONS[(i * 3) % len(REGIONS)],
            "amount": (i * 7919 % 100000) / 100,
            "note": None if i % 13 == 0 else f"{NOTES[i % len(NOTES)]} #{i}",
            "paid": i % 3 != 0,
        }
        for i in range(count)
    ]


def sql_literal(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + value.replace("'", "''") + "'"


def insert_statements(table: str, rows: list[dict], columns: list[str], batch: int = 1000) -> list[str]:
    """Multi-row INSERTs of `rows` (standard SQL literals: quotes doubled, backslashes as is)."""
    return [
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
        + ", ".join("(" + ", ".join(sql_literal(row[c]) for c in columns) + ")" for row in rows[start:start + batch])
        for start in range(0, len(rows), batch)
    ]


# --- mcp-server-git: a repository with deterministic commits ---------------------------------

AUTHORS = [("Ada Lovelace", "ada@example.org"), ("Zoë Ångström", "zoe@example.org"),
           ("李雷", "li@example.org"), ("Grace O'Hopper", "grace@example.org")]
OFFSETS = [0, 120, -300]  # minutes east of UTC: +00:00, +02:00, -05:00
EPOCH = 1_700_000_000


def commits(count: int) -> list[dict]:
    """The commits to write, oldest first: author, time (epoch seconds and offset), message."""
    return [
        {
            "author": AUTHORS[i % len(AUTHORS)] if i % 5 else AUTHORS[1],
            "time": EPOCH + i * 3607,
            "offset": OFFSETS[i % len(OFFSETS)],
            "message": f"{['feat', 'fix', 'docs', 'refactor'][i % 4]}: change {i} of the \"log\" test (ünïcode ✓)\n",
        }
        for i in range(count)
    ]


def _git_tz(minutes: int) -> str:
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"


def git_repository(path: Path, history: list[dict]) -> list[str]:
    """A repository at `path` holding `history` (one file changed per commit), written in one
    `git fast-import` run; returns the commit hashes, oldest first."""
    subprocess.run(["git", "init", "--quiet", "--initial-branch=main", str(path)], check=True)
    stream = bytearray()
    for i, commit in enumerate(history):
        name, email = commit["author"]
        stamp = f"{commit['time']} {_git_tz(commit['offset'])}"
        message = commit["message"].encode()
        content = f"change {i}\n".encode()
        stream += f"commit refs/heads/main\nmark :{i + 1}\n".encode()
        stream += f"author {name} <{email}> {stamp}\ncommitter {name} <{email}> {stamp}\n".encode()
        stream += f"data {len(message)}\n".encode() + message
        if i:
            stream += f"from :{i}\n".encode()
        stream += f"M 100644 inline file_{i % 10}.txt\ndata {len(content)}\n".encode() + content + b"\n"
    subprocess.run(["git", "-C", str(path), "fast-import", "--quiet"], input=bytes(stream), check=True)
    subprocess.run(["git", "-C", str(path), "checkout", "--quiet", "main"], check=True)
    hashes = subprocess.run(["git", "-C", str(path), "rev-list", "--reverse", "main"],
                            check=True, capture_output=True, text=True).stdout.split()
    assert len(hashes) == len(history)
    return hashes


def git_log_text(history: list[dict], hashes: list[str]) -> str:
    """What mcp-server-git's git_log returns for the whole history (newest first): its
    format, `Commit:`/`Author:`/`Date:`/`Message:` per commit, rebuilt from the source."""
    entries = []
    for commit, sha in reversed(list(zip(history, hashes))):
        when = datetime.fromtimestamp(commit["time"], timezone(timedelta(minutes=commit["offset"])))
        entries.append(f"Commit: {sha}\nAuthor: {commit['author'][0]}\nDate: {when}\nMessage: {commit['message']}\n")
    return "Commit history:\n" + "\n".join(entries)
