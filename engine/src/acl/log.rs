//! `ACL LOG`: refused commands, keys, channels and failed logins, newest first, a repeat
//! within 60 s folded into the entry it repeats. Part B implements.

/// What was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LogReason {
    Command,
    Key,
    Channel,
    Auth,
}

/// Where it was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LogContext {
    TopLevel,
    Multi,
    Lua,
}

#[derive(Clone, Debug)]
pub(crate) struct LogEntry {
    pub entry_id: u64,
    pub count: u64,
    pub reason: LogReason,
    pub context: LogContext,
    /// The command's full name, the key, the channel, or (auth) argv[0] as typed.
    pub object: Vec<u8>,
    pub username: Vec<u8>,
    pub created_ms: u64,
    pub updated_ms: u64,
    /// The CLIENT INFO line of the client refused (without its newline).
    pub client_info: String,
}

#[derive(Default)]
pub(crate) struct AclLog {
    /// Newest first.
    pub entries: std::collections::VecDeque<LogEntry>,
    pub next_id: u64,
}
