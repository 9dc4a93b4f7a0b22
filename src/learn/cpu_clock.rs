//! The CPU time of the calling thread, for the data generator's limit on an exact solve
//! (`datagen --exact-ms`): a time that passes only while the thread runs, so a run paused
//! (SIGSTOP, a suspended laptop) or sharing its cores with other work labels the same
//! positions as one that ran alone. A solve still depends on the machine's speed at the
//! limit; a slower machine hits it later in the solve, not sooner in wall time.
//! Where the thread clock is missing (not Unix, or `clock_gettime` failing) the wall clock
//! since the first call stands in.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The calling thread's CPU time so far (or the wall time since the process first asked).
pub fn thread_time() -> Duration {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return Duration::new(
                ts.tv_sec.max(0) as u64,
                ts.tv_nsec.clamp(0, 999_999_999) as u32,
            );
        }
    }
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_sleeping_thread_spends_no_cpu_time_and_a_busy_one_does() {
        let t0 = thread_time();
        std::thread::sleep(Duration::from_millis(300));
        let slept = thread_time() - t0;
        assert!(
            slept < Duration::from_millis(100),
            "slept 300 ms, spent {slept:?}"
        );
        let (t1, wall) = (thread_time(), Instant::now());
        let mut x = 0u64;
        while wall.elapsed() < Duration::from_millis(200) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let busy = thread_time() - t1;
        // A loaded machine may take the core away for much of the 200 ms, not for all of it.
        assert!(
            busy >= Duration::from_millis(2),
            "busy 200 ms, spent {busy:?}"
        );
    }
}
