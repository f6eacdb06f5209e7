//! What candor's bounded buffers hold in memory, estimated: each buffer's entries and the
//! bytes they hold, read under the lock that already guards the buffer by a walk over its
//! entries (no serialising, no allocating), so a daemon can be asked every minute whether
//! its growth is buffers filling up to their bounds or something else
//! (docs/faces.md#memory).
//!
//! An estimate, made the same way for every buffer so that buffers compare: a string
//! counts its capacity, a collection its capacity times its element's size plus what each
//! element owns, a hash table one control byte per slot besides. Allocator headers,
//! padding and free space are left out; what the allocator holds is the daemon's to ask.
//!
//! [`footprint!`](crate::footprint!) implements [`Footprint`] for a struct by naming every
//! field, so a field added later does not compile until it is counted. Each buffer says
//! what it holds in its own module; this one names none of them.

use std::collections::{HashMap, HashSet, VecDeque};
use std::mem::size_of;

use serde_json::{Map, Value};

/// A buffer's entries and an estimate of the bytes they hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Held {
    pub entries: usize,
    pub bytes: usize,
}

impl Held {
    /// A ring's entries, and what it holds: its slots and what its entries own.
    pub fn ring<T: Footprint>(ring: &VecDeque<T>) -> Held {
        Held {
            entries: ring.len(),
            bytes: ring.heap_bytes(),
        }
    }
}

impl std::ops::AddAssign for Held {
    fn add_assign(&mut self, other: Held) {
        self.entries += other.entries;
        self.bytes += other.bytes;
    }
}

/// What a value owns on the heap beyond its own size, estimated (see the module's
/// comment for how).
pub trait Footprint {
    fn heap_bytes(&self) -> usize;
}

/// Implements [`Footprint`] for a struct as the sum of its fields' (every field named:
/// the struct is taken apart without `..`), or, with `owns_nothing:`, for types that own
/// nothing on the heap.
#[macro_export]
macro_rules! footprint {
    (owns_nothing: $($type:ty),+ $(,)?) => {
        $(impl $crate::Footprint for $type {
            fn heap_bytes(&self) -> usize {
                0
            }
        })+
    };
    ($type:ty { $($field:ident),* $(,)? }) => {
        impl $crate::Footprint for $type {
            fn heap_bytes(&self) -> usize {
                let Self { $($field),* } = self;
                0 $(+ $crate::Footprint::heap_bytes($field))*
            }
        }
    };
}

crate::footprint!(owns_nothing: bool, u32, u64, i64, usize, f64, &'static str, std::time::SystemTime);

impl Footprint for String {
    fn heap_bytes(&self) -> usize {
        self.capacity()
    }
}

impl<T: Footprint> Footprint for Option<T> {
    fn heap_bytes(&self) -> usize {
        self.as_ref().map_or(0, T::heap_bytes)
    }
}

impl<A: Footprint, B: Footprint> Footprint for (A, B) {
    fn heap_bytes(&self) -> usize {
        self.0.heap_bytes() + self.1.heap_bytes()
    }
}

impl<T: Footprint> Footprint for Vec<T> {
    fn heap_bytes(&self) -> usize {
        self.capacity() * size_of::<T>() + self.iter().map(T::heap_bytes).sum::<usize>()
    }
}

impl<T: Footprint> Footprint for VecDeque<T> {
    fn heap_bytes(&self) -> usize {
        self.capacity() * size_of::<T>() + self.iter().map(T::heap_bytes).sum::<usize>()
    }
}

impl<K: Footprint, V: Footprint, S> Footprint for HashMap<K, V, S> {
    fn heap_bytes(&self) -> usize {
        self.capacity() * (size_of::<(K, V)>() + 1)
            + self
                .iter()
                .map(|(k, v)| k.heap_bytes() + v.heap_bytes())
                .sum::<usize>()
    }
}

impl<T: Footprint, S> Footprint for HashSet<T, S> {
    fn heap_bytes(&self) -> usize {
        self.capacity() * (size_of::<T>() + 1) + self.iter().map(T::heap_bytes).sum::<usize>()
    }
}

impl Footprint for Value {
    fn heap_bytes(&self) -> usize {
        match self {
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
            Value::String(text) => text.heap_bytes(),
            Value::Array(items) => items.heap_bytes(),
            Value::Object(map) => map.heap_bytes(),
        }
    }
}

/// One entry of a JSON object: with `preserve_order` (the workspace's) an index map keeps
/// the key, the value and its hash in a vector, and an index into it in a table.
const MAP_ENTRY: usize = size_of::<String>() + size_of::<Value>() + 2 * size_of::<usize>();

impl Footprint for Map<String, Value> {
    fn heap_bytes(&self) -> usize {
        self.iter()
            .map(|(key, value)| MAP_ENTRY + key.heap_bytes() + value.heap_bytes())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Entry {
        name: String,
        tags: Vec<String>,
        seen: u64,
    }

    crate::footprint!(Entry { name, tags, seen });

    #[test]
    fn a_struct_counts_what_each_field_owns() {
        let entry = Entry {
            name: String::with_capacity(10),
            tags: vec!["ab".to_string(), "cde".to_string()],
            seen: 7,
        };
        let slots = entry.tags.capacity() * size_of::<String>();
        assert_eq!(entry.heap_bytes(), 10 + slots + 2 + 3);
    }

    #[test]
    fn a_ring_counts_its_entries_and_its_slots() {
        let mut ring: VecDeque<String> = VecDeque::with_capacity(4);
        ring.push_back("hello".to_string());
        ring.push_back(String::new());
        let held = Held::ring(&ring);
        assert_eq!(held.entries, 2);
        assert_eq!(
            held.bytes,
            ring.capacity() * size_of::<String>() + "hello".len()
        );
        let empty: VecDeque<String> = VecDeque::new();
        assert_eq!(Held::ring(&empty), Held::default());
    }

    #[test]
    fn json_counts_its_strings_arrays_and_entries() {
        assert_eq!(json!(null).heap_bytes(), 0);
        assert_eq!(json!(12.5).heap_bytes(), 0);
        assert_eq!(json!("abcd").heap_bytes(), 4);
        let array = json!(["ab", 1]);
        assert_eq!(array.heap_bytes(), 2 * size_of::<Value>() + 2);
        // One entry: its slot, its key and its value's string.
        let object = json!({ "key": "value" });
        assert_eq!(object.heap_bytes(), MAP_ENTRY + 3 + 5);
        let nested = json!({ "a": { "b": "c" } });
        assert_eq!(nested.heap_bytes(), MAP_ENTRY + 1 + MAP_ENTRY + 1 + 1);
    }

    #[test]
    fn a_hash_map_counts_a_control_byte_per_slot() {
        let mut map: HashMap<u64, String> = HashMap::new();
        map.insert(1, "xyz".to_string());
        assert_eq!(
            map.heap_bytes(),
            map.capacity() * (size_of::<(u64, String)>() + 1) + 3
        );
    }
}
