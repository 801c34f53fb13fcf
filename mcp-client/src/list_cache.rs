//! The cache of list results (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`) that honours the 2026-07-28 cache hints: a list is kept for the
//! `ttlMs` the server gave (the least over its pages) and dropped at once when the server says
//! the list changed, or restarts. A missing `ttlMs` is 0, so 2025-era results are never cached.
//! `cacheScope` `private` and `public` both allow this cache: it belongs to one client and one
//! set of credentials, never shared.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest a list is kept, whatever the server says.
pub(crate) const MAX_TTL: Duration = Duration::from_secs(24 * 3600);

struct Entry {
    items: Arc<dyn Any + Send + Sync>,
    expires: Instant,
}

/// Cached list results by method.
#[derive(Default)]
pub(crate) struct ListCache {
    entries: Mutex<HashMap<&'static str, Entry>>,
}

impl ListCache {
    /// The cached items of `method`, when still fresh.
    pub(crate) fn get<T: Clone + Send + Sync + 'static>(&self, method: &str) -> Option<Vec<T>> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let entry = entries.get(method)?;
        if entry.expires <= Instant::now() {
            entries.remove(method);
            return None;
        }
        entry.items.downcast_ref::<Vec<T>>().cloned()
    }

    /// Keeps `items` of `method` for `ttl` (capped at [`MAX_TTL`]); a zero `ttl` keeps nothing.
    pub(crate) fn put<T: Send + Sync + 'static>(
        &self,
        method: &'static str,
        items: Vec<T>,
        ttl: Duration,
    ) {
        if ttl.is_zero() {
            return;
        }
        let entry = Entry {
            items: Arc::new(items),
            expires: Instant::now() + ttl.min(MAX_TTL),
        };
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(method, entry);
    }

    /// Forgets the list of `method` (its list changed).
    pub(crate) fn invalidate(&self, method: &str) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(method);
    }

    /// Forgets every list (the server restarted).
    pub(crate) fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_for_the_ttl_and_dropped_on_demand() {
        let cache = ListCache::default();
        cache.put("tools/list", vec![1u32, 2], Duration::from_secs(60));
        assert_eq!(cache.get::<u32>("tools/list"), Some(vec![1, 2]));
        assert_eq!(cache.get::<u32>("prompts/list"), None);
        cache.invalidate("tools/list");
        assert_eq!(cache.get::<u32>("tools/list"), None);
        cache.put("tools/list", vec![3u32], Duration::ZERO);
        assert_eq!(cache.get::<u32>("tools/list"), None);
        cache.put("tools/list", vec![3u32], Duration::from_nanos(1));
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(cache.get::<u32>("tools/list"), None);
        cache.put("a", vec![1u8], Duration::from_secs(1));
        cache.clear();
        assert_eq!(cache.get::<u8>("a"), None);
    }
}
