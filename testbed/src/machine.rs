//! The whole machine's CPU time, as Linux counts it in `/proc/stat`.
//!
//! A measurement on a shared machine needs to know whether it had the
//! machine: the timing test ([`MachineTicks::busy`], against this process's
//! own time) and the bench's race ([`MachineTicks::steal_since`]) ask. On a
//! virtual machine part of the answer is *steal*: time the hypervisor gave
//! "our" cores to another guest, which no process here can see otherwise.
//!
//! Also this process's peak memory ([`peak_rss_mib`]), which stages 6 and 7
//! report to compare a fiber's stack with a future's state.
//!
//! Not here: one process's CPU time (`getrusage`, in the bench's `cpu`).

/// The whole machine's CPU time so far, all cores, as the first line of
/// `/proc/stat` counts it (in clock ticks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MachineTicks {
    /// Every state: user, nice, system, idle, iowait, irq, softirq, steal.
    pub total: u64,
    /// Idle, and waiting for I/O with nothing to run: time nobody used.
    pub idle: u64,
    /// Time the hypervisor gave our virtual cores to someone else.
    pub steal: u64,
}

impl MachineTicks {
    /// Reads `/proc/stat`; `None` where there is none (not Linux) or it
    /// does not parse.
    pub fn now() -> Option<MachineTicks> {
        MachineTicks::parse(&std::fs::read_to_string("/proc/stat").ok()?)
    }

    /// Parses the `cpu` line of a `/proc/stat` text.
    pub fn parse(stat: &str) -> Option<MachineTicks> {
        let line = stat.lines().find(|l| l.starts_with("cpu "))?;
        let fields: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        // user nice system idle iowait irq softirq steal [guest guest_nice]:
        // guest time is already counted in user, so it is left out.
        let states = fields.get(..8)?;
        Some(MachineTicks {
            total: states.iter().sum(),
            idle: states[3] + states[4],
            steal: states[7],
        })
    }

    /// Ticks some process, the kernel or the hypervisor used.
    pub fn busy(self) -> u64 {
        self.total - self.idle
    }

    /// The share of the machine's time stolen between `earlier` and now
    /// (`self`), from 0 to 1; `None` if no time passed.
    pub fn steal_since(self, earlier: MachineTicks) -> Option<f64> {
        let total = self.total.checked_sub(earlier.total)?;
        let steal = self.steal.checked_sub(earlier.steal)?;
        (total > 0).then(|| steal as f64 / total as f64)
    }
}

/// This process's peak resident memory (`VmHWM` in `/proc/self/status`), in
/// MiB; `None` where Linux does not tell.
pub fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_is_the_eighth_state_of_the_cpu_line() {
        let before = "cpu  100 0 50 800 10 0 5 35 0 0\ncpu0 50 0 25 400 5 0 2 18 0 0\n";
        let after = "cpu  150 0 70 1000 10 0 5 65 7 0\ncpu0 75 0 35 500 5 0 2 33 0 0\n";
        let before = MachineTicks::parse(before).expect("a cpu line");
        let after = MachineTicks::parse(after).expect("a cpu line");
        assert_eq!(
            before,
            MachineTicks {
                total: 1000,
                idle: 810,
                steal: 35
            }
        );
        assert_eq!(before.busy(), 190);
        // 300 ticks passed, 30 of them stolen; guest time (7) is not a state.
        assert_eq!(after.steal_since(before), Some(0.1));
        assert_eq!(before.steal_since(before), None);
        assert_eq!(MachineTicks::parse("intr 1 2 3"), None);
        assert!(MachineTicks::now().is_some(), "this is Linux");
    }
}
