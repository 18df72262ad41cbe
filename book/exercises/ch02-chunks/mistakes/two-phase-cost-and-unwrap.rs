//! (written blind) Counts both phases of a two-phase request per item (HEAD and BODY) although these are single-phase GETs, and panics on an empty partition list instead of returning zero.
//? how many service times does the server charge for one `GET`, and what is the makespan of no partitions?
// region: 2
partitions
    .iter()
    .map(|part| {
        part.iter()
            .map(|item| model.sample(seed, item.id, Phase::Head) + model.sample(seed, item.id, Phase::Body))
            .sum::<Duration>()
    })
    .max()
    .unwrap()
