//! Who the proxy is to an authorization server: a pre-registered client, a client ID
//! metadata document, or a client registered on the spot (RFC 7591), in the order of
//! preference of the MCP authorization specification; and how it authenticates at the
//! token endpoint (`client_secret_basic`, `client_secret_post` or none).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::discovery::AuthServer;
use super::transport::Http;

/// The name the proxy registers under.
const CLIENT_NAME: &str = "lro proxy";

/// A client of an authorization server.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Client {
    pub id: String,
    pub secret: Option<String>,
    pub auth_method: AuthMethod,
    /// The redirect URI it was registered with (a dynamically registered client).
    pub redirect_uri: Option<String>,
    /// How it came to be: a registration is remembered, the others are not.
    pub origin: ClientOrigin,
}

impl std::fmt::Debug for Client {
    // The secret never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "…"))
            .field("auth_method", &self.auth_method)
            .finish_non_exhaustive()
    }
}

/// How a client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AuthMethod {
    /// `client_secret_basic`: the id and secret in an `Authorization: Basic` header.
    ClientSecretBasic,
    /// `client_secret_post`: the id and secret in the form body.
    ClientSecretPost,
    /// `none`: a public client, its id in the form body.
    None,
    /// `private_key_jwt`: a JWT signed with the client's private key (`--oauth-client-key`).
    PrivateKeyJwt,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ClientOrigin {
    PreRegistered,
    MetadataDocument,
    Registered,
}

impl AuthMethod {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(Self::ClientSecretBasic),
            "client_secret_post" => Some(Self::ClientSecretPost),
            "none" => Some(Self::None),
            "private_key_jwt" => Some(Self::PrivateKeyJwt),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::ClientSecretBasic => "client_secret_basic",
            Self::ClientSecretPost => "client_secret_post",
            Self::None => "none",
            Self::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// For a client with a secret (or without): the method the server supports, basic
    /// first (the default of RFC 6749), then post; a client without a secret sends none.
    fn choose(has_secret: bool, server: &AuthServer) -> Self {
        let supports = |m: &str| server.token_endpoint_auth_methods.iter().any(|s| s == m);
        match has_secret {
            false => Self::None,
            true if supports("client_secret_basic") => Self::ClientSecretBasic,
            true if supports("client_secret_post") => Self::ClientSecretPost,
            true => Self::ClientSecretBasic,
        }
    }
}

/// What the user told the proxy about its client.
#[derive(Debug, Clone, Default)]
pub struct ClientOptions {
    pub id: Option<String>,
    pub secret: Option<String>,
    /// A private key to sign assertions with (`private_key_jwt`) instead of a secret.
    pub signs: bool,
    pub metadata_url: Option<String>,
}

/// The client to use with `server`: the pre-registered one, else a remembered registration
/// (for this server and redirect URI), else the metadata document's URL when the server
/// accepts those, else a new registration.
pub fn choose(
    http: &Http,
    options: &ClientOptions,
    remembered: Option<&Client>,
    server: &AuthServer,
    redirect_uri: Option<&str>,
    grant_types: &[&str],
) -> Result<Client, String> {
    if let Some(id) = &options.id {
        let secret = options.secret.clone();
        return Ok(Client {
            auth_method: match options.signs {
                true => AuthMethod::PrivateKeyJwt,
                false => AuthMethod::choose(secret.is_some(), server),
            },
            id: id.clone(),
            secret,
            redirect_uri: None,
            origin: ClientOrigin::PreRegistered,
        });
    }
    if let Some(client) = remembered.filter(|c| {
        c.origin == ClientOrigin::Registered && c.redirect_uri.as_deref() == redirect_uri
    }) {
        return Ok(client.clone());
    }
    if let Some(url) = options
        .metadata_url
        .as_ref()
        .filter(|_| server.client_id_metadata_document_supported)
    {
        return Ok(Client {
            id: url.clone(),
            secret: None,
            auth_method: AuthMethod::None,
            redirect_uri: None,
            origin: ClientOrigin::MetadataDocument,
        });
    }
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(format!(
            "the authorization server {} offers no client registration: register a client there \
             and give its --oauth-client-id (and --oauth-client-secret){}",
            server.issuer,
            if server.client_id_metadata_document_supported {
                ", or a client ID metadata document's --oauth-client-metadata-url"
            } else {
                ""
            }
        ));
    };
    register(http, endpoint, server, redirect_uri, grant_types)
}

/// Dynamic client registration (RFC 7591): a public client when the server takes one,
/// else whichever secret-based method it supports.
fn register(
    http: &Http,
    endpoint: &str,
    server: &AuthServer,
    redirect_uri: Option<&str>,
    grant_types: &[&str],
) -> Result<Client, String> {
    let supports = |m: &str| server.token_endpoint_auth_methods.iter().any(|s| s == m);
    let asked = if supports("none") {
        AuthMethod::None
    } else {
        AuthMethod::choose(true, server)
    };
    let mut request = json!({
        "client_name": CLIENT_NAME,
        "grant_types": grant_types,
        "token_endpoint_auth_method": asked.name(),
    });
    if let Some(uri) = redirect_uri {
        request["redirect_uris"] = json!([uri]);
        request["response_types"] = json!(["code"]);
    }
    let (status, answer) = http.post_json(endpoint, &request).map_err(|err| {
        format!(
            "cannot register with the authorization server {}: {err}",
            server.issuer
        )
    })?;
    if !(200..300).contains(&status) {
        return Err(format!(
            "the authorization server {} refused to register the proxy (HTTP {status}): {}",
            server.issuer,
            oauth_error(&answer)
        ));
    }
    let text = |key: &str| answer.get(key).and_then(Value::as_str).map(str::to_owned);
    let id = text("client_id").ok_or_else(|| {
        format!(
            "the registration answer of {} has no client_id",
            server.issuer
        )
    })?;
    let secret = text("client_secret");
    let auth_method = text("token_endpoint_auth_method")
        .as_deref()
        .and_then(AuthMethod::parse)
        .unwrap_or_else(|| AuthMethod::choose(secret.is_some(), server));
    Ok(Client {
        id,
        secret,
        auth_method,
        redirect_uri: redirect_uri.map(str::to_owned),
        origin: ClientOrigin::Registered,
    })
}

/// `error: error_description` of an OAuth error answer, or what there is.
pub fn oauth_error(answer: &Value) -> String {
    match (
        answer.get("error").and_then(Value::as_str),
        answer.get("error_description").and_then(Value::as_str),
    ) {
        (Some(error), Some(description)) => format!("{error}: {description}"),
        (Some(error), None) => error.to_owned(),
        _ => crate::proxy::jsonrpc::excerpt(answer.to_string().as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(methods: &[&str]) -> AuthServer {
        AuthServer {
            issuer: "https://as".into(),
            authorization_endpoint: None,
            token_endpoint: "https://as/token".into(),
            registration_endpoint: None,
            token_endpoint_auth_methods: methods.iter().map(|m| (*m).to_owned()).collect(),
            client_id_metadata_document_supported: false,
            scopes_supported: Vec::new(),
            code_challenge_methods: None,
        }
    }

    #[test]
    fn the_method_follows_the_secret_and_the_server() {
        assert_eq!(
            AuthMethod::choose(false, &server(&["client_secret_basic"])),
            AuthMethod::None
        );
        assert_eq!(
            AuthMethod::choose(true, &server(&["none", "client_secret_post"])),
            AuthMethod::ClientSecretPost
        );
        assert_eq!(
            AuthMethod::choose(
                true,
                &server(&["client_secret_post", "client_secret_basic"])
            ),
            AuthMethod::ClientSecretBasic
        );
        assert_eq!(
            AuthMethod::choose(true, &server(&["private_key_jwt"])),
            AuthMethod::ClientSecretBasic
        );
    }

    #[test]
    fn pre_registered_first_then_remembered_then_metadata_document() {
        let http = Http::new();
        let mut as_ = server(&["none"]);
        as_.client_id_metadata_document_supported = true;
        let options = ClientOptions {
            id: Some("pre".into()),
            secret: Some("s".into()),
            signs: false,
            metadata_url: Some("https://app/client.json".into()),
        };
        let client = choose(
            &http,
            &options,
            None,
            &as_,
            Some("http://127.0.0.1:1/callback"),
            &[],
        )
        .unwrap();
        assert_eq!(
            (client.id.as_str(), client.origin),
            ("pre", ClientOrigin::PreRegistered)
        );
        assert!(!format!("{client:?}").contains("\"s\""));
        let options = ClientOptions {
            id: None,
            ..options
        };
        let remembered = Client {
            id: "old".into(),
            secret: None,
            auth_method: AuthMethod::None,
            redirect_uri: Some("http://127.0.0.1:1/callback".into()),
            origin: ClientOrigin::Registered,
        };
        let client = choose(
            &http,
            &options,
            Some(&remembered),
            &as_,
            Some("http://127.0.0.1:1/callback"),
            &[],
        )
        .unwrap();
        assert_eq!(client.id, "old");
        // Another redirect port: the registration does not fit; the document does.
        let client = choose(
            &http,
            &options,
            Some(&remembered),
            &as_,
            Some("http://127.0.0.1:2/callback"),
            &[],
        )
        .unwrap();
        assert_eq!(client.id, "https://app/client.json");
        as_.client_id_metadata_document_supported = false;
        let refused = choose(&http, &options, None, &as_, None, &[]).unwrap_err();
        assert!(refused.contains("--oauth-client-id"), "{refused}");
    }
}
