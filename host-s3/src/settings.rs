//! Where the store is and who we are to it: the standard AWS environment, read once.

use lro_core::{ErrorCode, LroError, StoreLimits};
use rusty_s3::{Credentials, UrlStyle};
use url::Url;

/// Region when none is set (the AWS SDKs' fallback for S3's global endpoint).
const DEFAULT_REGION: &str = "us-east-1";

/// How to reach an S3-compatible store.
#[derive(Clone)]
pub struct S3Settings {
    /// The service endpoint (`https://s3.eu-west-1.amazonaws.com`, `http://127.0.0.1:9000`).
    pub endpoint: Url,
    /// Path-style (`endpoint/bucket/key`) or virtual-hosted (`bucket.endpoint/key`) URLs.
    pub url_style: UrlStyle,
    /// The signing region.
    pub region: String,
    /// The access key, secret and optional session token.
    pub credentials: Credentials,
    /// Timeout and retries of each request.
    pub limits: StoreLimits,
}

impl std::fmt::Debug for S3Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The credentials' own Debug hides the secret; the key id is not secret.
        f.debug_struct("S3Settings")
            .field("endpoint", &self.endpoint.as_str())
            .field("path_style", &matches!(self.url_style, UrlStyle::Path))
            .field("region", &self.region)
            .field("access_key_id", &self.credentials.key())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

fn invalid(message: String) -> LroError {
    LroError::new(ErrorCode::InvalidConfig, message)
}

impl S3Settings {
    /// The settings of the process environment (see [`S3Settings::from_vars`]).
    pub fn from_env(limits: &StoreLimits) -> Result<Self, LroError> {
        Self::from_vars(|name| std::env::var(name).ok(), limits)
    }

    /// The settings the standard AWS variables give, read through `var`:
    /// - `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` (required) and `AWS_SESSION_TOKEN`;
    /// - `AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-east-1`;
    /// - `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`: a store of its own (MinIO, R2, a
    ///   local test server), addressed path-style (`endpoint/bucket/key`), which every
    ///   S3-compatible server accepts; without one, AWS's regional endpoint, virtual-hosted.
    ///
    /// Empty values count as unset. A missing credential or a bad endpoint is `invalid_config`.
    ///
    /// ```
    /// use lro_host_s3::S3Settings;
    /// let vars = |name: &str| match name {
    ///     "AWS_ACCESS_KEY_ID" => Some("AKIDEXAMPLE".to_owned()),
    ///     "AWS_SECRET_ACCESS_KEY" => Some("secret".to_owned()),
    ///     "AWS_ENDPOINT_URL" => Some("http://127.0.0.1:9000".to_owned()),
    ///     _ => None,
    /// };
    /// let settings = S3Settings::from_vars(vars, &Default::default()).unwrap();
    /// assert_eq!((settings.endpoint.as_str(), settings.region.as_str()), ("http://127.0.0.1:9000/", "us-east-1"));
    /// ```
    pub fn from_vars(
        var: impl Fn(&str) -> Option<String>,
        limits: &StoreLimits,
    ) -> Result<Self, LroError> {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let (Some(key), Some(secret)) = (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY"))
        else {
            return Err(invalid(
                "an s3:// output_dir needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
                    .to_owned(),
            ));
        };
        let credentials = match var("AWS_SESSION_TOKEN") {
            Some(token) => Credentials::new_with_token(key, secret, token),
            None => Credentials::new(key, secret),
        };
        let region = var("AWS_REGION")
            .or_else(|| var("AWS_DEFAULT_REGION"))
            .unwrap_or_else(|| DEFAULT_REGION.to_owned());
        let (endpoint, url_style) =
            match var("AWS_ENDPOINT_URL_S3").or_else(|| var("AWS_ENDPOINT_URL")) {
                Some(text) => (parse_endpoint(&text)?, UrlStyle::Path),
                None => (
                    parse_endpoint(&format!("https://s3.{region}.amazonaws.com"))?,
                    UrlStyle::VirtualHost,
                ),
            };
        Ok(Self {
            endpoint,
            url_style,
            region,
            credentials,
            limits: limits.clone(),
        })
    }
}

fn parse_endpoint(text: &str) -> Result<Url, LroError> {
    let url = Url::parse(text.trim())
        .map_err(|e| invalid(format!("invalid S3 endpoint {text:?}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(invalid(format!(
            "invalid S3 endpoint {text:?}: expected http(s)://host[:port]"
        )));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Result<S3Settings, LroError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        S3Settings::from_vars(
            |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
            &StoreLimits::default(),
        )
    }

    const KEYS: [(&str, &str); 2] = [
        ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
        ("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI"),
    ];

    #[test]
    fn aws_by_default_virtual_hosted_in_the_region() {
        let s = settings(&[KEYS[0], KEYS[1], ("AWS_DEFAULT_REGION", "eu-west-3")]).unwrap();
        assert_eq!(s.endpoint.as_str(), "https://s3.eu-west-3.amazonaws.com/");
        assert!(matches!(s.url_style, UrlStyle::VirtualHost));
        assert_eq!(s.region, "eu-west-3");
        assert_eq!(s.credentials.token(), None);
        let debug = format!("{s:?}");
        assert!(
            debug.contains("AKIDEXAMPLE") && !debug.contains("wJalrXUtnFEMI"),
            "{debug}"
        );
    }

    #[test]
    fn a_custom_endpoint_is_path_style_and_the_s3_one_wins() {
        let s = settings(&[
            KEYS[0],
            KEYS[1],
            ("AWS_REGION", "auto"),
            ("AWS_DEFAULT_REGION", "eu-west-3"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:1"),
            ("AWS_ENDPOINT_URL_S3", "http://localhost:9000"),
            ("AWS_SESSION_TOKEN", "tok"),
        ])
        .unwrap();
        assert_eq!(s.endpoint.as_str(), "http://localhost:9000/");
        assert!(matches!(s.url_style, UrlStyle::Path));
        assert_eq!(s.region, "auto");
        assert_eq!(s.credentials.token(), Some("tok"));
    }

    #[test]
    fn missing_credentials_and_bad_endpoints_are_config_errors() {
        for vars in [
            vec![KEYS[0]],
            vec![KEYS[0], ("AWS_SECRET_ACCESS_KEY", " ")],
            vec![KEYS[0], KEYS[1], ("AWS_ENDPOINT_URL", "ftp://host")],
            vec![KEYS[0], KEYS[1], ("AWS_ENDPOINT_URL", "not a url")],
        ] {
            let err = settings(&vars).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig, "{vars:?}");
        }
    }
}
