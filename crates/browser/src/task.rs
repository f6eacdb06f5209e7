//! A task: one agent's isolated workspace — its own browser context and its tabs.
//!
//! Tab ids (`tab0`, `tab1`, …) are never reused within a task. One command runs at a
//! time per task; the faces enforce that by holding `&mut Task`.

use std::collections::BTreeMap;
use std::fmt;

use cdp::Deadline;
use cdp::protocol::target;

use crate::download::{Downloads, TaskEvents};
use crate::permission::Permissions;
use crate::tab::{PageState, Tab};
use crate::url_policy::{UrlPolicy, check_url};
use crate::{Browser, Error};

/// A tab id within a task. Parses `tab1`, `tab:tab1` and `[tab:tab1]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TabId(pub u32);

impl TabId {
    pub fn parse(input: &str) -> Result<TabId, Error> {
        let trimmed = input.trim();
        let inner = trimmed
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .unwrap_or(trimmed);
        let inner = inner.strip_prefix("tab:").unwrap_or(inner);
        inner
            .strip_prefix("tab")
            .and_then(|n| n.parse().ok())
            .map(TabId)
            .ok_or_else(|| Error::InvalidParams {
                what: format!("tab id {input:?}"),
                reason: "expected tabN, tab:tabN or [tab:tabN]".into(),
            })
    }
}

impl fmt::Display for TabId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tab{}", self.0)
    }
}

/// Back or forward in a tab's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryMove {
    Back,
    Forward,
}

impl HistoryMove {
    pub(crate) fn adjective(self) -> &'static str {
        match self {
            HistoryMove::Back => "earlier",
            HistoryMove::Forward => "later",
        }
    }
}

/// One line of a tab list.
#[derive(Debug, Clone)]
pub struct TabSummary {
    pub id: TabId,
    pub active: bool,
    pub state: PageState,
}

/// What is left of a task whose browser died: enough to reopen its tabs at their last
/// URLs under the same ids in a new browser ([`Task::reopen`]).
#[derive(Debug, Clone)]
pub struct Remnant {
    /// Each tab's id, last URL and viewport preset.
    tabs: Vec<(TabId, String, crate::Preset)>,
    current: Option<TabId>,
    next_tab: u32,
}

/// What `close_tabs` did: the tabs closed, and those that could not be, with why.
#[derive(Debug)]
pub struct Closed {
    pub closed: Vec<TabId>,
    pub failed: Vec<(TabId, Error)>,
}

/// A tab reopened after its browser died.
#[derive(Debug, Clone)]
pub struct Reopened {
    pub id: TabId,
    pub url: String,
    /// Why it could not be loaded again, if it could not (it stays open, blank).
    pub error: Option<String>,
}

/// Where a task's pages live and how they reach the network, beyond the defaults.
#[derive(Debug, Clone, Default)]
pub struct TaskSetup {
    /// The proxy its requests go through (`proxy.rs`). In a context of its own, given to
    /// `Target.createBrowserContext`; in the default context, the caller launched the
    /// browser with its switches ([`crate::LaunchOptions::for_profile`]). Its credentials
    /// are answered either way.
    pub proxy: Option<crate::Proxy>,
    /// The browser's default context (a profile's own browser), which is kept on disk,
    /// rather than a new one, which is not.
    pub default_context: bool,
}

/// One agent's workspace in one browser.
pub struct Task {
    id: String,
    browser: Browser,
    context_id: String,
    /// The context was made for the task (and goes with it), not the browser's default.
    owns_context: bool,
    proxy: Option<crate::Proxy>,
    policy: UrlPolicy,
    tabs: BTreeMap<TabId, Tab>,
    current: Option<TabId>,
    next_tab: u32,
    ask_dialogs: bool,
    /// The probe budget of the task's tabs (`probe.rs`).
    unresponsive: std::time::Duration,
    /// The bound of each ring of a tab's log (`logs/`).
    log_max_entries: usize,
    /// The viewport preset a new tab opens at.
    default_viewport: crate::Preset,
    downloads: Downloads,
    permissions: Permissions,
}

impl fmt::Debug for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task")
            .field("id", &self.id)
            .field("tabs", &self.tabs.len())
            .finish()
    }
}

impl Task {
    /// Creates the task's browser context. Its first tab opens on first use.
    pub async fn create(
        browser: &Browser,
        id: impl Into<String>,
        deadline: Deadline,
    ) -> Result<Task, Error> {
        Self::create_with(browser, id, &TaskSetup::default(), deadline).await
    }

    /// [`Task::create`] as `setup` says: behind a proxy, or in the browser's default
    /// context.
    pub async fn create_with(
        browser: &Browser,
        id: impl Into<String>,
        setup: &TaskSetup,
        deadline: Deadline,
    ) -> Result<Task, Error> {
        let session = browser.connection().browser_session();
        let context_id = if setup.default_context {
            let contexts = session
                .call(&target::GetBrowserContexts {}, deadline)
                .await?;
            contexts
                .default_browser_context_id
                .ok_or_else(|| Error::Protocol {
                    method: "Target.getBrowserContexts".into(),
                    message: "the browser named no default context".into(),
                })?
        } else {
            let proxy = setup.proxy.as_ref();
            session
                .call(
                    &target::CreateBrowserContext {
                        dispose_on_detach: Some(true),
                        proxy_server: proxy.map(|p| p.server.clone()),
                        proxy_bypass_list: proxy.and_then(|p| p.bypass.clone()),
                    },
                    deadline,
                )
                .await?
                .browser_context_id
        };
        let scope = (!setup.default_context).then(|| context_id.clone());
        // Downloads go only to the task's folder; no permission is granted (docs/acting.md#downloads).
        let (downloads, permissions) = tokio::try_join!(
            Downloads::start(browser, &context_id, scope.clone(), deadline),
            Permissions::deny_all(browser, scope.as_deref(), deadline),
        )?;
        Ok(Task {
            id: id.into(),
            browser: browser.clone(),
            context_id,
            owns_context: !setup.default_context,
            proxy: setup.proxy.clone(),
            policy: UrlPolicy::default(),
            tabs: BTreeMap::new(),
            current: None,
            next_tab: 0,
            ask_dialogs: false,
            unresponsive: crate::tab::probe::DEFAULT_UNRESPONSIVE,
            log_max_entries: crate::logs::DEFAULT_LOG_ENTRIES,
            default_viewport: crate::Preset::Auto,
            downloads,
            permissions,
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The context a `Browser.*` or `Storage.*` call names: none for the browser's
    /// default context (a task on a persistent profile), which those calls act on when
    /// none is named — Chromium refuses the default context's own id there ("Failed to
    /// find browser context").
    pub(crate) fn context_scope(&self) -> Option<String> {
        self.owns_context.then(|| self.context_id.clone())
    }

    pub fn browser(&self) -> &Browser {
        &self.browser
    }

    /// Dialog policy `ask` (true): dialogs wait for an answer instead of being answered
    /// at once. Applies to the task's tabs now and later.
    pub fn set_ask_dialogs(&mut self, ask: bool) {
        self.ask_dialogs = ask;
        for tab in self.tabs.values() {
            tab.set_ask_dialogs(ask);
        }
    }

    /// How long a tab's page may take to answer a probe before it counts as
    /// unresponsive. Applies to the task's tabs now and later.
    pub fn set_unresponsive_budget(&mut self, budget: std::time::Duration) {
        self.unresponsive = budget;
        for tab in self.tabs.values() {
            tab.set_unresponsive_budget(budget);
        }
    }

    /// How many entries each ring of a tab's log keeps (console messages, exceptions,
    /// requests, problems). Applies to the task's tabs now and later.
    pub fn set_log_max_entries(&mut self, max: usize) {
        self.log_max_entries = max;
        for tab in self.tabs.values() {
            tab.set_log_max_entries(max);
        }
    }

    /// The viewport preset the task's tabs open at from now on (the page loads at its size).
    pub fn set_default_viewport(&mut self, preset: crate::Preset) {
        self.default_viewport = preset;
    }

    /// The URLs the task may open; set before its first tab, since a tab's document
    /// requests are held to the origin lists from its opening on.
    pub fn set_url_policy(&mut self, policy: UrlPolicy) {
        self.policy = policy;
    }

    pub fn url_policy(&self) -> &UrlPolicy {
        &self.policy
    }

    /// How much the task may download; applies from the next download on.
    pub fn set_download_limits(&mut self, limits: crate::DownloadLimits) {
        self.downloads.set_limits(limits);
    }

    /// The folder the task's downloads go to; removed with the task.
    pub fn download_folder(&self) -> &std::path::Path {
        self.downloads.folder()
    }

    /// A hand-off begins: permission requests wait for the person (see `permission.rs`).
    pub async fn hold_permissions(&self, deadline: Deadline) -> Result<(), Error> {
        self.permissions
            .hold(&self.browser, self.context_scope().as_deref(), deadline)
            .await
    }

    /// A hand-off ends: the person's grants are taken back; requests are denied again.
    pub async fn release_permissions(&self, deadline: Deadline) -> Result<(), Error> {
        self.permissions
            .unhold(&self.browser, self.context_scope().as_deref(), deadline)
            .await
    }

    /// The first permission request waiting for the person.
    pub fn pending_permission(&self) -> Option<crate::PermissionRequest> {
        self.permissions.pending()
    }

    /// Answers the waiting permission request `id` with the person's choice.
    pub async fn answer_permission(
        &self,
        id: u64,
        choice: crate::PermissionChoice,
        deadline: Deadline,
    ) -> Result<crate::PermissionRequest, Error> {
        self.permissions
            .answer(
                &self.browser,
                self.context_scope().as_deref(),
                id,
                choice,
                deadline,
            )
            .await
    }

    /// A mark of the task's downloads so far, for [`Self::downloads_since`].
    pub fn download_mark(&self) -> u64 {
        self.downloads.mark()
    }

    /// The downloads begun since `mark`, as they stand now.
    pub fn downloads_since(&self, mark: u64) -> Vec<crate::Download> {
        self.downloads.since(mark)
    }

    /// Downloads that changed and permission requests denied since the last call.
    pub fn take_events(&self) -> TaskEvents {
        TaskEvents {
            downloads: self.downloads.take_changes(),
            permissions: self.permissions.take(),
        }
    }

    /// The tab named by `id`, or the current tab when `id` is `None`.
    pub fn tab(&self, id: Option<&str>) -> Result<(TabId, &Tab), Error> {
        let id = match id {
            Some(id) => TabId::parse(id)?,
            None => self.current.ok_or_else(|| Error::TabNotFound {
                tab: "(current: this task has no open tab; navigate or open one first)".into(),
            })?,
        };
        self.tabs
            .get(&id)
            .map(|tab| (id, tab))
            .ok_or_else(|| Error::TabNotFound {
                tab: id.to_string(),
            })
    }

    pub fn current(&self) -> Option<TabId> {
        self.current
    }

    /// The task's open tabs, in order of id.
    pub fn tabs(&self) -> impl Iterator<Item = (TabId, &Tab)> {
        self.tabs.iter().map(|(id, tab)| (*id, tab))
    }

    /// The named tab, or the current one, opening a first tab when the task has none.
    pub async fn tab_or_open(
        &mut self,
        id: Option<&str>,
        deadline: Deadline,
    ) -> Result<(TabId, Tab), Error> {
        if id.is_none() && self.current.is_none() {
            return self.open_tab(deadline).await;
        }
        self.tab(id).map(|(id, tab)| (id, tab.clone()))
    }

    /// Opens a blank tab in the task's context and makes it current.
    pub async fn open_tab(&mut self, deadline: Deadline) -> Result<(TabId, Tab), Error> {
        let created = self
            .browser
            .connection()
            .browser_session()
            .call(
                &target::CreateTarget {
                    url: "about:blank".into(),
                    browser_context_id: Some(self.context_id.clone()),
                    background: None,
                },
                deadline,
            )
            .await?;
        let id = TabId(self.next_tab);
        self.next_tab += 1;
        let tab = Tab::attach(&self.browser, id.to_string(), created.target_id, deadline).await?;
        tab.set_ask_dialogs(self.ask_dialogs);
        tab.set_unresponsive_budget(self.unresponsive);
        tab.set_log_max_entries(self.log_max_entries);
        tokio::try_join!(
            self.permissions.watch(&tab, deadline),
            crate::settle::watch(&tab, deadline),
            self.hold_requests(&tab, deadline)
        )?;
        if self.default_viewport != crate::Preset::Auto {
            tab.set_viewport(self.default_viewport, deadline).await?;
        }
        self.tabs.insert(id, tab.clone());
        self.current = Some(id);
        Ok((id, tab))
    }

    /// Adopts the pages the browser opened in this task's context since the last call
    /// (popups, `target=_blank` links) as new tabs; with `wait`, waits until `deadline`
    /// (at most five seconds) for the first. The current tab does not change.
    pub async fn adopt_new_tabs(
        &mut self,
        wait: bool,
        deadline: Deadline,
    ) -> Result<Vec<(TabId, Tab)>, Error> {
        let limit = deadline.within(std::time::Duration::from_secs(5));
        let targets = self
            .browser
            .take_opened(&self.context_id, wait, limit)
            .await;
        let mut adopted = Vec::new();
        for target_id in targets {
            let id = TabId(self.next_tab);
            self.next_tab += 1;
            let tab = match Tab::attach(&self.browser, id.to_string(), target_id.clone(), deadline)
                .await
            {
                Ok(tab) => tab,
                // Closed before it could be adopted (its destruction not seen yet): there
                // is no tab to adopt, and nothing is wrong with the browser.
                Err(_)
                    if self.browser.is_connected()
                        && !self.browser.has_target(&target_id, deadline).await =>
                {
                    continue;
                }
                Err(err) => return Err(err),
            };
            tab.set_ask_dialogs(self.ask_dialogs);
            tab.set_unresponsive_budget(self.unresponsive);
            tab.set_log_max_entries(self.log_max_entries);
            tab.sync_attached(deadline).await;
            tokio::try_join!(
                self.permissions.watch(&tab, deadline),
                crate::settle::watch(&tab, deadline),
                self.hold_requests(&tab, deadline)
            )?;
            // A page's popup opens at the task's preset too; one that cannot be sized
            // (closing already) stays as the browser opened it, which `viewport` reads.
            if self.default_viewport != crate::Preset::Auto
                && let Err(err) = tab.set_viewport(self.default_viewport, deadline).await
            {
                tracing::debug!(%err, tab = %id, "a popup kept the browser's viewport");
            }
            self.tabs.insert(id, tab.clone());
            adopted.push((id, tab));
        }
        Ok(adopted)
    }

    /// Holds `tab`'s requests as the task needs: documents to the origin lists, and the
    /// proxy's challenges answered (`url_policy::guard`); a tab of a task with a proxy
    /// names it in its navigations' errors.
    async fn hold_requests(&self, tab: &Tab, deadline: Deadline) -> Result<(), Error> {
        let route = self.proxy.as_ref().map(|proxy| {
            let route = crate::proxy::Route::new(&proxy.server);
            let _ = tab.shared.proxy.set(route.clone());
            route
        });
        let credentials = self
            .proxy
            .as_ref()
            .and_then(|proxy| proxy.credentials.as_ref())
            .zip(route);
        crate::url_policy::guard(tab, &self.policy, credentials, deadline).await
    }

    /// Checks `url` against the task's policy before anything is sent to the browser.
    pub fn check_url(&self, url: &str) -> Result<url::Url, Error> {
        check_url(url, &self.policy)
    }

    /// Makes `id` the current tab.
    pub fn select(&mut self, id: &str) -> Result<(TabId, Tab), Error> {
        let (id, tab) = self.tab(Some(id)).map(|(id, tab)| (id, tab.clone()))?;
        self.current = Some(id);
        Ok((id, tab))
    }

    /// Closes the given tabs, after checking that every id exists. A tab counts as
    /// closed only once the browser's target list no longer has it; the ones that could
    /// not be closed are reported beside the closed ones (an error only if none closed).
    pub async fn close_tabs(
        &mut self,
        ids: &[String],
        deadline: Deadline,
    ) -> Result<Closed, Error> {
        let mut closing = Vec::new();
        for id in ids {
            let (id, tab) = self.tab(Some(id))?;
            closing.push((id, tab.clone()));
        }
        let session = self.browser.connection().browser_session();
        let mut failed = Vec::new();
        let mut sent = Vec::new();
        for (id, tab) in closing {
            let close = target::CloseTarget {
                target_id: tab.target_id().to_string(),
            };
            match session.call(&close, deadline).await {
                Ok(_) => sent.push((id, tab)),
                Err(err) => failed.push((id, err.into())),
            }
        }
        let started = std::time::Instant::now();
        let mut gone = Vec::new();
        for (id, tab) in sent {
            match tab
                .wait_state("the target to close", deadline, started, |s| s.closed)
                .await
            {
                Ok(_) => gone.push((id, tab)),
                Err(err) => failed.push((id, err)),
            }
        }
        let targets = session.call(&target::GetTargets {}, deadline).await?;
        let mut closed = Vec::new();
        for (id, tab) in gone {
            if targets
                .target_infos
                .iter()
                .any(|t| t.target_id == tab.target_id())
            {
                failed.push((
                    id,
                    Error::Protocol {
                        method: "Target.closeTarget".into(),
                        message: format!("{id} is still in the browser's target list"),
                    },
                ));
            } else {
                self.tabs.remove(&id);
                closed.push(id);
            }
        }
        if self.current.is_some_and(|c| !self.tabs.contains_key(&c)) {
            self.current = self.tabs.keys().next_back().copied();
        }
        if closed.is_empty() && !failed.is_empty() {
            return Err(failed.swap_remove(0).1);
        }
        Ok(Closed { closed, failed })
    }

    /// Every tab with its load state.
    pub fn list(&self) -> Vec<TabSummary> {
        self.tabs
            .iter()
            .map(|(id, tab)| TabSummary {
                id: *id,
                active: self.current == Some(*id),
                state: tab.state(),
            })
            .collect()
    }

    /// What to reopen the task's tabs from if its browser is gone.
    pub fn remnant(&self) -> Remnant {
        Remnant {
            tabs: self
                .tabs
                .iter()
                .map(|(id, tab)| (*id, tab.state().url, tab.viewport()))
                .collect(),
            current: self.current,
            next_tab: self.next_tab,
        }
    }

    /// Reopens the tabs of a task whose browser died in this (fresh) task: the same ids,
    /// each at its viewport preset and navigated to its last URL (the load is not waited
    /// for), the same current tab. A URL the policy refuses now, or one that does not
    /// load, leaves its tab blank and says why; so does a preset that could not be set.
    pub async fn reopen(&mut self, remnant: Remnant, deadline: Deadline) -> Vec<Reopened> {
        let mut reopened = Vec::new();
        for (id, url, preset) in remnant.tabs {
            self.next_tab = id.0;
            let mut opened = self.open_tab(deadline).await;
            // The preset first, so the page loads at the size it had.
            if let Ok((_, tab)) = &opened
                && preset != crate::Preset::Auto
            {
                let limit = deadline.within(std::time::Duration::from_secs(5));
                if let Err(err) = tab.set_viewport(preset, limit).await {
                    opened = Err(err);
                }
            }
            let error = match opened {
                Ok((_, tab)) if url != "about:blank" => match self.check_url(&url) {
                    Ok(parsed) => {
                        let navigate = cdp::protocol::page::Navigate {
                            url: parsed.to_string(),
                        };
                        let limit = deadline.within(std::time::Duration::from_secs(5));
                        match tab.session().call(&navigate, limit).await {
                            Ok(reply) => reply.error_text.filter(|t| !t.is_empty()),
                            Err(err) => Some(err.to_string()),
                        }
                    }
                    Err(err) => Some(err.to_string()),
                },
                Ok(_) => None,
                Err(err) => Some(err.to_string()),
            };
            reopened.push(Reopened { id, url, error });
        }
        self.next_tab = self.next_tab.max(remnant.next_tab);
        self.current = remnant.current.filter(|id| self.tabs.contains_key(id));
        reopened
    }

    /// Disposes of the task's browser context and with it every tab. The default context
    /// of a profile's browser stays: the browser, which is the task's alone, is closed
    /// after it.
    pub async fn close(self, deadline: Deadline) -> Result<(), Error> {
        if !self.browser.is_connected() || !self.owns_context {
            return Ok(());
        }
        self.browser
            .connection()
            .browser_session()
            .call(
                &target::DisposeBrowserContext {
                    browser_context_id: self.context_id,
                },
                deadline,
            )
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_ids_parse_in_every_accepted_form() {
        for input in ["tab1", "tab:tab1", "[tab:tab1]", " tab1 "] {
            assert_eq!(TabId::parse(input).expect(input), TabId(1), "{input}");
        }
        for input in ["1", "tab", "tabx", "[tab:tab1", "tab:1", ""] {
            assert!(TabId::parse(input).is_err(), "{input}");
        }
        assert_eq!(TabId(12).to_string(), "tab12");
    }
}
