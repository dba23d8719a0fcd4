//! `execute_sequence`: several tool calls in one, each dispatched through the
//! server's own tool router with its arguments as it would be called alone, and
//! one diff for the whole sequence.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axsight_core::Engine;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_router, ErrorData};
use serde_json::Value;

use super::{failure, text, AxsightServer};
use crate::params::{SequenceArgs, TargetArgs};
use crate::sequence::{first_handle, substitute, Plan, Step, StepKind};
use axsight_session::{Target, ToolError};

/// The argument that turns a step's own diff off: the sequence gives one diff.
const DIFF_ARGUMENT: &str = "ui_diff_before_after";

/// How one step ended.
struct StepOutcome {
    ok: bool,
    /// The step's answer, or its error.
    text: String,
}

#[tool_router(router = sequence_router, vis = "pub(crate)")]
impl<E: Engine> AxsightServer<E> {
    #[tool(
        description = "Run tool calls in order, in one call. Step: {tool, arguments} or {find: selector, app?, window?}; `as` names its handle (found or acted on) for `$name` later; optional, retries, delay_ms. stop_on_error (default true), include_tree. Answers a line per step, one diff.",
        annotations(open_world_hint = false, destructive_hint = true)
    )]
    async fn execute_sequence(
        &self,
        Parameters(args): Parameters<SequenceArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let plan = match self.plan(args) {
            Ok(plan) => plan,
            Err(why) if why.contains(crate::sequence::NOT_OFFERED) => {
                return Ok(failure(ToolError::NotAllowed(why)))
            }
            Err(why) => return Ok(failure(ToolError::BadArguments(why))),
        };
        let start = Instant::now();
        let first = plan.steps.iter().find_map(target_of);
        let started = match self.session.sequence_start(first.as_ref()).await {
            Ok(started) => started,
            Err(error) => return Ok(failure(error)),
        };
        let mut names: HashMap<String, String> = HashMap::new();
        let mut lines = Vec::with_capacity(plan.steps.len());
        let (mut done, mut failed) = (0, 0);
        // A failed step that is not optional makes the whole call an error.
        let mut required_failed = false;
        for (index, step) in plan.steps.iter().enumerate() {
            let began = Instant::now();
            let outcome = self.run_with_retries(step, &names, &context).await;
            let ms = began.elapsed().as_millis();
            let label = step_label(step);
            if outcome.ok {
                done += 1;
                if let (Some(name), Some(handle)) = (&step.name, first_handle(&outcome.text)) {
                    names.insert(name.clone(), handle);
                }
            } else {
                failed += 1;
                required_failed |= !step.optional;
            }
            let verdict = match (outcome.ok, step.optional) {
                (true, _) => String::new(),
                (false, true) => "FAILED (optional): ".into(),
                (false, false) => "FAILED: ".into(),
            };
            let mut body = outcome.text.trim_end().lines();
            let mut line = format!(
                "{}. {label}: {verdict}{} ({ms} ms)",
                index + 1,
                body.next().unwrap_or_default()
            );
            for more in body.take_while(|l| !is_diff_heading(l)) {
                line.push_str("\n   ");
                line.push_str(more);
            }
            lines.push(line);
            if !outcome.ok && !step.optional && plan.stop_on_error {
                let left = plan.steps.len() - index - 1;
                if left > 0 {
                    lines.push(format!("stopped: {left} steps after it were not run"));
                }
                break;
            }
        }
        // The settling note goes on a line of its own, after the steps.
        let head = format!(
            "sequence of {} steps: {done} done, {failed} failed, in {} ms\n{}\nafter the last step",
            plan.steps.len(),
            start.elapsed().as_millis(),
            lines.join("\n")
        );
        let answer = self
            .session
            .sequence_end(started, head, plan.include_tree)
            .await;
        Ok(match answer {
            Ok(answer) if required_failed => {
                CallToolResult::error(vec![rmcp::model::ContentBlock::text(answer)])
            }
            Ok(answer) => text(answer),
            Err(error) => failure(error),
        })
    }
}

impl<E: Engine> AxsightServer<E> {
    /// The sequence `args` asks for, every step checked before any runs.
    pub(super) fn plan(&self, args: SequenceArgs) -> Result<Plan, String> {
        let known: Vec<String> = self
            .tool_router
            .list_all()
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect();
        Plan::new(args, &known).and_then(|plan| self.checked(plan))
    }

    /// The plan with every step's arguments checked against its tool's schema,
    /// so a bad step refuses the sequence before any step runs.
    fn checked(&self, mut plan: Plan) -> Result<Plan, String> {
        for (index, step) in plan.steps.iter_mut().enumerate() {
            if let StepKind::Call { tool, arguments } = &mut step.kind {
                self.check_arguments(tool, arguments)
                    .map_err(|why| format!("step {}: {why}", index + 1))?;
            }
        }
        Ok(plan)
    }

    /// Runs a step, and again after `delay_ms` up to `retries` times while it fails.
    async fn run_with_retries(
        &self,
        step: &Step,
        names: &HashMap<String, String>,
        context: &RequestContext<RoleServer>,
    ) -> StepOutcome {
        let mut outcome = self.run_step(step, names, context).await;
        for _ in 0..step.retries {
            if outcome.ok {
                break;
            }
            // The agent's own pause between tries, not a wait for the UI.
            tokio::time::sleep(Duration::from_millis(step.delay_ms)).await;
            outcome = self.run_step(step, names, context).await;
        }
        outcome
    }

    async fn run_step(
        &self,
        step: &Step,
        names: &HashMap<String, String>,
        context: &RequestContext<RoleServer>,
    ) -> StepOutcome {
        match &step.kind {
            StepKind::Find {
                selector,
                app,
                window,
            } => match self
                .session
                .find(selector, app.as_deref(), window.as_deref(), 1)
                .await
            {
                Ok(findings) => match findings.found.first() {
                    Some(found) => StepOutcome {
                        ok: true,
                        text: format!("found {}", found.line),
                    },
                    None => StepOutcome {
                        ok: false,
                        text: ToolError::NoMatch {
                            selector: selector.trim().to_string(),
                            close: findings.close,
                        }
                        .to_string(),
                    },
                },
                Err(error) => StepOutcome {
                    ok: false,
                    text: error.to_string(),
                },
            },
            StepKind::Call { tool, arguments } => {
                let mut arguments = substitute(arguments, names);
                if self.takes_argument(tool, DIFF_ARGUMENT) {
                    arguments.insert(DIFF_ARGUMENT.into(), Value::Bool(false));
                }
                let params = CallToolRequestParams::new(tool.clone()).with_arguments(arguments);
                match self.call_checked(params, context.clone()).await {
                    Ok(CallToolResponse::Complete(result)) => StepOutcome {
                        ok: result.is_error != Some(true),
                        text: result_text(&result),
                    },
                    Ok(_) => StepOutcome {
                        ok: false,
                        text: format!("{tool} needs an answer from the client (its model's, or the person's yes), which a sequence cannot wait for: call it alone"),
                    },
                    Err(error) => StepOutcome {
                        ok: false,
                        text: error.message.to_string(),
                    },
                }
            }
        }
    }

    /// Whether the tool `name`'s input schema has the property `argument`.
    fn takes_argument(&self, name: &str, argument: &str) -> bool {
        self.tool_router.get(name).is_some_and(|tool| {
            tool.input_schema
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|properties| properties.contains_key(argument))
        })
    }
}

/// The target a step's arguments name, for noting the windows before it runs.
fn target_of(step: &Step) -> Option<Target> {
    match &step.kind {
        StepKind::Find {
            selector,
            app,
            window,
        } => Some(Target::Selector {
            selector: selector.clone(),
            app: app.clone(),
            window: window.clone(),
        }),
        StepKind::Call { arguments, .. } => {
            // A `$name` is not known yet; such a target waits for its step.
            let args: TargetArgs = serde_json::from_value(Value::Object(arguments.clone())).ok()?;
            let target = args.target_if_any().ok()??;
            match &target {
                Target::Handle(text) | Target::HealingHandle(text) if text.starts_with('$') => None,
                _ => Some(target),
            }
        }
    }
}

fn step_label(step: &Step) -> String {
    match &step.kind {
        StepKind::Call { tool, .. } => tool.clone(),
        StepKind::Find { .. } => "find".into(),
    }
}

/// The text of a tool result (its text blocks, joined).
fn result_text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A step's own diff would start here; the sequence prints one diff at the end.
fn is_diff_heading(line: &str) -> bool {
    matches!(line, "added:" | "removed:" | "changed:")
}
