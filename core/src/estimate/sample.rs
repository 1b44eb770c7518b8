//! Counting a large text on a sample: an exact tokenizer takes time in proportion to the text
//! (about 5 MB a second for tiktoken's o200k), so a text longer than [`EXACT_MAX_BYTES`] is
//! counted on [`PIECES`] evenly spaced pieces that add up to that bound, and the count is
//! scaled by the text's length over the sample's. A result of 100 MB then costs what one of
//! 256 KiB does, and records of one kind (what offloaded results are) scale closely.

use super::{EstimateMethod, EstimateReport, EstimatorKind};

/// Longest text counted whole; a longer one is sampled.
pub const EXACT_MAX_BYTES: usize = 256 * 1024;
/// Pieces a sample is made of: spread over the text, so that a result whose records change
/// along the way (a table with a long tail of notes) is seen all along.
pub const PIECES: usize = 64;

/// The pieces of `text` a sample counts: `None` when the text is counted whole.
fn pieces(text: &[u8]) -> Option<impl Iterator<Item = (usize, usize)> + '_> {
    if text.len() <= EXACT_MAX_BYTES {
        return None;
    }
    let piece = EXACT_MAX_BYTES / PIECES;
    let stride = text.len() / PIECES;
    Some((0..PIECES).map(move |i| {
        let start = char_start(text, i * stride);
        (start, char_start(text, (start + piece).min(text.len())))
    }))
}

/// The start of the UTF-8 character at or before `at`: pieces never cut a character.
fn char_start(text: &[u8], mut at: usize) -> usize {
    while at > 0 && at < text.len() && (text[at] & 0xC0) == 0x80 {
        at -= 1;
    }
    at
}

/// Tokens of `text` as `count` counts them: exactly up to [`EXACT_MAX_BYTES`], on a sample
/// scaled to the text's length beyond.
pub fn count(text: &str, count: impl Fn(&str) -> usize) -> usize {
    let Some(pieces) = pieces(text.as_bytes()) else {
        return count(text);
    };
    let (mut tokens, mut bytes) = (0u128, 0u128);
    for (start, end) in pieces {
        tokens += count(&text[start..end]) as u128;
        bytes += (end - start) as u128;
    }
    // Rounded to the nearest token; a sample has at least a piece of 4 KiB.
    let scaled = (tokens * text.len() as u128 + bytes / 2) / bytes.max(1);
    usize::try_from(scaled).unwrap_or(usize::MAX)
}

/// How [`count`] counts `text`, for the estimator `estimator`.
pub fn report(estimator: EstimatorKind, text: &[u8]) -> EstimateReport {
    let sample_bytes = pieces(text).map(|pieces| pieces.map(|(start, end)| end - start).sum());
    EstimateReport {
        estimator,
        method: if sample_bytes.is_some() {
            EstimateMethod::Sampled
        } else {
            EstimateMethod::Exact
        },
        sample_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> usize {
        text.split_whitespace().count()
    }

    #[test]
    fn a_text_up_to_the_bound_is_counted_whole() {
        let text = "word ".repeat(EXACT_MAX_BYTES / 5);
        assert_eq!(count(&text, words), EXACT_MAX_BYTES / 5);
        let report = report(EstimatorKind::O200k, text.as_bytes());
        assert_eq!(report.method, EstimateMethod::Exact);
        assert_eq!(report.sample_bytes, None);
    }

    #[test]
    fn a_longer_text_is_counted_on_a_sample_of_the_bound_and_scaled() {
        let text = "word ".repeat(EXACT_MAX_BYTES);
        let counted = std::cell::Cell::new(0);
        let estimate = count(&text, |piece| {
            counted.set(counted.get() + piece.len());
            words(piece)
        });
        assert_eq!(counted.get(), EXACT_MAX_BYTES);
        // Pieces cut inside a word count it twice at most: 64 words in 262,144.
        let exact = EXACT_MAX_BYTES;
        assert!(
            estimate.abs_diff(exact) <= exact / 1000,
            "{estimate} vs {exact}"
        );
        let report = report(EstimatorKind::O200k, text.as_bytes());
        assert_eq!(report.method, EstimateMethod::Sampled);
        assert_eq!(report.sample_bytes, Some(EXACT_MAX_BYTES));
    }

    #[test]
    fn pieces_never_cut_a_character() {
        // Three-byte characters: every piece must still be a str (slicing would panic).
        let text = "東京".repeat(EXACT_MAX_BYTES / 3);
        let estimate = count(&text, |piece| piece.chars().count());
        let exact = text.chars().count();
        assert!(
            estimate.abs_diff(exact) <= exact / 1000,
            "{estimate} vs {exact}"
        );
        let sampled = report(EstimatorKind::Cl100k, text.as_bytes())
            .sample_bytes
            .unwrap();
        assert!(sampled % 3 == 0 && sampled <= EXACT_MAX_BYTES);
    }
}
