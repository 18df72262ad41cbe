//! `cargo xtask check-layout`: the built book read at 1280 and 400 px.
//!
//! A figure that is legible in the editor can be 7 px text in a reader's
//! column, and a table that fits a laptop is cut off on a phone. This
//! check builds the book, serves it from a small HTTP server on loopback
//! (so a page may read its own `<object>` figures, which `file://` pages
//! may not), and loads every page in headless Chromium inside an iframe
//! of each width: Chromium's own window has a minimum width above 400 px.
//! A script injected into the page (`PROBE`) measures what a reader
//! sees and writes its findings into the DOM, which `--dump-dom` prints.
//!
//! What fails the check: at every width, an element wider than the text
//! column that does not scroll in a box of its own (a cut-off table), a
//! word of a table cut in half (by the edge of the box the table scrolls
//! in, or over two lines), a diagram wrapped over more lines than it has,
//! a figure's text over another or too close in colour to what is behind
//! it; at the widest width, a table that needs to scroll (some of its
//! columns hidden) and a figure's text under 11 px. At 400 px a figure is
//! drawn smaller than its design and scrolls or shrinks; its small text
//! there is listed, not failed, and so is a table that scrolls with no
//! word cut at the edge.
//!
//! Without Chromium the check says so and succeeds: CI installs it.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::cargo;

/// The script injected into every page.
const PROBE: &str = include_str!("layout/probe.js");
/// The widths checked, widest first: a laptop's window and a phone's.
pub const WIDTHS: [u32; 2] = [1280, 400];
/// The names Chromium is installed under.
const CHROMIUM: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];
/// How long one page may take before Chromium is given up on.
const PAGE_TIMEOUT: Duration = Duration::from_secs(60);

/// One thing a reader would see wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The page's file name.
    pub page: String,
    /// The iframe's width.
    pub width: u32,
    /// `overflow`, `scrolled-table`, `cut-word`, `wrapped`, `small-text`,
    /// `contrast`, `overlap` or `unread`.
    pub kind: String,
    /// Which element or figure text.
    pub place: String,
    /// What was measured.
    pub what: String,
}

impl Finding {
    /// Whether the finding fails the check (small text and a scrolling
    /// table at a width narrower than the widest are listed only).
    pub fn fails(&self) -> bool {
        !["small-text", "scrolled-table"].contains(&self.kind.as_str()) || self.width == WIDTHS[0]
    }
}

/// Builds the book, loads each page (or each of `only`) at each width,
/// prints every finding and fails if one of them fails.
pub fn check(root: &Path, only: &[String]) -> Result<()> {
    let Some(chromium) = find_chromium() else {
        println!(
            "check-layout: skipped, no Chromium on PATH (tried {}); \
             install it (apt-get install chromium) to run this check",
            CHROMIUM.join(", ")
        );
        return Ok(());
    };
    let site = cargo::target_dir(root)?.join("layout-book");
    let built = Command::new("mdbook")
        .arg("build")
        .arg(root.join("book"))
        .arg("--dest-dir")
        .arg(&site)
        .output()
        .context("cannot run mdbook (cargo install --locked mdbook)")?;
    if !built.status.success() {
        bail!(
            "mdbook build failed:\n{}",
            String::from_utf8_lossy(&built.stderr)
        );
    }
    let port = serve(site.clone())?;
    let mut findings = Vec::new();
    let mut pages = pages(&site)?;
    if !only.is_empty() {
        if let Some(missing) = only.iter().find(|p| !pages.contains(p)) {
            return Err(crate::BadInput(format!(
                "no page {missing} in the built book: name one of {}",
                pages.join(", ")
            ))
            .into());
        }
        pages.retain(|p| only.contains(p));
    }
    for page in &pages {
        for width in WIDTHS {
            let dom = load(&chromium, port, page, width)?;
            findings.extend(parse(page, width, &dom)?);
        }
    }
    let failing = findings.iter().filter(|f| f.fails()).count();
    for f in &findings {
        println!(
            "{}{} at {} px: {} {}: {}",
            if f.fails() { "" } else { "(listed) " },
            f.page,
            f.width,
            f.kind,
            f.place,
            f.what
        );
    }
    println!(
        "check-layout: {} pages at {} px: {failing} problems, {} findings listed only",
        pages.len(),
        WIDTHS.map(|w| w.to_string()).join(" and "),
        findings.len() - failing
    );
    if failing > 0 {
        bail!("{failing} layout problems (listed above)");
    }
    Ok(())
}

fn find_chromium() -> Option<String> {
    CHROMIUM.iter().find_map(|name| {
        Command::new(name)
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|_| (*name).to_owned())
    })
}

/// The book's pages: every HTML file the build made, but the ones that
/// are not chapters (the print version repeats them all).
fn pages(site: &Path) -> Result<Vec<String>> {
    let mut pages = Vec::new();
    for dir in [site.to_path_buf(), site.join("teachers")] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry?.path();
            let name = path.strip_prefix(site)?.to_string_lossy().into_owned();
            let skip = ["print.html", "404.html", "toc.html", "index.html"];
            if name.ends_with(".html") && !skip.contains(&name.as_str()) {
                pages.push(name);
            }
        }
    }
    pages.sort();
    Ok(pages)
}

/// Loads `page` at `width` and returns Chromium's dump of the frame page.
fn load(chromium: &str, port: u16, page: &str, width: u32) -> Result<String> {
    let profile = std::env::temp_dir().join(format!("xtask-layout-{}", std::process::id()));
    let url = format!("http://127.0.0.1:{port}/__frame?width={width}&page={page}");
    let mut child = Command::new(chromium)
        .args(testbed::browser::HEADLESS)
        .args([
            "--hide-scrollbars",
            "--virtual-time-budget=15000",
            "--window-size=1400,1000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(&url)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {chromium}"))?;
    let mut stdout = child.stdout.take().context("Chromium's output")?;
    let reader = std::thread::spawn(move || {
        let mut dom = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut dom);
        dom
    });
    let started = std::time::Instant::now();
    while child.try_wait()?.is_none() {
        if started.elapsed() > PAGE_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            bail!("Chromium took over {PAGE_TIMEOUT:?} on {page} at {width} px");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let dom = reader.join().unwrap_or_default();
    let _ = std::fs::remove_dir_all(&profile);
    Ok(dom)
}

/// The findings in a dumped frame page: the lines of its report element.
fn parse(page: &str, width: u32, dom: &str) -> Result<Vec<Finding>> {
    let start = dom
        .find("<pre id=\"layout-report\">")
        .map(|at| at + "<pre id=\"layout-report\">".len())
        .with_context(|| format!("{page} at {width} px: Chromium printed no frame page"))?;
    let end = dom[start..].find("</pre>").map_or(dom.len(), |e| start + e);
    let report = unescape(&dom[start..end]);
    if !report.starts_with("measured ") {
        bail!("{page} at {width} px: the page's probe did not run (is its JavaScript broken?)");
    }
    Ok(report
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut parts = line.splitn(3, '\t');
            Some(Finding {
                page: page.to_owned(),
                width,
                kind: parts.next()?.to_owned(),
                place: parts.next()?.to_owned(),
                what: parts.next().unwrap_or_default().to_owned(),
            })
        })
        .collect())
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// Serves `site` on a loopback port, in threads that live as long as the
/// process; returns the port. `/__frame?width=W&page=P` is the page that
/// holds `P` in an iframe `W` px wide, and every HTML page it serves gets
/// the probe before `</body>`.
fn serve(site: PathBuf) -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let site = site.clone();
            std::thread::spawn(move || {
                let _ = answer(&site, stream);
            });
        }
    });
    Ok(port)
}

fn answer(site: &Path, mut stream: TcpStream) -> Result<()> {
    let mut request = String::new();
    BufReader::new(&stream).read_line(&mut request)?;
    let target = request.split_whitespace().nth(1).unwrap_or("/");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let param = |key: &str| {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
            .unwrap_or_default()
            .to_owned()
    };
    let (status, kind, body) = if path == "/__frame" {
        let frame = format!(
            "<!DOCTYPE html><html><body style=\"margin:0\">\
             <iframe src=\"/{page}\" style=\"width:{width}px;height:900px;border:0\"></iframe>\
             <pre id=\"layout-report\"></pre></body></html>",
            page = param("page"),
            width = param("width")
        );
        ("200 OK", "text/html", frame.into_bytes())
    } else {
        let file = site.join(path.trim_start_matches('/'));
        let inside = file
            .canonicalize()
            .is_ok_and(|f| site.canonicalize().is_ok_and(|s| f.starts_with(s)));
        match std::fs::read(&file) {
            Ok(bytes) if inside => {
                let kind = content_type(&file);
                let bytes = if kind == "text/html" {
                    let html = String::from_utf8_lossy(&bytes);
                    html.replacen("</body>", &format!("<script>{PROBE}</script></body>"), 1)
                        .into_bytes()
                } else {
                    bytes
                };
                ("200 OK", kind, bytes)
            }
            _ => ("404 Not Found", "text/plain", b"not found".to_vec()),
        }
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)?;
    Ok(())
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html",
        "css" => "text/css",
        "js" => "text/javascript",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dump_is_read_into_findings_and_small_text_fails_only_at_the_widest() -> Result<()> {
        let dom = "<html><body><pre id=\"layout-report\">measured 400\n\
                   small-text\trace.svg: \"pool\"\t7.1 px\n\
                   overflow\tdiv.table-wrapper: \"a &lt;b&gt;\"\t30 px past the column</pre></body></html>";
        let found = parse("racing.html", 400, dom)?;
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].place, "div.table-wrapper: \"a <b>\"");
        assert!(!found[0].fails(), "small text at 400 px is listed");
        assert!(found[1].fails());
        let wide = Finding {
            width: 1280,
            ..found[0].clone()
        };
        assert!(wide.fails());
        let scrolled = Finding {
            kind: "scrolled-table".into(),
            ..found[1].clone()
        };
        assert!(!scrolled.fails(), "a table may scroll on a phone");
        assert!(
            Finding {
                width: 1280,
                ..scrolled.clone()
            }
            .fails(),
            "not on a laptop"
        );
        let cut = Finding {
            kind: "cut-word".into(),
            ..found[1].clone()
        };
        assert!(cut.fails(), "half a word fails at any width");
        Ok(())
    }

    #[test]
    fn a_page_whose_probe_did_not_run_is_an_error() {
        let dom = "<html><body><pre id=\"layout-report\"></pre></body></html>";
        assert!(parse("a.html", 1280, dom).is_err());
        assert!(parse("a.html", 1280, "<html></html>").is_err());
    }
}
