//! Glob matching with Redis's `stringmatchlen` syntax (`*`, `?`, `[a-z]`, `[^x]`, `\` escapes)
//! for KEYS, SCAN MATCH and CONFIG GET. Iterative, never recursive: a hostile pattern such as
//! `*a*a*a*a*b` costs at most O(pattern × string) steps and no stack.

/// Whether `s` matches `pattern`.
pub fn matches(pattern: &[u8], s: &[u8]) -> bool {
    matches_case(pattern, s, false)
}

/// Whether `s` matches `pattern`, optionally ignoring ASCII case.
pub fn matches_case(pattern: &[u8], s: &[u8], nocase: bool) -> bool {
    // Redis's `stringmatchlen` only looks at the pattern while there is string left, so the
    // empty string matches the empty pattern and nothing else, not even `*` (KEYS and SCAN
    // take a lone `*` to mean every key before they match anything).
    if s.is_empty() {
        return pattern.is_empty();
    }
    let eq = |a: u8, b: u8| if nocase { a.eq_ignore_ascii_case(&b) } else { a == b };
    let (mut p, mut i) = (0usize, 0usize);
    // Where to resume after the most recent `*`: pattern position after it, and the string
    // position it currently absorbs up to.
    let mut star: Option<(usize, usize)> = None;
    while i < s.len() {
        let step = match pattern.get(p) {
            Some(b'*') => {
                while pattern.get(p) == Some(&b'*') {
                    p += 1;
                }
                if p == pattern.len() {
                    return true;
                }
                star = Some((p, i));
                continue;
            }
            Some(b'?') => Some(p + 1),
            Some(b'[') => match_class(pattern, p, s[i], nocase),
            Some(b'\\') if p + 1 < pattern.len() => eq(pattern[p + 1], s[i]).then_some(p + 2),
            Some(&c) => eq(c, s[i]).then_some(p + 1),
            None => None,
        };
        match step {
            Some(next) => {
                p = next;
                i += 1;
            }
            None => match star {
                Some((sp, si)) => {
                    p = sp;
                    i = si + 1;
                    star = Some((sp, si + 1));
                }
                None => return false,
            },
        }
    }
    while pattern.get(p) == Some(&b'*') {
        p += 1;
    }
    p == pattern.len()
}

/// Matches `c` against the class starting at `pattern[start] == b'['`. Returns the pattern
/// position after the class when it matches.
fn match_class(pattern: &[u8], start: usize, c: u8, nocase: bool) -> Option<usize> {
    let fold = |x: u8| if nocase { x.to_ascii_lowercase() } else { x };
    let c = fold(c);
    let mut p = start + 1;
    let not = pattern.get(p) == Some(&b'^');
    if not {
        p += 1;
    }
    let mut matched = false;
    loop {
        match pattern.get(p) {
            // An unterminated class ends with the pattern, as in Redis.
            None => break,
            Some(b']') => {
                p += 1;
                break;
            }
            Some(b'\\') if p + 1 < pattern.len() => {
                matched |= fold(pattern[p + 1]) == c;
                p += 2;
            }
            Some(&lo) if pattern.get(p + 1) == Some(&b'-') && p + 2 < pattern.len() => {
                let hi = pattern[p + 2];
                let (a, b) = if lo <= hi { (lo, hi) } else { (hi, lo) };
                matched |= (fold(a)..=fold(b)).contains(&c) || (a..=b).contains(&c);
                p += 3;
            }
            Some(&x) => {
                matched |= fold(x) == c;
                p += 1;
            }
        }
    }
    (matched != not).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_glob_cases() {
        let yes: &[(&str, &str)] = &[
            ("", ""),
            ("*", "anything"),
            ("h?llo", "hello"),
            ("h*llo", "heeeello"),
            ("h[ae]llo", "hallo"),
            ("h[^e]llo", "hallo"),
            ("h[a-b]llo", "hbllo"),
            ("h[b-a]llo", "hallo"),
            ("user:*:name", "user:42:name"),
            ("a\\*b", "a*b"),
            ("*a*b", "xxaxxb"),
        ];
        for (p, s) in yes {
            assert!(matches(p.as_bytes(), s.as_bytes()), "{p} should match {s}");
        }
        let no: &[(&str, &str)] = &[
            ("h?llo", "hllo"),
            ("h[ae]llo", "hillo"),
            ("h[^e]llo", "hello"),
            ("a\\*b", "axb"),
            ("abc", "abcd"),
            ("*a*b", "xxaxx"),
            ("[]", "a"),
            // As Redis 7.0: the empty string matches only the empty pattern.
            ("*", ""),
            ("**", ""),
            ("[^a]", ""),
            ("", "a"),
        ];
        for (p, s) in no {
            assert!(!matches(p.as_bytes(), s.as_bytes()), "{p} should not match {s}");
        }
        assert!(matches_case(b"HELLO*", b"hello world", true));
    }

    #[test]
    fn pathological_pattern_finishes() {
        let pattern = "*a".repeat(50) + "b";
        let s = "a".repeat(5000);
        assert!(!matches(pattern.as_bytes(), s.as_bytes()));
    }
}
