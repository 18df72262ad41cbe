//! I/O: a blocked reader woken by a write; partial lines; a peer that
//! closes or resets; a descriptor number reused after a close. The peer
//! writes SLOW/1 reply lines (`NAK <word>`), which every runtime's reader
//! understands, 07's `AsyncConn` included.

use super::scenario;
use crate::script::Scenario;
use crate::script::Step::*;
use crate::trace::{at_least, ev};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        scenario(
            "blocked-reader-woken-by-write",
            "io",
            vec![
                Spawn("r", vec![Read]),
                Sleep(5),
                PeerWrite("NAK one\n"),
                Join("r"),
            ],
            vec![ev("got NAK one"), ev("r ok")],
        ),
        scenario(
            "partial-line-waits-for-the-rest",
            "io",
            vec![
                Spawn("r", vec![Read]),
                Sleep(5),
                PeerWrite("NAK pa"),
                Sleep(10),
                Log("half sent"),
                PeerWrite("rt\n"),
                Join("r"),
            ],
            vec![at_least("half sent", 15), ev("got NAK part"), ev("r ok")],
        ),
        scenario(
            "two-lines-in-one-write",
            "io",
            vec![PeerWrite("NAK a\nNAK b\n"), Read, Read],
            vec![ev("got NAK a"), ev("got NAK b")],
        ),
        scenario(
            "reader-parks-again-after-a-read",
            "io",
            vec![
                Spawn("r", vec![Read, Read]),
                Sleep(5),
                PeerWrite("NAK a\n"),
                Sleep(5),
                PeerWrite("NAK b\n"),
                Join("r"),
            ],
            vec![ev("got NAK a"), ev("got NAK b"), ev("r ok")],
        ),
        scenario(
            "peer-closes",
            "io",
            vec![Spawn("r", vec![Read]), Sleep(5), PeerClose, Join("r")],
            vec![ev("eof"), ev("r ok")],
        ),
        scenario(
            "peer-closes-after-data",
            "io",
            vec![PeerWrite("NAK last\n"), PeerClose, Read, Read],
            vec![ev("got NAK last"), ev("eof")],
        ),
        scenario(
            "peer-resets",
            "io",
            vec![Spawn("r", vec![Read]), Sleep(5), PeerReset, Join("r")],
            vec![ev("reset"), ev("r ok")],
        ),
        scenario(
            "descriptor-reused-after-close",
            "io",
            vec![
                PeerWrite("NAK old\n"),
                Read,
                Reconnect,
                Spawn("r", vec![Read]),
                Sleep(5),
                PeerWrite("NAK new\n"),
                Join("r"),
            ],
            vec![ev("got NAK old"), ev("got NAK new"), ev("r ok")],
        ),
        scenario(
            "reader-and-timer-together",
            "io",
            vec![
                Spawn("r", vec![Read]),
                Spawn("s", vec![Sleep(10), Log("s woke"), PeerWrite("NAK x\n")]),
                Join("r"),
                Join("s"),
            ],
            vec![
                at_least("s woke", 10),
                ev("got NAK x"),
                ev("r ok"),
                ev("s ok"),
            ],
        ),
    ]
}
