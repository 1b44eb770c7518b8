//! The gateway's sessions: each one a router of its own, in front of an MCP server of its
//! own (a child process started at `initialize`), offloading into a directory of its own.
//!
//! A session's offload directory is `<output dir>/s-<hash>` (`s3://bucket/prefix/s-<hash>`
//! for an object store), `<hash>` from its session id by [`hashed_name`]: every
//! descriptor's `file_path` names that directory, and without authentication the session id
//! is all a client needs to use the session, so a path must not give it away. Its
//! `resources/list`, `resources/read` and extract tool are those of an offloader over that
//! directory alone, so no URI or path another session names can reach outside it (the core
//! refuses paths out of the output directory). Session ids are 128 random bits, hex.
//!
//! With authentication, offloads belong to the principal instead: every session it opens
//! shares one offloader over `<output dir>/<principal's dir>`, which outlives them (its
//! files are the principal's, for its next session too, until they expire), and a session
//! answers only to the principal that opened it.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use lro_core::{ErrorCode, LroError, OffloadConfig, Offloader};
use lro_host_s3::NativeHost;

use super::auth::{Principal, hashed_name};
use super::dispatch::Dispatch;
use super::events::Events;
use crate::proxy::router::{MessageLimits, Router};
use crate::proxy::{Lifecycle, Upstream, settings};

/// How sessions are made.
pub struct Blueprint {
    /// The configuration; each session's output directory is its own below this one's.
    pub config: OffloadConfig,
    /// The directory sessions' directories go in.
    pub base_dir: PathBuf,
    /// `--events`.
    pub events: bool,
    /// Each session's MCP server.
    pub upstreams: Arc<super::upstream::Upstreams>,
    /// `--request-timeout`.
    pub request_timeout: Option<Duration>,
    /// Message size limits.
    pub limits: MessageLimits,
}

/// One session.
pub struct Session {
    /// `Mcp-Session-Id`.
    pub id: String,
    /// Its router.
    pub router: Arc<Router>,
    /// Its MCP server.
    pub upstream: Arc<dyn Upstream>,
    /// Where its router's messages go.
    pub dispatch: Arc<Dispatch>,
    /// Its event streams.
    pub events: Arc<Events>,
    /// Its offloader (its own directory, or its principal's).
    pub lro: Arc<Offloader<NativeHost>>,
    /// The principal that opened it, with authentication.
    pub owner: Option<Principal>,
    /// When a request last named it.
    used: Mutex<Instant>,
}

impl Session {
    /// A request names the session now.
    pub fn touch(&self) {
        *self.used.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    /// Whether nothing named the session for `limit` and no connection waits on it (no
    /// POST waiting for its answer, no stream being read). A call whose client left holding
    /// an event id does not keep the session: its client has `limit` to resume.
    fn idle_for(&self, limit: Duration) -> bool {
        let used = *self.used.lock().unwrap_or_else(PoisonError::into_inner);
        used.elapsed() >= limit && !self.events.has_readers()
    }
}

/// Every live session, and the offloaders of ended ones whose files wait for cleanup.
pub struct Sessions {
    live: Mutex<HashMap<String, Arc<Session>>>,
    /// Each principal's offloader, by its directory's name.
    owned: Mutex<HashMap<String, Arc<Offloader<NativeHost>>>>,
    ended: Mutex<Vec<Arc<Offloader<NativeHost>>>>,
    max: usize,
    blueprint: Blueprint,
}

/// Why a session could not start.
pub enum StartError {
    /// `--max-sessions` are live.
    Full(usize),
    /// The offloader or the server could not start.
    Failed(LroError),
}

impl Sessions {
    /// No session yet; at most `max` at once.
    pub fn new(blueprint: Blueprint, max: usize) -> Self {
        Self {
            live: Mutex::default(),
            owned: Mutex::default(),
            ended: Mutex::default(),
            max,
            blueprint,
        }
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The offloader over `dir` below the output directory.
    fn offloader(&self, dir: &str) -> Result<Offloader<NativeHost>, LroError> {
        let mut config = self.blueprint.config.clone();
        config.output_dir = self
            .blueprint
            .base_dir
            .join(dir)
            .to_string_lossy()
            .into_owned();
        settings::offloader_with(config, self.blueprint.events)
    }

    /// `owner`'s offloader, made at its first session.
    fn owned(&self, owner: &Principal) -> Result<Arc<Offloader<NativeHost>>, LroError> {
        let mut owned = self.owned.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(lro) = owned.get(&owner.dir) {
            return Ok(Arc::clone(lro));
        }
        let lro = Arc::new(self.offloader(&owner.dir)?);
        owned.insert(owner.dir.clone(), Arc::clone(&lro));
        Ok(lro)
    }

    /// Starts a session for `owner` (none without authentication): its offloader, router
    /// and server.
    pub fn start(self: &Arc<Self>, owner: Option<Principal>) -> Result<Arc<Session>, StartError> {
        if self.live().len() >= self.max {
            return Err(StartError::Full(self.max));
        }
        let id = new_id().map_err(StartError::Failed)?;
        let blueprint = &self.blueprint;
        let lro = match &owner {
            Some(owner) => self.owned(owner),
            None => self.offloader(&hashed_name("s-", &id)).map(Arc::new),
        }
        .map_err(StartError::Failed)?;
        let events = Arc::new(Events::default());
        let dispatch = Arc::new(Dispatch::new(Arc::clone(&events)));
        let router = Arc::new(
            Router::new(Arc::clone(&lro), dispatch.client_out())
                .with_request_timeout(blueprint.request_timeout)
                .with_limits(blueprint.limits),
        );
        let (lifecycle, ended) = mpsc::channel();
        let upstream = blueprint
            .upstreams
            .connect(&id, Arc::clone(&router), lifecycle)
            .map_err(StartError::Failed)?;
        let session = Arc::new(Session {
            id: id.clone(),
            router,
            upstream,
            dispatch,
            events,
            lro,
            owner,
            used: Mutex::new(Instant::now()),
        });
        let mut live = self.live();
        // Checked again: sessions may have started meanwhile.
        if live.len() >= self.max {
            drop(live);
            end_session(&session);
            return Err(StartError::Full(self.max));
        }
        live.insert(id.clone(), Arc::clone(&session));
        drop(live);
        // A server that exits ends its session.
        let sessions = Arc::clone(self);
        std::thread::spawn(move || {
            if let Ok(Lifecycle::ServerGone(outcome)) = ended.recv() {
                if sessions.forget(&id).is_some() {
                    let how = outcome.err().unwrap_or_else(|| "it exited".to_owned());
                    note!("lro proxy: session {id} ended: its MCP server stopped ({how})");
                }
            }
        });
        Ok(session)
    }

    /// The live session `id`, when `principal` opened it (or nobody, without
    /// authentication). Another principal's session is not found, as an unknown one: a
    /// session id learnt or guessed is of no use with another token, and does not even tell
    /// that the session exists.
    pub fn get(&self, id: &str, principal: Option<&Principal>) -> Option<Arc<Session>> {
        self.live()
            .get(id)
            .filter(|session| session.owner.as_ref() == principal)
            .cloned()
    }

    /// Every live session.
    pub fn all(&self) -> Vec<Arc<Session>> {
        self.live().values().cloned().collect()
    }

    /// How many sessions are live.
    pub fn count(&self) -> usize {
        self.live().len()
    }

    /// Ends session `id` (DELETE, shutdown): its requests in flight are answered with an
    /// error, its server is stopped and reaped, its streams close. `None` for no such session.
    pub fn end(&self, id: &str, reason: &str) -> Option<Arc<Session>> {
        let session = self.live().remove(id)?;
        // Answered before the streams close, so that each answer reaches its client.
        session.router.fail_all(reason);
        self.retire(&session);
        end_session(&session);
        Some(session)
    }

    /// Ends the sessions idle for `limit` (their clients left without a DELETE).
    /// Each ends on a thread of its own: stopping a server takes up to seconds.
    pub fn end_idle(self: &Arc<Self>, limit: Duration) {
        let idle = self
            .all()
            .into_iter()
            .filter(|session| session.idle_for(limit));
        for session in idle {
            let sessions = Arc::clone(self);
            std::thread::spawn(move || {
                let reason = "the session expired (lro proxy, --session-idle-timeout)";
                if sessions.end(&session.id, reason).is_some() {
                    note!(
                        "lro proxy: session {} ended: idle for {} s (--session-idle-timeout)",
                        session.id,
                        limit.as_secs()
                    );
                }
            });
        }
    }

    /// Removes a session from the table; its files wait for cleanup.
    fn forget(&self, id: &str) -> Option<Arc<Session>> {
        let session = self.live().remove(id)?;
        self.retire(&session);
        Some(session)
    }

    /// Closes a session taken out of the table; its files wait for cleanup (a principal's
    /// stay its own).
    fn retire(&self, session: &Arc<Session>) {
        session.dispatch.close();
        if session.owner.is_some() {
            return;
        }
        self.ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::clone(&session.lro));
    }

    /// One cleanup pass: the expired files of every live session (whose client is told when
    /// some went), and of ended ones, which are forgotten (their directory removed) once
    /// nothing is left.
    pub fn clean(&self) {
        let live = self.all();
        for session in live.iter().filter(|s| s.owner.is_none()) {
            if clean(&session.lro).removed {
                session.router.resources_changed();
            }
        }
        let owned: Vec<_> = self
            .owned
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(dir, lro)| (dir.clone(), Arc::clone(lro)))
            .collect();
        for (dir, lro) in owned {
            if clean(&lro).removed {
                live.iter()
                    .filter(|s| s.owner.as_ref().is_some_and(|o| o.dir == dir))
                    .for_each(|s| s.router.resources_changed());
            }
        }
        let ended: Vec<_> =
            std::mem::take(&mut *self.ended.lock().unwrap_or_else(PoisonError::into_inner));
        let mut kept = Vec::new();
        for lro in ended {
            if clean(&lro).empty {
                // Empty now; a directory that is not (or a store) is left alone.
                let _ = std::fs::remove_dir(lro.output_dir());
            } else {
                kept.push(lro);
            }
        }
        self.ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(kept);
    }
}

/// Stops a session's server (closing its input, then signals) and its streams.
fn end_session(session: &Session) {
    session.upstream.close();
    session.dispatch.close();
}

struct Cleaned {
    removed: bool,
    empty: bool,
}

fn clean(lro: &Offloader<NativeHost>) -> Cleaned {
    match lro.cleanup() {
        Ok(report) => {
            for error in &report.errors {
                note!("lro proxy: cleanup: {error}");
            }
            Cleaned {
                removed: !report.removed.is_empty(),
                empty: report.kept == 0 && report.errors.is_empty(),
            }
        }
        Err(err) => {
            note!(
                "lro proxy: cleanup failed: error[{}]: {}",
                err.code(),
                err.message()
            );
            Cleaned {
                removed: false,
                empty: false,
            }
        }
    }
}

/// A session id: 128 bits from the system's random source, as 32 hex digits (visible ASCII,
/// as MCP asks of a session id).
fn new_id() -> Result<String, LroError> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut random| random.read_exact(&mut bytes))
        .map_err(|e| {
            LroError::new(
                ErrorCode::Io,
                format!("cannot read random bytes for a session id: {e}"),
            )
        })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
