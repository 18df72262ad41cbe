//! A ring dropped with operations in flight: the kernel may still write
//! into their buffers and act on their descriptors, so nothing they own
//! is freed until each has completed, or ever.

use std::time::Duration;

use io_uring::types;

use super::Ring;

impl Drop for Ring {
    /// A ring dropped with operations in flight must not free their
    /// buffers, nor close their descriptors, while the kernel may still use
    /// them: closing the ring's descriptor does *not* wait for its
    /// operations. So every operation is cancelled and its completion
    /// awaited, with waits of a second each for as long as completions keep
    /// coming; after a second with none, what is still out is leaked,
    /// never freed.
    fn drop(&mut self) {
        if self.table.live() == 0 {
            return;
        }
        for id in self.table.io_ids() {
            if self.cancel(id).is_err() {
                break;
            }
        }
        let limit = types::Timespec::from(Duration::from_secs(1));
        let args = types::SubmitArgs::new().timespec(&limit);
        let mut done = Vec::new();
        while self.table.live() > 0 {
            let before = self.stats.completed;
            match self.ring.submitter().submit_with_args(1, &args) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(_) => break,
            }
            self.reap(&mut done);
            done.clear();
            if self.stats.completed == before {
                break; // A second of silence: the kernel keeps the rest.
            }
        }
        if self.table.live() > 0 {
            self.table.leak();
        }
    }
}
