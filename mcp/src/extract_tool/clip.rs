//! Bounding the texts an answer quotes (error messages, the caller's arguments, warnings).

/// `text` cut to at most `max` characters (at a character boundary), marked with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((at, _)) => {
            let mut cut = text[..at].to_owned();
            cut.push('…');
            cut
        }
    }
}
