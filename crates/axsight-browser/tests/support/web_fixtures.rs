//! A loopback HTTP server for the web fixtures, shared by the browser crate's
//! tests and the desktop's (each includes this file).

/// Serves `tests/fixtures/web/` on a loopback port for the rest of the test
/// process; the base URL. HTTP, not file://: Chromium gives every file an
/// origin of its own, and the fixture's frame must be same-origin.
pub fn serve_web_fixtures() -> String {
    use std::io::{BufRead, BufReader, Write};
    let root =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/web");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().expect("an address"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(&stream);
                let mut request = String::new();
                if reader.read_line(&mut request).is_err() {
                    return;
                }
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let path = request.split_whitespace().nth(1).unwrap_or("/");
                let name = path.trim_start_matches('/').split('?').next().unwrap_or("");
                let file = root.join(if name.is_empty() { "index.html" } else { name });
                let mut out = &stream;
                match std::fs::read(&file).ok().filter(|_| !name.contains("..")) {
                    Some(body) => {
                        let _ = write!(
                            out,
                            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                             Content-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        );
                        let _ = out.write_all(&body);
                    }
                    None => {
                        let _ = write!(
                            out,
                            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        );
                    }
                }
            });
        }
    });
    base
}
