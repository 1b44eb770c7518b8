//! What the gateway's authentication tests are made of: a token file, signing keys made at
//! test time (ECDSA P-256, ring) and JWTs they sign, and an authorization server's JWKS
//! served on loopback by a tiny HTTP server that counts how often it is read.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

/// Writes `text` as a token file in `dir`, with `mode`: its path.
pub fn token_file(dir: &Path, text: &str, mode: u32) -> PathBuf {
    let path = dir.join("tokens");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

/// The Unix time now, in seconds.
pub fn now() -> i64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    i64::try_from(since.as_secs()).unwrap()
}

/// An ES256 key pair, made now.
pub struct SigningKey {
    pkcs8: Vec<u8>,
    public: Vec<u8>,
    /// Its key id.
    pub kid: String,
}

impl SigningKey {
    pub fn generate(kid: &str) -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        Self {
            pkcs8: pkcs8.as_ref().to_vec(),
            public: pair.public_key().as_ref().to_vec(),
            kid: kid.to_owned(),
        }
    }

    /// Its public key as a JWK.
    pub fn jwk(&self) -> Value {
        // An uncompressed point: 0x04, then x and y, 32 bytes each.
        let (x, y) = self.public[1..].split_at(32);
        json!({"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": self.kid,
               "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y)})
    }

    /// A JWT of `claims`, its header naming `kid` (none: no kid).
    pub fn sign_as(&self, kid: Option<&str>, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = kid.map(str::to_owned);
        jsonwebtoken::encode(&header, claims, &EncodingKey::from_ec_der(&self.pkcs8)).unwrap()
    }

    /// A JWT of `claims`, naming this key.
    pub fn sign(&self, claims: &Value) -> String {
        self.sign_as(Some(&self.kid), claims)
    }
}

/// A JWKS served at `http://127.0.0.1:PORT/jwks` until dropped.
pub struct JwksServer {
    server: Arc<tiny_http::Server>,
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicUsize>,
}

impl JwksServer {
    pub fn start(keys: Vec<Value>) -> Self {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let keys = Arc::new(Mutex::new(keys));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (serving, set, count) = (Arc::clone(&server), Arc::clone(&keys), Arc::clone(&fetches));
        std::thread::spawn(move || {
            // Ends when the server is unblocked (dropped).
            while let Ok(request) = serving.recv() {
                count.fetch_add(1, Ordering::SeqCst);
                let body = json!({"keys": *set.lock().unwrap()}).to_string();
                let _ = request.respond(tiny_http::Response::from_string(body));
            }
        });
        Self {
            server,
            keys,
            fetches,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/jwks", self.server.server_addr())
    }

    /// Adds a key (the authorization server rotated its keys).
    pub fn add(&self, jwk: Value) {
        self.keys.lock().unwrap().push(jwk);
    }

    /// How many times the JWKS was read.
    pub fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

impl Drop for JwksServer {
    fn drop(&mut self) {
        self.server.unblock();
    }
}
