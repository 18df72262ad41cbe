//! A machine where io_uring is forbidden, for one child process: a seccomp
//! filter that answers `io_uring_setup` with `EPERM`, as Docker's default
//! profile does. Nothing machine-wide changes (the sysctl
//! `kernel.io_uring_disabled` would need root and would reach every
//! process), and the filter goes with the child.

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Makes `command`'s process, and every process it starts, get `EPERM`
/// from `io_uring_setup`; every other system call is allowed.
pub fn forbid_io_uring(command: &mut Command) -> &mut Command {
    // A classic BPF program over `struct seccomp_data`, whose first field
    // is the system call's number. The number is this architecture's, from
    // libc; a 32-bit call from a 64-bit process is not a concern here.
    let nr = u32::try_from(libc::SYS_io_uring_setup).expect("a small system call number");
    let errno = u32::try_from(libc::EPERM).expect("a small errno");
    let statement = |code: u32, k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: u16::try_from(code).expect("a BPF opcode fits 16 bits"),
        jt,
        jf,
        k,
    };
    let mut filter = [
        // Load the system call's number.
        statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0, 0),
        // io_uring_setup: go on to the next statement; else skip it.
        statement(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, nr, 0, 1),
        statement(
            libc::BPF_RET | libc::BPF_K,
            libc::SECCOMP_RET_ERRNO | errno,
            0,
            0,
        ),
        statement(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW, 0, 0),
    ];
    // SAFETY: the closure runs in the child between fork and exec, where
    // only async-signal-safe functions may be called: it calls `prctl`
    // twice (a system call each) and touches only `filter`, an array moved
    // into the closure before the fork, so it allocates nothing and takes
    // no lock.
    unsafe {
        command.pre_exec(move || {
            let program = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_mut_ptr(),
            };
            // Without it an unprivileged process may not install a filter;
            // it also keeps set-uid programs from gaining rights.
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    &program as *const libc::sock_fprog,
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}
