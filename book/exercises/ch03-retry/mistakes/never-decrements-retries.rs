//! (written blind) Sends the HEAD again after a NAK but passes retries_left on unchanged, so a server that keeps refusing gets HEADs forever instead of the request failing with the NAK.
//? after each `NAK`, how many retries does your new state say are left?
match self {
    Retrying::AwaitingAck { item, retries_left } => match reply {
        Reply::Nak(_) if retries_left > 0 => {
            conn.send(&Request::Head(item.id))?;
            Ok(Step::Next(Retrying::AwaitingAck { item, retries_left }))
        }
        other => inner(Machine::AwaitingAck { item }.handle(other, conn)),
    },
    Retrying::Then(machine) => inner(machine.handle(reply, conn)),
}
