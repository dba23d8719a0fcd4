//! Chromium on the desktop: `navigate_browser` starts it on the web fixture,
//! the page's content is in the `u` tree, `include_dom` lists the page's
//! elements on screen where AT-SPI has them, and clicks by `#d` and by `#u`
//! both act — also after the window moved; a `#d` handle whose element left
//! the page is stale.

use std::time::Duration;

use axsight_browser::Browser;
use axsight_session::{ActOptions, ClickOptions, NavigateRequest, Target, TreeOutput, TreeRequest};

use crate::support;
use crate::Session;

const LOAD: Duration = Duration::from_secs(30);

fn navigate(url: &str) -> NavigateRequest {
    NavigateRequest {
        url: Some(url.to_string()),
        timeout: LOAD,
        ..NavigateRequest::default()
    }
}

async fn tree_with_dom(session: &Session, window: &str) -> String {
    let request = TreeRequest {
        window: Some(window.to_string()),
        include_dom: true,
        ..TreeRequest::default()
    };
    match session.window_tree(&request, false).await.unwrap() {
        TreeOutput::Text(text) => text,
        TreeOutput::Json(_) => panic!("text was asked for"),
    }
}

/// The handle and box on the first line holding `needle` (of a section's text).
fn handle_and_box(text: &str, needle: &str) -> (String, [i32; 4]) {
    let line = text
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"));
    let handle = line.split_whitespace().next().unwrap().to_string();
    let inside = line.rsplit_once('[').unwrap().1;
    let numbers: Vec<i32> = inside
        .split([',', ']'])
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    (handle, [numbers[0], numbers[1], numbers[2], numbers[3]])
}

/// The browser this process started, reached through its own DevTools port.
async fn our_browser() -> Browser {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let prefix = format!("axsight-browser-{}-", std::process::id());
    // The newest: an earlier test's browser may not have had its profile
    // removed yet, and its port answers nothing.
    let profile = std::fs::read_dir(&runtime)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter(|e| e.path().join("DevToolsActivePort").exists())
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
        .expect("the profile of the browser the session started")
        .path();
    let port = std::fs::read_to_string(profile.join("DevToolsActivePort")).unwrap();
    let mut lines = port.lines();
    let url = format!(
        "ws://127.0.0.1:{}{}",
        lines.next().unwrap(),
        lines.next().unwrap()
    );
    Browser::attach(&url).await.unwrap()
}

#[tokio::test]
async fn a_page_is_read_from_the_dom_and_clicked_by_d_and_u_handles() {
    let _turn = crate::turn().await;
    let base = crate::web_fixtures::serve_web_fixtures();
    let session = Session::watching();
    let options = ActOptions::default();

    let opened = session
        .navigate(&navigate(&format!("{base}/index.html")))
        .await
        .unwrap();
    assert!(opened.starts_with("started the browser on"), "{opened}");
    // The page's content is in the accessibility tree.
    assert!(
        opened.contains("[Document] axsight web fixture"),
        "{opened}"
    );
    assert!(opened.contains("[Button] Go"), "{opened}");
    let window = opened
        .split("in '")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .unwrap()
        .to_string();

    let tree = tree_with_dom(&session, &window).await;
    let dom = tree
        .split("- dom ")
        .nth(1)
        .unwrap_or_else(|| panic!("no dom section:\n{tree}"));
    assert!(
        !tree.contains(support::SECRET),
        "the password leaked:\n{tree}"
    );
    assert!(dom.contains("[textbox] \"Password\" (password)"), "{dom}");
    for needle in [
        "\"Shadow button\"",
        "\"Inside frame\" ",
        "[tooltip] \"Portal tooltip\"",
    ] {
        assert!(dom.contains(needle), "{needle} missing:\n{dom}");
    }
    // The DOM's boxes are where AT-SPI has the same elements, and point at them.
    let (go, go_box) = handle_and_box(dom, "[button] \"Go\"");
    let (go_tree, go_tree_box) = handle_and_box(&tree, "[Button] Go (");
    assert!(go.starts_with("#d"), "{dom}");
    assert!(
        go_box
            .iter()
            .zip(go_tree_box)
            .all(|(a, b)| (a - b).abs() <= 1),
        "DOM {go_box:?} vs AT-SPI {go_tree_box:?}"
    );
    assert!(
        dom.lines()
            .any(|l| l.contains("\"Go\"") && l.ends_with(&format!("= {go_tree}"))),
        "{dom}"
    );
    // A link points at the link, not at the text inside it.
    let (link_tree, _) = handle_and_box(&tree, "[Link] Second page (");
    assert!(
        dom.lines()
            .any(|l| l.contains("[link]") && l.ends_with(&format!("= {link_tree}"))),
        "{dom}"
    );

    // Both kinds of handle act.
    let clicked = session
        .click(
            &Target::Handle(go.clone()),
            &ClickOptions::default(),
            &options,
        )
        .await
        .unwrap();
    assert!(clicked.contains("Go clicked"), "{clicked}");
    let (count, _) = handle_and_box(&tree, "[Button] Count (");
    let counted = session
        .click(&Target::Handle(count), &ClickOptions::default(), &options)
        .await
        .unwrap();
    assert!(counted.contains("Count 1"), "{counted}");
    // Handles stay: a second read gives Go the same number.
    let again = tree_with_dom(&session, &window).await;
    assert_eq!(
        handle_and_box(again.split("- dom ").nth(1).unwrap(), "[button] \"Go\"").0,
        go
    );

    // The window moves; the old #d handle still lands on its element.
    let browser = our_browser().await;
    let target = browser.pages().await.unwrap()[0].target.clone();
    browser.move_window(&target, 200, 120).await.unwrap();
    let moved = support::wait_until(Duration::from_secs(10), || async {
        let tree = match session
            .window_tree(
                &TreeRequest {
                    window: Some(window.clone()),
                    ..TreeRequest::default()
                },
                false,
            )
            .await
        {
            Ok(TreeOutput::Text(text)) => text,
            _ => return None,
        };
        let (_, b) = handle_and_box(&tree, "[Button] Go (");
        (b[0] != go_tree_box[0]).then_some(b)
    })
    .await
    .expect("the window moved");
    let clicked = session
        .click(
            &Target::Handle(go.clone()),
            &ClickOptions::default(),
            &options,
        )
        .await
        .unwrap();
    assert!(clicked.contains("Go clicked"), "{clicked}");
    let (x, y) = clicked
        .split("with the pointer at (")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|p| p.split_once(", "))
        .map(|(x, y)| (x.parse::<i32>().unwrap(), y.parse::<i32>().unwrap()))
        .unwrap_or_else(|| panic!("not a pointer click: {clicked}"));
    assert!(
        (moved[0]..moved[0] + moved[2]).contains(&x)
            && (moved[1]..moved[1] + moved[3]).contains(&y),
        "clicked at ({x}, {y}), Go is now at {moved:?}"
    );

    // Zoomed in (ctrl+plus, 110 %), the page's boxes grow with the device
    // pixel ratio and still sit where AT-SPI has them.
    session
        .press_key("ctrl+plus", Some(&Target::Handle(go.clone())), &options)
        .await
        .unwrap();
    let zoomed = support::wait_until(Duration::from_secs(10), || async {
        let tree = tree_with_dom(&session, &window).await;
        let (_, dom_box) = handle_and_box(tree.split("- dom ").nth(1)?, "[button] \"Go\"");
        (dom_box[2] > go_box[2]).then_some(tree)
    })
    .await
    .expect("the page zoomed in");
    let (_, zoomed_dom) = handle_and_box(zoomed.split("- dom ").nth(1).unwrap(), "[button] \"Go\"");
    let (_, zoomed_tree) = handle_and_box(&zoomed, "[Button] Go (");
    assert!(
        zoomed_dom
            .iter()
            .zip(zoomed_tree)
            .all(|(a, b)| (a - b).abs() <= 1),
        "zoomed: DOM {zoomed_dom:?} vs AT-SPI {zoomed_tree:?}"
    );
    assert_eq!(zoomed_dom[2], 110, "{zoomed_dom:?}");

    // Following the link, the old page's handle is stale; back returns.
    let (link, _) = handle_and_box(dom, "[link] \"Second page\"");
    session
        .click(&Target::Handle(link), &ClickOptions::default(), &options)
        .await
        .unwrap();
    let stale = session
        .click(&Target::Handle(go), &ClickOptions::default(), &options)
        .await
        .unwrap_err()
        .to_string();
    assert!(stale.contains("stale"), "{stale}");
    let back = session
        .navigate(&NavigateRequest {
            history: Some(axsight_browser::HistoryMove::Back),
            timeout: LOAD,
            ..NavigateRequest::default()
        })
        .await
        .unwrap();
    assert!(back.starts_with("went back to"), "{back}");
    assert!(back.contains("[Document] axsight web fixture"), "{back}");
}

/// A tree read of a Chromium window (the one titled `window`, or its app's).
fn chromium_request(window: Option<&str>) -> TreeRequest {
    TreeRequest {
        app: Some("chrom".into()),
        window: window.map(str::to_string),
        ..TreeRequest::default()
    }
}

/// The text of [`chromium_request`]'s read.
async fn chromium_tree(session: &Session, window: Option<&str>) -> String {
    match session
        .window_tree(&chromium_request(window), false)
        .await
        .unwrap()
    {
        TreeOutput::Text(text) => text,
        TreeOutput::Json(_) => panic!("text was asked for"),
    }
}

/// The ticker page's tick, and how long ago it ticked (ms).
async fn ticked(page: &axsight_browser::Page) -> (u64, f64) {
    let now = page
        .evaluate("[tick, performance.now() - tickAt]")
        .await
        .unwrap();
    (now[0].as_u64().unwrap(), now[1].as_f64().unwrap())
}

/// The tick and the mover's offset from the anchor, as one tree read shows them.
fn tick_and_offset(tree: &str) -> (u64, i32) {
    let tick = tree
        .lines()
        .find_map(|l| l.split("Tick ").nth(1))
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no tick in:\n{tree}"));
    let (_, anchor) = handle_and_box(tree, "[Button] Anchor (");
    let (_, mover) = handle_and_box(tree, "[Button] Mover (");
    (tick, mover[0] - anchor[0])
}

/// Reads the ticker window back to back for `how_long` (those more than
/// `CHANGE_QUIET` after a tick are answered from memory): each read the page
/// was still for shows the page as it was when the read began, its tick and its
/// mover's box agreeing; at least `ticks` different ticks are seen so.
async fn reads_follow_the_ticker<F, R>(
    read: &F,
    page: &axsight_browser::Page,
    how_long: Duration,
    ticks: usize,
) where
    F: Fn(Option<&'static str>) -> R,
    R: std::future::Future<Output = String>,
{
    let mut ticks_seen = std::collections::BTreeSet::new();
    let until = std::time::Instant::now() + how_long;
    while std::time::Instant::now() < until {
        let (before, still_ms) = ticked(page).await;
        let tree = read(Some("Ticker")).await;
        let (after, _) = ticked(page).await;
        // Chromium hands a tick to its accessibility tree a little after the
        // page made it, and a read that a tick fell into may hold some of each
        // (or neither: the paragraph between losing its old text and gaining
        // the new); a read the page was still for (the kind answered from
        // memory) shows the page as it is, whole.
        let still = still_ms > axsight_browser::CHANGE_QUIET.as_millis() as f64;
        if still && before == after {
            let (tick, offset) = tick_and_offset(&tree);
            assert_eq!(tick, before, "the page said {before}:\n{tree}");
            assert_eq!(offset, (tick % 10) as i32 * 20, "tick {tick}:\n{tree}");
            ticks_seen.insert(tick);
        }
    }
    assert!(
        ticks_seen.len() >= ticks,
        "still reads of ticks: {ticks_seen:?}"
    );
}

#[tokio::test]
async fn a_page_that_changes_itself_and_a_tab_swap_are_never_read_stale() {
    let _turn = crate::turn().await;
    let base = crate::web_fixtures::serve_web_fixtures();
    let session = Session::watching();
    let opened = session
        .navigate(&navigate(&format!("{base}/ticker.html")))
        .await
        .unwrap();
    assert!(opened.contains("[Button] Mover"), "{opened}");
    let browser = our_browser().await;
    let ticker = browser.pages().await.unwrap()[0].target.clone();
    let page = browser.page(&ticker).await.unwrap();
    let read = |window: Option<&'static str>| chromium_tree(&session, window);

    reads_follow_the_ticker(&read, &page, Duration::from_secs(6), 4).await;

    // A tab swap sends no accessibility event: the window's tree follows it.
    let opened = session
        .navigate(&NavigateRequest {
            new_tab: true,
            ..navigate(&format!("{base}/second.html"))
        })
        .await
        .unwrap();
    assert!(opened.contains("[Document] Second page"), "{opened}");
    let second = browser
        .pages()
        .await
        .unwrap()
        .into_iter()
        .find(|p| p.title == "Second page")
        .expect("the new tab")
        .target;
    for (target, shows, hides) in [
        (&ticker, "[Button] Mover", "[Button] Back home"),
        (&second, "[Button] Back home", "[Button] Mover"),
    ] {
        browser.activate(target).await.unwrap();
        let shown = support::wait_until(Duration::from_secs(10), || async {
            let tree = read(None).await;
            tree.contains(shows).then_some(tree)
        })
        .await
        .unwrap_or_else(|| panic!("the tab with {shows} did not show"));
        assert!(!shown.contains(hides), "{shown}");
        // Read on past the pages' quiet time (`CHANGE_QUIET`), so that later
        // reads are answered from memory: still the shown tab.
        let until = std::time::Instant::now() + axsight_browser::CHANGE_QUIET * 3;
        while std::time::Instant::now() < until {
            let again = read(None).await;
            assert!(again.contains(shows) && !again.contains(hides), "{again}");
        }
    }
}

/// A loopback port that forwards each connection to `to` after `delay`: a
/// browser slow to answer, as on a loaded machine.
fn slow_forwarder(to: u16, delay: Duration) -> u16 {
    use std::net::{Shutdown, TcpListener, TcpStream};
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for client in listener.incoming().map_while(Result::ok) {
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                let Ok(browser) = TcpStream::connect(("127.0.0.1", to)) else {
                    return;
                };
                let (Ok(mut asked), Ok(mut asking)) = (client.try_clone(), browser.try_clone())
                else {
                    return;
                };
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut asked, &mut asking);
                    let _ = asking.shutdown(Shutdown::Write);
                });
                let (mut answers, mut answered) = (browser, client);
                let _ = std::io::copy(&mut answers, &mut answered);
                let _ = answered.shutdown(Shutdown::Both);
            });
        }
    });
    port
}

/// A Chromium that someone else started with a DevTools port, attached to
/// through `--browser-url` (behind a forwarder slower than a read waits for):
/// tree reads attach to it, it vouches for its window as one axsight started
/// does, and the reads stay true to a page that changes itself.
#[tokio::test]
async fn an_attached_chromium_vouches_for_its_window_and_is_never_read_stale() {
    let _turn = crate::turn().await;
    let base = crate::web_fixtures::serve_web_fixtures();
    let profile = std::env::temp_dir().join(format!("axsight-attached-{}", std::process::id()));
    let chromium = axsight_browser::find_chromium().expect("Chromium is installed");
    let child = std::process::Command::new(chromium)
        .args(axsight_browser::chromium_flags())
        .args(axsight_browser::accessibility_flags(&profile))
        .arg(format!("{base}/ticker.html"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("Chromium starts");
    // Ends the browser and its profile however the test ends.
    struct Started(std::process::Child, std::path::PathBuf);
    impl Drop for Started {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
            let _ = std::fs::remove_dir_all(&self.1);
        }
    }
    let started = Started(child, profile.clone());
    let pid = started.0.id();
    let port_file = profile.join("DevToolsActivePort");
    let port = support::wait_until(Duration::from_secs(20), || async {
        let text = std::fs::read_to_string(&port_file).ok()?;
        let mut lines = text.lines();
        Some((lines.next()?.to_string(), lines.next()?.to_string()))
    })
    .await
    .expect("Chromium wrote its DevTools port");
    let real_port: u16 = port.0.parse().expect("a port number");
    let slow = slow_forwarder(real_port, axsight_session::READ_ATTACH_DEADLINE * 3);
    let session = Session::watching().with_grounding(axsight_session::Grounding {
        browser: axsight_session::BrowserSetup {
            attach_url: Some(format!("http://127.0.0.1:{slow}")),
            ..axsight_session::BrowserSetup::default()
        },
        ..axsight_session::Grounding::default()
    });
    let read = |window: Option<&'static str>| chromium_tree(&session, window);
    let engine = session.engine().await.unwrap();
    // Reads alone attach; a read waits for the attach only briefly, and a
    // later read takes up one still under way (a loaded machine's browser is
    // slow to answer).
    support::wait_until(LOAD, || async {
        let request = chromium_request(Some("Ticker"));
        let shown = matches!(
            session.window_tree(&request, false).await,
            Ok(TreeOutput::Text(text)) if text.contains("[Button] Mover")
        );
        let witness = engine.take_witness(pid)?;
        engine.add_witness(pid, witness);
        shown.then_some(())
    })
    .await
    .expect("the ticker page in Chromium's tree, and the attached browser vouching for its window");

    let page_port = format!("ws://127.0.0.1:{}{}", port.0, port.1);
    let browser = Browser::attach(&page_port).await.unwrap();
    assert_eq!(
        browser.process_id(),
        Some(pid),
        "the browser names its process"
    );
    let ticker = browser.pages().await.unwrap()[0].target.clone();
    let page = browser.page(&ticker).await.unwrap();
    reads_follow_the_ticker(&read, &page, Duration::from_secs(5), 3).await;
    drop(started);
}
