//! The few pieces every SVG picture of the workspace shares: the opening
//! of the document ([`header`]), text made safe for XML ([`escape`]), and
//! numbers written the way the book writes them ([`thousands`]).
//!
//! The pictures are written by hand, as text: a timeline is a few thousand
//! `<rect>`s and a race chart a few dozen, which need no plotting library,
//! and the output stays small and diffable. What each picture draws lives
//! with it ([`crate::timeline`], the bench's chart).

use std::fmt::Write as _;

/// The width the book's pictures are drawn at, in pixels: the book's text
/// column, so that their 12 px text ([`header`]'s size) is read at 12 px
/// and never shrinks below the 11 px a reader needs.
pub const COLUMN: f64 = 740.0;

/// The start of an SVG picture `width` × `height` pixels on a white
/// background, in the house font: the common opening of the workspace's
/// pictures (the timelines, the bench's race chart). Close it with
/// `</svg>`.
///
/// ```
/// use testbed::svg::{escape, header};
///
/// let mut svg = header(200.0, 40.0);
/// svg.push_str(&format!("<text x=\"4\" y=\"20\">{}</text>\n", escape("a < b")));
/// svg.push_str("</svg>\n");
/// assert!(svg.starts_with("<svg") && svg.contains("a &lt; b"));
/// ```
pub fn header(width: f64, height: f64) -> String {
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height:.0}" viewBox="0 0 {width} {height:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    svg
}

/// `text` made safe inside an SVG or HTML document, as an element's text or
/// a double-quoted attribute value: escapes the four characters markup
/// gives a meaning to there.
///
/// ```
/// assert_eq!(testbed::svg::escape(r#"a < b && "c""#), "a &lt; b &amp;&amp; &quot;c&quot;");
/// ```
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `12345.6` as `12,346`: rounded to a whole, digits grouped by three, as
/// the book writes numbers (the timelines' captions, and the race's table
/// and chart).
///
/// ```
/// use testbed::svg::thousands;
///
/// assert_eq!(thousands(1_234_567.8), "1,234,568");
/// assert_eq!(thousands(999.0), "999");
/// ```
pub fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_three() {
        assert_eq!(thousands(0.4), "0");
        assert_eq!(thousands(7.0), "7");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(thousands(1_327.0), "1,327");
        assert_eq!(thousands(1_234_567.8), "1,234,568");
    }

    #[test]
    fn escapes_what_xml_gives_a_meaning_to() {
        assert_eq!(
            escape("ko: KO <500> & more"),
            "ko: KO &lt;500&gt; &amp; more"
        );
    }
}
