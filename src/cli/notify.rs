//! systemd readiness (sd_notify): with `Type=notify`, systemd waits for `READY=1`, which we send
//! once the kernel has the mount, and hears `STOPPING=1` when we unmount.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};

/// Send `state` to the socket systemd named in NOTIFY_SOCKET, if any.
pub(crate) fn notify(state: &str) {
    let Some(path) = std::env::var_os("NOTIFY_SOCKET") else {
        return;
    };
    let path = path.to_string_lossy().into_owned();
    let addr = match path.strip_prefix('@') {
        Some(name) => SocketAddr::from_abstract_name(name.as_bytes()),
        None => SocketAddr::from_pathname(&path),
    };
    let sent = addr
        .and_then(|a| UnixDatagram::unbound().and_then(|s| s.send_to_addr(state.as_bytes(), &a)));
    if let Err(e) = sent {
        log::warn!("cannot notify systemd at {path}: {e}");
    }
}
