//! Retries after any reply but OK, not only after a NAK: a reply that makes no sense for a HEAD is a protocol error, and sending the HEAD again only hides it.
//? if a `HEAD` gets a reply that makes no sense for it, does sending the `HEAD` again help?
match self {
    Retrying::AwaitingAck { item, retries_left } => match reply {
        Reply::Ok => inner(Machine::AwaitingAck { item }.handle(reply, conn)),
        _ if retries_left > 0 => {
            conn.send(&Request::Head(item.id))?;
            Ok(Step::Next(Retrying::AwaitingAck {
                item,
                retries_left: retries_left - 1,
            }))
        }
        reply => inner(Machine::AwaitingAck { item }.handle(reply, conn)),
    },
    Retrying::Then(machine) => inner(machine.handle(reply, conn)),
}
