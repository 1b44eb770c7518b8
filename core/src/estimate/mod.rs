//! Token estimation: the specification's `characters / 4` for Latin script, with wide
//! scripts (CJK, kana, Hangul, and anything outside the Basic Multilingual Plane) counted as
//! one token per character, which is much closer to what real tokenizers do for them.
//!
//! A host with an exact tokenizer plugs it in through [`TokenEstimator`]; the native builds
//! carry two of their own, OpenAI's `o200k` and `cl100k` BPE vocabularies (`estimator` in
//! the configuration, the `tokenizers` feature, [`bpe`]), which count large texts on a
//! sample ([`sample`]).

use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, LroError, Result};

#[cfg(feature = "tokenizers")]
pub mod bpe;
pub mod sample;

/// Estimates how many tokens a text costs a model.
pub trait TokenEstimator {
    /// Estimated tokens for `text`.
    fn estimate(&self, text: &str) -> usize;

    /// How [`TokenEstimator::estimate`] counts `text`, for the outcome to say so: `None` for
    /// an estimate that is not a count (the heuristic, a host's own estimator).
    fn report(&self, _text: &[u8]) -> Option<EstimateReport> {
        None
    }

    /// Estimated tokens for text known to be UTF-8 (the offloader's own JSON lines). The
    /// default checks it and calls [`TokenEstimator::estimate`]; byte-level estimators skip
    /// the check.
    fn estimate_utf8(&self, bytes: &[u8]) -> usize {
        self.estimate(std::str::from_utf8(bytes).unwrap_or_default())
    }
}

impl<F: Fn(&str) -> usize> TokenEstimator for F {
    fn estimate(&self, text: &str) -> usize {
        self(text)
    }
}

/// Which estimator the offloader counts with (`estimator` in the configuration).
// Read through `String` (whose reader every build has anyway): a derived enum reader is
// about 1 KB more of the wasm modules, whose budgets are tight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum EstimatorKind {
    /// The specification's heuristic, [`estimate_tokens`]: every build has it.
    #[default]
    Chars4,
    /// OpenAI's `o200k_base` vocabulary (GPT-4o and later), counted exactly.
    O200k,
    /// OpenAI's `cl100k_base` vocabulary (GPT-4, GPT-3.5), counted exactly.
    Cl100k,
}

impl EstimatorKind {
    /// Every estimator's name, in the order the configuration lists them.
    pub const NAMES: [&'static str; 3] = ["chars4", "o200k", "cl100k"];

    /// The estimator's name, as configured.
    pub fn name(self) -> &'static str {
        match self {
            Self::Chars4 => "chars4",
            Self::O200k => "o200k",
            Self::Cl100k => "cl100k",
        }
    }

    /// Whether this build counts with it: the BPE estimators need the `tokenizers` feature,
    /// which the wasm builds leave out (their vocabularies are megabytes).
    pub fn available(self) -> bool {
        self == Self::Chars4 || cfg!(feature = "tokenizers")
    }
}

impl TryFrom<String> for EstimatorKind {
    type Error = LroError;

    fn try_from(name: String) -> Result<Self> {
        name.parse()
    }
}

impl std::str::FromStr for EstimatorKind {
    type Err = LroError;

    fn from_str(name: &str) -> Result<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "chars4" => Ok(Self::Chars4),
            "o200k" => Ok(Self::O200k),
            "cl100k" => Ok(Self::Cl100k),
            _ => Err(LroError::new(
                ErrorCode::InvalidConfig,
                format!("unknown estimator {name:?}: use chars4, o200k or cl100k"),
            )),
        }
    }
}

/// How an outcome's `estimated_tokens` were counted, when an estimator counted them: the
/// outcome, the file's header and the descriptor carry it as `estimate` (absent for chars4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EstimateReport {
    /// The estimator (`o200k`, `cl100k`).
    pub estimator: EstimatorKind,
    /// `exact`, or `sampled`: counted on [`EstimateReport::sample_bytes`] of the text and
    /// scaled to its length.
    pub method: EstimateMethod,
    /// Bytes counted, when sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_bytes: Option<usize>,
}

/// Whether a count covered the whole text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum EstimateMethod {
    /// Every token counted.
    Exact,
    /// Counted on evenly spaced pieces of the text and scaled.
    Sampled,
}

impl TryFrom<String> for EstimateMethod {
    type Error = LroError;

    fn try_from(name: String) -> Result<Self> {
        match name.as_str() {
            "exact" => Ok(Self::Exact),
            "sampled" => Ok(Self::Sampled),
            _ => Err(LroError::new(
                ErrorCode::InvalidInput,
                format!("unknown estimate method {name:?}: exact or sampled"),
            )),
        }
    }
}

/// The default estimator: see the module docs and [`estimate_tokens`].
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicEstimator;

impl TokenEstimator for HeuristicEstimator {
    fn estimate(&self, text: &str) -> usize {
        estimate_tokens(text.as_bytes())
    }

    fn estimate_utf8(&self, bytes: &[u8]) -> usize {
        estimate_tokens(bytes)
    }
}

/// Estimates the tokens of UTF-8 `bytes`: `ceil(narrow / 4) + wide`.
///
/// A character is *wide* when its UTF-8 lead byte is `0xE3` or above: code points from
/// U+3000 (CJK punctuation, kana, CJK ideographs, Hangul, full-width forms) and every
/// 4-byte sequence. Everything else (ASCII, accented Latin, Greek, Cyrillic, ...) is
/// *narrow*. Counting lead bytes rather than decoding keeps this one branch-free pass.
///
/// ```
/// use lro_core::estimate::estimate_tokens;
/// assert_eq!(estimate_tokens(b"abcdefgh"), 2);
/// assert_eq!(estimate_tokens("東京タワー".as_bytes()), 5);
/// ```
pub fn estimate_tokens(bytes: &[u8]) -> usize {
    #[cfg(not(target_family = "wasm"))]
    let (chars, wide) = count_bytewise(bytes);
    #[cfg(target_family = "wasm")]
    let (chars, wide) = count_by_words(bytes);
    (chars - wide).div_ceil(4) + wide
}

/// The characters (bytes that are not UTF-8 continuation bytes) and wide characters (lead
/// bytes `0xE3` and above) of `bytes`, a byte at a time: natively the compiler turns this
/// loop into SIMD.
fn count_bytewise(bytes: &[u8]) -> (usize, usize) {
    let (mut chars, mut wide) = (0usize, 0usize);
    // Byte-wide counters over chunks of 255 let the compiler use full-width SIMD lanes.
    for chunk in bytes.chunks(255) {
        let (mut c, mut w) = (0u8, 0u8);
        for &b in chunk {
            c += u8::from((b & 0xC0) != 0x80);
            w += u8::from(b >= 0xE3);
        }
        chars += usize::from(c);
        wide += usize::from(w);
    }
    (chars, wide)
}

/// [`count_bytewise`] eight bytes at a time in a `u64` (SWAR): the wasm builds have no SIMD,
/// and a byte at a time this was an eighth of the component's offload.
#[cfg_attr(
    not(any(test, target_family = "wasm")),
    allow(dead_code, reason = "tested against count_bytewise")
)]
fn count_by_words(bytes: &[u8]) -> (usize, usize) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    // 128 - 0x1D in every byte: with a byte's low seven bits added, its high bit is set
    // exactly when those bits are at least 0x1D.
    const AT_LEAST_1D: u64 = 0x6363_6363_6363_6363;
    let mut words = bytes.chunks_exact(8);
    let (mut continuation, mut wide) = (0usize, 0usize);
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
        // 10xxxxxx: bit 7 set and bit 6 (shifted up into bit 7's place) clear.
        continuation += (x & !(x << 1) & HIGH).count_ones() as usize;
        // b >= 0xE3 is !b <= 0x1C: the high bit of !b clear and its low seven bits below 0x1D.
        let y = !x;
        wide += (!(((y & LOW7) + AT_LEAST_1D) | y) & HIGH).count_ones() as usize;
    }
    let (chars, tail_wide) = count_bytewise(words.remainder());
    let whole = bytes.len() - words.remainder().len();
    (whole - continuation + chars, wide + tail_wide)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_is_chars_over_four_rounded_up() {
        assert_eq!(estimate_tokens(b""), 0);
        assert_eq!(estimate_tokens(b"a"), 1);
        assert_eq!(estimate_tokens(b"abcd"), 1);
        assert_eq!(estimate_tokens(b"abcde"), 2);
        // Accented Latin counts by characters, not bytes.
        assert_eq!(estimate_tokens("éééé".as_bytes()), 1);
    }

    proptest::proptest! {
        /// The wasm builds' word-at-a-time count is the byte loop's, on any bytes (text or
        /// not, every lead and continuation byte, any length and alignment).
        #[test]
        fn counting_by_words_is_counting_by_bytes(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..100),
            skip in 0usize..8,
        ) {
            let bytes = &bytes[skip.min(bytes.len())..];
            proptest::prop_assert_eq!(count_by_words(bytes), count_bytewise(bytes));
        }
    }

    #[test]
    fn counting_by_words_sees_every_byte_value() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(count_by_words(&all), count_bytewise(&all));
        for b in 0..=255u8 {
            let word = [b; 8];
            assert_eq!(
                count_by_words(&word),
                count_bytewise(&word),
                "byte {b:#04x}"
            );
        }
    }

    #[test]
    fn wide_scripts_count_one_per_character() {
        assert_eq!(estimate_tokens("日本語".as_bytes()), 3);
        assert_eq!(estimate_tokens("한국어".as_bytes()), 3);
        assert_eq!(estimate_tokens("ab日本".as_bytes()), 1 + 2);
        assert_eq!(estimate_tokens("😀".as_bytes()), 1);
    }

    #[test]
    fn closures_are_estimators() {
        let exact = |t: &str| t.split_whitespace().count();
        assert_eq!(exact.estimate("one two three"), 3);
        assert_eq!(exact.report(b"one"), None);
    }

    #[test]
    fn estimator_names_read_in_any_case_and_only_chars4_is_everywhere() {
        for name in EstimatorKind::NAMES {
            let kind: EstimatorKind = name.to_ascii_uppercase().parse().unwrap();
            assert_eq!(kind.name(), name);
        }
        let err = "gpt5".parse::<EstimatorKind>().unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidConfig);
        assert!(EstimatorKind::Chars4.available());
        // The report reads back as written (the header's `estimate`, for `describe`).
        let report = EstimateReport {
            estimator: EstimatorKind::Cl100k,
            method: EstimateMethod::Sampled,
            sample_bytes: Some(262_144),
        };
        let text = serde_json::to_string(&report).unwrap();
        assert_eq!(
            text,
            r#"{"estimator":"cl100k","method":"sampled","sample_bytes":262144}"#
        );
        assert_eq!(
            serde_json::from_str::<EstimateReport>(&text).unwrap(),
            report
        );
        assert!(
            serde_json::from_str::<EstimateReport>(r#"{"estimator":"x","method":"exact"}"#)
                .is_err()
        );
        assert_eq!(
            EstimatorKind::O200k.available(),
            cfg!(feature = "tokenizers")
        );
    }
}
