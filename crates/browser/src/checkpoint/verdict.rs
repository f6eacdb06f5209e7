//! The pure half of a restore: finding each saved field and scroll position on the page
//! again by identity, and the verdict on each against what the page reads back.

use std::collections::HashSet;

use super::{Captured, Field, Kind, MAX_FIELDS, MAX_SCROLLS, SCROLL_TOLERANCE, Scroll, Unrestored};

/// Where a saved field is on the page now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    Found(usize),
    /// Several fields match it equally; none is chosen.
    Ambiguous(usize),
    Missing,
}

/// Finds each saved field among the page's fields by identity: in its scope and of its
/// kind (a checkbox or radio also of its `value`), the one with its id (unless its name
/// or label says it is another field), else its name, else its label; where several
/// match, the one at its path — the path only ever chooses among fields that match by
/// identity. A page field is given to one saved field at most.
pub(super) fn relocate(saved: &[Field], now: &[Field]) -> Vec<Place> {
    let mut taken = vec![false; now.len()];
    saved
        .iter()
        .map(|field| {
            let place = place(field, now, &taken);
            if let Place::Found(index) = place {
                taken[index] = true;
            }
            place
        })
        .collect()
}

fn place(field: &Field, now: &[Field], taken: &[bool]) -> Place {
    let saved = &field.identity;
    let pool: Vec<usize> = (0..now.len())
        .filter(|&i| {
            let other = &now[i];
            !taken[i]
                && other.identity.scope == saved.scope
                && other.identity.kind == saved.kind
                && other.option == field.option
        })
        .collect();
    let agree = |a: &str, b: &str| a.is_empty() || b.is_empty() || a == b;
    let keys: [&dyn Fn(&Field) -> bool; 3] = [
        &|other| {
            !saved.id.is_empty()
                && other.identity.id == saved.id
                && agree(&other.identity.name, &saved.name)
                && agree(&other.identity.label, &saved.label)
        },
        &|other| {
            !saved.name.is_empty()
                && other.identity.name == saved.name
                && agree(&other.identity.label, &saved.label)
        },
        &|other| !saved.label.is_empty() && other.identity.label == saved.label,
    ];
    let mut ambiguous = 0;
    for key in keys {
        let matches: Vec<usize> = pool.iter().copied().filter(|&i| key(&now[i])).collect();
        match matches.as_slice() {
            [] => {}
            [one] => return Place::Found(*one),
            several => {
                let at_path: Vec<usize> = several
                    .iter()
                    .copied()
                    .filter(|&i| now[i].path == field.path)
                    .collect();
                if let [one] = at_path.as_slice() {
                    return Place::Found(*one);
                }
                ambiguous = ambiguous.max(several.len());
            }
        }
    }
    if ambiguous > 0 {
        Place::Ambiguous(ambiguous)
    } else {
        Place::Missing
    }
}

/// Finds each saved scroll position's scroller on the page now: the page and frames by
/// scope; a container in its scope by its id, else by its path (a container has no
/// other identity).
pub(super) fn relocate_scrolls(saved: &[Scroll], now: &[Scroll]) -> Vec<Option<usize>> {
    saved
        .iter()
        .map(|scroll| {
            let same = |other: &&Scroll| other.scope == scroll.scope && other.page == scroll.page;
            let found = |key: &dyn Fn(&Scroll) -> bool| {
                let matches: Vec<usize> = now
                    .iter()
                    .enumerate()
                    .filter(|(_, other)| same(other) && key(other))
                    .map(|(i, _)| i)
                    .collect();
                (matches.len() == 1).then(|| matches[0])
            };
            if scroll.page {
                found(&|_| true)
            } else if !scroll.id.is_empty() {
                found(&|other| other.id == scroll.id)
            } else {
                found(&|other| other.id.is_empty() && other.path == scroll.path)
            }
        })
        .collect()
}

/// Which saved fields and scroll positions a restore changed (indices into the
/// checkpoint's lists).
#[derive(Debug, Default)]
pub(super) struct Changed {
    pub(super) fields: HashSet<usize>,
    pub(super) scrolls: HashSet<usize>,
}

/// The verdict on each saved field and scroll position against the page read back.
pub(super) fn verdict(
    checkpoint: &Captured,
    now: &Captured,
    changed: &Changed,
    refused: &[(usize, String)],
) -> (usize, usize, Vec<Unrestored>) {
    let mut verified = 0;
    let mut restored = 0;
    let mut failed = Vec::new();
    let places = relocate(&checkpoint.fields, &now.fields);
    for (i, (field, place)) in checkpoint.fields.iter().zip(&places).enumerate() {
        let describe = field.identity.describe();
        match place {
            Place::Found(index) => {
                let actual = &now.fields[*index].state;
                if actual.agrees(&field.state) {
                    verified += 1;
                    restored += usize::from(changed.fields.contains(&i));
                } else {
                    let reason = refused
                        .iter()
                        .find(|(saved, _)| *saved == i)
                        .map_or("it reads back otherwise".to_string(), |(_, r)| r.clone());
                    failed.push(Unrestored {
                        field: describe,
                        reason,
                        expected: Some(field.state.shown()),
                        actual: Some(actual.shown()),
                    });
                }
            }
            Place::Ambiguous(count) => failed.push(Unrestored {
                field: describe,
                reason: format!("{count} fields on the page match it; none was chosen"),
                expected: Some(field.state.shown()),
                actual: None,
            }),
            Place::Missing => failed.push(Unrestored {
                field: describe,
                reason: "no field on the page has its identity".into(),
                expected: Some(field.state.shown()),
                actual: None,
            }),
        }
    }
    // Required fields the checkpoint knows nothing of (a form that changed since) are
    // empty: the form will not go through as it was.
    let mut found: Vec<bool> = vec![false; now.fields.len()];
    for place in &places {
        if let Place::Found(index) = place {
            found[*index] = true;
        }
    }
    let mut groups = HashSet::new();
    for (field, _) in now
        .fields
        .iter()
        .zip(&found)
        .filter(|(field, found)| !**found && field.required && field.state.empty())
    {
        if field.identity.kind == Kind::Radio
            && !groups.insert((field.identity.scope.clone(), field.identity.name.clone()))
        {
            continue;
        }
        failed.push(Unrestored {
            field: field.identity.describe(),
            reason: "a required field the checkpoint does not hold (the page changed since); it is empty".into(),
            expected: None,
            actual: Some(field.state.shown()),
        });
    }
    let scroll_places = relocate_scrolls(&checkpoint.scrolls, &now.scrolls);
    for (i, (scroll, place)) in checkpoint.scrolls.iter().zip(scroll_places).enumerate() {
        let expected = Some(format!("x={} y={}", scroll.x.round(), scroll.y.round()));
        match place.map(|i| &now.scrolls[i]) {
            Some(now)
                if (now.x - scroll.x).abs() <= SCROLL_TOLERANCE
                    && (now.y - scroll.y).abs() <= SCROLL_TOLERANCE =>
            {
                verified += 1;
                restored += usize::from(changed.scrolls.contains(&i));
            }
            Some(now) => failed.push(Unrestored {
                field: scroll.describe(),
                reason: "it could not scroll there (the content is shorter now?)".into(),
                expected,
                actual: Some(format!("x={} y={}", now.x.round(), now.y.round())),
            }),
            None => failed.push(Unrestored {
                field: scroll.describe(),
                reason: "no such scroller on the page".into(),
                expected,
                actual: None,
            }),
        }
    }
    (verified, restored, failed)
}

/// What the checkpoint left out, for the report.
pub(super) fn omissions(state: &Captured) -> Vec<Unrestored> {
    let mut omitted: Vec<Unrestored> = state
        .omitted
        .iter()
        .map(|o| Unrestored {
            field: o.identity.describe(),
            reason: o.reason.clone(),
            expected: None,
            actual: None,
        })
        .collect();
    let counted = |count: usize, what: &str| {
        (count > 0).then(|| Unrestored {
            field: format!("{count} {what}"),
            reason: "not captured".into(),
            expected: None,
            actual: None,
        })
    };
    omitted.extend(counted(state.more_omitted, "more omitted fields"));
    omitted.extend(counted(
        state.dropped.fields,
        &format!("fields beyond the first {MAX_FIELDS}"),
    ));
    omitted.extend(counted(
        state.dropped.scrolls,
        &format!("scroll containers beyond the first {MAX_SCROLLS}"),
    ));
    omitted.extend(counted(
        state.dropped.frames,
        "frames of another origin (their fields cannot be read)",
    ));
    omitted
}

#[cfg(test)]
mod tests {
    use super::super::{Dropped, Identity, State};
    use super::*;

    fn field(kind: Kind, id: &str, name: &str, label: &str, path: &str) -> Field {
        Field {
            identity: Identity {
                scope: String::new(),
                kind,
                id: id.into(),
                name: name.into(),
                label: label.into(),
            },
            path: path.into(),
            option: String::new(),
            required: false,
            state: State::Value(String::new()),
        }
    }

    #[test]
    fn a_field_is_found_by_id_then_name_then_label() {
        let saved = [
            field(Kind::Text, "email", "", "Email", "form:1>input:1"),
            field(Kind::Text, "", "city", "City", "form:1>input:2"),
            field(Kind::Textarea, "", "", "Notes", "form:1>textarea:1"),
        ];
        // Re-rendered: other ids and order, same names and labels.
        let now = [
            field(Kind::Textarea, "f3", "", "Notes", "form:1>textarea:1"),
            field(Kind::Text, "f1", "city", "City", "form:1>input:1"),
            field(Kind::Text, "email", "", "Email", "form:1>input:2"),
        ];
        assert_eq!(
            relocate(&saved, &now),
            [Place::Found(2), Place::Found(1), Place::Found(0)]
        );
    }

    /// Ids re-assigned by position: the id now names another field, which its label says.
    #[test]
    fn an_id_that_now_names_another_field_is_not_taken() {
        let saved = [field(Kind::Text, "f1", "", "Email", "form:1>input:1")];
        let now = [
            field(Kind::Text, "f1", "", "Phone", "form:1>input:1"),
            field(Kind::Text, "f2", "", "Email", "form:1>input:2"),
        ];
        assert_eq!(relocate(&saved, &now), [Place::Found(1)]);
    }

    #[test]
    fn position_alone_never_decides() {
        // No identity in common, same path and kind: not found.
        let saved = [field(Kind::Text, "", "", "Email", "form:1>input:1")];
        let now = [field(
            Kind::Text,
            "",
            "",
            "E-mail address",
            "form:1>input:1",
        )];
        assert_eq!(relocate(&saved, &now), [Place::Missing]);
        // Two with the label: the path chooses between them.
        let now = [
            field(Kind::Text, "", "", "Email", "form:2>input:1"),
            field(Kind::Text, "", "", "Email", "form:1>input:1"),
        ];
        assert_eq!(relocate(&saved, &now), [Place::Found(1)]);
        // Two with the label, neither at the path: ambiguous.
        let now = [
            field(Kind::Text, "", "", "Email", "form:2>input:1"),
            field(Kind::Text, "", "", "Email", "form:3>input:1"),
        ];
        assert_eq!(relocate(&saved, &now), [Place::Ambiguous(2)]);
    }

    #[test]
    fn other_scopes_and_kinds_are_other_fields() {
        let mut saved = field(Kind::Text, "q", "q", "Search", "input:1");
        saved.identity.scope = "/frame:iframe#pay".into();
        let now = [
            field(Kind::Text, "q", "q", "Search", "input:1"),
            field(Kind::Textarea, "q", "q", "Search", "input:1"),
        ];
        assert_eq!(relocate(&[saved], &now), [Place::Missing]);
    }

    #[test]
    fn radios_are_told_apart_by_their_value() {
        let radio = |option: &str, checked: bool| Field {
            option: option.into(),
            state: State::Checked(checked),
            ..field(Kind::Radio, "", "size", "", "x")
        };
        let saved = [radio("s", false), radio("m", true)];
        let now = [radio("m", false), radio("s", true)];
        assert_eq!(relocate(&saved, &now), [Place::Found(1), Place::Found(0)]);
    }

    #[test]
    fn a_new_required_field_fails_the_restore_and_the_rest_verifies() {
        let mut email = field(Kind::Text, "email", "", "Email", "p");
        email.state = State::Value("a@b.c".into());
        let saved = Captured {
            fields: vec![email.clone()],
            scrolls: vec![],
            omitted: vec![],
            more_omitted: 0,
            dropped: Dropped::default(),
            applied: vec![],
        };
        let mut phone = field(Kind::Text, "phone", "", "Phone", "q");
        phone.required = true;
        let now = Captured {
            fields: vec![email, phone],
            ..saved.clone()
        };
        let (verified, restored, failed) = verdict(&saved, &now, &Changed::default(), &[]);
        assert_eq!((verified, restored), (1, 0));
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].field, "textbox \"Phone\"");
        assert!(failed[0].reason.contains("required"), "{:?}", failed[0]);
    }

    #[test]
    fn a_scroll_position_is_restored_within_two_pixels() {
        let scroll = |y: f64| Scroll {
            scope: String::new(),
            id: "list".into(),
            path: "div:1".into(),
            x: 0.0,
            y,
            page: false,
        };
        let state = |y: f64| Captured {
            fields: vec![],
            scrolls: vec![scroll(y)],
            omitted: vec![],
            more_omitted: 0,
            dropped: Dropped::default(),
            applied: vec![],
        };
        let (verified, _, failed) = verdict(&state(400.0), &state(401.5), &Changed::default(), &[]);
        assert_eq!((verified, failed.len()), (1, 0));
        let (verified, _, failed) = verdict(&state(400.0), &state(300.0), &Changed::default(), &[]);
        assert_eq!((verified, failed.len()), (0, 1));
        assert_eq!(failed[0].actual.as_deref(), Some("x=0 y=300"));
    }
}
