//! `record`: a person shows a job once; the plan that comes back is the tool
//! calls that do it again (`execute_sequence`'s steps, aimed by selector).

use std::time::SystemTime;

use axsight_core::Engine;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router, ErrorData};

use super::{answer, AxsightServer};
use crate::params::RecordArgs;
use axsight_session::{Plan, RecordOptions};

#[tool_router(router = recording_router, vis = "pub(crate)")]
impl<E: Engine> AxsightServer<E> {
    #[tool(
        description = "Record a person's clicks and keys (Wayland: what the tree shows) as tool calls; stop=true ends it and answers the plan for execute_sequence.",
        annotations(open_world_hint = false, destructive_hint = false)
    )]
    async fn record(
        &self,
        Parameters(args): Parameters<RecordArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if args.stop.unwrap_or(false) {
            let plan = self.session.stop_recording().await;
            return Ok(answer(plan.map(|plan| told(&plan))));
        }
        let options = RecordOptions {
            every_text_a_parameter: args.params.unwrap_or(false),
            // The agent stops it with `stop`.
            stop_key: None,
        };
        let started = self.session.start_recording(options).await;
        Ok(answer(started.map(|how| {
            format!(
                "recording (watching {how}): the person works in the apps now; record with \
                 stop: true ends it and answers the plan"
            )
        })))
    }
}

/// The plan's answer: its steps in words, then the plan itself as one line
/// of JSON.
fn told(plan: &Plan) -> String {
    let mut text = format!("recorded {} steps", plan.steps.len());
    if !plan.parameters.is_empty() {
        let names: Vec<String> = plan
            .parameters
            .iter()
            .map(|p| match p.secret {
                true => format!("${} (a secret, typed into {})", p.name, p.field),
                false => format!("${} (typed into {})", p.name, p.field),
            })
            .collect();
        text.push_str(&format!("; parameters: {}", names.join(", ")));
    }
    text.push('\n');
    for (index, step) in plan.described.iter().enumerate() {
        text.push_str(&format!("{}. {step}\n", index + 1));
    }
    for fragile in &plan.fragile {
        text.push_str(&format!("may miss on replay: {fragile}\n"));
    }
    text.push_str(
        "plan (its `steps` go to execute_sequence as they are, each $parameter replaced by its value):\n",
    );
    let recorded = crate::utc_time(SystemTime::now());
    text.push_str(&plan.to_json(&recorded).to_string());
    text
}
