//! The one error type of gamefs, and the one place that maps errors to errno values.
//!
//! Every layer reports failures as [`Error`], a kind plus a message with context (which file,
//! which game, why). The FUSE adapter and the CLI turn it into an errno or an exit message via
//! [`Error::errno`], whose exhaustive `match` forces a decision for every new kind.

use std::fmt;
use std::io;

/// What went wrong, at the granularity callers must react to differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A path, game or name does not exist.
    NotFound,
    /// A directory was expected.
    NotADirectory,
    /// A file was expected but a directory was found.
    IsADirectory,
    /// A name already exists where a new one was to be created.
    AlreadyExists,
    /// The mount or database is read-only.
    ReadOnly,
    /// The operation is not supported by gamefs at all (extended attributes, exchanging
    /// games by rename).
    Unsupported,
    /// The tree does not allow this kind of change (hard links, device nodes, chown, making or
    /// removing folders, removing view links): EPERM, as POSIX says for a filesystem that
    /// does not support the operation on that kind of node.
    NotPermitted,
    /// The caller is not allowed to do this (writing a read-only file).
    PermissionDenied,
    /// The extended attribute asked for does not exist (games carry none).
    NoAttribute,
    /// The ioctl is not one the file understands.
    UnknownIoctl,
    /// Input text or arguments are invalid (bad PGN, bad option).
    InvalidInput,
    /// A database file is not in the expected format (bad magic, unknown version).
    UnknownFormat,
    /// A database file is damaged: the whole database cannot be used.
    CorruptDatabase,
    /// One game record is damaged: only that game cannot be read.
    CorruptRecord,
    /// A format limit would be exceeded (record size, name count…).
    TooLarge,
    /// The disk is full.
    NoSpace,
    /// Someone else holds the resource (the database's write lock).
    Busy,
    /// Any other I/O failure.
    Io,
}

/// An error with its kind, a human-readable message carrying context, and an optional cause.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<io::Error>,
}

/// The result type used throughout gamefs.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with a message that says what failed and where.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// A damaged game record (the message should name the game and the reason).
    pub fn corrupt_record(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::CorruptRecord, message)
    }

    /// A damaged database file that cannot be used at all.
    pub fn corrupt_database(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::CorruptDatabase, message)
    }

    /// An I/O failure while doing `what` (e.g. "reading x.si4").
    pub fn io(what: impl Into<String>, source: io::Error) -> Error {
        let kind = match source.kind() {
            io::ErrorKind::NotFound => ErrorKind::NotFound,
            io::ErrorKind::PermissionDenied => ErrorKind::PermissionDenied,
            io::ErrorKind::StorageFull => ErrorKind::NoSpace,
            io::ErrorKind::ReadOnlyFilesystem => ErrorKind::ReadOnly,
            _ => ErrorKind::Io,
        };
        Error {
            kind,
            message: format!("{}: {source}", what.into()),
            source: Some(source),
        }
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, with its context.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error with `context` put in front of the message ("game 12: …").
    pub fn context(mut self, context: impl fmt::Display) -> Error {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// The errno the kernel should see for this error. The only errno mapping in gamefs.
    pub fn errno(&self) -> i32 {
        match self.kind {
            ErrorKind::NotFound => libc::ENOENT,
            ErrorKind::NotADirectory => libc::ENOTDIR,
            ErrorKind::IsADirectory => libc::EISDIR,
            ErrorKind::AlreadyExists => libc::EEXIST,
            ErrorKind::ReadOnly => libc::EROFS,
            ErrorKind::Unsupported => libc::ENOTSUP,
            ErrorKind::NotPermitted => libc::EPERM,
            ErrorKind::PermissionDenied => libc::EACCES,
            ErrorKind::NoAttribute => libc::ENODATA,
            ErrorKind::UnknownIoctl => libc::ENOTTY,
            ErrorKind::InvalidInput => libc::EINVAL,
            ErrorKind::UnknownFormat | ErrorKind::CorruptDatabase | ErrorKind::CorruptRecord => {
                libc::EIO
            }
            ErrorKind::TooLarge => libc::EFBIG,
            ErrorKind::NoSpace => libc::ENOSPC,
            ErrorKind::Busy => libc::EBUSY,
            ErrorKind::Io => self
                .source
                .as_ref()
                .and_then(io::Error::raw_os_error)
                .unwrap_or(libc::EIO),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}

/// What a caught panic said (its message, when it is text): for the log line of a defect
/// caught where one item's work fails alone (a FUSE handler, one game of an index build).
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_kinds_to_errno() {
        assert_eq!(Error::corrupt_record("x").errno(), libc::EIO);
        assert_eq!(Error::new(ErrorKind::ReadOnly, "x").errno(), libc::EROFS);
        assert_eq!(
            Error::new(ErrorKind::NotPermitted, "x").errno(),
            libc::EPERM
        );
        assert_eq!(
            Error::new(ErrorKind::NoAttribute, "x").errno(),
            libc::ENODATA
        );
        let e = Error::io("reading a", io::Error::from_raw_os_error(libc::ENOSPC));
        assert_eq!(e.kind(), ErrorKind::NoSpace);
        assert_eq!(e.errno(), libc::ENOSPC);
        assert!(e.to_string().starts_with("reading a: "));
    }

    #[test]
    fn context_prefixes_message() {
        let e = Error::corrupt_record("bad move byte").context("game 7");
        assert_eq!(e.to_string(), "game 7: bad move byte");
    }
}
