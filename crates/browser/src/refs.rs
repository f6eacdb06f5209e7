//! Element refs (docs/observation.md#refs): short names derived from an element's identity — role,
//! accessible name, the path of its container ancestors, and its ordinal among siblings
//! with the same signature — never from its position in a list.
//!
//! A tab keeps a [`RefRegistry`]: the first time an identity is seen it gets the
//! shortest free name (`e` + 4 base-32 characters of its hash, longer on a collision);
//! afterwards the same identity always gets the same name. Identities include the tab's
//! URL epoch, so a ref from before a URL change can never name an element of the new
//! page, even an identical-looking one.

use std::collections::{HashMap, HashSet};

use crate::footprint::{Footprint, Held};

/// 64-bit FNV-1a. Written here rather than taken from a crate because refs must be the
/// same on every platform and every build: std's hashers promise neither.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fnv(u64);

impl Fnv {
    pub fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub fn bytes(mut self, bytes: &[u8]) -> Self {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        self
    }

    /// A field: its bytes and a separator, so ("ab","c") and ("a","bc") differ.
    pub fn field(self, text: &str) -> Self {
        self.bytes(text.as_bytes()).bytes(&[0xff])
    }

    pub fn number(self, n: u64) -> Self {
        self.bytes(&n.to_le_bytes())
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// Crockford's base-32 alphabet: digits and lowercase letters without i, l, o, u.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// `e` + the first `len` base-32 digits of `key`.
fn name(key: u64, len: usize) -> String {
    let mut out = String::with_capacity(len + 1);
    out.push('e');
    for i in 0..len {
        let digit = (key >> (59 - 5 * i as u32)) & 31;
        out.push(ALPHABET[digit as usize] as char);
    }
    out
}

/// The identity of one element, from which its ref is derived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    pub epoch: u64,
    /// Hash of the container ancestors (landmarks, lists items, rows, frames…).
    pub container: u64,
    pub role: String,
    pub name: String,
    /// Among elements with the same container, role and name, in document order.
    pub ordinal: u32,
    /// What tells apart two elements a page shows at different times in the same place:
    /// the heading they sit under.
    pub context: String,
}

impl Identity {
    /// `button "Delete Bob"`: the element as the agent saw it (the name is the page's).
    pub fn describe(&self) -> String {
        format!("{} {:?}", self.role, self.name)
    }

    pub fn key(&self) -> u64 {
        Fnv::new()
            .number(self.epoch)
            .number(self.container)
            .field(&self.role)
            .field(&self.name)
            .field(&self.context)
            .number(u64::from(self.ordinal))
            .finish()
    }

    /// The key without the ordinal: what a relocation may match on.
    pub fn loose_key(&self) -> u64 {
        Fnv::new()
            .number(self.epoch)
            .number(self.container)
            .field(&self.role)
            .field(&self.name)
            .field(&self.context)
            .finish()
    }
}

/// An element's identity as words rather than a hash: what a ref stands for, kept
/// outside the tab that issued it (a flow's step names its element this way). It
/// resolves by [`crate::Locator::Identity`]: the same role, name, containers, heading
/// and ordinal; else a unique same role and name in the same containers; never by
/// position alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementIdentity {
    pub role: String,
    pub name: String,
    /// The landmark and container ancestors, outermost first: (role, label).
    pub containers: Vec<(String, String)>,
    /// The heading the element sits under ("" when none).
    pub heading: String,
    /// Among elements with the same containers, role and name, in document order.
    pub ordinal: u32,
}

impl ElementIdentity {
    /// The container hash of [`Identity`], computed from the words.
    pub(crate) fn container_key(&self) -> u64 {
        self.containers
            .iter()
            .fold(Fnv::new().finish(), |container, (role, label)| {
                container_step(container, role, label)
            })
    }
}

impl std::fmt::Display for ElementIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", self.role, self.name)?;
        for (role, label) in self.containers.iter().rev() {
            if label.is_empty() {
                write!(f, " in {role}")?;
            } else {
                write!(f, " in {role} {label:?}")?;
            }
        }
        Ok(())
    }
}

/// The container hash one level in: `container`, then an ancestor with `role` and
/// `label`. The outline and [`ElementIdentity`] both fold with it.
pub(crate) fn container_step(container: u64, role: &str, label: &str) -> u64 {
    Fnv::new()
        .number(container)
        .field(role)
        .field(label)
        .finish()
}

/// A DOM node of an observation: the session that owns it and its backend id.
pub(crate) type NodeKey = (usize, i64);

/// What the registry remembers of a ref: the identity it was given to, and the DOM node
/// it was last bound to.
#[derive(Debug, Clone)]
pub(crate) struct RefEntry {
    pub identity: Identity,
    pub node: Option<NodeKey>,
    /// The observation (generation) it was last given out in.
    pub seen: u64,
    /// The observation in which it was bound to its current node.
    pub born: u64,
}

/// The refs of one tab. Names are never reused for another identity.
///
/// A ref follows its DOM node while the node lives, whatever its identity becomes. A
/// new node takes the ref of its identity only when the node that ref was bound to is
/// gone (the same thing re-rendered: same role, name, container, heading and ordinal);
/// while that node lives, the new one is a different element and gets a ref of its own.
///
/// Refs of the last [`KEPT_EPOCHS`] URL epochs are kept whole, so a ref from the page
/// before is refused naming its element; older ones are retired to their packed names
/// alone ([`packed`]: four bytes each), which are not given out again — a tab that
/// navigates all day keeps no identities of its old pages. The last [`MAX_RETIRED`]
/// names are kept (about 200 pages), so the registry is bounded: a name older than that
/// may be given again by chance (a 4 to 6 digit prefix of another element's hash), to an
/// agent holding a ref across those pages.
#[derive(Debug, Default)]
pub(crate) struct RefRegistry {
    by_key: HashMap<u64, String>,
    by_ref: HashMap<String, RefEntry>,
    by_node: HashMap<NodeKey, String>,
    /// The names of refs of older epochs, packed: the set, and its order of retiring.
    retired: HashSet<u32>,
    retired_order: std::collections::VecDeque<u32>,
    /// The newest URL epoch observed.
    epoch: u64,
    /// Counts observations.
    generation: u64,
}

/// How many URL epochs (the current one included) keep their refs whole.
const KEPT_EPOCHS: u64 = 3;

/// How many retired names a tab keeps, the oldest let go first (about 200 pages of 50
/// refs): about 120 KB.
const MAX_RETIRED: usize = 10_000;

/// A ref's name in four bytes: its 4 to 6 base-32 digits (five bits each) and, above
/// them, how many there are. `None` for a string no registry gives out.
fn packed(name: &str) -> Option<u32> {
    let digits = name.strip_prefix('e')?.as_bytes();
    if !(4..=6).contains(&digits.len()) {
        return None;
    }
    let value = digits.iter().try_fold(0u32, |value, digit| {
        let index = ALPHABET.iter().position(|a| a == digit)?;
        Some(value << 5 | index as u32)
    })?;
    Some(((digits.len() as u32 - 4) << 30) | value)
}

impl RefRegistry {
    /// The ref of `identity` without a DOM node (pure tests), assigning the shortest free
    /// name the first time.
    #[cfg(test)]
    pub fn assign(&mut self, identity: &Identity) -> String {
        self.assign_node(identity, None, &|_| false)
    }

    /// A new observation begins, of URL epoch `epoch`: the refs of epochs
    /// [`KEPT_EPOCHS`] or more before it are retired.
    pub fn next_generation(&mut self, epoch: u64) {
        self.generation += 1;
        if epoch <= self.epoch {
            return;
        }
        self.epoch = epoch;
        let Some(oldest_kept) = epoch.checked_sub(KEPT_EPOCHS - 1) else {
            return;
        };
        let old: Vec<String> = self
            .by_ref
            .iter()
            .filter(|(_, entry)| entry.identity.epoch < oldest_kept)
            .map(|(name, _)| name.clone())
            .collect();
        for name in old {
            let Some(entry) = self.by_ref.remove(&name) else {
                continue;
            };
            if self.by_key.get(&entry.identity.key()) == Some(&name) {
                self.by_key.remove(&entry.identity.key());
            }
            if let Some(node) = entry.node
                && self.by_node.get(&node) == Some(&name)
            {
                self.by_node.remove(&node);
            }
            if let Some(packed) = packed(&name) {
                self.retire(packed);
            }
        }
    }

    fn retire(&mut self, packed: u32) {
        if !self.retired.insert(packed) {
            return;
        }
        self.retired_order.push_back(packed);
        while self.retired_order.len() > MAX_RETIRED {
            if let Some(oldest) = self.retired_order.pop_front() {
                self.retired.remove(&oldest);
            }
        }
    }

    /// Whether `ref` was given out on a page of this tab older than those kept whole.
    pub fn is_retired(&self, r#ref: &str) -> bool {
        packed(r#ref).is_some_and(|p| self.retired.contains(&p))
    }

    /// Whether `name` was ever given out (kept or retired).
    fn taken(&self, name: &str) -> bool {
        self.by_ref.contains_key(name) || self.is_retired(name)
    }

    /// The ref of the element `node` with `identity`; `live` says whether a node is in
    /// the page now.
    pub fn assign_node(
        &mut self,
        identity: &Identity,
        node: Option<NodeKey>,
        live: &dyn Fn(NodeKey) -> bool,
    ) -> String {
        // The node already has a ref and is still the same thing (same role, name,
        // container and heading; its place among equals may change): it keeps it. A node
        // whose content changed (a recycled row, a relabelled control) is another element.
        if let Some(node) = node
            && let Some(name) = self.by_node.get(&node)
            && self.by_ref.get(name).is_some_and(|e| {
                e.identity.epoch == identity.epoch && e.identity.loose_key() == identity.loose_key()
            })
        {
            let name = name.clone();
            self.by_key
                .entry(identity.key())
                .or_insert_with(|| name.clone());
            if let Some(entry) = self.by_ref.get_mut(&name) {
                entry.identity = identity.clone();
                entry.seen = self.generation;
            }
            return name;
        }
        let key = identity.key();
        let name = match self.by_key.get(&key) {
            // Its identity's ref, bound to no node, to this one, or to one that is gone.
            Some(name)
                if self.by_ref.get(name).is_none_or(|e| {
                    e.node.is_none() || e.node == node || e.node.is_some_and(|n| !live(n))
                }) =>
            {
                name.clone()
            }
            // Another element with the same identity lives: this one is new.
            Some(_) => self.fresh(
                Fnv::new()
                    .number(key)
                    .number(self.by_ref.len() as u64)
                    .finish(),
            ),
            None => {
                let name = self.fresh(key);
                self.by_key.insert(key, name.clone());
                name
            }
        };
        let previous = self.by_ref.get(&name);
        let born = match previous {
            Some(e) if e.node == node => e.born,
            _ => self.generation,
        };
        if let Some(old) = previous.and_then(|e| e.node) {
            self.by_node.remove(&old);
        }
        if let Some(node) = node {
            self.by_node.insert(node, name.clone());
        }
        self.by_ref.insert(
            name.clone(),
            RefEntry {
                identity: identity.clone(),
                node,
                seen: self.generation,
                born,
            },
        );
        name
    }

    /// The refs of a whole observation's elements, in document order. First every node
    /// that already has a ref and is still the same thing keeps it, and a node whose
    /// content changed lets go of its ref; only then are the others given refs — so a
    /// recycled node's old ref can pass to the node that now shows its content, whichever
    /// comes first in the page.
    pub fn assign_all(
        &mut self,
        items: &[(Identity, Option<NodeKey>)],
        live: &dyn Fn(NodeKey) -> bool,
    ) -> Vec<String> {
        let mut out: Vec<Option<String>> = vec![None; items.len()];
        for (slot, (identity, node)) in out.iter_mut().zip(items) {
            let Some(node) = node else { continue };
            let Some(name) = self.by_node.get(node).cloned() else {
                continue;
            };
            let same = self.by_ref.get(&name).is_some_and(|e| {
                e.identity.epoch == identity.epoch && e.identity.loose_key() == identity.loose_key()
            });
            if same {
                *slot = Some(self.assign_node(identity, Some(*node), live));
            } else {
                self.by_node.remove(node);
                if let Some(entry) = self.by_ref.get_mut(&name)
                    && entry.node == Some(*node)
                {
                    entry.node = None;
                }
            }
        }
        out.into_iter()
            .zip(items)
            .map(|(slot, (identity, node))| {
                slot.unwrap_or_else(|| self.assign_node(identity, *node, live))
            })
            .collect()
    }

    /// The shortest name for `key` not yet taken.
    fn fresh(&self, key: u64) -> String {
        (4..=6)
            .map(|len| name(key, len))
            .find(|candidate| !self.taken(candidate))
            .unwrap_or_else(|| {
                // Three prefixes taken: count on from the six-digit one, then (all 32 of
                // those taken too, as a page naming its elements to collide can make
                // happen) from other keys derived from this one.
                let base = name(key, 5);
                ALPHABET
                    .iter()
                    .map(|c| format!("{base}{}", *c as char))
                    .chain((1..).map(|salt| name(Fnv::new().number(key).number(salt).finish(), 6)))
                    .find(|c| !self.taken(c))
                    .unwrap_or(base)
            })
    }

    pub fn get(&self, r#ref: &str) -> Option<&RefEntry> {
        self.by_ref.get(r#ref)
    }

    /// The ref a node is bound to now.
    pub fn of_node(&self, node: NodeKey) -> Option<&str> {
        self.by_node.get(&node).map(String::as_str)
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.by_ref.len()
    }

    /// What the registry holds (`footprint.rs`): the refs kept whole, with the maps that
    /// find them by identity and by node, and the retired names.
    pub fn footprint(&self) -> (Held, Held) {
        let kept = Held {
            entries: self.by_ref.len(),
            bytes: self.by_key.heap_bytes() + self.by_ref.heap_bytes() + self.by_node.heap_bytes(),
        };
        let retired = Held {
            entries: self.retired.len(),
            bytes: self.retired.heap_bytes() + self.retired_order.heap_bytes(),
        };
        (kept, retired)
    }
}

crate::footprint!(Identity {
    epoch,
    container,
    role,
    name,
    ordinal,
    context,
});

crate::footprint!(RefEntry {
    identity,
    node,
    seen,
    born,
});

/// Whether `text` has the shape of a ref (`e` + 1–6 of `[0-9a-z]`).
pub fn is_ref(text: &str) -> bool {
    text.strip_prefix('e').is_some_and(|rest| {
        (1..=6).contains(&rest.len())
            && rest
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn identity(epoch: u64, container: u64, role: &str, name: &str, ordinal: u32) -> Identity {
        Identity {
            epoch,
            container,
            role: role.into(),
            name: name.into(),
            ordinal,
            context: String::new(),
        }
    }

    #[test]
    fn fnv_matches_the_published_vectors() {
        assert_eq!(Fnv::new().finish(), 0xcbf2_9ce4_8422_2325);
        assert_eq!(Fnv::new().bytes(b"a").finish(), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(Fnv::new().bytes(b"foobar").finish(), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn refs_are_short_and_well_formed() {
        let mut registry = RefRegistry::default();
        let r = registry.assign(&identity(1, 2, "button", "Save", 0));
        assert_eq!(r.len(), 5, "{r}");
        assert!(is_ref(&r), "{r}");
        assert!(!is_ref("e"));
        assert!(!is_ref("eABC"));
        assert!(!is_ref("e1234567"));
        assert!(!is_ref("x123"));
    }

    #[test]
    fn a_url_change_gives_an_identical_looking_element_a_different_ref() {
        let mut registry = RefRegistry::default();
        let before = registry.assign(&identity(1, 7, "button", "Submit", 0));
        let after = registry.assign(&identity(2, 7, "button", "Submit", 0));
        assert_ne!(before, after);
        assert_eq!(registry.get(&before).unwrap().identity.epoch, 1);
    }

    #[test]
    fn colliding_prefixes_get_longer_distinct_names() {
        let mut registry = RefRegistry::default();
        let mut names = std::collections::HashSet::new();
        for n in 0..5000 {
            let r = registry.assign(&identity(1, 0, "link", &format!("item {n}"), 0));
            assert!(is_ref(&r), "{r}");
            assert!(names.insert(r));
        }
        assert_eq!(registry.len(), 5000);
        assert!(
            names.iter().any(|n| n.len() > 5),
            "5000 names in 20 bits collide somewhere"
        );
    }

    #[test]
    fn a_ref_follows_its_node_and_a_second_live_element_never_shares_it() {
        let mut registry = RefRegistry::default();
        let star = identity(1, 0, "button", "Star", 0);
        registry.next_generation(1);
        let first = registry.assign_node(&star, Some((0, 10)), &|n| n == (0, 10));
        // The node lives on, moved among equals: it keeps its ref.
        registry.next_generation(1);
        let moved = identity(1, 0, "button", "Star", 1);
        assert_eq!(
            registry.assign_node(&moved, Some((0, 10)), &|_| true),
            first
        );
        // Another live element takes the first one's old place: a ref of its own.
        let other = registry.assign_node(&star, Some((0, 11)), &|_| true);
        assert_ne!(other, first);
        // The node's content changes (a recycled row): it is another element now.
        registry.next_generation(1);
        let recycled = identity(1, 0, "button", "Unstar", 0);
        let again = registry.assign_node(&recycled, Some((0, 10)), &|_| true);
        assert_ne!(again, first);
        assert_eq!(registry.of_node((0, 10)), Some(again.as_str()));
        // The first element is gone; a new node of its identity is it, re-rendered.
        registry.next_generation(1);
        let live = |n: NodeKey| n == (0, 12);
        assert_eq!(registry.assign_node(&moved, Some((0, 12)), &live), first);
        assert_eq!(registry.get(&first).unwrap().node, Some((0, 12)));
    }

    #[test]
    fn a_recycled_nodes_ref_passes_to_the_node_that_now_shows_its_content() {
        let mut registry = RefRegistry::default();
        let row = |n: u32| identity(1, 0, "listitem", &format!("Row {n}"), 0);
        registry.next_generation(1);
        let before = registry
            .assign_all(&[(row(14), Some((0, 1))), (row(25), Some((0, 2)))], &|_| {
                true
            });
        // Scrolled: node 1 now shows row 25, node 2 row 38 — node 1 comes first.
        registry.next_generation(1);
        let after = registry
            .assign_all(&[(row(25), Some((0, 1))), (row(38), Some((0, 2)))], &|_| {
                true
            });
        assert_eq!(after[0], before[1], "row 25's ref follows row 25");
        assert_ne!(after[1], before[1], "node 2 shows another row now");
        assert_ne!(after[1], before[0]);
        assert_eq!(
            registry.get(&before[0]).unwrap().node,
            None,
            "row 14 is not shown"
        );
    }

    #[test]
    fn a_tab_that_navigates_all_day_keeps_three_pages_of_refs_and_never_gives_an_old_name_again() {
        let mut registry = RefRegistry::default();
        let mut given = HashSet::new();
        let mut first_page = Vec::new();
        for epoch in 1..=200 {
            registry.next_generation(epoch);
            for i in 0..50 {
                let button = identity(epoch, 0, "button", &format!("Item {i}"), 0);
                let name =
                    registry.assign_node(&button, Some((0, epoch as i64 * 100 + i)), &|_| true);
                assert!(given.insert(name.clone()), "{name} given twice");
                if epoch == 1 {
                    first_page.push(name);
                }
            }
        }
        assert_eq!(registry.len(), 3 * 50, "the last three pages' refs");
        assert_eq!(registry.by_key.len(), 3 * 50);
        assert_eq!(registry.by_node.len(), 3 * 50);
        assert_eq!(registry.retired.len(), 197 * 50);
        for name in &first_page {
            assert!(registry.get(name).is_none());
            assert!(registry.is_retired(name), "{name}");
        }
        assert!(!registry.is_retired("e0000"));
    }

    #[test]
    fn a_tab_keeps_the_last_ten_thousand_retired_names_and_lets_the_oldest_go() {
        let mut registry = RefRegistry::default();
        let mut first_page = Vec::new();
        let mut last_retired = Vec::new();
        let pages = (MAX_RETIRED / 50) as u64 + 20;
        for epoch in 1..=pages {
            registry.next_generation(epoch);
            for i in 0..50 {
                let button = identity(epoch, 0, "button", &format!("Item {i}"), 0);
                let name =
                    registry.assign_node(&button, Some((0, epoch as i64 * 100 + i)), &|_| true);
                if epoch == 1 {
                    first_page.push(name.clone());
                }
                if epoch == pages - KEPT_EPOCHS {
                    last_retired.push(name);
                }
            }
        }
        assert_eq!(registry.retired.len(), MAX_RETIRED);
        assert_eq!(registry.retired_order.len(), MAX_RETIRED);
        for name in &first_page {
            assert!(
                !registry.is_retired(name),
                "{name}: older than the kept names"
            );
        }
        for name in &last_retired {
            assert!(
                registry.is_retired(name),
                "{name}: among the newest retired"
            );
        }
    }

    #[test]
    fn a_name_packs_into_four_bytes_by_its_digits_and_their_count() {
        assert_eq!(packed("e0000"), Some(0));
        assert_eq!(packed("e0001"), Some(1));
        assert_eq!(packed("ezzzz"), Some((1 << 20) - 1));
        assert_ne!(packed("e00000"), packed("e0000"));
        assert_eq!(packed("ezzzzzz"), Some((2 << 30) | ((1 << 30) - 1)));
        for bad in ["e000", "e0000000", "x0000", "e000i", "e00u0", ""] {
            assert_eq!(packed(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_ref_remembers_when_it_was_last_given_and_since_when_its_node_holds_it() {
        let mut registry = RefRegistry::default();
        let star = identity(1, 0, "button", "Star", 0);
        let times = |registry: &RefRegistry, r: &str| {
            let entry = registry.get(r).expect("a ref");
            (entry.seen, entry.born)
        };
        registry.next_generation(1);
        let r = registry.assign_node(&star, Some((0, 10)), &|_| true);
        assert_eq!(times(&registry, &r), (1, 1));
        registry.next_generation(1);
        registry.next_generation(1);
        assert_eq!(registry.assign_node(&star, Some((0, 10)), &|_| true), r);
        assert_eq!(times(&registry, &r), (3, 1));
        // Re-rendered: a new node takes the ref, and holds it from now on.
        registry.next_generation(1);
        let live = |n: NodeKey| n == (0, 11);
        assert_eq!(registry.assign_node(&star, Some((0, 11)), &live), r);
        assert_eq!(times(&registry, &r), (4, 4));
        // An element known by its identity only keeps the time it was first given.
        let plain = identity(1, 0, "link", "Home", 0);
        let home = registry.assign(&plain);
        registry.next_generation(1);
        assert_eq!(registry.assign(&plain), home);
        assert_eq!(times(&registry, &home), (5, 4));
    }

    #[test]
    fn a_ref_name_is_the_same_on_every_build() {
        let key = Fnv::new().bytes(b"a").finish();
        assert_eq!(name(key, 4), "enxhx");
        assert_eq!(name(key, 6), "enxhxrk");
        assert_eq!(name(u64::MAX, 6), "ezzzzzz");
        assert_eq!(name(0, 4), "e0000");
        let save = identity(1, 2, "button", "Save", 0);
        assert_eq!(RefRegistry::default().assign(&save), name(save.key(), 4));
    }

    #[test]
    fn names_taken_by_every_prefix_of_a_key_still_leave_it_a_free_one() {
        let mut registry = RefRegistry::default();
        let key = Fnv::new().bytes(b"crowded").finish();
        let base = name(key, 5);
        let taken: Vec<String> = [name(key, 4), base.clone()]
            .into_iter()
            .chain(ALPHABET.iter().map(|c| format!("{base}{}", *c as char)))
            .collect();
        for (n, r#ref) in taken.iter().enumerate() {
            let entry = RefEntry {
                identity: identity(1, 0, "link", &format!("taken {n}"), 0),
                node: None,
                seen: 0,
                born: 0,
            };
            registry.by_ref.insert(r#ref.clone(), entry);
        }
        assert!(registry.by_ref.contains_key(&name(key, 6)));
        let free = registry.fresh(key);
        assert!(is_ref(&free), "{free}");
        assert!(!taken.contains(&free), "{free}");
        // With one of them free again, that is the one.
        let last = format!("{base}z");
        registry.by_ref.remove(&last);
        assert_eq!(registry.fresh(key), last);
    }

    proptest! {
        /// The same page observed twice gives the same refs, whatever order the
        /// identities are assigned in the second time.
        #[test]
        fn the_same_identities_get_the_same_refs(
            names in proptest::collection::vec("[a-z]{1,8}", 1..60),
            seed in any::<u64>(),
        ) {
            let identities: Vec<Identity> = names
                .iter()
                .enumerate()
                .map(|(i, n)| identity(3, (i % 4) as u64, "button", n, (i / 4) as u32))
                .collect();
            let mut registry = RefRegistry::default();
            let first: Vec<String> = identities.iter().map(|i| registry.assign(i)).collect();
            let mut order: Vec<usize> = (0..identities.len()).collect();
            order.sort_by_key(|i| Fnv::new().number(seed).number(*i as u64).finish());
            for i in order {
                prop_assert_eq!(&registry.assign(&identities[i]), &first[i]);
            }
        }

        /// Distinct identities never share a ref.
        #[test]
        fn distinct_identities_get_distinct_refs(names in proptest::collection::hash_set("[a-z ]{1,12}", 1..200)) {
            let mut registry = RefRegistry::default();
            let refs: std::collections::HashSet<String> = names
                .iter()
                .map(|n| registry.assign(&identity(1, 0, "link", n, 0)))
                .collect();
            prop_assert_eq!(refs.len(), names.len());
        }
    }
}
