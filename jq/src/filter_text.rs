//! The filter's text, checked before it is parsed: its length, its bracket nesting, and the
//! depth of its terms counted on the tokens. The parser, the sandbox's rewriting, jaq's
//! compiler and the evaluation all recurse once per nesting level and once per operator or
//! path step of a chain (`.|.|...`, `1+1+...`, `.a.b...`), so a filter past these bounds is
//! refused here, never run into a stack overflow.

use jaq_core::load::lex::{Lexer, StrPart, Tok, Token};

use crate::error::InvalidFilter;

/// Longest filter accepted, in bytes. Agents' filters are a few hundred bytes; this bounds
/// parse time and memory.
pub const MAX_FILTER_BYTES: usize = 16 * 1024;

/// Deepest bracket nesting accepted (`(`, `[`, `{`, string interpolation); a filter may hold
/// four times as many nesting keywords (`if`, `reduce`, `try`, unary `-`, ...). The parser
/// and the compiler recurse on both.
pub const MAX_FILTER_NESTING: usize = 64;

/// Deepest term accepted: the operators and keywords of a chain plus the steps of its deepest
/// operand (`.a`, `[i]`, `?`, brackets), counted on the filter's tokens before it is parsed
/// ([`term_depth`]). The parser (on right-associative chains such as `a | b | ...`), the
/// sandbox's rewriting, jaq's compiler and the evaluation recurse once per level, and a 16 KiB
/// filter can hold 8,000 of them. The costliest chains (`a + b + ...`, `.a += ...`, which the
/// sandbox follows with checks) take at the limit 0.9 MiB of native stack in a release build,
/// 4 MiB in a debug one (extraction threads have 8 MiB), and in wasm 1.4 KiB a level of the
/// 1 MiB stack (Node) or of wasmtime's 512 KiB: 440 levels fit the tightest. Agents' filters
/// use a few dozen.
pub const MAX_FILTER_DEPTH: usize = 256;

fn invalid(message: impl Into<String>) -> InvalidFilter {
    InvalidFilter::new(message)
}

/// Refuses filters too long or too deeply nested to parse safely.
///
/// Brackets are counted exactly (string literals and comments skipped, interpolation
/// counted); the keywords and operators the parser recurses on (`if`, `reduce`, `foreach`,
/// `try`, `def`, `label`, `as`, unary `-`) are counted in total, which over-approximates
/// their nesting: a filter needs hundreds of them before it is refused. Then the depth of the
/// term the filter parses to, bounded on its tokens ([`MAX_FILTER_DEPTH`]).
pub fn check_text(filter: &str) -> Result<(), InvalidFilter> {
    if filter.len() > MAX_FILTER_BYTES {
        return Err(invalid(format!(
            "filter is {} bytes long; the limit is {MAX_FILTER_BYTES}",
            filter.len()
        )));
    }
    check_nesting(filter)?;
    // The lexer recurses on brackets only, which `check_nesting` bounded. A filter that does
    // not lex is left to the loader, which reports where (and never parses it).
    if let Ok(tokens) = Lexer::new(filter).lex() {
        let depth = term_depth(&tokens, false);
        if depth > MAX_FILTER_DEPTH {
            return Err(invalid(format!(
                "filter is too deep: {depth} operators, path steps and brackets in one chain \
                 (such as `a | b | ...`, `a + b + ...`, `.a.b...`); the limit is \
                 {MAX_FILTER_DEPTH}"
            )));
        }
    }
    Ok(())
}

/// Keywords that open a term or join two (`and`, `or`, `as`): each is a level of the term.
const KEYWORDS: [&str; 13] = [
    "if", "then", "elif", "else", "try", "catch", "reduce", "foreach", "as", "def", "label", "and",
    "or",
];

/// An upper bound of the depth of the term that `tokens` (a filter, or the inside of one of
/// its brackets) parse to. A term is a chain of operands joined by operators (binary ones, a
/// unary `-`, and the keywords, which open a term or join two); an operand is a leaf (a call,
/// a variable, a number, `.`) followed by its steps (`.a`, `[...]`, `?`, a bracket, a
/// string). A branch from the root goes through operators of the chain, then into one
/// operand, through its steps and into at most one of its brackets: so the chain's operators
/// plus its deepest operand bound it, which is as deep as a chain of `.|.|...` goes, and no
/// deeper for `.a, .b, ...` (each operand alone). The entries of an object (`{a: f, b: g}`) are
/// siblings: its `,` separates them (an entry's value cannot hold a bare `,`), so each entry
/// counts alone. Recursion on brackets only, which [`check_text`] bounded first.
fn term_depth(tokens: &[Token<&str>], object: bool) -> usize {
    let mut deepest = 0;
    let mut chain = Chain::default();
    for Token(text, tok) in tokens {
        match tok {
            Tok::Block(inside) => {
                chain.steps += 1;
                chain.inner = chain.inner.max(term_depth(inside, text.starts_with('{')));
            }
            Tok::Str(parts) => {
                chain.steps += 1;
                for part in parts {
                    if let StrPart::Term(Token(_, Tok::Block(inside))) = part {
                        chain.inner = chain.inner.max(1 + term_depth(inside, false));
                    }
                }
            }
            Tok::Sym if *text == "," && object => {
                deepest = deepest.max(std::mem::take(&mut chain).depth());
            }
            // Separators of siblings: arguments, `def f: body; rest`, `key: value`, `[a:b]`.
            Tok::Sym if matches!(*text, ";" | ":") => chain.end_operand(),
            Tok::Sym if matches!(*text, ")" | "]" | "}") => {}
            Tok::Sym if text.starts_with('.') || *text == "?" => chain.steps += 1,
            Tok::Sym => chain.operator(),
            Tok::Word if KEYWORDS.contains(text) => chain.operator(),
            Tok::Word if *text == "end" => chain.end_operand(),
            Tok::Word | Tok::Var | Tok::Fmt | Tok::Num => {}
        }
    }
    deepest.max(chain.depth())
}

/// The levels of a chain of operands and operators, counted so far ([`term_depth`]).
#[derive(Default)]
struct Chain {
    /// Operators and keywords.
    operators: usize,
    /// The deepest operand ended.
    operands: usize,
    /// The steps of the current operand.
    steps: usize,
    /// The deepest bracket of the current operand.
    inner: usize,
}

impl Chain {
    fn end_operand(&mut self) {
        self.operands = self.operands.max(self.steps + self.inner);
        (self.steps, self.inner) = (0, 0);
    }

    fn operator(&mut self) {
        self.end_operand();
        self.operators += 1;
    }

    fn depth(mut self) -> usize {
        self.end_operand();
        self.operators + self.operands
    }
}

/// The bracket and keyword nesting of the filter text (see [`check_text`]).
fn check_nesting(filter: &str) -> Result<(), InvalidFilter> {
    let too_deep = || {
        invalid(format!(
            "filter is nested more than {MAX_FILTER_NESTING} levels deep"
        ))
    };
    // Open contexts: `true` for code brackets, `false` for string literals.
    let mut stack: Vec<bool> = Vec::new();
    let mut nesting_tokens = 0usize;
    let mut word = String::new();
    let mut chars = filter.chars();
    while let Some(c) = chars.next() {
        if stack.last() == Some(&false) {
            match c {
                '\\' if chars.next() == Some('(') => stack.push(true),
                '"' => {
                    stack.pop();
                }
                _ => {}
            }
        } else {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
                continue;
            }
            if matches!(
                word.as_str(),
                "if" | "reduce" | "foreach" | "try" | "def" | "label" | "as"
            ) {
                nesting_tokens += 1;
            }
            word.clear();
            match c {
                '"' => stack.push(false),
                '(' | '[' | '{' => stack.push(true),
                ')' | ']' | '}' => {
                    stack.pop();
                }
                '-' => nesting_tokens += 1,
                '#' => {
                    for c in chars.by_ref() {
                        if c == '\n' {
                            break;
                        }
                    }
                }
                _ => {}
            }
        }
        if stack.len() > MAX_FILTER_NESTING || nesting_tokens > 4 * MAX_FILTER_NESTING {
            return Err(too_deep());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(filter: &str) -> usize {
        term_depth(&Lexer::new(filter).lex().unwrap(), false)
    }

    #[test]
    fn chains_are_bounded_before_they_are_parsed() {
        // Flat filters under the byte limit, shallow in brackets, thousands of levels deep:
        // each overflowed the stack (parser, compiler or evaluation).
        for filter in [
            ".|".repeat(8000) + ".",
            "1,".repeat(8000) + "1",
            "1+".repeat(4000) + "1",
            "..|".repeat(5400) + ".",
            ".".to_owned() + &"[]?".repeat(4000),
            ".a".repeat(8000),
            format!("[{}1]", "1,".repeat(5000)),
        ] {
            assert!(filter.len() <= MAX_FILTER_BYTES);
            let message = check_text(&filter).unwrap_err().message().to_owned();
            assert!(message.starts_with("filter is too deep: "), "{message}");
            assert!(message.ends_with(&format!("the limit is {MAX_FILTER_DEPTH}")));
        }
        // What a level is: an operator, a keyword, and the steps and brackets of an operand.
        assert_eq!(depth("1 + 2 + 3"), 2);
        assert_eq!(depth(".a.b[0]?"), 4);
        assert_eq!(depth("select(.x > 1) | .name"), 1 + 1 + 2);
        assert_eq!(depth("[.[] | {a: .a, b: (.b | length)}]"), 1 + 1 + 1 + 3);
        assert_eq!(depth(r#""\(.a | tostring)!""#), 1 + 1 + 2);
        assert_eq!(depth("if .a then .b else .c end"), 3 + 1);
        // Operands of a chain count alone.
        assert_eq!(
            depth(&format!("[{}.a.b]", ".a.b, ".repeat(200))),
            1 + 200 + 2
        );
        // An object's entries are siblings; an array's items are a chain of `,`.
        let entries: Vec<String> = (0..1000).map(|i| format!("k{i}: .a.b")).collect();
        assert_eq!(depth(&format!("{{{}}}", entries.join(", "))), 1 + 2);
        assert_eq!(depth(&format!("[{}1]", "1,".repeat(300))), 301);
        let at_limit = "1+".repeat(MAX_FILTER_DEPTH) + "1";
        assert!(check_text(&at_limit).is_ok());
        assert!(check_text(&(at_limit + "+1")).is_err());
        // A filter that does not lex is left to the loader, which says where.
        assert!(check_text("1 + $").is_ok());
    }

    #[test]
    fn text_limits() {
        assert!(check_text(r#"select((.title // "") | test($keyword; "i"))"#).is_ok());
        assert!(
            check_text(
                r#""(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((""#
            )
            .is_ok()
        );
        assert!(check_text(&"(".repeat(65)).is_err());
        assert!(check_text(&format!("{}1", "- ".repeat(1000))).is_err());
        assert!(check_text(&format!("{}1", "if 1 then ".repeat(300))).is_err());
        assert!(check_text(&". as $x | ".repeat(300)).is_err());
        assert!(check_text(&"\"\\(".repeat(40)).is_err());
        assert!(check_text(&". ".repeat(MAX_FILTER_BYTES)).is_err());
        assert!(
            check_text("# ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((\n.")
                .is_ok()
        );
    }
}
