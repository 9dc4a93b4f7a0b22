//! Protocol output: whole lines, each written and flushed under one lock, so that lines from
//! the search thread and the input thread never interleave.

use std::io::Write;
use std::sync::{Arc, Mutex};

#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Output {
    pub fn stdout() -> Self {
        Output::new(Box::new(std::io::stdout()))
    }

    pub fn new(sink: Box<dyn Write + Send>) -> Self {
        Output {
            sink: Arc::new(Mutex::new(sink)),
        }
    }

    pub fn line(&self, text: &str) {
        log::debug!("> {text}");
        if let Ok(mut w) = self.sink.lock() {
            // A closed stdout (the GUI went away) is not worth a panic.
            let _ = writeln!(w, "{text}");
            let _ = w.flush();
        }
    }
}
