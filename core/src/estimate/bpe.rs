//! The BPE estimators: OpenAI's `o200k_base` and `cl100k_base` tokenizers (tiktoken-rs, with
//! tiktoken's algorithm and its vocabularies compiled in: nothing is downloaded, ever).
//! Special tokens such as `<|endoftext|>` in a result are counted as the text they are.

use tiktoken_rs::CoreBPE;

use super::{EstimateReport, EstimatorKind, TokenEstimator, sample};

/// Counts tokens with one of the BPE vocabularies, on a sample for large texts
/// ([`sample`]).
pub struct BpeEstimator {
    kind: EstimatorKind,
    bpe: &'static CoreBPE,
}

impl BpeEstimator {
    /// The estimator for `kind` (`O200k` or `Cl100k`; anything else counts as `O200k`). The
    /// vocabulary is read once per process, here (about a tenth of a second for o200k).
    pub fn new(kind: EstimatorKind) -> Self {
        let bpe = match kind {
            EstimatorKind::Cl100k => tiktoken_rs::cl100k_base_singleton(),
            _ => tiktoken_rs::o200k_base_singleton(),
        };
        let kind = match kind {
            EstimatorKind::Cl100k => kind,
            _ => EstimatorKind::O200k,
        };
        Self { kind, bpe }
    }

    /// Exact tokens of `text`, however long.
    pub fn count_exact(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }
}

impl std::fmt::Debug for BpeEstimator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BpeEstimator")
            .field("kind", &self.kind)
            .finish()
    }
}

impl TokenEstimator for BpeEstimator {
    fn estimate(&self, text: &str) -> usize {
        sample::count(text, |piece| self.count_exact(piece))
    }

    fn report(&self, text: &[u8]) -> Option<EstimateReport> {
        Some(sample::report(self.kind, text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_as_tiktoken_does() {
        // Counts bpe-openai (GitHub's independent implementation) gives for the same texts.
        let o200k = BpeEstimator::new(EstimatorKind::O200k);
        let cl100k = BpeEstimator::new(EstimatorKind::Cl100k);
        assert_eq!(o200k.estimate("hello world"), 2);
        assert_eq!(cl100k.estimate("hello world"), 2);
        assert_eq!(o200k.estimate("東京の天気は晴れです。"), 9);
        assert_eq!(cl100k.estimate("東京の天気は晴れです。"), 12);
        // A special token in a result is text, not a stop.
        assert_eq!(cl100k.estimate("<|endoftext|>"), 7);
        assert_eq!(o200k.report(b"x").unwrap().estimator, EstimatorKind::O200k);
        assert_eq!(
            cl100k.report(b"x").unwrap().estimator,
            EstimatorKind::Cl100k
        );
    }
}
