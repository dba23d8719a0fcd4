//! The MCP tool server: argument handling and result shaping only. What a tool does
//! lives in [`Session`]. The reading tools are here, the acting ones in [`acting`].
//! Every tool call comes in through [`AxsightServer::call_checked`], which checks
//! its arguments against the tool's schema first.

mod acting;
mod browsing;
mod client_model;
mod confirm;
#[cfg(test)]
mod fuzz_arguments;
pub(crate) mod protocol;
mod recording;
mod sequence;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState, ToolCallContext};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, Implementation, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler};

use crate::arguments::ToolArguments;
use crate::params::{FindArgs, Format, TreeArgs, ValidateArgs};
use axsight_core::Engine;
use axsight_session::{
    Findings, Grounding, Session, ToolError, TreeOutput, TreeRequest, VisionChannel,
};

/// What the server tells an agent once, at connection: handles, selectors, ranks.
pub const INSTRUCTIONS: &str = "\
axsight shows the Linux desktop as accessibility trees. get_window_tree prints one element per line: \
`#u14 [Button] Save (focused, [x,y,w,h])` (screen pixels), indented by depth. A handle like #u14 names that \
element for the whole session; pass it as `from` or `index`. `…+N` marks N deeper elements left out; \
a closing `[cut: …]` line says how to read the rest. Selectors: `role:Button && name:Save` (name is \
exact, case-insensitive; a selector that finds nothing names the elements close to it), \
`text:\"Save as\"` (substring of name/value/description), `||`, `!`, \
parentheses, `A >> B` (B inside A), `nth:0` / `nth:-1`, `visible:true`, `enabled:true`, \
`state:checked`. Prefer handles and selectors from the tree over screen coordinates. Actions \
(click_element, type_into_element, press_key…) answer with what changed once the UI settled: \
added/removed/changed lines with handles usable at once, so a new screenshot or tree is rarely needed. \
An action's target is one of: `selector` (narrowed by `app`/`window`), `index` (a handle such as \
\"#u14\", or a number with `vision_type`; \"#u14@120,45\" is the point 120 right of and 45 below \
#u14's top-left corner, for a canvas), or `x`+`y` screen pixels. A stale handle is refused; when its \
element was found again the refusal names its new handle, and `heal: true` acts on it and says so. \
`ui_diff_before_after: false` \
skips the diff; `timeout_ms` bounds the wait for the UI (default 5000). Where the tree is silent \
(an icon view, a sheet's grid, a canvas, a window of an app without accessibility), the tree holds \
what OCR reads there as #o lines, and actions there answer with what changed in the pixels \
(`pixels changed in [x,y,w,h]: now reads \"23\"`); type_into_element types keys into a focused grid. \
get_window_tree's include_ocr, include_detector and include_vision add \
sections with #o (OCR text), #m (detected controls) and #v (a vision model's elements) handles that \
click_element takes; one marked `= #u14` is that tree element: use the tree's handle. In \
browsers, navigate_browser opens pages and include_dom adds the page's elements with #d handles. \
Prefer, in order: tree, DOM, detector or vision, OCR, coordinates.";

/// What the audit log says a call answered: its text, or its error.
fn answer_text(response: &Result<CallToolResponse, ErrorData>) -> String {
    match response {
        Ok(CallToolResponse::Complete(result)) => result
            .content
            .iter()
            .find_map(|block| block.as_text().map(|t| t.text.clone()))
            .unwrap_or_default(),
        Ok(_) => "waiting for the client's answer".to_string(),
        Err(error) => error.message.to_string(),
    }
}

/// The axsight MCP server, over engine `E`.
pub struct AxsightServer<E: Engine> {
    session: Arc<Session<E>>,
    /// The tools, shared by every session's server (an idle session costs
    /// none of their schemas).
    tool_router: Arc<ToolRouter<AxsightServer<E>>>,
    /// Each tool's argument rules, from its schema as schemars wrote it.
    arguments: Arc<ToolArguments>,
    /// Where acting calls are recorded, when `serve --audit-log` asks.
    audit: Option<Arc<crate::audit::AuditLog>>,
    /// This session's budget of acting calls (`serve --rate-limit`).
    acting_budget: Option<Arc<crate::acting_budget::ActingBudget>>,
    /// What cannot be undone asks the person first (`serve --confirm`).
    confirm: bool,
}

impl<E: Engine> Clone for AxsightServer<E> {
    fn clone(&self) -> Self {
        AxsightServer {
            session: self.session.clone(),
            tool_router: self.tool_router.clone(),
            arguments: self.arguments.clone(),
            audit: self.audit.clone(),
            acting_budget: self.acting_budget.clone(),
            confirm: self.confirm,
        }
    }
}

impl<E: Engine> AxsightServer<E> {
    /// A server over its own session, which watches the desktop's events.
    pub fn new() -> AxsightServer<E> {
        AxsightServer::with_grounding(Grounding::default())
    }

    /// A server whose detector and vision endpoint are `grounding`'s.
    pub fn with_grounding(grounding: Grounding) -> AxsightServer<E> {
        AxsightServer::serving(Session::watching().with_grounding(grounding))
    }

    /// A server of `session`'s tools.
    pub fn serving(session: Session<E>) -> AxsightServer<E> {
        let mut tool_router = Self::routes();
        // The check reads the schemas with their unions and aliases; clients get
        // them compact and portable.
        let arguments = ToolArguments::new(
            tool_router
                .map
                .iter()
                .map(|(name, route)| (name.as_ref(), route.attr.input_schema.as_ref())),
        );
        for route in tool_router.map.values_mut() {
            let schema = Arc::make_mut(&mut route.attr.input_schema);
            crate::schema::compact(schema);
        }
        AxsightServer {
            session: Arc::new(session),
            tool_router: Arc::new(tool_router),
            arguments: Arc::new(arguments),
            audit: None,
            acting_budget: None,
            confirm: false,
        }
    }

    /// Every tool's route, its schema as schemars wrote it.
    fn routes() -> ToolRouter<Self> {
        Self::tool_router()
            + Self::acting_router()
            + Self::grounding_router()
            + Self::browsing_router()
            + Self::recording_router()
            + Self::sequence_router()
    }

    /// The tool reference (docs/tools.md) for the tools this server lists, with
    /// the examples of `examples_json` (docs/tool-examples.json).
    pub fn tools_reference(
        &self,
        examples_json: &str,
    ) -> Result<String, crate::reference::ReferenceError> {
        let schemars = Self::routes();
        let tools: Vec<crate::reference::ListedTool> = self
            .tool_router
            .list_all()
            .into_iter()
            .map(|tool| crate::reference::ListedTool {
                schemars: schemars
                    .get(&tool.name)
                    .map(|raw| raw.input_schema.as_ref().clone())
                    .unwrap_or_default(),
                listed: serde_json::to_value(&tool).unwrap_or_default(),
            })
            .collect();
        crate::reference::render(&tools, examples_json)
    }

    /// Calls a tool with its arguments checked against its schema first: the one
    /// way a tool is called, by a client or by a step of a sequence. Arguments
    /// that do not fit are the tool's error (a result the agent reads, as the MCP
    /// specification asks for input errors); an unknown tool is a protocol error.
    pub(crate) async fn call_checked(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The router's tools, not the rules': a policy may offer fewer.
        if self.tool_router.get(&request.name).is_none() {
            if !crate::tool_policy::is_tool(&request.name) {
                return Err(protocol::unknown_tool(&request.name));
            }
            let refused = protocol::tool_not_offered(&request.name);
            if let Some(log) = &self.audit {
                log.record(&crate::audit::AuditEntry {
                    tool: &request.name,
                    arguments: &request.arguments.clone().unwrap_or_default(),
                    answer: &refused.message,
                    ok: false,
                    took: std::time::Duration::ZERO,
                });
            }
            return Err(refused);
        }
        let mut arguments = request.arguments.take().unwrap_or_default();
        if let Err(why) = self.arguments.check(&request.name, &mut arguments) {
            return Ok(CallToolResponse::Complete(failure(
                ToolError::BadArguments(why),
            )));
        }
        let acting = self.tool_router.get(&request.name).is_some_and(|tool| {
            tool.annotations.as_ref().and_then(|a| a.read_only_hint) != Some(true)
        });
        let audited = self
            .audit
            .as_ref()
            .filter(|_| acting)
            .map(|log| (log.clone(), arguments.clone()));
        let tool = request.name.to_string();
        request.arguments = Some(arguments);
        let started = std::time::Instant::now();
        let question = match self.confirm {
            true => confirm::question(
                &tool,
                request
                    .arguments
                    .as_ref()
                    .unwrap_or(&serde_json::Map::new()),
            ),
            false => None,
        };
        // Refused before it runs: the person said no, or no budget is left.
        let mut refused = None;
        if let Some(question) = question {
            let call = format!(
                "{tool} {}",
                serde_json::Value::Object(request.arguments.clone().unwrap_or_default())
            );
            let state = request.request_state.take();
            let responses = request.input_responses.take();
            match confirm::confirm(&call, &question, state, responses, &context).await {
                confirm::Confirmation::Yes => {}
                confirm::Confirmation::AskInResult(ask) => {
                    return Ok(CallToolResponse::InputRequired(ask))
                }
                confirm::Confirmation::Refused(why) => refused = Some(why),
            }
        }
        if refused.is_none() && acting {
            refused = self
                .acting_budget
                .as_ref()
                .and_then(|budget| budget.take().err());
        }
        let response = match refused {
            Some(why) => Ok(CallToolResponse::Complete(failure(ToolError::NotAllowed(
                why,
            )))),
            None => {
                self.tool_router
                    .call(ToolCallContext::new(self, request, context))
                    .await
            }
        };
        if let Some((log, arguments)) = audited {
            let ok = match &response {
                Ok(CallToolResponse::Complete(result)) => result.is_error != Some(true),
                Ok(_) => true,
                Err(_) => false,
            };
            log.record(&crate::audit::AuditEntry {
                tool: &tool,
                arguments: &arguments,
                answer: &answer_text(&response),
                ok,
                took: started.elapsed(),
            });
        }
        response
    }

    /// This server recording every acting call in `log`, which other servers
    /// (HTTP sessions) may share.
    pub fn with_audit(mut self, log: Arc<crate::audit::AuditLog>) -> AxsightServer<E> {
        self.audit = Some(log);
        self
    }

    /// Checks `arguments` for `tool` as [`Self::call_checked`] would, and puts
    /// them in the form its handler takes.
    pub(crate) fn check_arguments(
        &self,
        tool: &str,
        arguments: &mut serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), String> {
        self.arguments.check(tool, arguments)
    }
}

impl<E: Engine> AxsightServer<E> {
    /// This server offering only the tools `policy` offers: the others are
    /// neither listed nor callable, and a call of one is refused as the
    /// policy's (see `call_checked`).
    pub fn offering(mut self, policy: &crate::ToolPolicy) -> AxsightServer<E> {
        let left_out: Vec<String> = self
            .tool_names()
            .into_iter()
            .filter(|name| !policy.offers(name))
            .collect();
        let router = Arc::make_mut(&mut self.tool_router);
        for name in left_out {
            router.remove_route(&name);
        }
        self
    }

    /// A server of `session`'s own with this one's tools, argument rules and
    /// audit log, shared: what each HTTP session gets.
    pub fn with_session(&self, session: Session<E>) -> AxsightServer<E> {
        AxsightServer {
            session: Arc::new(session),
            tool_router: self.tool_router.clone(),
            arguments: self.arguments.clone(),
            audit: self.audit.clone(),
            // A budget of its own.
            acting_budget: self
                .acting_budget
                .as_ref()
                .map(|budget| Arc::new(budget.afresh())),
            confirm: self.confirm,
        }
    }

    /// This server asking the person before what cannot be undone.
    pub fn confirming(mut self, confirm: bool) -> AxsightServer<E> {
        self.confirm = confirm;
        self
    }

    /// This server allowing `per_minute` acting calls a minute (`None`: any).
    pub fn with_acting_limit(mut self, per_minute: Option<u32>) -> AxsightServer<E> {
        self.acting_budget =
            per_minute.map(|n| Arc::new(crate::acting_budget::ActingBudget::new(n)));
        self
    }

    /// The names of the tools this server offers.
    pub fn tool_names(&self) -> Vec<String> {
        self.tool_router
            .list_all()
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect()
    }

    /// This server with only its reading tools (`serve --read-only`).
    pub fn read_only(self) -> AxsightServer<E> {
        self.offering(&crate::ToolPolicy::read_only())
    }
}

impl<E: Engine> Default for AxsightServer<E> {
    fn default() -> Self {
        AxsightServer::new()
    }
}

fn text(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// A failed call as a tool result the agent reads (not a protocol error).
fn failure(error: ToolError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error.to_string())])
}

/// A text answer or a failure, as a tool result.
fn answer(result: Result<String, ToolError>) -> CallToolResult {
    result.map_or_else(failure, text)
}

#[tool_router]
impl<E: Engine> AxsightServer<E> {
    #[tool(
        description = "List applications on the desktop and their windows.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_applications(&self) -> Result<CallToolResult, ErrorData> {
        Ok(self.session.applications().await.map_or_else(failure, text))
    }

    #[tool(
        description = "A window's accessibility tree, a #u handle per element (default: the active window).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_window_tree(
        &self,
        Parameters(args): Parameters<TreeArgs>,
        context: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let request = TreeRequest {
            app: args.app,
            window: args.window,
            from: args.from.map(crate::params::tree_handle),
            selector: args.selector,
            max_depth: args.max_depth,
            max_chars: args.max_chars,
            include_invisible: args.include_invisible,
            include_ocr: args.include_ocr,
            include_detector: args.include_detector,
            include_vision: args.include_vision,
            include_dom: args.include_dom,
            fall_through: args.fall_through,
        };
        let json = args.format == Format::Json;
        let vision = match self.vision_channel(&context, state, responses) {
            Ok(vision) => vision,
            Err(error) => return Ok(CallToolResponse::Complete(failure(error))),
        };
        let result = match self
            .session
            .window_tree_seen_by(&request, json, &vision)
            .await
        {
            Ok(TreeOutput::Text(tree)) => text(tree),
            Ok(TreeOutput::Json(value)) => {
                // Structured content only, with a one-line text pointer: never the
                // same tree twice in one answer.
                let mut result = text("The tree is in structuredContent.".into());
                result.structured_content = Some(value);
                result
            }
            Err(ToolError::NeedsClientModel(question)) => {
                return Ok(CallToolResponse::InputRequired(client_model::ask_client(
                    &self.session,
                    &question,
                )))
            }
            Err(error) => failure(error),
        };
        Ok(CallToolResponse::Complete(result))
    }

    #[tool(
        description = "Find elements matching a selector, in an app, a window or all.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_elements(
        &self,
        Parameters(args): Parameters<FindArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let limit = args.max_results.unwrap_or(50).max(1);
        let found = self
            .session
            .find(
                &args.selector,
                args.app.as_deref(),
                args.window.as_deref(),
                limit,
            )
            .await;
        Ok(match found {
            Err(error) => failure(error),
            Ok(findings) if findings.total == 0 => text(format!(
                "No element matches `{}`{}.",
                args.selector.trim(),
                findings.close
            )),
            Ok(Findings { found, total, .. }) => {
                let mut out = String::new();
                let mut last_window = None;
                for item in &found {
                    let window = (&item.app, &item.window);
                    if last_window != Some(window) {
                        out.push_str(&format!("in '{}' ({}):\n", item.window, item.app));
                        last_window = Some(window);
                    }
                    out.push_str(&format!("  {}\n", item.line));
                }
                if total > found.len() {
                    out.push_str(&format!(
                        "[{} more matches; narrow the selector or raise max_results]\n",
                        total - found.len()
                    ));
                }
                text(out)
            }
        })
    }

    #[tool(
        description = "Whether an element (selector or handle) exists, its states; a text's runs, caret, selection. Not found is no error.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn validate_element(
        &self,
        Parameters(args): Parameters<ValidateArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(match validate(&self.session, args).await {
            Ok(answer) => text(answer),
            Err(error) => failure(error),
        })
    }
}

impl<E: Engine> AxsightServer<E> {
    /// How this call reaches a vision model: with the answer it brings back,
    /// through the client's model when the client offers sampling, else
    /// through the configured endpoint.
    fn vision_channel(
        &self,
        context: &RequestContext<RoleServer>,
        state: Option<String>,
        responses: Option<rmcp::model::InputResponses>,
    ) -> Result<VisionChannel, ToolError> {
        if let Some(answer) = client_model::client_answer(&self.session, state, responses)? {
            return Ok(VisionChannel::Answered(answer));
        }
        let sampling = context
            .client_capabilities()
            .is_some_and(|caps| caps.sampling.is_some());
        if !sampling {
            return Ok(self.session.configured_vision());
        }
        // From 2026-07-28 a server may not send requests of its own: it asks in
        // its result, and the client calls again with the answer.
        let asks_in_results = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        Ok(if asks_in_results {
            VisionChannel::AskClient
        } else {
            VisionChannel::Client(Arc::new(client_model::SamplingModel(context.peer.clone())))
        })
    }
}

async fn validate<E: Engine>(
    session: &Session<E>,
    args: ValidateArgs,
) -> Result<String, ToolError> {
    match (&args.selector, &args.index) {
        (Some(selector), None) => {
            let findings = session
                .find(selector, args.app.as_deref(), args.window.as_deref(), 1)
                .await?;
            Ok(match findings.found.first() {
                Some(item) => exists(session, item).await,
                None => format!(
                    "not found: no element matches `{}`{}",
                    selector.trim(),
                    findings.close
                ),
            })
        }
        (None, Some(index)) => {
            let handle = index
                .handle_text(args.vision_type.as_deref())
                .map_err(ToolError::BadArguments)?;
            Ok(match session.validate_handle(&handle).await? {
                Some(item) => exists(session, &item).await,
                None => {
                    format!("not found: {handle} is gone (its element or window no longer exists)")
                }
            })
        }
        _ => Err(ToolError::BadArguments(
            "give exactly one of `selector` or `index`".into(),
        )),
    }
}

/// `validate_element`'s answer for an element found: its line, and a text's
/// length, formatting runs, caret and selection below it.
async fn exists<E: Engine>(session: &Session<E>, item: &axsight_session::Found) -> String {
    let mut out = format!("exists: {} in '{}' ({})", item.line, item.window, item.app);
    if let Some(element) = &item.element {
        for line in session.text_lines(element).await {
            out.push('\n');
            out.push_str(&line);
        }
    }
    out
}

#[tool_handler(router = self.tool_router)]
impl<E: Engine> ServerHandler for AxsightServer<E> {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call_checked(request, context).await
    }

    /// rmcp reads a request whose method it does not know, or whose params do
    /// not fit its method, as a custom request; this server serves none.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(protocol::unread_request(&request))
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("axsight", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}
