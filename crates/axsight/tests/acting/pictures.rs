//! Screenshots: the right region and size, the scale that maps pixels back, and
//! marks that line up with the elements' boxes.

use axsight_core::{Bounds, Point};
use axsight_linux::LinuxEngine;
use axsight_session::{ShotRequest, TreeOutput, TreeRequest};

use crate::support;
use crate::Session;

/// The box printed on the first tree line containing `needle`, and its handle.
fn element(tree: &str, needle: &str) -> (String, Bounds) {
    let line = tree
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?} in:\n{tree}"));
    let handle = line.split_whitespace().next().unwrap().to_string();
    let numbers: Vec<i32> = line
        .rsplit_once('[')
        .and_then(|(_, b)| b.split_once(']'))
        .map(|(b, _)| b.split(',').map(|n| n.parse().unwrap()).collect())
        .unwrap();
    let bounds = Bounds {
        x: numbers[0],
        y: numbers[1],
        width: numbers[2],
        height: numbers[3],
    };
    (handle, bounds)
}

/// Whether the picture has the tree's mark colour at or next to (x, y).
fn marked_near(image: &image::RgbImage, x: i64, y: i64) -> bool {
    let blue = image::Rgb([0, 90, 230]);
    (-1..=1).any(|dx| {
        (-1..=1).any(|dy| {
            let (px, py) = (x + dx, y + dy);
            px >= 0
                && py >= 0
                && (px as u32) < image.width()
                && (py as u32) < image.height()
                && *image.get_pixel(px as u32, py as u32) == blue
        })
    })
}

#[tokio::test]
async fn annotated_screenshots_mark_elements_where_they_are() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("pictures");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let request = TreeRequest {
        window: Some(title.clone()),
        ..TreeRequest::default()
    };
    let TreeOutput::Text(tree) = session.window_tree(&request, false).await.unwrap() else {
        panic!("text was asked for")
    };
    let (_, window) = element(&tree, "[Window]");
    let (_, count) = element(&tree, "[Button] Count");

    for max_dimension in [None, Some(400)] {
        let shot = session
            .screenshot(&ShotRequest {
                window: Some(title.clone()),
                annotate: true,
                max_dimension,
                ..ShotRequest::default()
            })
            .await
            .unwrap();
        let picture = &shot.picture;
        assert_eq!(
            picture.origin,
            Point {
                x: window.x,
                y: window.y
            }
        );
        let image = image::load_from_memory(&picture.bytes).unwrap().to_rgb8();
        assert_eq!(
            (image.width(), image.height()),
            (picture.width, picture.height)
        );
        let expected_width = match max_dimension {
            None => window.width as u32,
            Some(max) => max.min(window.width as u32),
        };
        assert_eq!(picture.width, expected_width, "{}", shot.caption);
        assert!(shot.caption.contains("elements marked"), "{}", shot.caption);
        // The Count button's box corners carry the mark's colour.
        let to_image = |x: i32, y: i32| {
            (
                ((x - window.x) as f64 * picture.scale).round() as i64,
                ((y - window.y) as f64 * picture.scale).round() as i64,
            )
        };
        let (left, top) = to_image(count.x, count.y);
        let (right, bottom) = to_image(count.x + count.width, count.y + count.height);
        for (x, y) in [
            (left, bottom - 1),
            (right - 1, bottom - 1),
            (right - 1, top),
        ] {
            assert!(
                marked_near(&image, x, y),
                "no mark at ({x}, {y}) with scale {}",
                picture.scale
            );
        }
        // The middle of the button is the button, not a mark.
        assert!(!marked_near(&image, (left + right) / 2, (top + bottom) / 2));
    }
}

#[tokio::test]
async fn regions_zoom_and_bad_requests() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("regions");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let region = Bounds {
        x: 10,
        y: 20,
        width: 120,
        height: 50,
    };
    let shot = session
        .screenshot(&ShotRequest {
            region: Some(region),
            zoom: Some(2.0),
            format: axsight_vision::Format::Jpeg,
            ..ShotRequest::default()
        })
        .await
        .unwrap();
    assert_eq!((shot.picture.width, shot.picture.height), (240, 100));
    assert_eq!(&shot.picture.bytes[..2], &[0xff, 0xd8]);
    assert!(
        shot.caption.contains("screen x = 10 + image x / 2"),
        "{}",
        shot.caption
    );

    let both = session
        .screenshot(&ShotRequest {
            region: Some(region),
            window: Some(title.clone()),
            ..ShotRequest::default()
        })
        .await
        .unwrap_err();
    assert!(both.to_string().contains("give one of"), "{both}");
    let off = session
        .screenshot(&ShotRequest {
            region: Some(Bounds {
                x: 100_000,
                y: 0,
                width: 10,
                height: 10,
            }),
            ..ShotRequest::default()
        })
        .await
        .unwrap_err();
    assert!(off.to_string().contains("off the"), "{off}");
}

#[tokio::test]
async fn ocr_lines_are_marked_in_their_own_colour() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("ocr marks");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let shot = session
        .screenshot(&ShotRequest {
            window: Some(title.clone()),
            annotate: true,
            include_ocr: true,
            ..ShotRequest::default()
        })
        .await
        .unwrap();
    // "; OCR read 30 lines: 12 marked with their #o handles, 18 are tree elements …"
    let read: usize = shot
        .caption
        .split("; ")
        .find_map(|part| part.strip_prefix("OCR read "))
        .and_then(|rest| rest.split_once(": "))
        .and_then(|(_, marked)| marked.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no OCR count in: {}", shot.caption));
    // Painted text (the canvas's) is in no tree element: it is marked.
    assert!(read >= 1, "{}", shot.caption);
    let image = image::load_from_memory(&shot.picture.bytes)
        .unwrap()
        .to_rgb8();
    let orange = image::Rgb([220, 90, 0]);
    let marked = image.pixels().filter(|p| **p == orange).count();
    assert!(
        marked > 100 * read,
        "{marked} orange pixels for {read} lines"
    );

    let refused = session
        .screenshot(&ShotRequest {
            include_ocr: true,
            ..ShotRequest::default()
        })
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("include_ocr"), "{refused}");
}

/// What OCR reads in a picture, lower-cased, its lines joined: the test's own
/// reading of what a screenshot shows.
fn read_picture(image: &image::RgbImage) -> String {
    let capture = axsight_core::Capture {
        origin: Point { x: 0, y: 0 },
        width: image.width(),
        height: image.height(),
        rgb: image.as_raw().clone(),
    };
    let options = axsight_vision::OcrOptions {
        runtime_library: support::venv_onnxruntime(),
        ..axsight_vision::OcrOptions::default()
    };
    axsight_vision::read_text(&capture, &options)
        .expect("OCR runs")
        .into_iter()
        .map(|line| line.text.to_lowercase())
        .collect::<Vec<_>>()
        .join("\n")
}

/// An annotated screenshot of the window `app` and `title` name keeps what it marks
/// readable: no two labels overlap, every label is inside the picture, and of
/// the element names OCR reads in the plain picture, as many are read in the
/// annotated one but for one in ten at most.
async fn labels_keep_the_window_readable(session: &Session, app: &str, title: Option<&str>) {
    let plain = ShotRequest {
        app: Some(app.to_string()),
        window: title.map(str::to_string),
        ..ShotRequest::default()
    };
    let annotated = ShotRequest {
        annotate: true,
        ..plain.clone()
    };
    let shot = session.screenshot(&annotated).await.unwrap();
    let picture = &shot.picture;
    let labels = &picture.drawn.labels;
    assert!(
        labels.len() >= 20,
        "{} labels: {}",
        labels.len(),
        shot.caption
    );
    for (i, a) in labels.iter().enumerate() {
        let inside = a.at.x0 >= 0
            && a.at.y0 >= 0
            && a.at.x1 <= i64::from(picture.width)
            && a.at.y1 <= i64::from(picture.height);
        assert!(inside, "{} lies outside the picture: {:?}", a.text, a.at);
        for b in &labels[i + 1..] {
            let apart = a.at.x1 <= b.at.x0
                || b.at.x1 <= a.at.x0
                || a.at.y1 <= b.at.y0
                || b.at.y1 <= a.at.y0;
            assert!(
                apart,
                "{} and {} overlap: {:?} {:?}",
                a.text, b.text, a.at, b.at
            );
        }
    }
    let TreeOutput::Text(tree) = session
        .window_tree(
            &TreeRequest {
                app: Some(app.to_string()),
                window: title.map(str::to_string),
                fall_through: Some(false),
                ..TreeRequest::default()
            },
            false,
        )
        .await
        .unwrap()
    else {
        panic!("text was asked for")
    };
    let names: Vec<String> = tree
        .lines()
        .filter(|l| l.contains("[Button]") || l.contains("[Menu]") || l.contains("[CheckBox]"))
        .filter_map(|l| l.split_once("] ").map(|(_, rest)| rest))
        .filter_map(|rest| rest.split(" (").next())
        .map(|name| name.trim().to_lowercase())
        .filter(|name| name.len() >= 3 && !name.starts_with('('))
        .collect();
    let bare = session.screenshot(&plain).await.unwrap();
    let decode = |bytes: &[u8]| image::load_from_memory(bytes).unwrap().to_rgb8();
    let before = read_picture(&decode(&bare.picture.bytes));
    let after = read_picture(&decode(&picture.bytes));
    let read_before: Vec<&String> = names
        .iter()
        .filter(|n| before.contains(n.as_str()))
        .collect();
    let still: Vec<&&String> = read_before
        .iter()
        .filter(|n| after.contains(n.as_str()))
        .collect();
    assert!(
        read_before.len() >= 5,
        "OCR read too few names at all: {read_before:?}"
    );
    let kept = std::env::temp_dir().join(format!("axsight-marks-{app}.png"));
    std::fs::write(&kept, &picture.bytes).unwrap();
    assert!(
        still.len() * 10 >= read_before.len() * 9,
        "the marks hide names: {} of {} still read; lost {:?} (the picture: {})",
        still.len(),
        read_before.len(),
        read_before
            .iter()
            .filter(|n| !after.contains(n.as_str()))
            .collect::<Vec<_>>(),
        kept.display()
    );
}

#[tokio::test]
async fn marks_leave_labels_apart_and_what_they_mark_readable() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let session = Session::watching();
    // A window of many kinds of controls, and a dense toolbar.
    let factory = support::widget_factory(&engine).await;
    session
        .activate_window(Some("gtk3-widget-factory"), None, &Default::default())
        .await
        .unwrap();
    labels_keep_the_window_readable(&session, "gtk3-widget-factory", None).await;
    drop(factory);
    let sheet = support::gnumeric(&engine).await;
    session
        .activate_window(None, Some(&sheet.title), &Default::default())
        .await
        .unwrap();
    labels_keep_the_window_readable(&session, "gnumeric", Some(&sheet.title)).await;
}
