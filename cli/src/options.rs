//! Command-line options shared by the subcommands, turned into core types.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use lro_core::extract::{ExtractRequest, LineRange, SearchSpec};
use lro_core::{ErrorCode, LroError, OffloadConfig, OffloadEvent, Offloader};
use lro_host_s3::NativeHost;
use serde_json::{Map, Value};

/// Configuration sources, lowest precedence first: defaults, `--config FILE`, the
/// `ATLATL_PROMPT__OFFLOAD__*` environment, the named flags, then `--set KEY=VALUE`.
#[derive(Debug, Clone, Args)]
pub struct ConfigArgs {
    /// A TOML file with a [prompt.offload] section.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Directory of the offload files (default: lro-UID in the system temp dir, made 0700),
    /// or an object store prefix, s3://bucket/prefix (credentials, region and endpoint from
    /// the AWS_* environment).
    #[arg(long, value_name = "DIR|URI")]
    pub output_dir: Option<String>,
    /// Use an output directory other users can write, or swap through a parent they can
    /// write (refused otherwise: they could plant or replace the files LRO reads back).
    #[arg(long)]
    pub allow_shared_dir: bool,
    /// Offload when estimated tokens exceed this (default 1600).
    #[arg(long, value_name = "N")]
    pub threshold: Option<String>,
    /// Seconds before cleanup may delete a file (default 3600).
    #[arg(long, value_name = "N")]
    pub ttl_seconds: Option<String>,
    /// File name prefix (default "atlatl").
    #[arg(long, value_name = "PREFIX")]
    pub prefix: Option<String>,
    /// Guidance template: shell (jq commands) or native (the lro_extract tool).
    #[arg(long, value_name = "MODE")]
    pub guidance: Option<String>,
    /// How much of the descriptor an offloaded result returns: full (default), compact
    /// (summary, path, one line per recipe; at most 350 tokens) or pointer (path, count and
    /// one line; at most 100 tokens).
    #[arg(long, value_name = "PROFILE")]
    pub descriptor: Option<String>,
    /// Set any configuration key, KEY=VALUE (repeatable; over the flags above), e.g.
    /// --set extract.timeout_ms=500. `lro config keys` lists the keys.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Print events (OffloadCreated, OffloadWriteFailed, OffloadFileExpired) as JSON lines on stderr.
    #[arg(long)]
    pub events: bool,
}

/// The named flags that set a configuration key, and the key each sets (a test holds them to
/// the core's table of keys).
const NAMED_FLAGS: [(&str, &str); 7] = [
    ("--output-dir", "output_dir"),
    ("--allow-shared-dir", "allow_shared_dir"),
    ("--threshold", "threshold_tokens"),
    ("--ttl-seconds", "ttl_seconds"),
    ("--prefix", "file_prefix"),
    ("--guidance", "guidance"),
    ("--descriptor", "descriptor"),
];

impl ConfigArgs {
    /// The configuration these options describe.
    pub fn load(&self) -> Result<OffloadConfig, LroError> {
        self.load_over(OffloadConfig::default())
    }

    /// The configuration these options describe, over `base` instead of the defaults. The
    /// file is read with the core's limits (a regular file of at most 1 MiB, never a FIFO or
    /// a device); sections of it that look like `[prompt.offload]` but are not it are named
    /// on stderr.
    pub fn load_over(&self, base: OffloadConfig) -> Result<OffloadConfig, LroError> {
        let mut config = base;
        if let Some(path) = &self.config {
            // Every failure to read the file is a configuration error for the command line.
            let text = lro_core::config_file::read_config_file(path)
                .map_err(|e| LroError::new(ErrorCode::InvalidConfig, e.message().to_owned()))?;
            for warning in config.apply_toml_checked(&text)? {
                note!("lro: warning: {warning}");
            }
        }
        config.apply_env_os(std::env::vars_os())?;
        let [
            output_dir,
            allow_shared_dir,
            threshold,
            ttl_seconds,
            prefix,
            guidance,
            descriptor,
        ] = NAMED_FLAGS.map(|(_, key)| key);
        let flags = [
            (output_dir, self.output_dir.as_deref()),
            (threshold, self.threshold.as_deref()),
            (ttl_seconds, self.ttl_seconds.as_deref()),
            (prefix, self.prefix.as_deref()),
            (guidance, self.guidance.as_deref()),
            (descriptor, self.descriptor.as_deref()),
            (allow_shared_dir, self.allow_shared_dir.then_some("true")),
        ];
        for (key, value) in flags {
            if let Some(value) = value {
                config.set_str(key, value)?;
            }
        }
        for pair in &self.set {
            let (key, value) = pair.split_once('=').ok_or_else(|| {
                LroError::new(
                    ErrorCode::InvalidConfig,
                    format!(
                        "--set {pair:?}: expected KEY=VALUE (`lro config keys` lists the keys)"
                    ),
                )
            })?;
            config.set_str(key.trim(), value)?;
        }
        Ok(config)
    }

    /// An offloader over the host the output directory names (files, or an object store).
    pub fn offloader(&self) -> Result<Offloader<NativeHost>, LroError> {
        self.offloader_with(self.load()?)
    }

    /// An offloader with `config` (these options, adjusted) over the host its output
    /// directory names.
    pub fn offloader_with(&self, config: OffloadConfig) -> Result<Offloader<NativeHost>, LroError> {
        let host = NativeHost::for_config(&config)?;
        let lro = Offloader::new(config, host)?;
        Ok(if self.events {
            lro.with_event_sink(|event: &OffloadEvent| {
                if let Ok(line) = serde_json::to_string(event) {
                    note!("{line}");
                }
            })
        } else {
            lro
        })
    }
}

/// How `lro offload` reads stdin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// A tool's text, read as LRO reads any: JSON, JSON inside a JSON string, a Python
    /// literal, a CSV/TSV/Markdown table, or else one record per line.
    Auto,
    /// JSON; anything else is an error.
    Json,
    /// The same as `auto` (kept for scripts written when it meant "lines of text").
    Text,
}

/// Stdin as `lro offload` hands it to the core.
#[derive(Debug)]
pub enum Input<'a> {
    /// JSON text, for the core's text path (no tree is built for an array of records).
    Json(&'a [u8]),
    /// A tool's text, for the core to read.
    Text(&'a str),
}

impl InputFormat {
    /// Reads `bytes` as this format says.
    pub fn read(self, bytes: &[u8]) -> Result<Input<'_>, LroError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            LroError::new(ErrorCode::InvalidInput, format!("input is not UTF-8: {e}"))
        })?;
        Ok(match self {
            Self::Auto | Self::Text => Input::Text(text),
            // Invalid JSON is the core's `invalid_input` ("input is not valid JSON: ...").
            Self::Json => Input::Json(bytes),
        })
    }
}

/// `lro extract FILE (--recipe N [--param K=V]... | --query F | --lines A:B | --search RE |
/// --where DOC [--fields ...] [--sort ...] [--skip N] [--limit N] [--count | --group-by F | ...])`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The offload file (a descriptor's file_path).
    pub file: String,
    /// A recipe number, 1-10.
    #[arg(long, group = "verb")]
    pub recipe: Option<u8>,
    /// A recipe parameter, KEY=VALUE (repeatable), e.g. --param namespace=_semantic.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// A jq filter, run over each record.
    #[arg(long, group = "verb")]
    pub query: Option<String>,
    /// Records A to B (B exclusive, 0-based): --lines 0:20, --lines 100:.
    #[arg(long, group = "verb", value_name = "A:B")]
    pub lines: Option<String>,
    /// A regular expression searched in the raw lines.
    #[arg(long, group = "verb", value_name = "REGEX")]
    pub search: Option<String>,
    /// With --search: ignore case.
    #[arg(long, requires = "search")]
    pub ignore_case: bool,
    /// With --search: at most N matches.
    #[arg(long, requires = "search", value_name = "N")]
    pub max: Option<u64>,
    /// A MongoDB filter document, e.g. '{"tags": "cache", "provenance.confidence": {"$gte": 0.8}}'.
    #[arg(long = "where", value_name = "JSON")]
    pub filter: Option<String>,
    /// With a structured query: the fields to print, comma-separated (dotted paths allowed).
    #[arg(long, value_name = "A,B.C")]
    pub fields: Option<String>,
    /// With a structured query: sort by FIELD, or -FIELD for descending (repeatable, or comma-separated).
    #[arg(long, value_name = "FIELD|-FIELD", allow_hyphen_values = true)]
    pub sort: Vec<String>,
    /// With a structured query: pass over the first N matching records.
    #[arg(long, value_name = "N")]
    pub skip: Option<u64>,
    /// With a structured query: print at most N matching records.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Print the number of matching records.
    #[arg(long, group = "aggregate")]
    pub count: bool,
    /// Print [{"FIELD": value, "count": n}, ...] for the matching records, largest first.
    #[arg(long, group = "aggregate", value_name = "FIELD")]
    pub group_by: Option<String>,
    /// Print the distinct values of FIELD (arrays unwound) as one JSON array.
    #[arg(long, group = "aggregate", value_name = "FIELD")]
    pub distinct: Option<String>,
    /// Print {count, min, max, sum, avg} of the numbers in FIELD.
    #[arg(long, group = "aggregate", value_name = "FIELD")]
    pub stats: Option<String>,
    /// Cap the output at N bytes of JSON (default: no cap). A capped run prints what fits and exits 3.
    #[arg(long, value_name = "N")]
    pub max_output_bytes: Option<u64>,
    /// Cap the output at N values (default: no cap). A capped run prints what fits and exits 3.
    #[arg(long, value_name = "N")]
    pub max_output_records: Option<u64>,
    /// Most memory a jq filter's values may take, estimated, in bytes (default
    /// extract.max_memory_bytes, 512 MiB). A filter past it, or past 1024 levels of nesting,
    /// stops with resource_limit and exits 4.
    #[arg(long, value_name = "N")]
    pub max_memory_bytes: Option<u64>,
    /// Read one section of the file only (a name from its `sections`), for --query,
    /// --lines and --search; each recipe reads its own section already.
    #[arg(long, value_name = "NAME")]
    pub section: Option<String>,
    /// Print the file's full descriptor (line schema, the ten recipes with their commands),
    /// rebuilt from the file, whatever profile described it.
    #[arg(long, group = "verb")]
    pub describe: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

impl ExtractArgs {
    /// Strings print raw for recipes (like `jq -r` for #1); JSON otherwise.
    pub fn raw_strings(&self) -> bool {
        self.recipe.is_some()
    }

    /// The configuration, with the output uncapped unless a flag caps it: a shell user
    /// asked for the data, as with jq (the configured caps are for agents).
    pub fn load_config(&self) -> Result<OffloadConfig, LroError> {
        let mut config = self.config.load()?;
        config.extract.max_output_bytes = self.max_output_bytes.unwrap_or(u64::MAX);
        config.extract.max_output_records = self.max_output_records.unwrap_or(u64::MAX);
        if let Some(bytes) = self.max_memory_bytes {
            config.extract.max_memory_bytes = bytes;
        }
        Ok(config)
    }

    /// The offload file as the core takes it: a relative path with a directory part given
    /// on the command line is relative to the current directory, as for any command-line
    /// tool, so it is made absolute here; a bare file name stays the core's, a name in the
    /// output directory (which is what an MCP client's `file_path` means, and the only way to
    /// name an object of an `s3://` output directory by its name); a URI passes as it is.
    pub fn file_path(&self) -> Result<String, LroError> {
        let file = Path::new(&self.file);
        let bare_name = file.components().count() == 1
            && matches!(
                file.components().next(),
                Some(std::path::Component::Normal(_))
            );
        if file.is_absolute() || lro_core::host::is_uri(file) || bare_name {
            return Ok(self.file.clone());
        }
        let cwd = std::env::current_dir()
            .map_err(|e| LroError::from_io(&e, "cannot read the current directory"))?;
        Ok(cwd.join(file).to_string_lossy().into_owned())
    }

    /// The core request these options describe.
    pub fn request(&self) -> Result<ExtractRequest, LroError> {
        let bad = |msg: String| LroError::new(ErrorCode::InvalidArgument, msg);
        let mut params = Map::new();
        for pair in &self.params {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| bad(format!("--param {pair:?}: expected KEY=VALUE")))?;
            params.insert(k.to_owned(), Value::String(v.to_owned()));
        }
        let lines = match &self.lines {
            None => None,
            Some(range) => {
                let (a, b) = range
                    .split_once(':')
                    .ok_or_else(|| bad(format!("--lines {range:?}: expected A:B")))?;
                let num = |s: &str| {
                    s.trim()
                        .parse::<u64>()
                        .map_err(|_| bad(format!("--lines {range:?}: not a number")))
                };
                let start = if a.trim().is_empty() { 0 } else { num(a)? };
                let end = if b.trim().is_empty() {
                    None
                } else {
                    Some(num(b)?)
                };
                Some(LineRange {
                    start,
                    end,
                    ..LineRange::default()
                })
            }
        };
        let search = self.search.as_ref().map(|pattern| SearchSpec {
            pattern: pattern.clone(),
            ignore_case: self.ignore_case,
            max_results: self.max,
        });
        let filter = self
            .filter
            .as_ref()
            .map(|text| {
                serde_json::from_str::<Value>(text).map_err(|e| {
                    LroError::new(
                        ErrorCode::InvalidQuery,
                        format!("--where is not a JSON filter document: {e}"),
                    )
                })
            })
            .transpose()?;
        let sort = (!self.sort.is_empty()).then(|| Value::from(self.sort.join(",")));
        Ok(ExtractRequest {
            recipe: self.recipe,
            query: self.query.clone(),
            params: if params.is_empty() {
                None
            } else {
                Some(params)
            },
            lines,
            search,
            filter,
            fields: self.fields.as_deref().map(Value::from),
            sort,
            skip: self.skip,
            limit: self.limit,
            count: self.count.then_some(true),
            group_by: self.group_by.clone(),
            distinct: self.distinct.clone(),
            stats: self.stats.clone(),
            section: self.section.clone(),
            describe: self.describe.then_some(true),
            extract_tool: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// A parser of the configuration flags alone.
    #[derive(Debug, clap::Parser)]
    struct Flags {
        #[command(flatten)]
        config: ConfigArgs,
    }

    #[test]
    fn every_named_flag_sets_a_key_of_the_table() {
        let command = Flags::command();
        for (flag, key) in NAMED_FLAGS {
            assert!(
                lro_core::config::key(key).is_some(),
                "{flag} sets {key}, not a key"
            );
            let name = flag.trim_start_matches("--");
            assert!(
                command
                    .get_arguments()
                    .any(|arg| arg.get_long() == Some(name)),
                "{flag} is not a flag"
            );
        }
    }

    #[test]
    fn set_takes_any_key_and_names_a_bad_one() {
        use clap::Parser;
        let flags = Flags::try_parse_from([
            "lro",
            "--set",
            "extract.timeout_ms=500",
            "--set",
            "mcp.never_offload=a,b",
            "--threshold",
            "10",
            "--set",
            "threshold_tokens=20",
        ])
        .unwrap();
        let config = flags.config.load().unwrap();
        assert_eq!(config.extract.timeout_ms, 500);
        assert_eq!(config.mcp.never_offload, ["a", "b"]);
        assert_eq!(
            config.threshold_tokens, 20,
            "--set comes after the named flags"
        );
        for (pair, says) in [
            (
                "extract.timeout=5",
                "unknown configuration key prompt.offload.extract.timeout",
            ),
            (
                "store.retries=11",
                "invalid value for prompt.offload.store.retries",
            ),
            (
                "store.retries",
                "--set \"store.retries\": expected KEY=VALUE",
            ),
        ] {
            let flags = Flags::try_parse_from(["lro", "--set", pair]).unwrap();
            let err = flags.config.load().unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig, "{pair}");
            assert!(err.message().starts_with(says), "{pair}: {err}");
        }
    }
}
