//! The store on real SQLite: recorded once, shared by connections, replaced
//! with a word.

use super::*;

fn ok(n: u64) -> Outcome {
    Ok(ResultHash(n))
}

#[test]
fn records_each_item_once() -> Result<(), StoreError> {
    let epoch = Instant::now();
    let target = DbTarget::memory();
    let reader = Store::create(&target, epoch)?;
    let mut writer = Store::open(&target, epoch)?;
    writer.record(ItemId(1), Lane(0), epoch, &ok(7))?;
    let failure = Failure::new(ErrorKind::Nak, "no");
    writer.record(ItemId(2), Lane(3), epoch, &Err(failure.clone()))?;
    assert!(matches!(
        writer.record(ItemId(1), Lane(0), epoch, &ok(8)),
        Err(StoreError::Duplicate(ItemId(1)))
    ));

    let rows = reader.rows()?;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].outcome, ok(7));
    assert_eq!(rows[1].outcome, Err(failure));
    assert_eq!(rows[1].lane, Lane(3));
    assert!(rows[0].started_us <= rows[0].finished_us);
    // The writer recorded; the reader only read.
    assert_eq!(reader.db_connections()?, 1);
    Ok(())
}

#[test]
fn memory_databases_are_private_to_their_target() -> Result<(), StoreError> {
    let epoch = Instant::now();
    let (a, b) = (DbTarget::memory(), DbTarget::memory());
    let _keep_a = Store::create(&a, epoch)?;
    let keep_b = Store::create(&b, epoch)?;
    Store::open(&a, epoch)?.record(ItemId(1), Lane(0), epoch, &ok(1))?;
    assert!(keep_b.rows()?.is_empty());
    Ok(())
}

#[test]
fn a_file_is_shared_by_several_connections() -> Result<(), StoreError> {
    let dir = tempfile::tempdir().map_err(|e| StoreError::Corrupt {
        id: 0,
        why: e.to_string(),
    })?;
    let target = DbTarget::File(dir.path().join("results.db"));
    let epoch = Instant::now();
    let reader = Store::create(&target, epoch)?;
    for worker in 0..3u32 {
        let mut store = Store::open(&target, epoch)?;
        store.record(ItemId(u64::from(worker)), Lane(worker), epoch, &ok(1))?;
    }
    // A duplicate in a file rolls its transaction back; the connection
    // goes on recording.
    let mut store = Store::open(&target, epoch)?;
    assert!(matches!(
        store.record(ItemId(0), Lane(0), epoch, &ok(2)),
        Err(StoreError::Duplicate(ItemId(0)))
    ));
    store.record(ItemId(3), Lane(0), epoch, &ok(1))?;
    assert_eq!(reader.rows()?.len(), 4);
    assert_eq!(reader.db_connections()?, 4);
    // Creating again starts a new run in the same file, and says whose
    // results it replaced.
    let first = reader.run_id()?.expect("a run id");
    let again = Store::create_run(&target, epoch, "second")?;
    assert!(again.rows()?.is_empty());
    assert_eq!(
        again.replaced(),
        Some(&PreviousRun {
            id: Some(first),
            outcomes: 4
        })
    );
    assert_eq!(again.run_id()?.as_deref(), Some("second"));
    assert!(reader.replaced().is_none(), "a new file replaced nothing");
    Ok(())
}
