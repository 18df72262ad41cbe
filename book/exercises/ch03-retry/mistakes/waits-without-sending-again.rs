//! Goes back to waiting for an ack without sending the HEAD again: the server answers each HEAD once, so the new state waits for a reply nobody will send.
//? the server answers each `HEAD` exactly once: after a `NAK`, what makes it send another reply?
match self {
    Retrying::AwaitingAck { item, retries_left } => match reply {
        Reply::Nak(_) if retries_left > 0 => Ok(Step::Next(Retrying::AwaitingAck {
            item,
            retries_left: retries_left - 1,
        })),
        reply => inner(Machine::AwaitingAck { item }.handle(reply, conn)),
    },
    Retrying::Then(machine) => inner(machine.handle(reply, conn)),
}
