//! (written blind) When the retries are used up, fails with a made-up protocol error instead of the server's NAK, so the item is mislabelled (protocol, not nak) and the NAK's reason is lost.
//? when a `NAK` comes with no retry left, does the item end with the server's refusal or with an error of yours?
match self {
    Retrying::AwaitingAck { item, retries_left } => match reply {
        Reply::Nak(_) if retries_left > 0 => {
            conn.send(&Request::Head(item.id))?;
            Ok(Step::Next(Retrying::AwaitingAck { item, retries_left: retries_left - 1 }))
        }
        Reply::Nak(_) => Err(Failure::new(
            testbed::outcome::ErrorKind::Protocol,
            "gave up after retries",
        )),
        other => inner(Machine::AwaitingAck { item }.handle(other, conn)),
    },
    Retrying::Then(machine) => inner(machine.handle(reply, conn)),
}
