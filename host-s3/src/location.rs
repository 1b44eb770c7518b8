//! `s3://bucket/prefix` URIs: the output directory, and the object keys of the paths the core
//! builds from it (`s3://bucket/prefix/atlatl-recall-ULID.jsonl`).

use std::path::{Component, Path, PathBuf};

/// The scheme this host serves.
pub const SCHEME: &str = "s3://";

/// An output directory in a bucket: `s3://bucket` or `s3://bucket/some/prefix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Uri {
    bucket: String,
    /// Without leading or trailing `/`; empty for the whole bucket.
    prefix: String,
}

impl S3Uri {
    /// Parses `s3://bucket[/prefix]`. The bucket follows S3's naming rules (3-63 characters
    /// from `a-z 0-9 . -`, starting and ending with a letter or digit); the prefix's empty
    /// segments are dropped (`a//b/` is `a/b`), and `.` or `..` segments are refused.
    ///
    /// ```
    /// use lro_host_s3::S3Uri;
    /// let uri = S3Uri::parse("s3://lro-offloads/replicas/").unwrap();
    /// assert_eq!((uri.bucket(), uri.prefix()), ("lro-offloads", "replicas"));
    /// assert_eq!(uri.to_string(), "s3://lro-offloads/replicas");
    /// assert!(S3Uri::parse("s3://Bad_Bucket/x").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, String> {
        let rest = text
            .strip_prefix(SCHEME)
            .ok_or_else(|| format!("{text:?} is not an s3:// URI"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if !is_bucket_name(bucket) {
            return Err(format!(
                "{bucket:?} is not a bucket name (3-63 characters from a-z 0-9 . -, starting and ending with a letter or digit)"
            ));
        }
        let segments: Vec<&str> = prefix.split('/').filter(|s| !s.is_empty()).collect();
        if segments.iter().any(|s| *s == "." || *s == "..") {
            return Err(format!(
                "{text:?}: '.' and '..' are not allowed in the prefix"
            ));
        }
        Ok(Self {
            bucket: bucket.to_owned(),
            prefix: segments.join("/"),
        })
    }

    /// The bucket.
    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// The key prefix, without leading or trailing `/` (empty for the whole bucket).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The URI as a path, the form the core's `Host` calls take.
    pub fn to_path(&self) -> PathBuf {
        PathBuf::from(self.to_string())
    }
}

impl std::fmt::Display for S3Uri {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.prefix.is_empty() {
            write!(f, "{SCHEME}{}", self.bucket)
        } else {
            write!(f, "{SCHEME}{}/{}", self.bucket, self.prefix)
        }
    }
}

fn is_bucket_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (3..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'.' || *b == b'-')
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
}

/// The key that `path` names in `bucket` (`""` for the bucket itself), or `None` when it is
/// not an `s3://` path of that bucket. Read by components, as the core compares paths, so
/// `s3://b/a//x` and `s3://b/a/./x` are the key `a/x`; a `..` is never resolved.
pub(crate) fn key_of(path: &Path, bucket: &str) -> Option<String> {
    let mut components = path.components();
    let scheme = components.next()?;
    let named = components.next()?;
    if scheme != Component::Normal("s3:".as_ref()) || named != Component::Normal(bucket.as_ref()) {
        return None;
    }
    let mut segments = Vec::new();
    for component in components {
        match component {
            Component::Normal(part) => segments.push(part.to_str()?),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(segments.join("/"))
}

/// The path of `key` in `bucket`.
pub(crate) fn path_of(bucket: &str, key: &str) -> PathBuf {
    if key.is_empty() {
        PathBuf::from(format!("{SCHEME}{bucket}"))
    } else {
        PathBuf::from(format!("{SCHEME}{bucket}/{key}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_parse_and_normalise() {
        let uri = S3Uri::parse("s3://lro-test").unwrap();
        assert_eq!((uri.bucket(), uri.prefix()), ("lro-test", ""));
        assert_eq!(uri.to_path(), PathBuf::from("s3://lro-test"));
        assert_eq!(
            S3Uri::parse("s3://lro-test//a//b/").unwrap().to_string(),
            "s3://lro-test/a/b"
        );
        for bad in [
            "lro-test/a",
            "s3:/lro-test",
            "s3://",
            "s3://ab",
            "s3://-lro",
            "s3://UPPER",
            "s3://lro-test/a/../b",
            "s3://lro-test/./b",
            "gs://lro-test",
        ] {
            assert!(S3Uri::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn keys_are_read_by_component_within_one_bucket() {
        let key = |p: &str| key_of(Path::new(p), "lro-test");
        assert_eq!(key("s3://lro-test/a/x.jsonl").as_deref(), Some("a/x.jsonl"));
        assert_eq!(
            key("s3://lro-test/a//./x.jsonl").as_deref(),
            Some("a/x.jsonl")
        );
        assert_eq!(key("s3://lro-test/").as_deref(), Some(""));
        assert_eq!(key("s3://lro-test/a/../x"), None);
        assert_eq!(key("s3://other/a/x"), None);
        assert_eq!(key("/lro-test/a/x"), None);
        assert_eq!(key("gs://lro-test/a"), None);
        assert_eq!(
            path_of("lro-test", "a/x.jsonl"),
            PathBuf::from("s3://lro-test/a/x.jsonl")
        );
        assert_eq!(path_of("lro-test", ""), PathBuf::from("s3://lro-test"));
    }
}
