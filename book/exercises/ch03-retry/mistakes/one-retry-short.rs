//! Stops one retry early (`retries_left > 1`): `retries` counts the HEADs that may follow a refusal, so with one retry allowed the first NAK must still be retried.
//? what does `retries_left` count, and is a `NAK` with exactly one retry left still worth another `HEAD`?
match self {
    Retrying::AwaitingAck { item, retries_left } => match reply {
        Reply::Nak(_) if retries_left > 1 => {
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
