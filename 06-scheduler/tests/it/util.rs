//! Helpers shared by the tests.

use std::time::Duration;

use scheduler::{Scheduler, Summary};
use testbed::latency::LatencyModel;
use testbed::server::{ServerConfig, SlowServer};

/// An embedded slow server answering every line after `latency`.
pub fn server(latency: Duration) -> SlowServer {
    SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(latency),
        ..ServerConfig::default()
    })
    .expect("the embedded server starts")
}

/// Runs `sched` to the end, failing the test if it cannot finish.
#[track_caller]
pub fn run(sched: &Scheduler) -> Summary {
    match sched.run() {
        Ok(summary) => summary,
        Err(error) => panic!("the scheduler could not finish: {error}"),
    }
}
