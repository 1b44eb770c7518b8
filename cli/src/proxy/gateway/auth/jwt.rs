//! `--auth-jwks URL|FILE --auth-issuer ISS`: bearer tokens that are JWTs, signed by a key of
//! the authorization server's JWKS. A token is accepted when its signature verifies with the
//! key its header names (`kid`; without one, each key fit for its algorithm is tried), its
//! algorithm is an asymmetric one (never `none` nor HMAC: the JWKS is public), `iss` is the
//! issuer, `aud` names this gateway's resource URI (RFC 8707: a token minted for another
//! resource is not replayed here) and `exp`/`nbf` hold, with [`LEEWAY`] for clocks apart.
//! A header with `crit` is refused: it names extensions this gateway does not understand.
//! The JWT work itself is the `jsonwebtoken` crate's.
//!
//! The JWKS is read once at start; a token naming a key it does not hold (the server rotated
//! its keys) has it read again, at most once per [`REFETCH_EVERY`], so that tokens with
//! made-up key ids cannot make the gateway hammer the authorization server.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use lro_core::{ErrorCode, LroError};
use serde::Deserialize;
use serde_json::Value;

/// Seconds a token's `exp` and `nbf` may be off, for clocks that differ a little.
pub const LEEWAY: u64 = 30;

/// The least time between two reads of the JWKS for unknown key ids.
pub const REFETCH_EVERY: Duration = Duration::from_secs(30);

/// How long a read of a JWKS URL may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest JWKS read.
const MAX_JWKS_BYTES: u64 = 1 << 20;

/// The algorithms a token may be signed with.
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Where the JWKS comes from.
enum Source {
    Url(String),
    File(PathBuf),
}

/// The JWT checker.
pub struct Jwt {
    source: Source,
    issuer: String,
    audience: String,
    keys: RwLock<Arc<Vec<Jwk>>>,
    /// When the JWKS was last read again for an unknown key; held while it is read.
    refetched: Mutex<Option<Instant>>,
}

/// The claims a principal is made of (`sub` optional here, so that a token without one is
/// said to be so, not to be malformed).
#[derive(Deserialize)]
struct Claims {
    iss: String,
    sub: Option<String>,
}

impl Jwt {
    /// Reads the JWKS at `jwks` (an `http(s)://` URL, else a file).
    pub fn new(jwks: &str, issuer: &str, audience: &str) -> Result<Self, LroError> {
        let source = if jwks.starts_with("http://") || jwks.starts_with("https://") {
            Source::Url(jwks.to_owned())
        } else {
            Source::File(PathBuf::from(jwks))
        };
        let jwt = Self {
            source,
            issuer: issuer.to_owned(),
            audience: audience.to_owned(),
            keys: RwLock::default(),
            refetched: Mutex::default(),
        };
        let keys = jwt
            .fetch()
            .map_err(|e| LroError::new(ErrorCode::InvalidArgument, format!("--auth-jwks {e}")))?;
        *jwt.keys.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(keys);
        Ok(jwt)
    }

    /// The principal of a valid `token` (its `iss` and `sub`), or why it is not valid (for
    /// the client: it names no key material and does not echo the token).
    pub fn verify(&self, token: &str) -> Result<(String, String), String> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|_| "the token is not a JWT".to_owned())?;
        if names_critical(token) {
            return Err(
                "the token's header has crit: extensions this gateway does not understand"
                    .to_owned(),
            );
        }
        let alg = header.alg;
        if !ALGORITHMS.contains(&alg) {
            return Err(format!("the token's algorithm {alg:?} is not accepted"));
        }
        let mut candidates = self.candidates(header.kid.as_deref(), alg);
        if candidates.is_empty() && header.kid.is_some() && self.refetch() {
            candidates = self.candidates(header.kid.as_deref(), alg);
        }
        if candidates.is_empty() {
            return Err(
                "the token is signed by a key the authorization server's JWKS does not \
                 hold (kid)"
                    .to_owned(),
            );
        }
        let mut validation = Validation::new(alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = LEEWAY;
        let mut why = ErrorKind::InvalidSignature;
        for key in candidates {
            match jsonwebtoken::decode::<Claims>(token, &key, &validation) {
                Ok(data) => {
                    let Some(sub) = data.claims.sub else {
                        return Err("the token has no sub claim".to_owned());
                    };
                    return Ok((data.claims.iss, sub));
                }
                Err(err) => why = err.into_kind(),
            }
        }
        Err(match why {
            ErrorKind::ExpiredSignature => "the token has expired (exp)".to_owned(),
            ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
            ErrorKind::InvalidAudience => {
                format!(
                    "the token is not for this resource: its aud does not name {}",
                    self.audience
                )
            }
            ErrorKind::InvalidIssuer => format!("the token's iss is not {}", self.issuer),
            ErrorKind::MissingRequiredClaim(claim) => format!("the token has no {claim} claim"),
            ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
            _ => "the token is not a valid JWT".to_owned(),
        })
    }

    /// The keys that may have signed a token of `alg` naming `kid`.
    fn candidates(&self, kid: Option<&str>, alg: Algorithm) -> Vec<DecodingKey> {
        let keys = Arc::clone(&*self.keys.read().unwrap_or_else(PoisonError::into_inner));
        keys.iter()
            .filter(|jwk| kid.is_none() || jwk.common.key_id.as_deref() == kid)
            .filter(|jwk| fits(jwk, alg))
            .filter_map(|jwk| DecodingKey::from_jwk(jwk).ok())
            .collect()
    }

    /// Reads the JWKS again unless it was for an unknown key less than [`REFETCH_EVERY`]
    /// ago; whether it was read.
    fn refetch(&self) -> bool {
        let mut last = self
            .refetched
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if last.is_some_and(|at| at.elapsed() < REFETCH_EVERY) {
            return false;
        }
        *last = Some(Instant::now());
        match self.fetch() {
            Ok(keys) => {
                *self.keys.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(keys);
                true
            }
            Err(err) => {
                note!("lro proxy: cannot read the JWKS again: {err}");
                false
            }
        }
    }

    /// The JWKS's keys; the ones this gateway cannot use (another `kty`, a symmetric key) are
    /// left out rather than failing the set.
    fn fetch(&self) -> Result<Vec<Jwk>, String> {
        let text = match &self.source {
            Source::Url(url) => {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .timeout_global(Some(FETCH_TIMEOUT))
                    .build()
                    .into();
                agent
                    .get(url)
                    .call()
                    .map_err(|e| format!("{url}: {e}"))?
                    .into_body()
                    .into_with_config()
                    .limit(MAX_JWKS_BYTES)
                    .read_to_string()
                    .map_err(|e| format!("{url}: {e}"))?
            }
            Source::File(path) => {
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?
            }
        };
        let set: Value =
            serde_json::from_str(&text).map_err(|e| format!("not a JWKS (JSON): {e}"))?;
        let keys = set
            .get("keys")
            .and_then(Value::as_array)
            .ok_or("not a JWKS: no \"keys\" array")?;
        Ok(keys
            .iter()
            .filter_map(|key| serde_json::from_value::<Jwk>(key.clone()).ok())
            .filter(|jwk| !matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)))
            .collect())
    }
}

/// Whether the header of `token` has a `crit` parameter. RFC 7515 §4.1.11: a token whose
/// `crit` names an extension the recipient does not understand must be refused, and this
/// gateway understands none. `jsonwebtoken`'s header has no `crit` (serde drops it
/// unread), so the header's JSON is read here.
fn names_critical(token: &str) -> bool {
    use base64::Engine;
    let segment = token.split('.').next().unwrap_or_default();
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(segment)
        .ok()
        .and_then(|json| serde_json::from_slice::<Value>(&json).ok())
        .is_some_and(|header| header.get("crit").is_some())
}

/// Whether `jwk` may verify a signature of `alg`: a key of its family, and of that
/// algorithm when the key names one.
fn fits(jwk: &Jwk, alg: Algorithm) -> bool {
    let family = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => matches!(
            alg,
            Algorithm::RS256
                | Algorithm::RS384
                | Algorithm::RS512
                | Algorithm::PS256
                | Algorithm::PS384
                | Algorithm::PS512
        ),
        AlgorithmParameters::EllipticCurve(_) => {
            matches!(alg, Algorithm::ES256 | Algorithm::ES384)
        }
        AlgorithmParameters::OctetKeyPair(_) => alg == Algorithm::EdDSA,
        AlgorithmParameters::OctetKey(_) => false,
    };
    let named = jwk
        .common
        .key_algorithm
        .is_none_or(|named| format!("{named:?}") == format!("{alg:?}"));
    family && named
}
