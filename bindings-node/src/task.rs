//! The work itself, on plain Rust types: one pure `*_impl` function per entry point, run
//! inline by the sync functions and on the libuv thread pool by the `*Async` ones.

use std::sync::{Arc, Mutex, PoisonError};

use lro_core::jsonl::MifChunks;
use lro_core::{ExtractRequest, LroError, OffloadConfig, OffloadEvent, OffloadRequest, Offloader};
use lro_host_s3::NativeHost;
use lro_js::to_value;
use lro_mcp::ToolCallContext;
use napi::{Env, Task};
use napi_derive::napi;
use serde_json::Value;

use crate::encoded::Encoded;
use crate::js::{self, EventCallback};
use crate::out;

/// Tool output as it came from JS.
pub enum Records {
    /// A JS value, already turned into JSON.
    Value(Value),
    /// Serialized JSON text (a string or a Buffer): parsed by the core, the fast path.
    Json(Vec<u8>),
    /// MIF memories, already scanned piece by piece (`offloadEncoded`).
    Chunks(MifChunks),
    /// MIF memories encoded by `lro.js`, to scan (`offloadEncodedAsync`); `None`: not MIF
    /// memories after all.
    Encoded(Option<Vec<Encoded>>),
}

/// One call's work, with everything it needs moved in (it may run on another thread).
pub enum Job {
    /// `offload`.
    Offload {
        records: Records,
        request: OffloadRequest,
    },
    /// `offloadInject`.
    Inject {
        formatted: String,
        pre_budget: Records,
        request: OffloadRequest,
    },
    /// `interceptToolResult`.
    Intercept {
        result: Value,
        context: ToolCallContext,
    },
    /// `extract`.
    Extract {
        file_path: String,
        /// Boxed: the request is the largest payload by far and jobs are moved around.
        request: Box<ExtractRequest>,
    },
    /// `extractToolCall`: one call of the extract tool, answered as every surface answers.
    ExtractToolCall {
        /// The call's arguments, as the client sent them.
        arguments: Value,
    },
    /// `resolveToolCall`: the result handles of one tool call's arguments resolved.
    ResolveToolCall {
        /// The call's arguments, as the client sent them.
        arguments: Value,
    },
    /// `cleanup`.
    Cleanup,
    /// `listResources`: one page of offload files as MCP resources.
    ListResources {
        /// The previous page's `nextCursor`.
        cursor: Option<String>,
    },
    /// `readResource`.
    ReadResource {
        /// `lro://offloads/{file}` (or `.../records`).
        uri: String,
    },
    /// The arguments were rejected before any work: reported like any other failure, so an
    /// async call rejects its Promise instead of throwing.
    Rejected(LroError),
}

/// What a job produced, and the events it emitted, for delivery on the JS thread.
pub struct Ran {
    result: Result<Value, LroError>,
    events: Vec<OffloadEvent>,
}

fn parse(records: Records) -> Result<Value, LroError> {
    match records {
        Records::Value(value) => Ok(value),
        Records::Chunks(_) | Records::Encoded(_) => Err(LroError::new(
            lro_core::ErrorCode::InvalidArgument,
            "records in pieces are taken by offload only",
        )),
        Records::Json(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            LroError::new(
                lro_core::ErrorCode::InvalidInput,
                format!("input is not valid JSON: {e}"),
            )
        }),
    }
}

fn offload_impl(
    lro: &Offloader<NativeHost>,
    records: Records,
    request: &OffloadRequest,
) -> Result<Value, LroError> {
    let outcome = match records {
        Records::Json(bytes) => lro.offload_json(&bytes, request)?,
        Records::Value(value) => lro.offload(&value, request)?,
        Records::Chunks(chunks) => return offload_scanned(lro, chunks, request),
        Records::Encoded(chunks) => {
            return offload_scanned(lro, crate::chunks::scan_all(chunks, request)?, request);
        }
    };
    to_value(&outcome)
}

/// The outcome of MIF memories scanned in pieces, or `null` when they were not MIF memories
/// after all: the caller then offloads them whole.
fn offload_scanned(
    lro: &Offloader<NativeHost>,
    chunks: MifChunks,
    request: &OffloadRequest,
) -> Result<Value, LroError> {
    lro.offload_chunks(chunks, request)?
        .map_or(Ok(Value::Null), |outcome| to_value(&outcome))
}

fn inject_impl(
    lro: &Offloader<NativeHost>,
    formatted: &str,
    pre_budget: Records,
    request: &OffloadRequest,
) -> Result<Value, LroError> {
    to_value(&lro.offload_inject(formatted, &parse(pre_budget)?, request)?)
}

fn intercept_impl(
    lro: &Offloader<NativeHost>,
    result: &Value,
    context: &ToolCallContext,
) -> Result<Value, LroError> {
    to_value(&lro_mcp::intercept_tool_result(lro, result, context)?)
}

fn extract_impl(
    lro: &Offloader<NativeHost>,
    file_path: &str,
    request: &ExtractRequest,
) -> Result<Value, LroError> {
    to_value(&lro.extract(file_path, request)?)
}

fn cleanup_impl(lro: &Offloader<NativeHost>) -> Result<Value, LroError> {
    to_value(&lro.cleanup()?)
}

impl Job {
    /// Runs the job against a fresh offloader; events are collected only when someone listens.
    pub fn run(self, config: OffloadConfig, collect_events: bool) -> Ran {
        let events = Arc::new(Mutex::new(Vec::new()));
        let result = (|| {
            if let Job::Rejected(err) = self {
                return Err(err);
            }
            // Files, or an object store when `outputDir` is an s3:// URI.
            let host = NativeHost::for_config(&config)?;
            let mut lro = Offloader::new(config, host)?;
            if collect_events {
                let sink = Arc::clone(&events);
                lro = lro.with_event_sink(move |event: &OffloadEvent| {
                    sink.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(event.clone());
                });
            }
            match self {
                Job::Offload { records, request } => offload_impl(&lro, records, &request),
                Job::Inject {
                    formatted,
                    pre_budget,
                    request,
                } => inject_impl(&lro, &formatted, pre_budget, &request),
                Job::Intercept { result, context } => intercept_impl(&lro, &result, &context),
                Job::Extract { file_path, request } => extract_impl(&lro, &file_path, &request),
                Job::ExtractToolCall { arguments } => Ok(lro_mcp::extract_tool::call_result(
                    &lro,
                    Some(&arguments),
                    &std::sync::atomic::AtomicBool::new(false),
                )),
                Job::ResolveToolCall { arguments } => {
                    Ok(lro_js::resolve_tool_call(&lro, &arguments))
                }
                Job::Cleanup => cleanup_impl(&lro),
                Job::ListResources { cursor } => {
                    to_value(&lro_mcp::list_resources(&lro, cursor.as_deref())?)
                }
                Job::ReadResource { uri } => to_value(&lro_mcp::read_resource(&lro, &uri)?),
                Job::Rejected(err) => Err(err),
            }
        })();
        let events = std::mem::take(&mut *events.lock().unwrap_or_else(PoisonError::into_inner));
        Ran { result, events }
    }
}

/// Back on the JS thread: deliver the events, then return the value or throw the error.
pub fn settle(env: &Env, on_event: Option<&EventCallback>, ran: Ran) -> napi::Result<Value> {
    js::deliver(env, on_event, ran.events)?;
    ran.result.map_err(|err| js::to_js_error(env, &err))
}

/// An entry point's work, run on the libuv thread pool; its Promise settles on the JS thread.
pub struct LroTask {
    config: OffloadConfig,
    job: Option<Job>,
    on_event: Option<EventCallback>,
}

impl LroTask {
    /// A task for `job`.
    pub fn new(config: OffloadConfig, job: Job, on_event: Option<EventCallback>) -> Self {
        Self {
            config,
            job: Some(job),
            on_event,
        }
    }

    fn compute(&mut self) -> Ran {
        let job = self.job.take().unwrap_or_else(|| {
            Job::Rejected(LroError::new(
                lro_core::ErrorCode::InvalidArgument,
                "the task has already run",
            ))
        });
        job.run(self.config.clone(), self.on_event.is_some())
    }

    fn resolve(&mut self, env: &Env, ran: Ran) -> napi::Result<Value> {
        settle(env, self.on_event.as_ref(), ran)
    }
}

/// The tasks of the async twins, one per result type: napi writes `Promise<Outcome>` and so
/// on into index.d.ts from each task's `JsValue`.
macro_rules! tasks {
    ($($(#[$doc:meta])* $task:ident => $result:ty;)*) => {$(
        $(#[$doc])*
        pub struct $task(LroTask);

        impl From<LroTask> for $task {
            fn from(task: LroTask) -> Self {
                Self(task)
            }
        }

        #[napi]
        impl Task for $task {
            type Output = Ran;
            // The result is made in `resolve`, on the JS thread.
            type JsValue = $result;

            fn compute(&mut self) -> napi::Result<Ran> {
                Ok(self.0.compute())
            }

            fn resolve(&mut self, env: Env, ran: Ran) -> napi::Result<$result> {
                self.0.resolve(&env, ran).map(Into::into)
            }
        }
    )*};
}

tasks! {
    /// `offloadAsync`, `offloadJsonAsync`, `offloadInjectAsync` (and the internal
    /// `offloadEncodedAsync`, whose outcome is `null` when the records were not MIF memories).
    OutcomeTask => out::Outcome;
    /// `interceptToolResultAsync`.
    InterceptTask => out::Intercepted;
    /// `extractAsync`.
    ExtractTask => out::ExtractResponse;
    /// `extractToolCallAsync`.
    ExtractToolCallTask => out::ExtractToolResult;
    /// `resolveToolCallAsync`.
    ResolveToolCallTask => out::ResolvedToolCall;
    /// `cleanupAsync`.
    CleanupTask => out::CleanupReport;
    /// `listResourcesAsync`.
    ListResourcesTask => out::ResourcePage;
    /// `readResourceAsync`.
    ReadResourceTask => out::ReadResourceResult;
}
