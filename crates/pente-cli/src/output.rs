//! Helpers for writing to stdout.

use std::io;

/// `error` and its causes on one line, each said once: a library error's
/// message often shows its source too, and `{:#}` would repeat it.
pub fn describe(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let message = cause.to_string();
        if text.contains(&message) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
    }
    text
}

/// Whether `error` comes from writing to a closed pipe (`pente ... | head`),
/// which is not a failure.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error that shows its source in its message, as many do.
    #[derive(Debug)]
    struct Wrapped {
        path: &'static str,
        source: io::Error,
    }

    impl std::fmt::Display for Wrapped {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{}: {}", self.path, self.source)
        }
    }

    impl std::error::Error for Wrapped {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.source)
        }
    }

    #[test]
    fn a_cause_already_in_the_message_is_said_once() {
        let inner = Wrapped { path: "model.json", source: io::Error::from(io::ErrorKind::NotFound) };
        let error = anyhow::Error::new(inner).context("cannot load the network in runs/x");
        assert_eq!(describe(&error), "cannot load the network in runs/x: model.json: entity not found");
    }

    #[test]
    fn a_cause_not_in_the_message_is_added() {
        let error = anyhow::Error::new(io::Error::other("disk full")).context("writing games.csv");
        assert_eq!(describe(&error), "writing games.csv: disk full");
    }
}
