//! (written blind) Retries the HEAD after any reply other than OK (a 503 busy or a garbled line too), so a refusal or protocol error is answered with another HEAD instead of ending the request with its own error kind.
//? which reply to a `HEAD` means "try again later", and what should a `503 busy` or a garbled line end in?
match self {
    Retrying::AwaitingAck { item, retries_left } => match reply {
        Reply::Ok => inner(Machine::AwaitingAck { item }.handle(Reply::Ok, conn)),
        other if retries_left > 0 => {
            conn.send(&Request::Head(item.id))?;
            Ok(Step::Next(Retrying::AwaitingAck { item, retries_left: retries_left - 1 }))
        }
        other => inner(Machine::AwaitingAck { item }.handle(other, conn)),
    },
    Retrying::Then(machine) => inner(machine.handle(reply, conn)),
}
