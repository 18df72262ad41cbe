//! (written blind) After a NAK goes back to waiting for an ack without sending the HEAD again, so the state waits for a reply to a request that was never sent.
//? after a `NAK`, what reply is your new state waiting for, and which request would it answer?
match self {
    Retrying::AwaitingAck { item, retries_left } => match reply {
        Reply::Nak(_) if retries_left > 0 => {
            Ok(Step::Next(Retrying::AwaitingAck { item, retries_left: retries_left - 1 }))
        }
        other => inner(Machine::AwaitingAck { item }.handle(other, conn)),
    },
    Retrying::Then(machine) => inner(machine.handle(reply, conn)),
}
