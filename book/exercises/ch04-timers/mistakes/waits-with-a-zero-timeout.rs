//! Waits with a zero timeout on every turn, to "never miss a timer": the loop asks the kernel over and over and burns a core while it waits for a timer 200 ms away.
//? what does your thread do between turns while the next timer is 200 ms away?
let mut events = Vec::new();
while !self.is_idle() {
    self.selector.wait(&mut events, Some(std::time::Duration::ZERO))?;
    for event in &events {
        self.read_socket(event.token, &mut handle)?;
    }
    self.fire_due_timers(Instant::now(), &mut handle);
}
Ok(())
