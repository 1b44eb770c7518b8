//! `private_key_jwt` (RFC 7523 §2.2): a client that authenticates at the token endpoint
//! with a JWT signed by its private key instead of a shared secret, as machine-to-machine
//! MCP clients do (the client credentials extension of MCP authorization).

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, RsaKeyPair};
use serde_json::json;

/// How long an assertion is good for: one token request.
const LIFETIME: u64 = 300;

/// The `client_assertion_type` of a JWT assertion.
pub const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// A private key (PKCS#8), and the JWS algorithm its kind signs with.
pub struct SigningKey {
    key: Key,
}

enum Key {
    Es256(EcdsaKeyPair),
    Es384(EcdsaKeyPair),
    Rs256(RsaKeyPair),
    EdDsa(Ed25519KeyPair),
}

impl SigningKey {
    /// Reads a PKCS#8 private key (`-----BEGIN PRIVATE KEY-----`) from `path`: P-256
    /// (ES256), P-384 (ES384), RSA (RS256) or Ed25519 (EdDSA).
    pub fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|err| format!("--oauth-client-key {}: {err}", path.display()))?;
        Self::from_pem(&text).map_err(|err| format!("--oauth-client-key {}: {err}", path.display()))
    }

    fn from_pem(text: &str) -> Result<Self, String> {
        let body: String = text
            .lines()
            .skip_while(|line| !line.starts_with("-----BEGIN PRIVATE KEY-----"))
            .skip(1)
            .take_while(|line| !line.starts_with("-----END"))
            .collect();
        if body.is_empty() {
            return Err("no \"-----BEGIN PRIVATE KEY-----\" (PKCS#8) block".to_owned());
        }
        let der = STANDARD
            .decode(body.trim())
            .map_err(|err| format!("the key is not base64: {err}"))?;
        let rng = SystemRandom::new();
        let key = if let Ok(pair) =
            EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &der, &rng)
        {
            Key::Es256(pair)
        } else if let Ok(pair) =
            EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P384_SHA384_FIXED_SIGNING, &der, &rng)
        {
            Key::Es384(pair)
        } else if let Ok(pair) = RsaKeyPair::from_pkcs8(&der) {
            Key::Rs256(pair)
        } else if let Ok(pair) = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&der) {
            Key::EdDsa(pair)
        } else {
            return Err("not a P-256, P-384, RSA or Ed25519 private key".to_owned());
        };
        Ok(Self { key })
    }

    fn algorithm(&self) -> &'static str {
        match self.key {
            Key::Es256(_) => "ES256",
            Key::Es384(_) => "ES384",
            Key::Rs256(_) => "RS256",
            Key::EdDsa(_) => "EdDSA",
        }
    }

    /// A signed assertion that `client_id` is calling, for the authorization server
    /// `audience` (its issuer identifier), at `now` (seconds since the Unix epoch).
    pub fn assertion(&self, client_id: &str, audience: &str, now: u64) -> Result<String, String> {
        let rng = SystemRandom::new();
        let mut nonce = [0u8; 16];
        rng.fill(&mut nonce)
            .map_err(|_| "no randomness for the assertion's id")?;
        let header = json!({"alg": self.algorithm(), "typ": "JWT"});
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + LIFETIME,
            "jti": URL_SAFE_NO_PAD.encode(nonce),
        });
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = match &self.key {
            Key::Es256(pair) | Key::Es384(pair) => pair
                .sign(&rng, input.as_bytes())
                .map(|s| s.as_ref().to_vec())
                .map_err(|_| "cannot sign the assertion")?,
            Key::Rs256(pair) => {
                let mut out = vec![0; pair.public().modulus_len()];
                pair.sign(
                    &signature::RSA_PKCS1_SHA256,
                    &rng,
                    input.as_bytes(),
                    &mut out,
                )
                .map_err(|_| "cannot sign the assertion")?;
                out
            }
            Key::EdDsa(pair) => pair.sign(input.as_bytes()).as_ref().to_vec(),
        };
        Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_an_assertion_its_public_key_verifies() {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .unwrap();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD.encode(pkcs8.as_ref())
        );
        let key = SigningKey::from_pem(&pem).unwrap();
        let jwt = key
            .assertion("client-1", "https://as.example", 1_000)
            .unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["iss"], "client-1");
        assert_eq!(claims["sub"], "client-1");
        assert_eq!(claims["aud"], "https://as.example");
        assert_eq!(claims["exp"], 1_300);
        let pair = EcdsaKeyPair::from_pkcs8(
            &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            pkcs8.as_ref(),
            &rng,
        )
        .unwrap();
        let public = signature::UnparsedPublicKey::new(
            &signature::ECDSA_P256_SHA256_FIXED,
            ring::signature::KeyPair::public_key(&pair).as_ref(),
        );
        let signed = format!("{}.{}", parts[0], parts[1]);
        public
            .verify(
                signed.as_bytes(),
                &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
            )
            .unwrap();
        assert!(SigningKey::from_pem("no key here").is_err());
        assert!(
            SigningKey::from_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")
                .is_err()
        );
    }
}
