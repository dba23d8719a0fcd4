//! The acting tools: each takes its arguments apart, calls the session, and turns
//! the answer (or the error) into a tool result.

use std::time::Duration;

use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_router, ErrorData};

use super::{answer, failure, AxsightServer};
use crate::params::{
    ActArgs, ActionArgs, ClickArgs, ClipboardArgs, DescribeArgs, DragArgs, KeyArgs, MoveArgs,
    OpenArgs, ResizeArgs, ScrollArgs, SelectArgs, SetValueArgs, ShotArgs, ToggleArgs, TypeArgs,
    WaitArgs, WindowArgs, WindowStateArgs,
};
use axsight_core::{Engine, Placement};
use axsight_session::{ClickOptions, Condition, ShotRequest, ToolError};
use rmcp::model::ContentBlock;

#[tool_router(router = acting_router, vis = "pub(crate)")]
impl<E: Engine> AxsightServer<E> {
    #[tool(
        description = "Click an element: the real pointer when on screen, else (covered, or background) its accessible action. Answers with what changed.",
        annotations(open_world_hint = false)
    )]
    async fn click_element(
        &self,
        Parameters(args): Parameters<ClickArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let run = async {
            let target = args.target.target()?;
            let click = ClickOptions {
                button: args
                    .button
                    .as_deref()
                    .unwrap_or("left")
                    .parse()
                    .map_err(ToolError::BadArguments)?,
                count: match args.click_type.as_deref().map(str::trim) {
                    None | Some("single") | Some("") => 1,
                    Some("double") => 2,
                    Some(other) => {
                        return Err(ToolError::BadArguments(format!(
                            "unknown click_type '{other}'; use single or double"
                        )))
                    }
                },
                modifiers: args
                    .modifiers
                    .as_ref()
                    .map(|m| m.modifiers())
                    .transpose()?
                    .unwrap_or_default(),
                background: args.background,
            };
            self.session
                .click(&target, &click, &args.act.options())
                .await
        };
        Ok(answer(run.await))
    }

    #[tool(
        description = "Type text (emptied first by default), then trailing {Enter}/{Tab}; reads it back. No target, or a grid/canvas: keys to the focus.",
        annotations(open_world_hint = false)
    )]
    async fn type_into_element(
        &self,
        Parameters(args): Parameters<TypeArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let run = async {
            let target = args.target.target_if_any()?;
            let clear = args.clear_before_typing.unwrap_or(true);
            self.session
                .type_into(target.as_ref(), &args.text, clear, &args.act.options())
                .await
        };
        Ok(answer(run.await))
    }

    #[tool(
        description = "Press keys (after `text`) in the target, else the focused window.",
        annotations(open_world_hint = false)
    )]
    async fn press_key(
        &self,
        Parameters(args): Parameters<KeyArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let run = async {
            let target = args.target.target_if_any()?;
            self.session
                .press(
                    args.text.as_deref(),
                    args.key.as_deref(),
                    target.as_ref(),
                    &args.act.options(),
                )
                .await
        };
        Ok(answer(run.await))
    }

    #[tool(
        description = "Scroll an element by wheel notches.",
        annotations(open_world_hint = false)
    )]
    async fn scroll_element(
        &self,
        Parameters(args): Parameters<ScrollArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let run = async {
            let target = args.target.target()?;
            let direction = args.direction.parse().map_err(ToolError::BadArguments)?;
            self.session
                .scroll(
                    &target,
                    direction,
                    args.amount.unwrap_or(3),
                    args.background,
                    &args.act.options(),
                )
                .await
        };
        Ok(answer(run.await))
    }

    #[tool(
        description = "Set a slider's or spin button's number, or a field's text.",
        annotations(open_world_hint = false)
    )]
    async fn set_value(
        &self,
        Parameters(args): Parameters<SetValueArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let run = async {
            let target = args.target.target()?;
            self.session
                .set_value(&target, &(&args.value).into(), &args.act.options())
                .await
        };
        Ok(answer(run.await))
    }

    #[tool(
        description = "Select an option by its visible text in a combo box, list, tab list or tree.",
        annotations(open_world_hint = false)
    )]
    async fn select_option(
        &self,
        Parameters(args): Parameters<SelectArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let run = async {
            let target = args.target.target()?;
            self.session
                .select_option(&target, &args.option, &args.act.options())
                .await
        };
        Ok(answer(run.await))
    }

    #[tool(
        description = "Check (state=true) or uncheck a check box or toggle; nothing when it already is.",
        annotations(open_world_hint = false)
    )]
    async fn set_toggled(
        &self,
        Parameters(args): Parameters<ToggleArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let run = async {
            let target = args.target.target()?;
            self.session
                .set_toggled(&target, args.state, &args.act.options())
                .await
        };
        Ok(answer(run.await))
    }

    #[tool(
        description = "Run a named accessible action of an element (click, activate, expand…).",
        annotations(open_world_hint = false)
    )]
    async fn invoke_action(
        &self,
        Parameters(args): Parameters<ActionArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let run = async {
            let target = args.target.target()?;
            self.session
                .invoke_action(&target, &args.action, &args.act.options())
                .await
        };
        Ok(answer(run.await))
    }

    #[tool(
        description = "Drag the pointer from `from` to `to`.",
        annotations(open_world_hint = false)
    )]
    async fn mouse_drag(
        &self,
        Parameters(args): Parameters<DragArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let result = self
            .session
            .drag(&args.from.target(), &args.to.target(), &args.act.options())
            .await;
        Ok(answer(result))
    }

    #[tool(
        description = "Move a window (app/window): its content's top-left to x, y; width and height resize it. Answers its new bounds.",
        annotations(open_world_hint = false, destructive_hint = false)
    )]
    async fn move_window(
        &self,
        Parameters(args): Parameters<MoveArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let placement = match args.placement() {
            Ok(placement) => placement,
            Err(error) => return Ok(failure(error)),
        };
        self.place(args.app, args.window, placement, &args.act)
            .await
    }

    #[tool(
        description = "Resize a window's content (app/window) to width × height pixels. Answers its new bounds.",
        annotations(open_world_hint = false, destructive_hint = false)
    )]
    async fn resize_window(
        &self,
        Parameters(args): Parameters<ResizeArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let placement = Placement::Resize {
            width: args.width,
            height: args.height,
        };
        self.place(args.app, args.window, placement, &args.act)
            .await
    }

    #[tool(
        description = "Maximize a window (app/window); restore=true undoes it. Answers its new bounds.",
        annotations(open_world_hint = false, destructive_hint = false)
    )]
    async fn maximize_window(
        &self,
        Parameters(args): Parameters<WindowStateArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let placement = Placement::Maximize(!args.restore.unwrap_or(false));
        self.place(args.app, args.window, placement, &args.act)
            .await
    }

    #[tool(
        description = "Minimize a window (app/window); restore=true shows it again.",
        annotations(open_world_hint = false, destructive_hint = false)
    )]
    async fn minimize_window(
        &self,
        Parameters(args): Parameters<WindowStateArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let placement = Placement::Minimize(!args.restore.unwrap_or(false));
        self.place(args.app, args.window, placement, &args.act)
            .await
    }

    #[tool(
        description = "Read the clipboard's text, or set it to `text` or a handle's value (`from`); a password's copy is never shown.",
        annotations(open_world_hint = false, destructive_hint = false)
    )]
    async fn clipboard(
        &self,
        Parameters(args): Parameters<ClipboardArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let request = match args.request() {
            Ok(request) => request,
            Err(error) => return Ok(failure(error)),
        };
        Ok(answer(self.session.clipboard(&request).await))
    }

    #[tool(
        description = "Raise a window and give it the keyboard focus.",
        annotations(open_world_hint = false, destructive_hint = false)
    )]
    async fn activate_window(
        &self,
        Parameters(args): Parameters<WindowArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let result = self
            .session
            .activate_window(
                args.app.as_deref(),
                args.window.as_deref(),
                &args.act.options(),
            )
            .await;
        Ok(answer(result))
    }

    #[tool(
        description = "Start an app, wait for its window, return its tree.",
        annotations(open_world_hint = false, destructive_hint = false)
    )]
    async fn open_application(
        &self,
        Parameters(args): Parameters<OpenArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let timeout = Duration::from_millis(args.timeout_ms.unwrap_or(20_000).clamp(100, 120_000));
        Ok(answer(
            self.session.open_application(&args.app, timeout).await,
        ))
    }

    #[tool(
        description = "Ask a window to close, as its close button would.",
        annotations(open_world_hint = false)
    )]
    async fn close_window(
        &self,
        Parameters(args): Parameters<WindowArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let result = self
            .session
            .close_window(
                args.app.as_deref(),
                args.window.as_deref(),
                &args.act.options(),
            )
            .await;
        Ok(answer(result))
    }

    #[tool(
        description = "Wait until an element (selector or handle) meets `condition`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn wait_for_element(
        &self,
        Parameters(args): Parameters<WaitArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let run = async {
            let target = args.target.target()?;
            let condition = Condition::parse(args.condition.as_deref(), args.value.as_deref())
                .map_err(ToolError::BadArguments)?;
            let timeout =
                Duration::from_millis(args.timeout_ms.unwrap_or(10_000).clamp(0, 120_000));
            self.session.wait_for(&target, &condition, timeout).await
        };
        Ok(answer(run.await))
    }
}

/// The largest side of a screenshot when the caller gives none: about what vision
/// models take in before they scale down themselves.
const DEFAULT_MAX_DIMENSION: u32 = 1568;

#[tool_router(router = grounding_router, vis = "pub(crate)")]
impl<E: Engine> AxsightServer<E> {
    #[tool(
        description = "Find an element described in words: in the tree, else by OCR, else by a vision model.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_element(
        &self,
        Parameters(args): Parameters<DescribeArgs>,
        context: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let vision = match self.vision_channel(&context, state, responses) {
            Ok(vision) => vision,
            Err(error) => return Ok(CallToolResponse::Complete(failure(error))),
        };
        let found = self
            .session
            .find_described_seen_by(
                &args.description,
                args.app.as_deref(),
                args.window.as_deref(),
                &vision,
            )
            .await;
        Ok(match found {
            Err(ToolError::NeedsClientModel(question)) => CallToolResponse::InputRequired(
                super::client_model::ask_client(&self.session, &question),
            ),
            other => CallToolResponse::Complete(answer(other)),
        })
    }

    #[tool(
        description = "Screenshot of the screen, a window (app/window), an element (index) or a region.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn capture_screenshot(
        &self,
        Parameters(args): Parameters<ShotArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let run = async {
            let index = args
                .index
                .as_ref()
                .map(|i| i.handle_text(args.vision_type.as_deref()))
                .transpose()
                .map_err(ToolError::BadArguments)?;
            let request = ShotRequest {
                app: args.app,
                window: args.window,
                index,
                region: args.region.as_ref().map(|r| r.bounds()).transpose()?,
                format: args
                    .format
                    .as_deref()
                    .unwrap_or("png")
                    .parse()
                    .map_err(ToolError::BadArguments)?,
                max_dimension: match args.zoom {
                    Some(_) => None,
                    None => Some(args.max_dimension.unwrap_or(DEFAULT_MAX_DIMENSION)),
                },
                zoom: args.zoom,
                annotate: args.annotate,
                include_ocr: args.include_ocr,
                include_detector: args.include_detector,
            };
            self.session.screenshot(&request).await
        };
        Ok(match run.await {
            Ok(shot) => {
                use base64::Engine as _;
                let data = base64::engine::general_purpose::STANDARD.encode(&shot.picture.bytes);
                CallToolResult::success(vec![
                    ContentBlock::image(data, shot.picture.format.mime()),
                    ContentBlock::text(shot.caption),
                ])
            }
            Err(error) => super::failure(error),
        })
    }
}

impl<E: Engine> AxsightServer<E> {
    /// The window-placing tools' shared work.
    async fn place(
        &self,
        app: Option<String>,
        window: Option<String>,
        placement: Placement,
        act: &ActArgs,
    ) -> Result<CallToolResult, ErrorData> {
        if app.is_none() && window.is_none() {
            return Ok(failure(ToolError::BadArguments(
                "name the window with `app` and/or `window`".into(),
            )));
        }
        let result = self
            .session
            .place_window(app.as_deref(), window.as_deref(), placement, &act.options())
            .await;
        Ok(answer(result))
    }
}
