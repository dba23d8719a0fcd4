//! What each command does. Reading goes through the same [`Session`] the MCP server
//! uses, so `axsight tree` prints exactly what an agent sees.

use crate::stdout::{out, outln};
mod acting;
mod bench;
mod completions;
mod doctor;
mod gnome_extension;
mod kde_authorize;
mod man;
mod recording;
mod serve;
mod shot;
mod xdg;

use anyhow::Context as _;
use std::process::ExitCode;

use axsight_linux::LinuxEngine;
use axsight_session::{BrowserSetup, Grounding, TreeOutput, TreeRequest};
use axsight_vision::{ChatEndpoint, DetectorOptions};

/// The session every command reads through: the Linux engine behind the same code
/// the MCP server runs.
pub(crate) type Session = axsight_session::Session<LinuxEngine>;

use crate::cli::{BenchCommand, Command, GroundingFlags};

pub async fn run(command: Command, flags: GroundingFlags) -> anyhow::Result<ExitCode> {
    let grounding = grounding(flags)?;
    let session = Session::new().with_grounding(grounding.clone());
    match command {
        Command::Apps { json } => {
            if json {
                let apps = session.engine().await?.applications().await?;
                outln!("{}", serde_json::to_string_pretty(&apps)?);
            } else {
                out!("{}", session.applications().await?);
            }
        }
        Command::Tree {
            app,
            window,
            json,
            max_depth,
            max_chars,
            include_invisible,
            include_ocr,
            include_detector,
            include_vision,
            include_dom,
        } => {
            let request = TreeRequest {
                app,
                window,
                max_depth,
                max_chars: Some(max_chars),
                include_invisible,
                include_ocr,
                include_detector,
                include_vision,
                include_dom,
                ..TreeRequest::default()
            };
            match session.window_tree(&request, json).await? {
                TreeOutput::Text(text) => out!("{text}"),
                TreeOutput::Json(value) => outln!("{}", serde_json::to_string_pretty(&value)?),
            }
        }
        Command::Find {
            selector,
            app,
            window,
        } => {
            let findings = session
                .find(&selector, app.as_deref(), window.as_deref(), usize::MAX)
                .await?;
            for item in &findings.found {
                outln!("{}  ({} / {})", item.line, item.app, item.window);
            }
            if findings.total == 0 {
                eprintln!("no element matches `{selector}`{}", findings.close);
                return Ok(ExitCode::from(1));
            }
        }
        Command::Click {
            target,
            scope,
            button,
            double,
            modifiers,
            background,
            act,
        } => {
            let click = acting::Click {
                button,
                double,
                modifiers,
                background,
            };
            return acting::click(&target, &scope, click, &act).await;
        }
        Command::Type {
            target,
            text,
            scope,
            append,
            act,
        } => return acting::type_text(&target, &text, &scope, append, &act).await,
        Command::Key {
            keys,
            target,
            scope,
            act,
        } => return acting::key(&keys, target.as_deref(), &scope, &act).await,
        Command::Shot {
            file,
            scope,
            index,
            region,
            max_dimension,
            zoom,
            annotate,
            include_ocr,
            include_detector,
        } => {
            let shot = shot::Shot {
                scope,
                index,
                region,
                max_dimension,
                zoom,
                annotate,
                include_ocr,
                include_detector,
            };
            return shot::run(&session, &file, shot).await;
        }
        Command::Doctor => return doctor::run().await,
        Command::Completions { shell } => return Ok(completions::print(shell)),
        Command::Man { dir } => return man::run(dir.as_deref()),
        Command::GnomeExtension { dir, shell_version } => {
            return gnome_extension::run(dir.as_deref(), shell_version)
        }
        Command::KdeAuthorize { dir, exec } => {
            return kde_authorize::run(dir.as_deref(), exec.as_deref())
        }
        Command::ToolsReference { examples } => {
            let examples = std::fs::read_to_string(&examples)
                .with_context(|| format!("cannot read {}", examples.display()))?;
            out!(
                "{}",
                axsight_mcp::AxsightServer::<LinuxEngine>::new().tools_reference(&examples)?
            );
        }
        Command::Record {
            out,
            params,
            stop_key,
        } => return recording::record(out, params, &stop_key).await,
        Command::Replay { plan, params } => {
            return recording::replay(&plan, &params, grounding).await
        }
        Command::Serve(flags) => serve::serve(flags, grounding).await?,
        Command::Bench {
            what: BenchCommand::Tree { apps, runs },
        } => bench::tree(&apps, runs).await?,
        Command::Bench {
            what: BenchCommand::Act { app, button, runs },
        } => bench::act(&app, &button, runs).await?,
        Command::Bench {
            what: BenchCommand::Clicks { app, buttons, runs },
        } => bench::clicks(&app, &buttons, runs).await?,
        Command::Bench {
            what:
                BenchCommand::Settle {
                    app,
                    button,
                    fields,
                    window,
                    runs,
                    undo,
                },
        } => {
            let targets = bench::SettleTargets::new(button, fields)?;
            bench::settle(&app, window.as_deref(), &targets, undo.as_deref(), runs).await?
        }
        Command::Bench {
            what:
                BenchCommand::Browser {
                    url,
                    browser,
                    other,
                    runs,
                },
        } => bench::browser(&url, &browser, &other, runs).await?,
        Command::Bench {
            what: BenchCommand::Sources { app, runs },
        } => bench::sources(&app, runs, grounding.detector.clone()).await?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The detector and vision endpoint the flags (or their variables) name.
fn grounding(flags: GroundingFlags) -> anyhow::Result<Grounding> {
    // Without a model named, the one the install scripts put in place.
    let model = flags
        .detector_model
        .or_else(axsight_vision::installed_detector_model);
    let detector = model.map(|model| DetectorOptions {
        runtime_library: flags.onnxruntime,
        input_size: flags.detector_size,
        min_confidence: flags.detector_confidence,
        ..DetectorOptions::new(model)
    });
    let vision_endpoint = match (flags.vision_url, flags.vision_model) {
        (Some(base_url), Some(model)) => Some(ChatEndpoint {
            base_url,
            model,
            api_key_env: flags.vision_key_env,
        }),
        (None, None) => None,
        (Some(_), None) => anyhow::bail!(
            "--vision-url needs --vision-model (or AXSIGHT_VISION_MODEL): the model's name at that endpoint"
        ),
        (None, Some(_)) => anyhow::bail!(
            "--vision-model needs --vision-url (or AXSIGHT_VISION_URL): the endpoint that serves it"
        ),
    };
    Ok(Grounding {
        detector,
        detector_idle: (flags.detector_idle > 0)
            .then(|| std::time::Duration::from_secs(flags.detector_idle)),
        vision_endpoint,
        browser: BrowserSetup {
            attach_url: flags.browser_url,
            allow_scripts: flags.allow_browser_script,
        },
        fall_through: match flags.no_fall_through {
            true => axsight_session::FallThrough::Off,
            false => axsight_session::FallThrough::On,
        },
    })
}
