//! What the gateway's authentication tests are made of: a token file, signing keys made at
//! test time (ECDSA P-256 by ring; RSA by the `openssl` command, since ring makes no RSA keys)
//! and JWTs they sign, and an authorization server's JWKS served on loopback by a tiny HTTP
//! server that counts how often it is read.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
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

/// A key pair made now, and its public half as a JWK.
pub struct SigningKey {
    key: EncodingKey,
    alg: Algorithm,
    jwk: Value,
    /// Its key id.
    pub kid: String,
}

impl SigningKey {
    /// An ES256 (P-256) key.
    pub fn generate(kid: &str) -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        // An uncompressed point: 0x04, then x and y, 32 bytes each.
        let (x, y) = pair.public_key().as_ref()[1..].split_at(32);
        Self {
            key: EncodingKey::from_ec_der(pkcs8.as_ref()),
            alg: Algorithm::ES256,
            jwk: json!({"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid,
                        "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y)}),
            kid: kid.to_owned(),
        }
    }

    /// An RS256 key of 2048 bits, made by `openssl` in `dir`.
    pub fn generate_rsa(kid: &str, dir: &Path) -> Self {
        let pem = dir.join(format!("{kid}.pem"));
        let der = dir.join(format!("{kid}.der"));
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl").args(args).output().unwrap();
            assert!(out.status.success(), "openssl {args:?}: {out:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        let (pem_path, der_path) = (pem.to_str().unwrap(), der.to_str().unwrap());
        openssl(&[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
            pem_path,
        ]);
        // ring (under jsonwebtoken) signs with a PKCS#1 DER key.
        openssl(&[
            "rsa",
            "-in",
            pem_path,
            "-traditional",
            "-outform",
            "DER",
            "-out",
            der_path,
        ]);
        let modulus = openssl(&["rsa", "-in", pem_path, "-noout", "-modulus"]);
        let hex = modulus.trim().strip_prefix("Modulus=").unwrap();
        let n: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        Self {
            key: EncodingKey::from_rsa_der(&std::fs::read(&der).unwrap()),
            alg: Algorithm::RS256,
            // genpkey's public exponent is 65537.
            jwk: json!({"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
                        "n": URL_SAFE_NO_PAD.encode(n), "e": "AQAB"}),
            kid: kid.to_owned(),
        }
    }

    /// Its public key as a JWK.
    pub fn jwk(&self) -> Value {
        self.jwk.clone()
    }

    /// A JWT of `claims`, its header naming `kid` (none: no kid).
    pub fn sign_as(&self, kid: Option<&str>, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = kid.map(str::to_owned);
        jsonwebtoken::encode(&header, claims, &self.key).unwrap()
    }

    /// A JWT of `claims`, naming this key.
    pub fn sign(&self, claims: &Value) -> String {
        self.sign_as(Some(&self.kid), claims)
    }

    /// A JWT of `claims` under `header` as given (with fields `Header` has no room for),
    /// signed by this key.
    pub fn sign_header(&self, header: &Value, claims: &Value) -> String {
        let encode = |value: &Value| URL_SAFE_NO_PAD.encode(value.to_string().as_bytes());
        let message = format!("{}.{}", encode(header), encode(claims));
        let signature =
            jsonwebtoken::crypto::sign(message.as_bytes(), &self.key, self.alg).unwrap();
        format!("{message}.{signature}")
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
