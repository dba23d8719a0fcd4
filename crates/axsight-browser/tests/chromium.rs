//! The browser source against a real Chromium (headless: no desktop needed),
//! on the pages of `tests/fixtures/web/` served from loopback: reading a
//! page's elements through shadow roots and frames, keeping their numbers,
//! locating them, and navigating.

use std::net::TcpListener;
use std::time::Duration;

use axsight_browser::{find_chromium, Browser, DomSnapshot, HistoryMove, Page};

#[path = "support/web_fixtures.rs"]
mod web_fixtures;

use web_fixtures::serve_web_fixtures;

const SECRET: &str = "hunter2-SECRET";
const LOAD: Duration = Duration::from_secs(15);

async fn headless(url: &str) -> (Browser, Page) {
    let chromium = find_chromium().expect("Chromium is installed (scripts/install-deps)");
    let flags = [
        "--headless=new".to_string(),
        "--window-size=1200,900".to_string(),
    ];
    let browser = Browser::launch(&chromium, &flags, Some(url), &[])
        .await
        .unwrap();
    let target = browser.pages().await.unwrap()[0].target.clone();
    let page = browser.page(&target).await.unwrap();
    wait_for_title(&page, "axsight web fixture").await;
    (browser, page)
}

async fn wait_for_title(page: &Page, title: &str) {
    for _ in 0..200 {
        if page
            .evaluate("document.readyState === 'complete' && document.title")
            .await
            .ok()
            == Some(serde_json::json!(title))
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the page never showed {title:?}");
}

fn find<'a>(dom: &'a DomSnapshot, role: &str, name: &str) -> &'a axsight_browser::DomElement {
    dom.elements
        .iter()
        .find(|e| e.role == role && e.name == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in {:#?}", dom.elements))
}

#[tokio::test]
async fn a_page_is_read_through_shadow_roots_and_frames() {
    let base = serve_web_fixtures();
    let (_browser, page) = headless(&format!("{base}/index.html")).await;
    let dom = page.read_dom(300).await.unwrap();
    assert_eq!(dom.title, "axsight web fixture");

    let go = find(&dom, "button", "Go");
    assert_eq!(
        (go.rect.x, go.rect.y, go.rect.width, go.rect.height),
        (10.0, 60.0, 100.0, 32.0)
    );
    let name = find(&dom, "textbox", "Name");
    assert_eq!(name.placeholder.as_deref(), Some("Your name"));
    assert_eq!(name.value.as_deref(), Some(""));
    let password = find(&dom, "textbox", "Password");
    assert!(password.secret && password.value.is_none());
    assert_eq!(
        find(&dom, "combobox", "Fruit").value.as_deref(),
        Some("Apple")
    );
    find(&dom, "link", "Second page");
    // Inside an open shadow root, and inside a same-origin frame (at its
    // place in the top page).
    find(&dom, "button", "Shadow button");
    let inside = find(&dom, "button", "Inside frame");
    assert_eq!(
        (inside.rect.x, inside.rect.y, inside.frame),
        (340.0, 350.0, 1)
    );
    // The tooltip rendered far from its anchor.
    let tip = find(&dom, "tooltip", "Portal tooltip");
    assert_eq!((tip.rect.x, tip.rect.y), (600.0, 560.0));
    let all = format!("{dom:?}");
    assert!(!all.contains(SECRET), "the password leaked");

    // Numbers stay with their elements across reads.
    let again = page.read_dom(300).await.unwrap();
    assert_eq!(find(&again, "button", "Go").id, go.id);
    let (rect, ratio) = page.locate(go.id).await.unwrap().expect("Go is there");
    assert_eq!((rect.x, rect.y, ratio), (10.0, 60.0, 1.0));

    // A budget cuts the list and says how many were left out.
    let cut = page.read_dom(3).await.unwrap();
    assert_eq!(cut.elements.len(), 3);
    assert!(cut.more > 10, "{}", cut.more);
}

#[tokio::test]
async fn pages_navigate_and_their_elements_go_stale() {
    let base = serve_web_fixtures();
    let (_browser, page) = headless(&format!("{base}/index.html")).await;
    let go = find(&page.read_dom(300).await.unwrap(), "button", "Go").id;

    page.navigate(&format!("{base}/second.html"), LOAD)
        .await
        .unwrap();
    let second = page.read_dom(300).await.unwrap();
    assert_eq!(second.title, "Second page");
    find(&second, "button", "Back home");
    // The old document's button is gone: located as nothing, not guessed.
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

    // A missing page (an empty 404) and a closed port are errors that say so.
    let missing = page
        .navigate(&format!("{base}/nowhere.html"), LOAD)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("nowhere.html") && missing.contains("RESPONSE_CODE"),
        "{missing}"
    );
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let closed = page
        .navigate(&format!("http://127.0.0.1:{port}/"), LOAD)
        .await
        .unwrap_err();
    assert!(
        closed.to_string().contains("ERR_CONNECTION_REFUSED"),
        "{closed}"
    );

    let error = page.evaluate("no_such_function()").await.unwrap_err();
    assert!(error.to_string().contains("no_such_function"), "{error}");
}
