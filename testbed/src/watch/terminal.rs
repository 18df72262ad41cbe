//! The terminal the live view takes over, and gives back.
//!
//! The view switches the terminal to its alternate screen (what `less` and
//! `top` do: the shell's screen comes back untouched afterwards) and to raw
//! mode, where keys arrive one at a time and Ctrl-C is a key like `q`
//! rather than a signal. Whatever ends the view (the run's end, `q`, a
//! signal from elsewhere, a panic in the view's thread) must undo both
//! before anything else is printed: [`restore`] is idempotent and cheap, so
//! every one of those paths calls it.
//!
//! Not here: what is drawn (`draw.rs`), when (`watch.rs`).

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{cursor, execute};

/// Whether this process has the terminal in raw mode on its alternate
/// screen.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// The terminal on standard output, ready to draw on.
pub type Tty = Terminal<CrosstermBackend<Stdout>>;

/// Takes the terminal over: raw mode, alternate screen, no cursor.
pub fn take() -> io::Result<Tty> {
    enable_raw_mode()?;
    TAKEN.store(true, Ordering::SeqCst);
    let entered = execute!(io::stdout(), EnterAlternateScreen, cursor::Hide)
        .and_then(|()| Terminal::new(CrosstermBackend::new(io::stdout())));
    if entered.is_err() {
        restore();
    }
    entered
}

/// Gives the terminal back as it was; does nothing if it was not taken
/// (or was given back already).
pub fn restore() {
    if TAKEN.swap(false, Ordering::SeqCst) {
        // Nothing better to do if these fail: the terminal is gone, or
        // `reset` will fix it.
        let _ = execute!(io::stdout(), LeaveAlternateScreen, cursor::Show);
        let _ = disable_raw_mode();
    }
}

/// Waits up to `wait` for a key; true if it asks to stop the run: `q`,
/// Esc or Ctrl-C (which raw mode delivers as a key, not as SIGINT).
pub fn stop_pressed(wait: Duration) -> io::Result<bool> {
    if !event::poll(wait)? {
        return Ok(false);
    }
    Ok(match event::read()? {
        Event::Key(key) if key.kind == KeyEventKind::Press => match key.code {
            KeyCode::Char('q') | KeyCode::Esc => true,
            KeyCode::Char('c') => key.modifiers.contains(KeyModifiers::CONTROL),
            _ => false,
        },
        _ => false,
    })
}
