//! A machine where io_uring is forbidden, for one child process: what a
//! container's seccomp profile does (Docker's default answers `EPERM`), or
//! an old kernel (`ENOSYS`), made real without touching the machine-wide
//! sysctl `kernel.io_uring_disabled`. The filter goes with the child.
//!
//! ```
//! use std::process::Command;
//! use testbed::testing::forbid_io_uring;
//!
//! let mut command = Command::new("true");
//! forbid_io_uring(&mut command, libc::EPERM);
//! assert!(command.status()?.success(), "everything else is allowed");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// One classic-BPF instruction.
fn op(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

// ANCHOR: seccomp
/// Makes `command`'s process (and what it starts), and it alone, fail
/// `io_uring_setup` with `errno`: a four-instruction seccomp program, "if the call is
/// io_uring_setup, fail it with errno; else allow", installed after the
/// fork and before the exec. (It does not check the architecture word, as
/// a real profile must: this one only has to catch one call of this one
/// program.)
pub fn forbid_io_uring(command: &mut Command, errno: i32) -> &mut Command {
    let nr = u32::try_from(libc::SYS_io_uring_setup).expect("a small number");
    let errno = u32::try_from(errno).expect("a positive errno") & libc::SECCOMP_RET_DATA;
    let program = [
        // Load seccomp_data.nr, the system call's number (offset 0).
        op(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0, 0),
        op(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, nr, 0, 1),
        op(
            libc::BPF_RET | libc::BPF_K,
            libc::SECCOMP_RET_ERRNO | errno,
            0,
            0,
        ),
        op(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW, 0, 0),
    ];
    let install = move || {
        let fprog = libc::sock_fprog {
            len: program.len() as u16,
            filter: program.as_ptr().cast_mut(),
        };
        // SAFETY: prctl and seccomp are async-signal-safe system calls,
        // fit to run between fork and exec; `fprog` points into `program`,
        // owned by this closure and alive for both calls. No buffer is
        // lent to anyone past the call.
        let failed = unsafe {
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    0,
                    &fprog as *const libc::sock_fprog,
                ) != 0
        };
        if failed {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: the closure runs in the child after fork, where only
    // async-signal-safe calls are allowed: it makes two system calls and
    // allocates nothing.
    unsafe { command.pre_exec(install) }
}
// ANCHOR_END: seccomp
