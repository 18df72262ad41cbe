//! One frame of the live view, drawn from the [`App`]'s state.
//!
//! From top to bottom: the run's name and clock; the counts (recorded,
//! failed, in flight, left); throughput now, with a sparkline of its
//! history, against Little's ideal; each open connection's current item
//! and phase, beside the loop's last wake-ups; and, when the run stalls,
//! the watchdog's message, in red, on the last lines.
//!
//! Everything here writes to a ratatui [`Frame`], whatever its backend: a
//! test draws on a `TestBackend` and reads the cells back.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Sparkline, Wrap};

use crate::duration::format_duration;
use crate::protocol::Phase;
use crate::svg::thousands;

use super::state::{App, ConnNow, Wake};

/// Draws the whole view into `frame`.
pub fn draw(frame: &mut Frame, app: &App) {
    let stall_height = if app.stalled().is_some() { 4 } else { 0 };
    let [title, counts, throughput, below, stall] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(6),
        Constraint::Min(3),
        Constraint::Length(stall_height),
    ])
    .areas(frame.area());
    frame.render_widget(Paragraph::new(title_line(app)), title);
    frame.render_widget(Paragraph::new(counts_line(app)), counts);
    draw_throughput(frame, app, throughput);
    let [conns, wakes] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(below);
    draw_connections(frame, app, conns);
    draw_wakes(frame, app, wakes);
    if let Some(line) = app.stalled() {
        let block = Block::bordered()
            .title(" stalled ")
            .border_style(Style::new().fg(Color::Red));
        let text = Paragraph::new(line.to_owned())
            .style(Style::new().fg(Color::Red))
            .wrap(Wrap { trim: true })
            .block(block);
        frame.render_widget(text, stall);
    }
}

fn title_line(app: &App) -> Line<'static> {
    let setup = app.setup();
    Line::from(vec![
        Span::from(format!("{}: {} items", setup.stage, setup.items)).bold(),
        Span::from(format!("   {}", clock(app.last().at))),
        Span::from("   q or Ctrl-C stops the run").dark_gray(),
    ])
}

fn counts_line(app: &App) -> Line<'static> {
    let last = app.last();
    Line::from(vec![
        Span::from(format!("ok {}", thousands(app.ok() as f64))).green(),
        Span::from(format!("   failed {}", thousands(last.failed as f64))).red(),
        Span::from(if app.setup().server_elsewhere {
            "   in flight ?".to_owned()
        } else {
            format!("   in flight {}", thousands(app.in_flight() as f64))
        }),
        Span::from(format!("   left {}", thousands(app.left() as f64))),
        Span::from(format!("   recorded {}", thousands(last.recorded as f64))).dark_gray(),
    ])
}

fn draw_throughput(frame: &mut Frame, app: &App, area: Rect) {
    let block = Block::bordered().title(" throughput, items/s ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [text, spark] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(inner);
    let mut words = format!(
        "now {}   mean {}",
        thousands(app.throughput()),
        thousands(app.mean_throughput())
    );
    match (app.ideal(), app.efficiency()) {
        (Some(ideal), Some(efficiency)) => words.push_str(&format!(
            "   ideal {} = {} conns / ({} x {})   efficiency {:.0}%",
            thousands(ideal),
            app.concurrency(),
            app.setup().phases.count(),
            format_duration(app.service()),
            efficiency * 100.0
        )),
        _ => words.push_str("   ideal: none yet (no connection, or no latency)"),
    }
    frame.render_widget(Paragraph::new(words), text);
    // The newest readings, as many as the panel is wide: the history grows
    // to the right, then scrolls left.
    let rates: Vec<u64> = app.rates().collect();
    let shown = &rates[rates.len().saturating_sub(spark.width as usize)..];
    let max = app.ideal().map_or(0, |ideal| ideal.ceil() as u64);
    let sparkline = Sparkline::default()
        .data(shown)
        .max(max.max(shown.iter().copied().max().unwrap_or(1)).max(1))
        .style(Style::new().fg(Color::Cyan));
    frame.render_widget(sparkline, spark);
}

fn draw_connections(frame: &mut Frame, app: &App, area: Rect) {
    let conns = app.connections();
    let room = area.height.saturating_sub(2) as usize;
    let title = if conns.len() > room {
        format!(" connections: {} open, first {room} shown ", conns.len())
    } else {
        format!(" connections: {} open ", conns.len())
    };
    let lines: Vec<Line> = if app.setup().server_elsewhere {
        vec![Line::from("the server runs in another process (--server): its connections cannot be seen from here").dark_gray()]
    } else if conns.is_empty() {
        vec![Line::from("none open").dark_gray()]
    } else {
        conns
            .iter()
            .map(|(lane, conn)| connection_line(*lane, conn))
            .collect()
    };
    let text = Paragraph::new(lines)
        .wrap(Wrap { trim: true })
        .block(Block::bordered().title(title));
    frame.render_widget(text, area);
}

/// `#3  item 1234  HEAD in service 4.1ms`, `... HEAD replied 0.2ms ago`
/// or `... HEAD hang 3.95s ago`.
fn connection_line(lane: usize, conn: &ConnNow) -> Line<'static> {
    let phase = match conn.phase {
        Phase::Get => "GET",
        Phase::Head => "HEAD",
        Phase::Body => "BODY",
    };
    let since = format_duration(conn.since);
    let state = match (conn.in_service, conn.fault) {
        (true, _) => Span::from(format!("in service {since}")).yellow(),
        (false, None) => Span::from(format!("replied {since} ago")).dark_gray(),
        // `hang`, `drop`, ...: what the server did instead of a plain reply.
        (false, Some(fault)) => Span::from(format!("{} {since} ago", fault.as_str())).red(),
    };
    Line::from(vec![
        Span::from(format!("#{lane:<4} item {:<7} {phase:<5}", conn.item.0)),
        state,
    ])
}

fn draw_wakes(frame: &mut Frame, app: &App, area: Rect) {
    let block = Block::bordered().title(" the loop's last wake-ups ");
    let room = area.height.saturating_sub(2) as usize;
    let lines: Vec<Line> = match &app.last().wakes {
        None => vec![Line::from("no loop recording").dark_gray()],
        Some(wakes) if wakes.is_empty() => vec![Line::from("no wake-up yet").dark_gray()],
        Some(wakes) => wakes.iter().rev().take(room).map(wake_line).collect(),
    };
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// `at 1.20s  slept 4.1ms  ready 3  timers 1  then recorded 2`, newest first.
fn wake_line(wake: &Wake) -> Line<'static> {
    Line::from(format!(
        // Milliseconds: a loop wakes hundreds of times a second, and a
        // tenth of a second would give a whole screen of wake-ups one time.
        "at {:.3}s  slept {}  ready {}  timers {}  {}",
        wake.at.as_secs_f64(),
        format_duration(wake.slept),
        wake.ready,
        wake.timers,
        wake.then
    ))
}

/// A run's clock: `12.3s`.
fn clock(at: Duration) -> String {
    format!("{:.1}s", at.as_secs_f64())
}
