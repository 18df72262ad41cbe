//! (written blind) Decrements before checking (`retries_left > 1`), so with one retry allowed the first NAK already ends the request: one retry fewer than promised.
//? with `retries` set to 1, how many `HEAD`s does your request send before it gives up on a `NAK`?
match self {
    Retrying::AwaitingAck { item, retries_left } => match reply {
        Reply::Nak(_) if retries_left > 1 => {
            conn.send(&Request::Head(item.id))?;
            Ok(Step::Next(Retrying::AwaitingAck { item, retries_left: retries_left - 1 }))
        }
        other => inner(Machine::AwaitingAck { item }.handle(other, conn)),
    },
    Retrying::Then(machine) => inner(machine.handle(reply, conn)),
}
