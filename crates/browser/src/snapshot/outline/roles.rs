//! The outline's tables of roles: which get refs, which fold into their parent, which
//! are landmarks and containers, and how a role is shown.

/// Roles an agent acts on: they always get a ref.
pub(super) const INTERACTIVE: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "treeitem",
    "slider",
    "spinbutton",
    "switch",
    "PopUpButton",
    "MenuListOption",
    "ListBoxOption",
    "DisclosureTriangle",
    "ToggleButton",
    "ColorWell",
    "Date",
    "DateTime",
    "InputTime",
    "scrollbar",
];

/// Items whose clicks a wrapper around them may handle (see `Builder::delegated_item`).
pub(super) const DELEGATED_ITEMS: &[&str] =
    &["listitem", "row", "cell", "gridcell", "columnheader"];
/// How far up such a wrapper is looked for.
pub(super) const DELEGATION_DEPTH: usize = 6;

/// Wrapper roles: no line of their own unless they carry a ref; children move up.
pub(in crate::snapshot) const FOLDED: &[&str] = &[
    "generic",
    "none",
    "presentation",
    "GenericContainer",
    "Section",
    "paragraph",
    "LabelText",
    "Div",
    "Span",
    "strong",
    "emphasis",
    "code",
    "time",
    "mark",
    "abbr",
    "subscript",
    "superscript",
    "Pre",
    "Ruby",
    "ignored",
    "RootWebArea",
    "LayoutTable",
    "LayoutTableRow",
    "LayoutTableCell",
    "contentinsertion",
    "contentdeletion",
    "DescriptionListDetail",
    "DescriptionListTerm",
    "Legend",
    "Canvas",
    "Abbr",
    "sectionheader",
    "sectionfooter",
];

/// Dropped with everything under them.
pub(crate) const DROPPED_ROLES: &[&str] = &["InlineTextBox", "LineBreak", "ListMarker"];

/// Landmarks: where an element is, in words (find's path) and in its identity.
pub(crate) const LANDMARKS: &[&str] = &[
    "main",
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "region",
    "form",
    "search",
    "dialog",
    "alertdialog",
    "article",
];

/// Containers that, with the landmarks, make up an element's identity path.
pub(super) const CONTAINERS: &[&str] = &[
    "listitem",
    "row",
    "table",
    "grid",
    "treegrid",
    "tablist",
    "tabpanel",
    "menu",
    "menubar",
    "tree",
    "toolbar",
    "Iframe",
    "listbox",
    "radiogroup",
];

/// Containers whose unnamed instances are told apart by their text.
pub(super) const TEXT_IDENTIFIED: &[&str] = &["listitem", "row", "article", "treeitem"];

/// Options of a listbox or select: never taken as scrolled out of view (they can be
/// chosen without scrolling).
pub(super) const OPTIONS: &[&str] = &["option", "ListBoxOption", "MenuListOption"];

/// Inputs shown as one element with their DOM value, never as the user agent's parts
/// (a date's month, day and year spin buttons).
pub(super) const TYPED_INPUTS: &[&str] = &[
    "date",
    "time",
    "datetime-local",
    "month",
    "week",
    "color",
    "range",
    "number",
];

pub(super) const MAX_NAME: usize = 100;
/// A field's value is given whole up to this many characters (a long one is clipped and
/// its length said).
pub(super) const MAX_VALUE: usize = 2_000;
pub(super) const MAX_TEXT: usize = 200;

/// Chromium's internal role names, as an agent knows them.
pub(crate) fn display_role(role: &str) -> &str {
    match role {
        "StaticText" => "text",
        "RootWebArea" => "document",
        "Iframe" => "iframe",
        "PopUpButton" => "combobox",
        "MenuListOption" | "ListBoxOption" => "option",
        "DisclosureTriangle" | "ToggleButton" => "button",
        "image" => "img",
        "LabelText" => "label",
        "generic" | "GenericContainer" | "Div" | "Span" => "generic",
        other => other,
    }
}
