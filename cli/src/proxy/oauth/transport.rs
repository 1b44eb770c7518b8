//! HTTP for the authorization dance: metadata documents (GET, JSON), dynamic client
//! registration (POST, JSON), and the token endpoint, whose requests the `oauth2` crate
//! builds and this agent sends.

use std::time::Duration;

use serde_json::Value;
use ureq::http;

/// The longest metadata document, registration or token answer read (they are a few KB).
const MAX_DOCUMENT: u64 = 1 << 20;
/// The protocol version sent with discovery requests, as the MCP specification asks.
const PROTOCOL_VERSION: &str = "2025-11-25";

/// The agents the authorization requests go through.
pub struct Http {
    /// Metadata documents: redirects followed (a well-known path may move), never carrying
    /// credentials (there are none on these requests).
    documents: ureq::Agent,
    /// Registration and token requests: no redirects, so that a client secret or a code
    /// never goes anywhere but the endpoint the metadata named.
    endpoints: ureq::Agent,
}

/// What a GET of a metadata document found.
pub enum Fetched {
    /// A JSON object.
    Document(Value),
    /// Nothing usable there (an HTTP error, or not a JSON object): try the next place.
    Missing(String),
}

impl Http {
    pub fn new() -> Self {
        let agent = |redirects| -> ureq::Agent {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_connect(Some(Duration::from_secs(10)))
                .timeout_global(Some(Duration::from_secs(30)))
                .max_redirects(redirects)
                .build()
                .into()
        };
        Self {
            documents: agent(5),
            endpoints: agent(0),
        }
    }

    /// GETs the JSON document at `url`.
    pub fn document(&self, url: &str) -> Fetched {
        let response = self
            .documents
            .get(url)
            .header("Accept", "application/json")
            .header("MCP-Protocol-Version", PROTOCOL_VERSION)
            .call();
        let mut response = match response {
            Ok(response) => response,
            Err(err) => return Fetched::Missing(format!("{url}: {err}")),
        };
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Fetched::Missing(format!("{url}: HTTP {status}"));
        }
        match response
            .body_mut()
            .with_config()
            .limit(MAX_DOCUMENT)
            .read_to_vec()
            .map(|bytes| serde_json::from_slice::<Value>(&bytes))
        {
            Ok(Ok(document)) if document.is_object() => Fetched::Document(document),
            Ok(_) => Fetched::Missing(format!("{url}: not a JSON object")),
            Err(err) => Fetched::Missing(format!("{url}: {err}")),
        }
    }

    /// POSTs `body` as JSON to `url` (dynamic client registration): the status and the
    /// answer, parsed when it is JSON.
    pub fn post_json(&self, url: &str, body: &Value) -> Result<(u16, Value), String> {
        let mut response = self
            .endpoints
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .send(serde_json::to_vec(body).unwrap_or_default())
            .map_err(|err| format!("{url}: {err}"))?;
        let status = response.status().as_u16();
        let bytes = response
            .body_mut()
            .with_config()
            .limit(MAX_DOCUMENT)
            .read_to_vec()
            .map_err(|err| format!("{url}: {err}"))?;
        Ok((
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        ))
    }

    /// Sends a request the `oauth2` crate built (a token request): the crate's HTTP client.
    pub fn exchange(
        &self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, ureq::Error> {
        let response = self.endpoints.run(request)?;
        let (parts, body) = response.into_parts();
        let body = body.into_with_config().limit(MAX_DOCUMENT).read_to_vec()?;
        Ok(http::Response::from_parts(parts, body))
    }
}
