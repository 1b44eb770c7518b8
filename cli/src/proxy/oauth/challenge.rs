//! The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1): what
//! a server that refused a request says about the token it wants.

/// What a `Bearer` challenge carries (every field optional).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// `resource_metadata`: where the protected-resource metadata is (RFC 9728).
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs, space-separated.
    pub scope: Option<String>,
    /// `error`: `invalid_token`, `insufficient_scope`, ...
    pub error: Option<String>,
}

impl Challenge {
    /// The `Bearer` challenge among the `WWW-Authenticate` values `headers` (a server may
    /// send several challenges, in one header or in several); `None` without one.
    pub fn parse<'a>(headers: impl IntoIterator<Item = &'a str>) -> Option<Self> {
        headers.into_iter().find_map(parse_one)
    }

    /// The scopes asked for, in order.
    pub fn scopes(&self) -> Vec<String> {
        self.scope.as_deref().map(split_scopes).unwrap_or_default()
    }

    /// `error="insufficient_scope"`: the token is good but does not allow this request.
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Space-separated scopes, without empties or repeats.
pub fn split_scopes(scopes: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for scope in scopes.split_ascii_whitespace() {
        if !out.iter().any(|s| s == scope) {
            out.push(scope.to_owned());
        }
    }
    out
}

/// The `Bearer` challenge in one header value, which may hold several challenges:
/// `Basic realm="x", Bearer scope="a b", error="insufficient_scope"`.
fn parse_one(header: &str) -> Option<Challenge> {
    let mut rest = header;
    let mut in_bearer = false;
    let mut found = None::<Challenge>;
    while let Some(token) = next_token(&mut rest) {
        skip_spaces(&mut rest);
        if let Some(after) = rest.strip_prefix('=') {
            // An auth-param `name=value` of the current challenge.
            rest = after;
            skip_spaces(&mut rest);
            let value = next_value(&mut rest);
            if in_bearer {
                let challenge = found.get_or_insert_with(Challenge::default);
                let slot = match token.to_ascii_lowercase().as_str() {
                    "resource_metadata" => Some(&mut challenge.resource_metadata),
                    "scope" => Some(&mut challenge.scope),
                    "error" => Some(&mut challenge.error),
                    _ => None,
                };
                if let Some(slot) = slot {
                    slot.get_or_insert(value);
                }
            }
        } else {
            // A scheme starts a new challenge; the Bearer one is the one read.
            if found.is_some() && in_bearer {
                return found;
            }
            in_bearer = token.eq_ignore_ascii_case("bearer");
            if in_bearer {
                found = Some(Challenge::default());
            }
            // A token68 (`Basic dXNlcg==`) after the scheme is not a parameter: skip it.
            if !rest.starts_with(',') && !rest.is_empty() && !starts_param(rest) {
                let _ = next_value(&mut rest);
            }
        }
        skip_spaces(&mut rest);
        while let Some(after) = rest.strip_prefix(',') {
            rest = after;
            skip_spaces(&mut rest);
        }
    }
    found
}

/// Whether `rest` starts with `name=` (a parameter, not a token68).
fn starts_param(rest: &str) -> bool {
    let end = rest.find(|c: char| !is_token_char(c)).unwrap_or(rest.len());
    end > 0
        && rest[end..].trim_start().starts_with('=')
        && !rest[end..].trim_start().starts_with("==")
}

fn skip_spaces(rest: &mut &str) {
    *rest = rest.trim_start_matches([' ', '\t']);
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// A token (a scheme or a parameter's name).
fn next_token<'a>(rest: &mut &'a str) -> Option<&'a str> {
    skip_spaces(rest);
    let end = rest.find(|c: char| !is_token_char(c)).unwrap_or(rest.len());
    if end == 0 {
        // Not a token: skip one character so that a malformed header still ends.
        let mut chars = rest.chars();
        chars.next()?;
        *rest = chars.as_str();
        return next_token(rest);
    }
    let (token, after) = rest.split_at(end);
    *rest = after;
    Some(token)
}

/// A parameter's value: a quoted string (with `\` escapes) or a token68.
fn next_value(rest: &mut &str) -> String {
    if let Some(quoted) = rest.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    *rest = &quoted[i + 1..];
                    return value;
                }
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                c => value.push(c),
            }
        }
        *rest = "";
        value
    } else {
        let end = rest.find([',', ' ', '\t']).unwrap_or(rest.len());
        let (value, after) = rest.split_at(end);
        *rest = after;
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_bearer_parameters() {
        let challenge = Challenge::parse([
            r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp""#,
        ])
        .unwrap();
        assert_eq!(challenge.scopes(), ["mcp:basic", "mcp:write"]);
        assert!(challenge.insufficient_scope());
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
    }

    #[test]
    fn finds_bearer_among_other_schemes() {
        let challenge = Challenge::parse([
            r#"Basic realm="a, b", Bearer realm="x", scope=read, DPoP algs="ES256""#,
        ])
        .unwrap();
        assert_eq!(challenge.scope.as_deref(), Some("read"));
        assert_eq!(challenge.error, None);
        let second = Challenge::parse(["Basic dXNlcg==", "bearer error=invalid_token"]).unwrap();
        assert_eq!(second.error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn a_bare_bearer_is_a_challenge_and_others_are_not() {
        assert_eq!(Challenge::parse(["Bearer"]), Some(Challenge::default()));
        assert_eq!(Challenge::parse([r#"Basic realm="x""#]), None);
        assert_eq!(Challenge::parse([""]), None);
    }

    #[test]
    fn escapes_and_malformed_input_end() {
        let challenge = Challenge::parse([r#"Bearer scope="a \"b\"", error="#]).unwrap();
        assert_eq!(challenge.scope.as_deref(), Some(r#"a "b""#));
        assert_eq!(challenge.error.as_deref(), Some(""));
        let _ = Challenge::parse([r#"Bearer scope="unterminated"#, "=,=,\"", "Bearer ,,,"]);
        assert_eq!(split_scopes(" a  b a "), ["a", "b"]);
    }
}
