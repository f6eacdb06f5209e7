//! Async batches (jobs): a list of steps run one after another on one task, in the
//! background. A job holds the task like a command does (other commands get `TASK_BUSY`);
//! its progress is readable per step at any time; `cancel-job` stops it between steps.
//! A batch is a flow (`tools::flow`): the same file, the same step runner, and a step
//! that fails is reported with what was expected, what was seen and a snapshot. With
//! `wait`, the request answers when the job has ended (`candor flow run`).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use serde_json::{Value, json};
use tokio::sync::watch;
use tools::flow::{self, Flow};
use tools::{Code, Engine, ToolError};

use crate::clock::epoch_ms;
use crate::mutex::lock;
use crate::registry::Registry;
use crate::reply::{Effect, reply, task_not_found};

/// How many jobs are kept for `job ID` after they end.
const KEPT_JOBS: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobState {
    Running,
    Done,
    Failed,
    Cancelled,
}

impl JobState {
    fn name(self) -> &'static str {
        match self {
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
        }
    }
}

/// One step's progress.
struct Step {
    method: String,
    status: &'static str,
    /// The step's envelope once it ran.
    result: Option<Value>,
}

struct Job {
    id: String,
    task: String,
    created_at: SystemTime,
    state: Mutex<JobState>,
    steps: Mutex<Vec<Step>>,
    cancel: AtomicBool,
    /// Why it stopped at a step that failed (`flow::failure`), and the pointers of the
    /// page's words in it.
    failure: Mutex<Option<(Value, Vec<String>)>>,
    /// Set once the job has ended.
    ended: watch::Sender<bool>,
}

impl Job {
    fn view(&self) -> Value {
        let steps: Vec<Value> = lock(&self.steps)
            .iter()
            .enumerate()
            .map(|(index, step)| {
                let mut line =
                    json!({ "index": index, "method": step.method, "status": step.status });
                if let Some(result) = &step.result {
                    line["commandId"] = result["execution"]["commandId"].clone();
                    line["code"] = result["code"].clone();
                    line["durationMs"] = result["execution"]["durationMs"].clone();
                    line["result"] = result.clone();
                }
                line
            })
            .collect();
        let done = steps.iter().filter(|s| s["result"].is_object()).count();
        let mut view = json!({
            "jobId": self.id,
            "task": self.task,
            "state": lock(&self.state).name(),
            "createdAt": epoch_ms(self.created_at),
            "cancelRequested": self.cancel.load(Ordering::SeqCst),
            "stepsDone": done,
            "stepsTotal": steps.len(),
            "steps": steps,
        });
        if let Some((failure, _)) = lock(&self.failure).as_ref() {
            view["failure"] = failure.clone();
        }
        view
    }

    /// The job's view as an envelope, the page's words in its failure listed as such.
    fn reply(&self, registry: &Registry, started: Instant) -> tools::Envelope {
        let mut envelope = reply(&registry.host, Ok(self.view()), Effect::Reads, started);
        if let Some((_, untrusted)) = lock(&self.failure).as_ref() {
            envelope
                .untrusted
                .extend(untrusted.iter().map(|p| format!("/data/failure{p}")));
        }
        envelope
    }
}

/// Every job of the daemon: the running ones and the last [`KEPT_JOBS`] that ended.
#[derive(Default)]
pub(crate) struct Jobs {
    jobs: Mutex<VecDeque<Arc<Job>>>,
    next: AtomicU64,
}

impl Jobs {
    /// `batch`: a flow whose variables are all bound (checked whole before anything
    /// runs), takes the task (or `TASK_BUSY` at once) and runs the steps in the
    /// background; returns the job id, or with `wait` the job once it has ended.
    pub(crate) async fn start(
        self: &Arc<Self>,
        registry: &Arc<Registry>,
        task: &str,
        request: Flow,
        wait: bool,
    ) -> tools::Envelope {
        let started = Instant::now();
        if let Err(refused) = crate::registry::check_task_id(task) {
            return reply(&registry.host, Err(refused), Effect::Reads, started);
        }
        let Some(entry) = registry.get(task) else {
            return reply(
                &registry.host,
                Err(task_not_found(task)),
                Effect::Reads,
                started,
            );
        };
        // Variables are bound by the caller: one left is a missing value.
        if let Err(error) = request.bind(&Default::default()) {
            return reply(&registry.host, Err(error), Effect::Reads, started);
        }
        let Ok(lease) = entry.lease.clone().try_lock_owned() else {
            return entry.engine.refuse_busy(
                "batch",
                &json!({ "steps": request.steps.len() }),
                false,
            );
        };
        let count = request.steps.len();
        let id = format!("j-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let job = Arc::new(Job {
            id: id.clone(),
            task: task.to_string(),
            created_at: SystemTime::now(),
            state: Mutex::new(JobState::Running),
            steps: Mutex::new(
                request
                    .steps
                    .iter()
                    .map(|step| Step {
                        method: step.method.clone(),
                        status: "pending",
                        result: None,
                    })
                    .collect(),
            ),
            cancel: AtomicBool::new(false),
            failure: Mutex::new(None),
            ended: watch::channel(false).0,
        });
        *lock(&entry.job) = Some(id.clone());
        self.keep(job.clone());
        let busy = registry.activity.begin();
        let engine = entry.engine.clone();
        let mut ended = job.ended.subscribe();
        let running = job.clone();
        tokio::spawn(async move {
            let state = run(&running, &engine, &request).await;
            *lock(&running.state) = state;
            *lock(&entry.job) = None;
            drop(lease);
            drop(busy);
            running.ended.send_replace(true);
        });
        if wait {
            // The job ends on its own (each step has its deadline); only a daemon going
            // away ends the wait sooner.
            let _ = ended.wait_for(|ended| *ended).await;
            return job.reply(registry, started);
        }
        let data = json!({ "jobId": id, "task": task, "steps": count });
        reply(&registry.host, Ok(data), Effect::Changes, started)
    }

    fn keep(&self, job: Arc<Job>) {
        let mut jobs = lock(&self.jobs);
        jobs.push_back(job);
        while jobs.len() > KEPT_JOBS {
            // The oldest that has ended goes first; running jobs are always kept.
            match jobs
                .iter()
                .position(|j| *lock(&j.state) != JobState::Running)
            {
                Some(index) => {
                    jobs.remove(index);
                }
                None => break,
            }
        }
    }

    fn find(&self, id: &str) -> Option<Arc<Job>> {
        lock(&self.jobs).iter().find(|j| j.id == id).cloned()
    }

    /// `job ID`: progress per step.
    pub(crate) fn view(&self, registry: &Registry, id: &str) -> tools::Envelope {
        let started = Instant::now();
        match self.find(id) {
            Some(job) => job.reply(registry, started),
            None => reply(
                &registry.host,
                Err(job_not_found(id)),
                Effect::Reads,
                started,
            ),
        }
    }

    /// `jobs`: every kept job in brief.
    pub(crate) fn list(&self, registry: &Registry) -> tools::Envelope {
        let started = Instant::now();
        let jobs: Vec<Value> = lock(&self.jobs)
            .iter()
            .map(|job| {
                let view = job.view();
                json!({
                    "jobId": view["jobId"],
                    "task": view["task"],
                    "state": view["state"],
                    "stepsDone": view["stepsDone"],
                    "stepsTotal": view["stepsTotal"],
                })
            })
            .collect();
        reply(
            &registry.host,
            Ok(json!({ "jobs": jobs })),
            Effect::Reads,
            started,
        )
    }

    /// Asks a running job to stop before its next step; true if it was running.
    pub(crate) fn cancel(&self, id: &str) -> bool {
        match self.find(id) {
            Some(job) if *lock(&job.state) == JobState::Running => {
                job.cancel.store(true, Ordering::SeqCst);
                true
            }
            _ => false,
        }
    }

    /// `cancel-job ID`.
    pub(crate) fn cancel_reply(&self, registry: &Registry, id: &str) -> tools::Envelope {
        let started = Instant::now();
        let result = match self.find(id) {
            None => Err(job_not_found(id)),
            Some(_) => {
                let accepted = self.cancel(id);
                Ok(json!({
                    "jobId": id,
                    "accepted": accepted,
                    "reason": if accepted {
                        "the job stops before its next step; the step running now runs to its end"
                    } else {
                        "the job has already ended"
                    },
                }))
            }
        };
        reply(&registry.host, result, Effect::Changes, started)
    }
}

/// Runs the steps in order; returns how the job ended. The first step that fails is
/// reported with a snapshot of the page (`flow::failure`).
async fn run(job: &Job, engine: &Engine, flow: &Flow) -> JobState {
    let mut state = JobState::Done;
    for (index, step) in flow.steps.iter().enumerate() {
        if job.cancel.load(Ordering::SeqCst) {
            state = JobState::Cancelled;
            mark_rest(job, index, "cancelled");
            break;
        }
        set_status(job, index, "running", None);
        let envelope = flow::run_step(engine, step).await;
        let ok = envelope.ok;
        let status = if ok {
            "ok"
        } else if envelope.code == Some(Code::CommandCancelled) {
            "cancelled"
        } else {
            "error"
        };
        set_status(job, index, status, Some(envelope.to_json()));
        if !ok && status == "error" && lock(&job.failure).is_none() {
            let failure = flow::failure(engine, index, step, &envelope).await;
            *lock(&job.failure) = Some(failure);
        }
        if !ok && !flow.continue_on_error {
            state = if status == "cancelled" {
                JobState::Cancelled
            } else {
                JobState::Failed
            };
            mark_rest(job, index + 1, "skipped");
            break;
        }
        if !ok {
            state = JobState::Failed;
        }
    }
    // A cancel that came after the last step began changes nothing: every step ran.
    state
}

fn set_status(job: &Job, index: usize, status: &'static str, result: Option<Value>) {
    if let Some(step) = lock(&job.steps).get_mut(index) {
        step.status = status;
        if result.is_some() {
            step.result = result;
        }
    }
}

fn mark_rest(job: &Job, from: usize, status: &'static str) {
    for step in lock(&job.steps).iter_mut().skip(from) {
        step.status = status;
    }
}

fn job_not_found(id: &str) -> ToolError {
    ToolError::new(
        Code::InvalidParams,
        format!("there is no job {id:?}"),
        "list the jobs (candor jobs, GET /v1/jobs)",
    )
}
