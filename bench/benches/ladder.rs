//! `cargo bench -p bench`: criterion, one group per question.
//!
//! - `latency_bound`: fixed 2 ms, two-phase, at concurrency 1, 10 and 100
//!   (01-sync at 1 only): does the stage turn concurrency into throughput?
//! - `uneven`: bimodal latency (10% of the request lines take 20 ms, the
//!   rest 2 ms), 20 connections: who waits behind a slow reply?
//! - `overhead`: zero latency, wall time: the machine's limit.
//! - `overhead_cpu`: the same runs, but the time criterion sees is the
//!   client's CPU time (user + system, `getrusage`), so its "throughput" is
//!   items per CPU-second: the inverse of the CPU cost per item.
//! - `scale`: 1,000 and 5,000 connections at once, two items each, at
//!   200 ms (short mode: 1,000 connections, one item each, at 50 ms).
//!
//! Which contenders join which group is the registry's business
//! (`bench::contenders`); a stage that does not exist yet is simply not
//! there. Every run goes through the harness and must be sound (nothing
//! lost, nothing wrong), or the bench stops: a fast wrong answer is not a
//! result.
//!
//! Each iteration is a whole run (hundreds of items), so the groups use
//! criterion's flat sampling and `iter_custom`: the time of an iteration is
//! the harness's wall time of the stage's `run` (or its CPU time, for
//! `overhead_cpu`), not the set-up and verification around it.
//!
//! `BENCH_SHORT=1` shrinks every workload and every time budget (see the
//! crate docs); `main` forks the slow servers, one per workload, before
//! criterion starts any thread.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use testbed::latency::LatencyModel;
use testbed::protocol::Phases;

use bench::contenders::{self, Contender, Group};
use bench::race::Workload;
use bench::run::{Lap, Runner};
use bench::servers::Servers;

/// The environment variable that selects the short mode.
const SHORT_ENV: &str = "BENCH_SHORT";

/// Concurrency levels of `latency_bound`.
const LEVELS: [usize; 3] = [1, 10, 100];

/// Connection counts of `scale`.
const SCALE_CONNS: [usize; 2] = [1_000, 5_000];

/// How big each workload is, and how long criterion measures.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    /// Items per connection in `latency_bound` (each takes 2 × 2 ms).
    latency_items_per_conn: usize,
    /// Items in `uneven`.
    uneven_items: usize,
    /// Items in `overhead` and `overhead_cpu`.
    overhead_items: usize,
    /// Items per connection in `scale`.
    scale_items_per_conn: usize,
    /// The connection counts of `scale`.
    scale_conns: &'static [usize],
    /// The service time of `scale`.
    scale_latency: LatencyModel,
    warm_up: Duration,
    /// Criterion's target time for the samples of one benchmark; the groups
    /// with longer runs ask for a multiple of it.
    measurement: Duration,
    /// Bootstrap resamples of criterion's analysis (its default: 100,000).
    resamples: usize,
}

impl Sizes {
    /// Long enough runs for stable figures: about 200 ms per iteration.
    const FULL: Sizes = Sizes {
        latency_items_per_conn: 50,
        uneven_items: 1_000,
        overhead_items: 10_000,
        scale_items_per_conn: 2,
        scale_conns: &SCALE_CONNS,
        // 5,000 connections ask the server for 5,000 / 200 ms = 25,000 lines
        // per second, about half of what it serves on this machine, so the
        // server is not what is measured.
        scale_latency: LatencyModel::Fixed(Duration::from_millis(200)),
        warm_up: Duration::from_millis(500),
        measurement: Duration::from_secs(3),
        resamples: 10_000,
    };

    /// A quick look: runs of tens of milliseconds, the minimum of samples.
    const SHORT: Sizes = Sizes {
        latency_items_per_conn: 5,
        uneven_items: 100,
        overhead_items: 1_000,
        scale_items_per_conn: 1,
        scale_conns: &[SCALE_CONNS[0]],
        // 1,000 connections: 20,000 lines per second, still within reach.
        scale_latency: LatencyModel::Fixed(Duration::from_millis(50)),
        warm_up: Duration::from_millis(50),
        measurement: Duration::from_millis(300),
        resamples: 5_000,
    };

    /// Short under `BENCH_SHORT=1`, and when criterion is not measuring
    /// (`cargo test --benches` runs each benchmark once, without `--bench`).
    fn from_env() -> Sizes {
        let short = std::env::var_os(SHORT_ENV).is_some_and(|v| !v.is_empty() && v != "0");
        let measuring = std::env::args().any(|a| a == "--bench");
        if short || !measuring {
            Sizes::SHORT
        } else {
            Sizes::FULL
        }
    }
}

fn two_phase(items: usize, conns: usize, latency: LatencyModel) -> Workload {
    Workload {
        items,
        conns,
        phases: Phases::Two,
        latency,
    }
}

fn fixed(ms: u64) -> LatencyModel {
    LatencyModel::Fixed(Duration::from_millis(ms))
}

/// 10% of the request lines take 20 ms, the rest 2 ms (mean 3.8 ms).
fn bimodal() -> LatencyModel {
    LatencyModel::Bimodal {
        p_slow: 0.1,
        slow: Duration::from_millis(20),
        fast: Duration::from_millis(2),
    }
}

/// One server per workload, keyed by group name.
fn server_plan(sizes: &Sizes) -> Vec<(String, testbed::server::ServerConfig)> {
    let config = |latency| two_phase(1, 1, latency).server_config();
    vec![
        ("latency_bound".into(), config(fixed(2))),
        ("uneven".into(), config(bimodal())),
        ("overhead".into(), config(fixed(0))),
        ("scale".into(), config(sizes.scale_latency)),
    ]
}

/// What one benchmark needs: the runner, the server, the workload.
struct Bench<'a> {
    runner: &'a Runner,
    server: SocketAddr,
    contender: &'a Contender,
    workload: Workload,
}

impl Bench<'_> {
    /// One sound run, or a panic that says what went wrong.
    fn lap(&self) -> Lap {
        let settings = self.workload.settings(self.server);
        let lap = self
            .runner
            .run(self.contender, &settings, None, None)
            .unwrap_or_else(|e| panic!("{} on {:?}: {e}", self.contender.name, self.workload));
        let report = &lap.report;
        assert!(
            report.is_sound(),
            "{} on {:?} lost {} and got {} wrong: a fast wrong answer is not a result",
            self.contender.name,
            self.workload,
            report.lost,
            report.wrong
        );
        lap
    }

    /// Registers the benchmark in `group`; `measure` turns a lap into the
    /// time criterion sees.
    fn register(
        self,
        group: &mut BenchmarkGroup<'_, WallTime>,
        id: BenchmarkId,
        measure: fn(&Lap) -> Duration,
    ) {
        group.throughput(Throughput::Elements(self.workload.items as u64));
        group.bench_function(id, |b| {
            b.iter_custom(|iters| (0..iters).map(|_| measure(&self.lap())).sum())
        });
    }
}

/// The stage's own wall time, as the harness measured it.
fn wall(lap: &Lap) -> Duration {
    Duration::from_secs_f64(lap.report.elapsed_s)
}

/// The client's CPU time during the stage's run.
fn cpu(lap: &Lap) -> Duration {
    Duration::from_secs_f64(lap.client_cpu_s)
}

/// A group of flat-sampled benchmarks, measured for `times` × the base
/// measurement time.
fn group<'c>(
    c: &'c mut Criterion,
    name: &str,
    sizes: &Sizes,
    times: u32,
) -> BenchmarkGroup<'c, WallTime> {
    let mut group = c.benchmark_group(name);
    // Each iteration is a whole run: keep the iteration count the same in
    // every sample instead of growing it linearly (criterion's advice for
    // long benchmarks).
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(sizes.warm_up)
        .measurement_time(sizes.measurement * times)
        .nresamples(sizes.resamples);
    group
}

fn main() {
    let sizes = Sizes::from_env();
    // First, while this process has one thread: the servers.
    let servers = Servers::start(server_plan(&sizes)).expect("could not fork the slow servers");
    let addr = |key: &str| servers.addr(key).expect("every group's server was forked");
    let runner = Runner {
        race_exe: PathBuf::from(env!("CARGO_BIN_EXE_race")),
    };
    let mut c = Criterion::default().configure_from_args();

    let mut g = group(&mut c, "latency_bound", &sizes, 1);
    for contender in contenders::in_group(Group::LatencyBound) {
        let levels: &[usize] = if contender.sequential {
            &LEVELS[..1]
        } else {
            &LEVELS
        };
        for &conns in levels {
            let items = conns * sizes.latency_items_per_conn;
            Bench {
                runner: &runner,
                server: addr("latency_bound"),
                contender,
                workload: two_phase(items, conns, fixed(2)),
            }
            .register(&mut g, BenchmarkId::new(contender.name, conns), wall);
        }
    }
    g.finish();

    let mut g = group(&mut c, "uneven", &sizes, 1);
    for contender in contenders::in_group(Group::Uneven) {
        Bench {
            runner: &runner,
            server: addr("uneven"),
            contender,
            workload: two_phase(sizes.uneven_items, 20, bimodal()),
        }
        .register(&mut g, BenchmarkId::from_parameter(contender.name), wall);
    }
    g.finish();

    for (name, measure) in [
        ("overhead", wall as fn(&Lap) -> Duration),
        ("overhead_cpu", cpu),
    ] {
        let mut g = group(&mut c, name, &sizes, 2);
        for contender in contenders::in_group(Group::Overhead) {
            Bench {
                runner: &runner,
                server: addr("overhead"),
                contender,
                workload: two_phase(sizes.overhead_items, 50, fixed(0)),
            }
            .register(&mut g, BenchmarkId::from_parameter(contender.name), measure);
        }
        g.finish();
    }

    let mut g = group(&mut c, "scale", &sizes, 4);
    for contender in contenders::in_group(Group::Scale) {
        for &conns in sizes.scale_conns {
            Bench {
                runner: &runner,
                server: addr("scale"),
                contender,
                workload: two_phase(
                    conns * sizes.scale_items_per_conn,
                    conns,
                    sizes.scale_latency,
                ),
            }
            .register(&mut g, BenchmarkId::new(contender.name, conns), wall);
        }
    }
    g.finish();

    c.final_summary();
}
