// The playground's samples: tool results shaped as real MCP servers return them, built here
// rather than committed (a few KB of code instead of a few hundred KB of data), and the same
// on every load (a seeded generator), so the browser test can check the page's answers.
//
// Each sample is { id, label, operation, detail, threshold, text(), records? }: `text()` is
// what the tool returns (the text a client would paste); `records()`, where there are
// records, is the same data as JS values, for tests.

/** mulberry32: a small seeded generator, so every load builds the same sample. */
function seeded(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (list) => list[Math.floor(next() * list.length)],
  };
}

const pad = (n, width = 2) => String(n).padStart(width, "0");

// ---- MIF memories, as a memory server's recall returns them --------------------------------

const NAMESPACES = [
  "_semantic/decisions",
  "_semantic/knowledge",
  "_semantic/people",
  "_episodic/sessions",
  "_episodic/incidents",
  "_procedural/runbooks",
  "projects/atlas",
  "projects/borealis",
];
const TOPICS = [
  ["cache", "the read-through cache in front of the catalog API"],
  ["retry policy", "retries with jittered backoff for the payment webhooks"],
  ["schema migration", "the online migration of the orders table to bigint keys"],
  ["rate limits", "per-tenant rate limits on the public search endpoint"],
  ["auth tokens", "short-lived tokens for service-to-service calls"],
  ["search ranking", "the BM25 plus embeddings hybrid ranking"],
  ["embedding refresh", "the nightly embedding refresh job"],
  ["on-call", "the on-call rotation and its escalation policy"],
  ["feature flags", "the flag service that gates the new checkout"],
  ["observability", "structured logs and the p99 latency dashboards"],
];
const TAG_POOL = ["architecture", "ops", "security", "performance", "api", "data", "incident", "cache", "team"];
const PEOPLE = ["Ana Ruiz", "Ben Okafor", "Chen Wei", "Dana Kowalski", "Eli Haddad", "Farah Nasser", "Goran Petrov"];
const SERVICES = ["catalog-api", "checkout", "payments", "search", "identity", "notifier", "ingest"];

function memory(rng, i) {
  const [topic, what] = TOPICS[i % TOPICS.length];
  const type = ["semantic", "episodic", "procedural"][rng.int(3)];
  const namespace =
    type === "procedural" ? "_procedural/runbooks" : type === "episodic" ? rng.pick(NAMESPACES.slice(3, 5)) : rng.pick(NAMESPACES);
  const person = rng.pick(PEOPLE);
  const service = rng.pick(SERVICES);
  const month = 1 + rng.int(10);
  const tags = [...new Set([topic.split(" ")[0], rng.pick(TAG_POOL), rng.pick(TAG_POOL)])].filter((t) =>
    TAG_POOL.includes(t),
  );
  const titles = {
    semantic: `${topic[0].toUpperCase()}${topic.slice(1)}: what we decided for ${service}`,
    episodic: `Session ${i}: ${person} on ${topic} in ${service}`,
    procedural: `Runbook: ${topic} for ${service}`,
  };
  const contents = {
    semantic: `We chose ${what} for ${service}. ${person} measured p99 at ${80 + rng.int(240)} ms before and ${20 + rng.int(60)} ms after; the alternative was rejected for its operational cost.`,
    episodic: `${person} paired with the agent on ${what}. The change touched ${1 + rng.int(9)} files in ${service}; a follow-up ticket tracks the dashboards.`,
    procedural: `1. Check the ${service} dashboard. 2. If ${topic} alerts fire, follow ${what}. 3. Page ${person} when the error rate stays above ${1 + rng.int(4)}% for ten minutes.`,
  };
  return {
    id: `mem-${pad(i, 5)}`,
    memory_type: type,
    title: titles[type],
    content: contents[type],
    namespace,
    tags: tags.length ? tags : ["data"],
    status: rng.next() < 0.8 ? "active" : "archived",
    created: `2026-${pad(month)}-${pad(1 + rng.int(28))}T${pad(rng.int(24))}:${pad(rng.int(60))}:00Z`,
    modified: `2026-${pad(month + 1)}-${pad(1 + rng.int(28))}T09:30:00Z`,
    summary: `${topic} for ${service}`,
    entities: [
      { name: service, type: "service" },
      { name: person, type: "person" },
    ],
    relationships: i > 0 && rng.next() < 0.3 ? [{ type: "supersedes", target: `mem-${pad(i - 1, 5)}` }] : [],
    provenance: {
      confidence: Math.round((0.55 + rng.next() * 0.44) * 100) / 100,
      trust_level: rng.pick(["verified", "verified", "inferred"]),
      source_type: rng.pick(["conversation", "document", "tool_output"]),
      agent: "claude",
    },
  };
}

export function memories(n = 150) {
  const rng = seeded(7);
  return Array.from({ length: n }, (_, i) => memory(rng, i));
}

// ---- The knowledge graph of @modelcontextprotocol/server-memory (read_graph) ---------------

export function graph() {
  const rng = seeded(11);
  const entities = [];
  const add = (name, entityType, observations) => entities.push({ type: "entity", name, entityType, observations });
  for (const name of PEOPLE) {
    add(name.replace(" ", "_"), "person", [
      `works on ${rng.pick(SERVICES)}`,
      `prefers ${rng.pick(["async reviews", "pairing", "short design docs", "written RFCs"])}`,
      `based in ${rng.pick(["Lisbon", "Lagos", "Shanghai", "Warsaw", "Beirut", "Amman", "Sofia"])}`,
    ]);
  }
  for (const name of SERVICES) {
    add(name, "service", [
      `written in ${rng.pick(["Rust", "Go", "TypeScript", "Python"])}`,
      `p99 latency ${20 + rng.int(200)} ms`,
      `owned by the ${rng.pick(["platform", "commerce", "search", "identity"])} team`,
    ]);
  }
  for (const [topic] of TOPICS) add(`topic:${topic}`, "topic", [`discussed in ${2 + rng.int(20)} sessions`]);
  for (const name of ["Atlas", "Borealis", "Cobalt"]) {
    add(`project:${name}`, "project", [`started 2026-${pad(1 + rng.int(9))}`, `${3 + rng.int(6)} people`]);
  }
  const relations = [];
  const relate = (from, to, relationType) => relations.push({ type: "relation", from, to, relationType });
  for (const person of PEOPLE) {
    const id = person.replace(" ", "_");
    relate(id, rng.pick(SERVICES), "maintains");
    relate(id, `project:${rng.pick(["Atlas", "Borealis", "Cobalt"])}`, "works_on");
    relate(id, rng.pick(PEOPLE).replace(" ", "_"), "reviews_for");
  }
  for (const service of SERVICES) {
    relate(service, rng.pick(SERVICES.filter((s) => s !== service)), "depends_on");
    relate(service, `topic:${rng.pick(TOPICS)[0]}`, "concerns");
  }
  for (const [topic] of TOPICS) relate(`topic:${topic}`, `project:${rng.pick(["Atlas", "Borealis", "Cobalt"])}`, "raised_in");
  return { entities, relations };
}

// ---- SQL rows, as mcp-server-sqlite's read_query returns them: Python's repr() ------------

const REGIONS = ["EMEA", "APAC", "AMER", "LATAM"];
const CUSTOMERS = ["Acme Corp", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "O'Reilly Media", "Wayne Enterprises"];

export function orders(n = 160) {
  const rng = seeded(23);
  return Array.from({ length: n }, (_, i) => ({
    order_id: 10_000 + i,
    customer: rng.pick(CUSTOMERS),
    region: rng.pick(REGIONS),
    status: rng.pick(["shipped", "shipped", "shipped", "pending", "refunded", "cancelled"]),
    items: 1 + rng.int(12),
    total: Math.round((5 + rng.next() * 2400) * 100) / 100,
    placed_at: `2026-${pad(1 + rng.int(11))}-${pad(1 + rng.int(28))} ${pad(rng.int(24))}:${pad(rng.int(60))}:${pad(rng.int(60))}`,
    coupon: rng.next() < 0.25 ? rng.pick(["SPRING10", "VIP", "WELCOME5"]) : null,
  }));
}

/** A JS value as Python's repr() writes it (str, int, float, None, bool, list, dict). */
function pyRepr(value) {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  // Shortest round-trip digits, as Python's repr of a float (an int's digits for an int).
  if (typeof value === "number") return String(value);
  if (typeof value === "string") {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const escaped = value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
    return quote + (quote === "'" ? escaped.replaceAll("'", "\\'") : escaped) + quote;
  }
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`)
    .join(", ")}}`;
}

// Prices are REAL columns: sqlite3 returns floats for them, which repr() writes `120.0`.
const FLOAT_KEYS = new Set(["total"]);

function rowRepr(row) {
  return `{${Object.entries(row)
    .map(([k, v]) => `${pyRepr(k)}: ${FLOAT_KEYS.has(k) && Number.isInteger(v) ? `${v}.0` : pyRepr(v)}`)
    .join(", ")}}`;
}

// ---- A directory tree, as @modelcontextprotocol/server-filesystem's directory_tree --------

export function tree() {
  const rng = seeded(31);
  const file = (name) => ({ name, type: "file" });
  const dir = (name, children) => ({ name, type: "directory", children });
  const modules = ["cache", "config", "errors", "extract", "http", "jobs", "metrics", "offload", "schema", "store"];
  const rustModule = (m) =>
    rng.next() < 0.5
      ? file(`${m}.rs`)
      : dir(m, [file("mod.rs"), ...Array.from({ length: 1 + rng.int(4) }, (_, k) => file(`${m}_${k}.rs`))]);
  return [
    file("Cargo.toml"),
    file("Cargo.lock"),
    file("README.md"),
    file("LICENSE"),
    dir(".github", [dir("workflows", [file("ci.yml"), file("release.yml")])]),
    dir("core", [file("Cargo.toml"), dir("src", [file("lib.rs"), ...modules.map(rustModule)]), dir("tests", modules.slice(0, 6).map((m) => file(`${m}.rs`)))]),
    dir("cli", [file("Cargo.toml"), dir("src", [file("main.rs"), file("options.rs"), dir("commands", ["offload", "extract", "cleanup", "serve"].map((c) => file(`${c}.rs`)))])]),
    dir("web", [
      file("package.json"),
      file("tsconfig.json"),
      dir("src", [
        file("index.ts"),
        dir("components", ["Header", "Table", "Chart", "Filters", "Modal", "Toast"].map((c) => file(`${c}.tsx`))),
        dir("hooks", ["useQuery", "useDebounce", "useTheme"].map((h) => file(`${h}.ts`))),
        dir("styles", [file("app.css"), file("tokens.css")]),
      ]),
      dir("public", [file("favicon.svg"), file("robots.txt"), dir("img", Array.from({ length: 8 }, (_, k) => file(`shot-${k + 1}.png`)))]),
    ]),
    dir("docs", [file("architecture.md"), file("operations.md"), dir("adr", Array.from({ length: 12 }, (_, k) => file(`${pad(k + 1, 4)}-decision.md`)))]),
    dir("scripts", [file("bootstrap.sh"), file("release.sh"), file("bench.py")]),
  ];
}

export const SAMPLES = [
  {
    id: "memories",
    label: "MIF memories: a recall of 150",
    operation: "recall",
    detail: "",
    threshold: 1600,
    records: () => memories(),
    text: () => JSON.stringify(memories(), null, 2),
  },
  {
    id: "graph",
    label: "Knowledge graph: server-memory read_graph",
    operation: "read_graph",
    detail: "",
    threshold: 1600,
    text: () => JSON.stringify(graph(), null, 2),
  },
  {
    id: "sql",
    label: "SQL rows: mcp-server-sqlite read_query (Python repr)",
    operation: "read_query",
    detail: "",
    threshold: 1600,
    records: () => orders(),
    text: () => `[${orders().map(rowRepr).join(", ")}]`,
  },
  {
    id: "tree",
    label: "Directory tree: server-filesystem directory_tree",
    operation: "directory_tree",
    detail: "",
    threshold: 1600,
    text: () => JSON.stringify(tree(), null, 2),
  },
];
