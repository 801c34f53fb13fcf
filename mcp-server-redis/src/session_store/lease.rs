//! [`Leases`]: a replica's short-lived right to serve a shared session from the record it last
//! read, without asking the store again, and the sessions it served that way since the last
//! write-behind flush (their expiry still has to be pushed to the store).
//!
//! A lease is only granted and only valid while the store's invalidation feed is up
//! ([`set_feed`](Leases::set_feed)). Every invalidation moves an epoch and remembers the epoch
//! it happened in, for its session or (feed changes, [`drop_all`](Leases::drop_all)) for all;
//! a read that started before an invalidation of its session (its [`Ticket`] is older) grants
//! nothing, so an invalidation that overtakes the read it invalidates is never lost, while
//! changes to other sessions do not stop leases.
//!
//! A replica's own changes come back on the feed too. It already ended its lease when the change
//! was answered, so the echo of a change it saw answered ([`OwnChange`]) ends nothing: the read
//! it made after the answer, which saw the change, stays leased.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_proto::sync::lock;
use tokio::sync::Notify;

use super::SessionRecord;

/// The longest the expiry of a session served under a lease waits to be written: a session then
/// expires at most this late (one pipeline per second per replica is noise next to a round trip
/// per request).
const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// Leases held at once; past it, expired ones are pruned, then further sessions are served by
/// round trips until room frees (bounds memory whatever the number of sessions).
const MAX_LEASES: usize = 16_384;
/// Invalidations of single sessions remembered for reads in flight; past it, they are forgotten
/// and count as one of every session (reads in flight then grant nothing).
const MAX_RECENT: usize = 4_096;
/// This replica's changes whose echo on the feed is still awaited; past it, they are forgotten
/// (their echoes then end leases like anyone else's).
const MAX_OWN: usize = 4_096;
/// Sessions waiting for their expiry to be flushed; past it, requests go by round trip (which
/// writes the expiry itself) until the flusher empties the set.
const MAX_TOUCHED: usize = 16_384;

/// The leases of one replica on one store.
#[derive(Debug)]
pub(crate) struct Leases {
    /// Tells this replica's changes from other replicas' on the feed (random per store).
    origin: u64,
    /// How long a lease lasts (further capped by a quarter of the session's idle timeout).
    length: Duration,
    state: Mutex<State>,
    /// Wakes the flusher before its tick when many sessions wait.
    flush: Notify,
}

#[derive(Debug, Default)]
struct State {
    /// Whether invalidations reach this replica now.
    feed_up: bool,
    /// Moves whenever a lease may have become wrong.
    epoch: u64,
    /// The epoch of the last invalidation of every session.
    all_since: u64,
    /// The epoch of the last invalidation of each session, since `all_since`.
    recent: HashMap<Box<str>, u64>,
    leases: HashMap<Box<str>, Lease>,
    /// Sessions served under a lease since the last flush, with their idle timeout.
    touched: HashMap<Box<str>, Duration>,
    /// The shortest idle timeout a session was served with (the flusher's tick follows it).
    shortest_idle: Option<Duration>,
    /// The number of this replica's last change.
    last_change: u64,
    /// This replica's changes, by number, whose echo has not come back yet.
    own: HashMap<u64, Echo>,
}

/// Where one of this replica's changes stands before its echo on the feed (an echo that comes
/// first takes the change out, so its answer finds nothing to mark).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Echo {
    /// Not answered yet.
    Awaited,
    /// Answered and published: its lease already ended, so the echo ends nothing.
    Answered,
}

/// One of this replica's changes: what it publishes beside the session id, so that its echo is
/// known for its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OwnChange {
    origin: u64,
    number: u64,
}

impl OwnChange {
    /// The tag published after the session id and a space: `<origin hex>.<number>`.
    pub(crate) fn tag(self) -> String {
        format!("{:016x}.{}", self.origin, self.number)
    }

    /// The session id and the change of a published `payload`: `<id> <tag>`, or a bare id.
    pub(crate) fn parse(payload: &str) -> (&str, Option<OwnChange>) {
        let Some((id, tag)) = payload.rsplit_once(' ') else {
            return (payload, None);
        };
        let change = tag.split_once('.').and_then(|(origin, number)| {
            Some(OwnChange {
                origin: u64::from_str_radix(origin, 16).ok()?,
                number: number.parse().ok()?,
            })
        });
        match change {
            Some(change) => (id, Some(change)),
            None => (payload, None),
        }
    }
}

#[derive(Debug)]
struct Lease {
    record: SessionRecord,
    until: Instant,
}

/// What a read of the store must show to turn into a lease: the epoch it started in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ticket(Option<u64>);

/// The answer of [`Leases::serve`].
#[derive(Debug)]
pub(crate) enum Served {
    /// A valid lease: the record, and the session is now marked touched.
    Leased(SessionRecord),
    /// No valid lease: read the store, then [`grant`](Leases::grant) with this ticket.
    Read(Ticket),
}

impl Leases {
    /// No leases yet, the feed down; leases last `length` (zero: never granted).
    pub(crate) fn new(length: Duration) -> Self {
        Leases {
            origin: RandomState::new().hash_one(0u8),
            length,
            state: Mutex::new(State::default()),
            flush: Notify::new(),
        }
    }

    /// How long leases last at most.
    pub(crate) fn length(&self) -> Duration {
        self.length
    }

    /// The record of `id` under a valid lease (marking the session touched), or a ticket to read
    /// it from the store.
    pub(crate) fn serve(&self, id: &str, idle: Duration, now: Instant) -> Served {
        let mut guard = lock(&self.state);
        let state = &mut *guard;
        let ticket = Ticket(state.feed_up.then_some(state.epoch));
        let Some(lease) = state
            .leases
            .get(id)
            .filter(|l| state.feed_up && l.until > now)
        else {
            return Served::Read(ticket);
        };
        if !state.touched.contains_key(id) {
            if state.touched.len() >= MAX_TOUCHED {
                return Served::Read(ticket);
            }
            state.touched.insert(id.into(), idle);
            if state.touched.len() == MAX_TOUCHED / 2 {
                self.flush.notify_one();
            }
        }
        Served::Leased(lease.record.clone())
    }

    /// A ticket for a read of a session nobody can hold a lease of yet (one being created).
    pub(crate) fn ticket(&self) -> Ticket {
        let state = lock(&self.state);
        Ticket(state.feed_up.then_some(state.epoch))
    }

    /// Leases `record` of `id`, just read from the store with `ticket`, unless something may have
    /// changed since the read started. The lease ends `min(length, idle / 4)` from `now`, well
    /// before the expiry the read wrote.
    pub(crate) fn grant(
        &self,
        id: &str,
        record: &SessionRecord,
        ticket: Ticket,
        idle: Duration,
        now: Instant,
    ) {
        let length = self.length.min(idle / 4);
        if length.is_zero() {
            return;
        }
        let mut state = lock(&self.state);
        state.shortest_idle = Some(state.shortest_idle.map_or(idle, |s| s.min(idle)));
        let Some(started) = ticket.0 else { return };
        let invalidated = state
            .all_since
            .max(state.recent.get(id).copied().unwrap_or(0));
        if !state.feed_up || invalidated > started {
            return;
        }
        if state.leases.len() >= MAX_LEASES && !state.leases.contains_key(id) {
            state.leases.retain(|_, l| l.until > now);
            if state.leases.len() >= MAX_LEASES {
                return;
            }
        }
        state.leases.insert(
            id.into(),
            Lease {
                record: record.clone(),
                until: now + length,
            },
        );
    }

    /// Session `id` changed (or went): its lease ends, and reads in flight grant nothing.
    pub(crate) fn drop_one(&self, id: &str) {
        lock(&self.state).drop_one(id);
    }

    /// Numbers a change this replica is about to make: publish its [`tag`](OwnChange::tag) with
    /// the session id, then report the answer with [`changed`](Self::changed).
    pub(crate) fn change(&self) -> OwnChange {
        let mut state = lock(&self.state);
        state.last_change += 1;
        let number = state.last_change;
        if state.own.len() >= MAX_OWN {
            state.own.clear();
        }
        state.own.insert(number, Echo::Awaited);
        OwnChange {
            origin: self.origin,
            number,
        }
    }

    /// Change `change` of session `id` was answered, `published` or not (an error or a session
    /// already gone): the lease ends, and reads in flight grant nothing.
    pub(crate) fn changed(&self, id: &str, change: OwnChange, published: bool) {
        let mut state = lock(&self.state);
        state.drop_one(id);
        // Still awaited: the echo has not come first (that took the change out).
        if state.own.remove(&change.number).is_some() && published {
            state.own.insert(change.number, Echo::Answered);
        }
    }

    /// Session `id` changed, as the feed says (`change`: the replica's tag, if it sent one); an
    /// echo of this replica's own answered change ends nothing.
    pub(crate) fn feed_says_changed(&self, id: &str, change: Option<OwnChange>) {
        let mut state = lock(&self.state);
        let own = change
            .filter(|c| c.origin == self.origin)
            .and_then(|c| state.own.remove(&c.number));
        if own != Some(Echo::Answered) {
            state.drop_one(id);
        }
    }

    /// Something may have been missed (a flush failed): every lease ends.
    pub(crate) fn drop_all(&self) {
        lock(&self.state).forget_all();
    }

    /// The invalidation feed is up (subscribed) or down (lost: nothing may be leased until it is
    /// up again, and changes made meanwhile were missed, so every lease ends either way).
    pub(crate) fn set_feed(&self, up: bool) {
        let mut state = lock(&self.state);
        state.feed_up = up;
        state.forget_all();
    }

    /// The sessions served under a lease since the last call, with their idle timeouts.
    pub(crate) fn take_touched(&self) -> Vec<(Box<str>, Duration)> {
        std::mem::take(&mut lock(&self.state).touched)
            .into_iter()
            .collect()
    }

    /// How often the flusher writes: [`FLUSH_EVERY`], or a quarter of the shortest idle timeout
    /// if less, so a session served under a lease has its expiry written well before the one
    /// its last read wrote runs out.
    pub(crate) fn tick(&self) -> Duration {
        let shortest = lock(&self.state).shortest_idle;
        shortest
            .map_or(FLUSH_EVERY, |idle| FLUSH_EVERY.min(idle / 4))
            .max(Duration::from_millis(1))
    }

    /// Resolves when many sessions wait for their expiry to be flushed.
    pub(crate) async fn flush_wanted(&self) {
        self.flush.notified().await;
    }
}

impl State {
    /// Session `id` changed (or went): its lease ends, and reads in flight grant nothing.
    fn drop_one(&mut self, id: &str) {
        self.epoch += 1;
        self.leases.remove(id);
        if self.recent.len() >= MAX_RECENT && !self.recent.contains_key(id) {
            self.forget_all();
        } else {
            self.recent.insert(id.into(), self.epoch);
        }
    }

    /// Every lease ends, and reads in flight grant nothing.
    fn forget_all(&mut self) {
        self.epoch += 1;
        self.all_since = self.epoch;
        self.recent.clear();
        self.leases.clear();
        self.own.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_proto::ProtocolVersion;

    const IDLE: Duration = Duration::from_secs(60);

    fn record() -> SessionRecord {
        SessionRecord::new(ProtocolVersion::V2025_06_18, "{}".into(), "{}".into())
    }

    fn ticket(served: Served) -> Ticket {
        match served {
            Served::Read(ticket) => ticket,
            Served::Leased(_) => panic!("a lease where none should be"),
        }
    }

    /// Leases with the feed up.
    fn leases() -> Leases {
        let leases = Leases::new(Duration::from_secs(1));
        leases.set_feed(true);
        leases
    }

    #[test]
    fn a_granted_lease_serves_and_marks_the_session_touched() {
        let leases = leases();
        let now = Instant::now();
        let t = ticket(leases.serve("s", IDLE, now));
        leases.grant("s", &record(), t, IDLE, now);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Leased(r) if r == record()));
        assert_eq!(leases.take_touched(), vec![("s".into(), IDLE)]);
        assert!(leases.take_touched().is_empty());
    }

    #[test]
    fn a_lease_ends_at_its_length_or_a_quarter_of_the_idle_timeout() {
        let leases = leases();
        let now = Instant::now();
        let t = ticket(leases.serve("s", IDLE, now));
        leases.grant("s", &record(), t, IDLE, now);
        let later = now + Duration::from_secs(1);
        assert!(matches!(leases.serve("s", IDLE, later), Served::Read(_)));

        let short = Duration::from_millis(400);
        let t = ticket(leases.serve("q", short, now));
        leases.grant("q", &record(), t, short, now);
        let past_quarter = now + Duration::from_millis(100);
        assert!(matches!(
            leases.serve("q", short, past_quarter),
            Served::Read(_)
        ));
    }

    #[test]
    fn an_invalidation_during_the_read_grants_nothing() {
        let leases = leases();
        let now = Instant::now();
        let t = ticket(leases.serve("s", IDLE, now));
        leases.drop_one("s");
        leases.grant("s", &record(), t, IDLE, now);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
        // A read that starts after the invalidation is leased.
        let t = ticket(leases.serve("s", IDLE, now));
        leases.grant("s", &record(), t, IDLE, now);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Leased(_)));
    }

    #[test]
    fn an_invalidation_of_another_session_during_the_read_still_grants() {
        let leases = leases();
        let now = Instant::now();
        let t = ticket(leases.serve("s", IDLE, now));
        leases.drop_one("other");
        leases.grant("s", &record(), t, IDLE, now);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Leased(_)));
        // Once too many single invalidations are remembered, they count as one of all.
        let t = ticket(leases.serve("t", IDLE, now));
        for i in 0..=MAX_RECENT {
            leases.drop_one(&format!("other-{i}"));
        }
        leases.grant("t", &record(), t, IDLE, now);
        assert!(matches!(leases.serve("t", IDLE, now), Served::Read(_)));
    }

    #[test]
    fn dropping_every_lease_stops_reads_in_flight() {
        let leases = leases();
        let now = Instant::now();
        let t = ticket(leases.serve("s", IDLE, now));
        leases.drop_all();
        leases.grant("s", &record(), t, IDLE, now);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
    }

    #[test]
    fn invalidations_end_leases() {
        let leases = leases();
        let now = Instant::now();
        for id in ["a", "b"] {
            let t = ticket(leases.serve(id, IDLE, now));
            leases.grant(id, &record(), t, IDLE, now);
        }
        leases.drop_one("a");
        assert!(matches!(leases.serve("a", IDLE, now), Served::Read(_)));
        assert!(matches!(leases.serve("b", IDLE, now), Served::Leased(_)));
        leases.drop_all();
        assert!(matches!(leases.serve("b", IDLE, now), Served::Read(_)));
    }

    #[test]
    fn nothing_is_leased_while_the_feed_is_down() {
        let leases = Leases::new(Duration::from_secs(1));
        let now = Instant::now();
        let t = ticket(leases.serve("s", IDLE, now));
        leases.grant("s", &record(), t, IDLE, now);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));

        leases.set_feed(true);
        let t = ticket(leases.serve("s", IDLE, now));
        leases.grant("s", &record(), t, IDLE, now);
        leases.set_feed(false);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
        // A read that started while the feed was up and ends after it came back up is stale.
        leases.set_feed(true);
        leases.grant("s", &record(), t, IDLE, now);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
    }

    /// Leases `id` as a request after a change would: a read, then a grant.
    fn lease(leases: &Leases, id: &str, now: Instant) {
        let t = ticket(leases.serve(id, IDLE, now));
        leases.grant(id, &record(), t, IDLE, now);
    }

    #[test]
    fn the_echo_of_an_answered_own_change_ends_nothing() {
        let leases = leases();
        let now = Instant::now();
        lease(&leases, "s", now);
        let change = leases.change();
        leases.changed("s", change, true);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
        lease(&leases, "s", now);
        let payload = format!("s {}", change.tag());
        let (id, echo) = OwnChange::parse(&payload);
        assert_eq!((id, echo), ("s", Some(change)));
        leases.feed_says_changed(id, echo);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Leased(_)));
        // A second echo of the same change is not expected, so it counts.
        leases.feed_says_changed(id, echo);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
    }

    #[test]
    fn an_own_echo_before_the_answer_or_of_an_unpublished_change_ends_the_lease() {
        let leases = leases();
        let now = Instant::now();
        // The echo overtakes the answer: it ends the lease, and so does the answer.
        lease(&leases, "s", now);
        let first = leases.change();
        leases.feed_says_changed("s", Some(first));
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
        lease(&leases, "s", now);
        leases.changed("s", first, true);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
        // An answer that published nothing (an error: it may still run) awaits no echo, so a
        // late one counts.
        let second = leases.change();
        leases.changed("s", second, false);
        lease(&leases, "s", now);
        leases.feed_says_changed("s", Some(second));
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
    }

    #[test]
    fn changes_of_other_replicas_and_bare_ids_end_the_lease() {
        let (here, there) = (leases(), leases());
        let now = Instant::now();
        let theirs = there.change();
        there.changed("s", theirs, true);
        lease(&here, "s", now);
        let payload = format!("s {}", theirs.tag());
        let (id, change) = OwnChange::parse(&payload);
        here.feed_says_changed(id, change);
        assert!(matches!(here.serve("s", IDLE, now), Served::Read(_)));
        lease(&here, "s", now);
        for bare in ["s", "s not-a-tag", "s 12.x"] {
            let (id, change) = OwnChange::parse(bare);
            assert_eq!((id, change), (bare, None));
        }
        here.feed_says_changed("s", None);
        assert!(matches!(here.serve("s", IDLE, now), Served::Read(_)));
    }

    #[test]
    fn a_lost_feed_forgets_own_changes() {
        let leases = leases();
        let now = Instant::now();
        let change = leases.change();
        leases.changed("s", change, true);
        leases.set_feed(false);
        leases.set_feed(true);
        lease(&leases, "s", now);
        leases.feed_says_changed("s", Some(change));
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
    }

    #[test]
    fn a_zero_length_grants_nothing() {
        let leases = Leases::new(Duration::ZERO);
        leases.set_feed(true);
        let now = Instant::now();
        let t = ticket(leases.serve("s", IDLE, now));
        leases.grant("s", &record(), t, IDLE, now);
        assert!(matches!(leases.serve("s", IDLE, now), Served::Read(_)));
    }
}
