//! The browser tools: `navigate_browser` and `execute_browser_script`.

use std::time::Duration;

use axsight_browser::HistoryMove;
use axsight_core::Engine;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router, ErrorData};

use super::{answer, AxsightServer};
use crate::params::{HistoryAction, NavigateArgs, ScriptArgs};
use axsight_session::NavigateRequest;

/// How long a page may take to load and show, unless `timeout_ms` says.
const DEFAULT_LOAD: Duration = Duration::from_secs(20);

#[tool_router(router = browsing_router, vis = "pub(crate)")]
impl<E: Engine> AxsightServer<E> {
    #[tool(
        description = "Open a URL (this or a new tab) or go back/forward/reload; answers with the page's tree once it shows. Uses axsight's browser, else one on screen (its address bar), else starts `browser`.",
        annotations(open_world_hint = true)
    )]
    async fn navigate_browser(
        &self,
        Parameters(args): Parameters<NavigateArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let request = NavigateRequest {
            url: args.url,
            new_tab: args.new_tab,
            history: args.action.map(|a| match a {
                HistoryAction::Back => HistoryMove::Back,
                HistoryAction::Forward => HistoryMove::Forward,
                HistoryAction::Reload => HistoryMove::Reload,
            }),
            browser: args.browser,
            app: args.app,
            window: args.window,
            include_dom: args.include_dom,
            timeout: args.timeout_ms.map_or(DEFAULT_LOAD, Duration::from_millis),
        };
        Ok(answer(self.session.navigate(&request).await))
    }

    #[tool(
        description = "Run JavaScript in a browser's page; answers its value as JSON. Off unless serve --allow-browser-script.",
        annotations(open_world_hint = true)
    )]
    async fn execute_browser_script(
        &self,
        Parameters(args): Parameters<ScriptArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(answer(
            self.session
                .run_browser_script(&args.script, args.app.as_deref(), args.window.as_deref())
                .await,
        ))
    }
}
