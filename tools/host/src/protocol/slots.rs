//! The socket server's connection slots: a bound on connections that idle clients cannot
//! hold against the hooks.
//!
//! Every connection holds a slot until its thread ends. A connection is *idle* while its
//! session waits for a request line with no request of its own in flight (nothing sent yet,
//! or its last answer written). Two rules keep idle connections from locking everyone out:
//!
//! - when every slot is taken, a new client takes the slot of the connection idle the longest,
//!   if it has been idle at least [`EVICT_AFTER`] (its socket is shut down, which ends its
//!   session; a client there sees the connection close, as after a daemon restart);
//! - a connection that sends no complete line for [`IDLE_TIMEOUT`] is closed by its own read
//!   timeout, and one that does not read its answer for as long by its write timeout.
//!
//! A connection with a request in flight is never evicted.

use std::collections::HashMap;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a connection must have been idle before a new client may take its slot.
pub const EVICT_AFTER: Duration = Duration::from_millis(500);

/// How long a connection may wait without a complete line (or with an answer it does not
/// read) before it is closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// `Activity::idle_since` of a connection with a request in flight.
const BUSY: u64 = u64::MAX;

/// What a session reports of one connection.
#[derive(Debug)]
pub(crate) struct Activity {
    /// Milliseconds since the slots' epoch at which the connection last became idle, or
    /// [`BUSY`].
    idle_since: AtomicU64,
    epoch: Instant,
}

impl Activity {
    fn new(epoch: Instant) -> Activity {
        Activity {
            idle_since: AtomicU64::new(now_ms(epoch)),
            epoch,
        }
    }

    /// A request line arrived: the connection is busy until its answer is written.
    pub(crate) fn busy(&self) {
        self.idle_since.store(BUSY, Ordering::SeqCst);
    }

    /// The answer was written (or the line needed none): idle from now.
    pub(crate) fn idle(&self) {
        self.idle_since.store(now_ms(self.epoch), Ordering::SeqCst);
    }

    /// How long the connection has been idle, `None` while busy.
    fn idle_for(&self) -> Option<u64> {
        let since = self.idle_since.load(Ordering::SeqCst);
        (since != BUSY).then(|| now_ms(self.epoch).saturating_sub(since))
    }
}

fn now_ms(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX - 1)
}

struct Held {
    activity: Arc<Activity>,
    /// A handle on the connection's socket, to shut it down when its slot is taken.
    stream: UnixStream,
}

/// The bounded set of connections being served.
pub(crate) struct Slots {
    max: usize,
    epoch: Instant,
    held: Mutex<(u64, HashMap<u64, Held>)>,
}

impl Slots {
    /// Slots for at most `max` connections.
    pub(crate) fn new(max: usize) -> Arc<Slots> {
        Arc::new(Slots {
            max,
            epoch: Instant::now(),
            held: Mutex::new((0, HashMap::new())),
        })
    }

    /// A slot for `stream`: a free one, or the one of the connection idle the longest (at
    /// least [`EVICT_AFTER`]), which is shut down. `None` when every connection is busy or
    /// has just been.
    pub(crate) fn admit(self: &Arc<Slots>, stream: &UnixStream) -> Option<Ticket> {
        let handle = stream.try_clone().ok()?;
        let evict_after = u64::try_from(EVICT_AFTER.as_millis()).unwrap_or(u64::MAX);
        let mut guard = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let (next, held) = &mut *guard;
        if held.len() >= self.max {
            let oldest = held
                .iter()
                .filter_map(|(id, h)| Some((*id, h.activity.idle_for()?)))
                .filter(|(_, idle)| *idle >= evict_after)
                // The longest idle; of equals, the oldest connection.
                .max_by_key(|(id, idle)| (*idle, std::cmp::Reverse(*id)))
                .map(|(id, _)| id)?;
            if let Some(evicted) = held.remove(&oldest) {
                tracing::debug!(idle_ms = ?evicted.activity.idle_for(), "an idle connection gave up its slot");
                let _ = evicted.stream.shutdown(std::net::Shutdown::Both);
            }
        }
        let id = *next;
        *next += 1;
        let activity = Arc::new(Activity::new(self.epoch));
        held.insert(
            id,
            Held {
                activity: Arc::clone(&activity),
                stream: handle,
            },
        );
        Some(Ticket {
            slots: Arc::clone(self),
            id,
            activity,
        })
    }

    /// The most connections served at once.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// How many connections hold a slot.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .1
            .len()
    }
}

/// One connection's slot, given back when dropped (its thread ends).
pub(crate) struct Ticket {
    slots: Arc<Slots>,
    id: u64,
    activity: Arc<Activity>,
}

impl Ticket {
    /// What the session reports its requests to.
    pub(crate) fn activity(&self) -> &Activity {
        &self.activity
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.slots
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .1
            .remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (UnixStream, UnixStream) {
        UnixStream::pair().expect("a socket pair")
    }

    #[test]
    fn a_full_set_gives_the_longest_idle_slot_to_a_new_client_never_a_busy_one() {
        let slots = Slots::new(2);
        let (a, mut a_peer) = pair();
        let (b, _b_peer) = pair();
        let first = slots.admit(&a).expect("a free slot");
        let second = slots.admit(&b).expect("a free slot");
        second.activity().busy();
        // Both just arrived: nothing is idle long enough to give way.
        let (c, _c_peer) = pair();
        assert!(slots.admit(&c).is_none());
        // The first has idled past the grace: its slot goes to the newcomer, and its socket
        // is shut down (the peer reads the end).
        first.activity().idle_since.store(0, Ordering::SeqCst);
        std::thread::sleep(EVICT_AFTER + Duration::from_millis(20));
        let third = slots.admit(&c).expect("the idle slot");
        let mut byte = [0u8; 1];
        assert_eq!(std::io::Read::read(&mut a_peer, &mut byte).ok(), Some(0));
        assert_eq!(slots.len(), 2);
        // The busy one is never taken; once the evicted thread ends its ticket frees nothing
        // more.
        let (d, _d_peer) = pair();
        third.activity().busy();
        assert!(slots.admit(&d).is_none());
        drop(first);
        assert_eq!(slots.len(), 2);
        drop(third);
        assert_eq!(slots.len(), 1);
        assert!(slots.admit(&d).is_some());
    }
}
