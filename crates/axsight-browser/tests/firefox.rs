//! The browser source against a real Firefox over WebDriver BiDi (headless:
//! no desktop needed), on the pages of `tests/fixtures/web/` served from
//! loopback: the same page reader and locator as Chromium's, navigation and
//! history, a tab, scripts and their errors, and the profile left behind.

use std::net::TcpListener;
use std::time::Duration;

use axsight_browser::{find_firefox, Browser, DomSnapshot, HistoryMove, Page, Protocol};

#[path = "support/web_fixtures.rs"]
mod web_fixtures;

use web_fixtures::serve_web_fixtures;

const SECRET: &str = "hunter2-SECRET";
const LOAD: Duration = Duration::from_secs(15);

async fn headless(url: &str) -> (Browser, Page) {
    let firefox = find_firefox().expect("Firefox is installed (scripts/install-deps)");
    let flags = [
        "--headless".to_string(),
        "--width=1200".to_string(),
        "--height=900".to_string(),
    ];
    let browser = Browser::launch(&firefox, &flags, Some(url), &[])
        .await
        .unwrap();
    assert_eq!(browser.protocol(), Protocol::Bidi);
    let target = browser.pages().await.unwrap()[0].target.clone();
    let page = browser.page(&target).await.unwrap();
    page.wait_loaded(LOAD).await.unwrap();
    (browser, page)
}

fn find<'a>(dom: &'a DomSnapshot, role: &str, name: &str) -> &'a axsight_browser::DomElement {
    dom.elements
        .iter()
        .find(|e| e.role == role && e.name == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in {:#?}", dom.elements))
}

#[tokio::test]
async fn a_firefox_page_is_read_and_located_like_chromiums() {
    let base = serve_web_fixtures();
    let (browser, page) = headless(&format!("{base}/index.html")).await;
    let pages = browser.pages().await.unwrap();
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].title, "axsight web fixture");
    assert_eq!(pages[0].url, format!("{base}/index.html"));

    let dom = page.read_dom(300).await.unwrap();
    assert_eq!(dom.title, "axsight web fixture");
    let go = find(&dom, "button", "Go");
    assert_eq!(
        (go.rect.x, go.rect.y, go.rect.width, go.rect.height),
        (10.0, 60.0, 100.0, 32.0)
    );
    let password = find(&dom, "textbox", "Password");
    assert!(password.secret && password.value.is_none());
    find(&dom, "button", "Shadow button");
    let inside = find(&dom, "button", "Inside frame");
    assert_eq!(
        (inside.rect.x, inside.rect.y, inside.frame),
        (340.0, 350.0, 1)
    );
    assert!(!format!("{dom:?}").contains(SECRET), "the password leaked");

    let again = page.read_dom(300).await.unwrap();
    assert_eq!(find(&again, "button", "Go").id, go.id);
    let (rect, ratio) = page.locate(go.id).await.unwrap().expect("Go is there");
    assert_eq!((rect.x, rect.y, ratio), (10.0, 60.0, 1.0));

    // Scripts answer plain JSON, statements included; errors say what failed.
    let value = page
        .evaluate("var n = 2; ({ n: n + 1, list: [document.title], none: undefined })")
        .await
        .unwrap();
    assert_eq!(
        value,
        serde_json::json!({"n": 3, "list": ["axsight web fixture"], "none": null})
    );
    let error = page.evaluate("no_such_function()").await.unwrap_err();
    assert!(error.to_string().contains("no_such_function"), "{error}");
}

#[tokio::test]
async fn a_firefox_tab_navigates_moves_through_history_and_opens_tabs() {
    let base = serve_web_fixtures();
    let (browser, page) = headless(&format!("{base}/index.html")).await;
    let go = find(&page.read_dom(300).await.unwrap(), "button", "Go").id;

    let none = page
        .move_in_history(HistoryMove::Back, LOAD)
        .await
        .unwrap_err();
    assert_eq!(
        none.to_string(),
        "there is no page to go back to in this tab"
    );

    page.navigate(&format!("{base}/second.html"), LOAD)
        .await
        .unwrap();
    let second = page.read_dom(300).await.unwrap();
    assert_eq!(second.title, "Second page");
    assert_eq!(page.locate(go).await.unwrap(), None);

    page.move_in_history(HistoryMove::Back, LOAD).await.unwrap();
    assert_eq!(
        page.read_dom(300).await.unwrap().title,
        "axsight web fixture"
    );
    page.move_in_history(HistoryMove::Forward, LOAD)
        .await
        .unwrap();
    assert_eq!(page.read_dom(300).await.unwrap().title, "Second page");
    page.move_in_history(HistoryMove::Reload, LOAD)
        .await
        .unwrap();
    assert_eq!(page.read_dom(300).await.unwrap().title, "Second page");

    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let closed = page
        .navigate(&format!("http://127.0.0.1:{port}/"), LOAD)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        closed,
        format!("navigation to http://127.0.0.1:{port}/ failed: NS_ERROR_CONNECTION_REFUSED")
    );

    let tab = browser
        .open_tab(&format!("{base}/login.html"))
        .await
        .unwrap();
    browser.activate(&tab).await.unwrap();
    let titles: Vec<String> = browser
        .pages()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.title)
        .collect();
    assert!(titles.contains(&"Sign in".to_string()), "{titles:?}");
}

#[tokio::test]
async fn a_started_firefox_ends_with_its_browser_content_processes_and_all() {
    let base = serve_web_fixtures();
    let (browser, _page) = headless(&format!("{base}/second.html")).await;
    let pid = browser.pid().expect("a started browser has a process");
    assert!(browser.alive().await);
    assert!(
        !content_processes_of(pid).is_empty(),
        "Firefox has no content process"
    );
    drop(browser);
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    // Its content processes notice and leave: poll, within a deadline.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !content_processes_of(pid).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "content processes outlived Firefox: {:?}",
            content_processes_of(pid)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The live processes Firefox `pid` started for its content (`-parentPid PID`).
fn content_processes_of(pid: u32) -> Vec<u32> {
    let marker = format!("-parentPid\0{pid}\0");
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|child| {
            let cmdline = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
            let zombie = std::fs::read_to_string(format!("/proc/{child}/stat"))
                .is_ok_and(|s| s.rsplit(") ").next().is_some_and(|r| r.starts_with('Z')));
            !zombie && String::from_utf8_lossy(&cmdline).contains(&marker)
        })
        .collect()
}
