//! Pops the items off the end of the list: the handles, and so the outcomes, come back in reverse order, and the caller pairs each item with another's outcome.
//? which item's handle ends up first in the vector you return?
let mut items = items;
let mut handles = Vec::new();
while let Some(item) = items.pop() {
    let (sched2, permits) = (sched.clone(), permits.clone());
    handles.push(
        sched
            .spawn(move || {
                let _permit = permits.acquire();
                fetch(&sched2, server, &item)
            })
            .expect("a stack for the fiber"),
    );
}
handles
