//! (written blind) Lets the inner machine `resume` (which reads another reply) instead of `handle`-ing the one already read, so the 200 after the BODY is dropped and the next line is taken as the answer.
//? the reply is already read at the top of `resume`: what happens if the inner machine reads one more?
match self {
    Retrying::AwaitingAck { item, retries_left } => match reply {
        Reply::Nak(_) if retries_left > 0 => {
            conn.send(&Request::Head(item.id))?;
            Ok(Step::Next(Retrying::AwaitingAck { item, retries_left: retries_left - 1 }))
        }
        other => inner(Machine::AwaitingAck { item }.handle(other, conn)),
    },
    Retrying::Then(machine) => inner(machine.resume(conn)),
}
