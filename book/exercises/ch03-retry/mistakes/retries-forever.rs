//! Sends the HEAD again after every NAK without counting down: a server that stays overloaded gets HEADs forever, and the request never fails.
//? a server that answers every `HEAD` with `NAK`: when does your request give up?
match self {
    Retrying::AwaitingAck { item, retries_left } => match reply {
        Reply::Nak(_) => {
            conn.send(&Request::Head(item.id))?;
            Ok(Step::Next(Retrying::AwaitingAck { item, retries_left }))
        }
        reply => inner(Machine::AwaitingAck { item }.handle(reply, conn)),
    },
    Retrying::Then(machine) => inner(machine.handle(reply, conn)),
}
