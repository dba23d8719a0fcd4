//! One blocking exchange with an OpenAI-compatible chat-completions endpoint
//! (OpenAI, OpenRouter, Gemini's OpenAI layer, vLLM, llama.cpp's server, Ollama):
//! a prompt and a PNG in, the model's text out.
//!
//! The API key is read from a named environment variable at each call and goes
//! only into the `Authorization` header: no error, log or `Debug` output holds it,
//! and it is cut out of any server answer quoted in an error.

use std::io::ErrorKind;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};

use super::excerpt;

/// Where a vision model is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatEndpoint {
    /// The API's base, e.g. `https://api.openai.com/v1` or
    /// `http://127.0.0.1:8080/v1`; `/chat/completions` is added to it.
    pub base_url: String,
    /// The model's name as the endpoint knows it.
    pub model: String,
    /// The environment variable holding the API key, if the endpoint needs one.
    pub api_key_env: Option<String>,
}

/// Why an endpoint gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("the environment variable {0} (the vision model's API key) is not set or is empty")]
    MissingKey(String),
    #[error("the environment variable {0} (the vision model's API key) holds characters no HTTP header may carry")]
    BadKey(String),
    #[error("cannot connect to {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("{url} did not answer within {:.1} s", .timeout.as_secs_f64())]
    Timeout { url: String, timeout: Duration },
    #[error("{url} answered HTTP {status}: {excerpt}")]
    Status {
        url: String,
        status: u16,
        excerpt: String,
    },
    #[error("the request to {url} failed: {reason}")]
    Failed { url: String, reason: String },
    #[error("{url} did not answer with a chat completion: {reason}")]
    NotACompletion { url: String, reason: String },
}

/// How much of a server's answer an error quotes.
const EXCERPT: usize = 200;

/// Sends `prompt` and the picture `png` to `endpoint`'s model and returns the text
/// of its first choice. Blocks for the whole exchange, at most `timeout`: run it
/// off the async runtime (`spawn_blocking`).
///
/// The request is `POST {base_url}/chat/completions` with one user message of two
/// parts, the prompt and the PNG as a `data:` URL, at temperature 0 and at most
/// 4096 tokens; with `Authorization: Bearer` and the key from
/// `endpoint.api_key_env` when that is set. Any HTTP status but 2xx is an error
/// quoting the start of the answer.
pub fn ask_chat_endpoint(
    endpoint: &ChatEndpoint,
    png: &[u8],
    prompt: &str,
    timeout: Duration,
) -> Result<String, EndpointError> {
    let key = api_key(endpoint.api_key_env.as_deref())?;
    let url = format!(
        "{}/chat/completions",
        endpoint.base_url.trim_end_matches('/')
    );
    let body = request_body(&endpoint.model, png, prompt).to_string();

    let config = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        // A 4xx or 5xx answer's body says why; read it rather than lose it.
        .http_status_as_error(false)
        .build();
    let agent = ureq::Agent::new_with_config(config);
    let mut request = agent.post(&url).content_type("application/json");
    if let Some(key) = &key {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    let failure = |error| http_error(error, &url, timeout);
    let mut response = request.send(body).map_err(failure)?;
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().map_err(failure)?;
    // Some servers echo a wrong key back; it must not reach an error message.
    let text = match &key {
        Some(key) => text.replace(key.as_str(), "[API key]"),
        None => text,
    };
    if !(200..300).contains(&status) {
        return Err(EndpointError::Status {
            url,
            status,
            excerpt: excerpt(&text, EXCERPT),
        });
    }
    completion_text(&text).map_err(|reason| EndpointError::NotACompletion { url, reason })
}

/// The key from the variable named `variable`, if one is named.
fn api_key(variable: Option<&str>) -> Result<Option<String>, EndpointError> {
    let Some(variable) = variable else {
        return Ok(None);
    };
    let key = std::env::var(variable).unwrap_or_default();
    let key = key.trim();
    if key.is_empty() {
        return Err(EndpointError::MissingKey(variable.to_string()));
    }
    // Checked here so that the HTTP library never gets to report (or print) it.
    if !key.bytes().all(|byte| byte.is_ascii_graphic()) {
        return Err(EndpointError::BadKey(variable.to_string()));
    }
    Ok(Some(key.to_string()))
}

/// The chat-completions request: one user message, the prompt then the picture.
fn request_body(model: &str, png: &[u8], prompt: &str) -> Value {
    let picture = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png)
    );
    json!({
        "model": model,
        "messages": [{
            "role": "user",
            "content": [
                {"type": "text", "text": prompt},
                {"type": "image_url", "image_url": {"url": picture}},
            ],
        }],
        // A busy window lists a few hundred elements at ~25 tokens each.
        "max_tokens": 4096,
        // The same picture should give the same boxes.
        "temperature": 0,
    })
}

/// `choices[0].message.content` of a chat completion: a string, or the text parts
/// of an array joined.
fn completion_text(answer: &str) -> Result<String, String> {
    let value: Value = serde_json::from_str(answer)
        .map_err(|_| format!("not JSON: {}", excerpt(answer, EXCERPT)))?;
    let message = &value["choices"][0]["message"];
    match &message["content"] {
        Value::String(text) => Ok(text.clone()),
        Value::Array(parts) => Ok(parts
            .iter()
            .filter_map(|part| part.as_str().or_else(|| part["text"].as_str()))
            .collect::<Vec<_>>()
            .join("")),
        _ => Err(match (&value["error"]["message"], &message["refusal"]) {
            (Value::String(error), _) => format!("an error: {}", excerpt(error, EXCERPT)),
            (_, Value::String(refusal)) => format!("a refusal: {}", excerpt(refusal, EXCERPT)),
            _ => format!(
                "no choices[0].message.content in {}",
                excerpt(answer, EXCERPT)
            ),
        }),
    }
}

/// The error for a failed exchange with `url`.
fn http_error(error: ureq::Error, url: &str, timeout: Duration) -> EndpointError {
    let url = url.to_string();
    let connect = |reason: String| EndpointError::Connect {
        url: url.clone(),
        reason,
    };
    match error {
        ureq::Error::Timeout(_) => EndpointError::Timeout { url, timeout },
        ureq::Error::Io(error) if error.kind() == ErrorKind::TimedOut => {
            EndpointError::Timeout { url, timeout }
        }
        ureq::Error::Io(error)
            if matches!(
                error.kind(),
                ErrorKind::ConnectionRefused
                    | ErrorKind::AddrNotAvailable
                    | ErrorKind::NetworkUnreachable
                    | ErrorKind::HostUnreachable
            ) =>
        {
            connect(error.to_string())
        }
        ureq::Error::HostNotFound => connect("host not found".to_string()),
        ureq::Error::ConnectionFailed => connect("the connection failed".to_string()),
        ureq::Error::BadUri(_) => connect("not a valid http or https URL".to_string()),
        other => EndpointError::Failed {
            url,
            reason: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;
    use std::thread::{self, JoinHandle};

    use axsight_core::Bounds;
    use base64::engine::general_purpose::STANDARD;

    use super::*;
    use crate::parse_reply;

    /// What the test server read: the request line and headers, and the body.
    struct Received {
        head: String,
        body: String,
    }

    /// The value of the header `name` in `head`.
    fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then_some(value.trim())
        })
    }

    /// Reads one HTTP/1.1 request from the connection.
    fn read_request(reader: &mut impl BufRead) -> Received {
        let mut head = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).expect("a header line");
            if line.trim_end().is_empty() {
                break;
            }
            head.push_str(&line);
        }
        let length = header(&head, "content-length")
            .and_then(|value| value.parse::<usize>().ok())
            .expect("a Content-Length");
        let mut body = vec![0; length];
        reader.read_exact(&mut body).expect("the body");
        Received {
            head,
            body: String::from_utf8(body).expect("a UTF-8 body"),
        }
    }

    /// A server on a free local port that reads one request, answers it with
    /// `status` and `body`, and hands back what it read when joined.
    fn serve_once(status: &'static str, body: String) -> (String, JoinHandle<Received>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let base_url = format!("http://{}/v1/", listener.local_addr().expect("its address"));
        let server = thread::spawn(move || {
            let (stream, _) = listener.accept().expect("a connection");
            let mut reader = BufReader::new(stream);
            let received = read_request(&mut reader);
            let answer = format!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            reader
                .get_mut()
                .write_all(answer.as_bytes())
                .expect("the answer sent");
            received
        });
        (base_url, server)
    }

    fn endpoint(base_url: String, api_key_env: Option<&str>) -> ChatEndpoint {
        ChatEndpoint {
            base_url,
            model: "test-vision-model".to_string(),
            api_key_env: api_key_env.map(str::to_string),
        }
    }

    const SECONDS: Duration = Duration::from_secs(10);

    #[test]
    fn a_completion_round_trip_carries_prompt_picture_model_and_key() {
        let variable = "AXSIGHT_TEST_VISION_KEY_ROUND_TRIP";
        std::env::set_var(variable, "sk-test-0123456789");
        let content = "```json\n{\"elements\":[{\"role\":\"button\",\"label\":\"Save\",\"box\":[10,20,110,60]},{\"role\":\"text\",\"label\":\"Name\",\"box\":[200,100,300,120]}]}\n```";
        let completion = json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }],
        });
        let (base_url, server) = serve_once("200 OK", completion.to_string());
        // Not a real PNG: every byte value, to catch any mangling on the way.
        let png: Vec<u8> = (0..=255).collect();

        let reply = ask_chat_endpoint(
            &endpoint(base_url, Some(variable)),
            &png,
            "find the buttons",
            SECONDS,
        )
        .expect("a reply");
        let received = server.join().expect("the server thread");

        assert_eq!(reply, content);
        assert!(
            received
                .head
                .starts_with("POST /v1/chat/completions HTTP/1.1\r\n"),
            "{}",
            received.head
        );
        assert_eq!(
            header(&received.head, "authorization"),
            Some("Bearer sk-test-0123456789")
        );
        let body: Value = serde_json::from_str(&received.body).expect("a JSON body");
        assert_eq!(body["model"], "test-vision-model");
        assert_eq!(body["max_tokens"], 4096);
        assert_eq!(body["temperature"], 0);
        let parts = &body["messages"][0]["content"];
        assert_eq!(body["messages"][0]["role"], "user");
        assert_eq!(
            parts[0],
            json!({"type": "text", "text": "find the buttons"})
        );
        assert_eq!(parts[1]["type"], "image_url");
        let url = parts[1]["image_url"]["url"].as_str().expect("a data URL");
        let data = url
            .strip_prefix("data:image/png;base64,")
            .expect("a PNG data URL");
        assert_eq!(STANDARD.decode(data).expect("base64"), png);

        let seen = parse_reply(&reply, 400, 200).expect("elements");
        let boxes: Vec<Bounds> = seen.iter().map(|element| element.bounds).collect();
        assert_eq!(
            boxes,
            [
                Bounds {
                    x: 10,
                    y: 20,
                    width: 100,
                    height: 40
                },
                Bounds {
                    x: 200,
                    y: 100,
                    width: 100,
                    height: 20
                },
            ]
        );
    }

    #[test]
    fn no_key_header_without_a_key_variable() {
        let completion = json!({"choices": [{"message": {"content": [
            {"type": "text", "text": "[{\"box\":[1,1,5,5]}"},
            {"type": "text", "text": "]"},
        ]}}]});
        let (base_url, server) = serve_once("200 OK", completion.to_string());
        let reply = ask_chat_endpoint(&endpoint(base_url, None), b"png", "p", SECONDS);
        let received = server.join().expect("the server thread");
        assert_eq!(reply, Ok("[{\"box\":[1,1,5,5]}]".to_string()));
        assert_eq!(header(&received.head, "authorization"), None);
    }

    #[test]
    fn an_http_500_is_an_error_with_the_start_of_the_answer() {
        let answer = json!({"error": {"message": "model overloaded, try later"}});
        let (base_url, server) = serve_once("500 Internal Server Error", answer.to_string());
        let result = ask_chat_endpoint(&endpoint(base_url.clone(), None), b"png", "p", SECONDS);
        server.join().expect("the server thread");
        let Err(EndpointError::Status {
            url,
            status,
            excerpt,
        }) = result
        else {
            panic!("not a status error: {result:?}");
        };
        assert_eq!(url, format!("{base_url}chat/completions"));
        assert_eq!(status, 500);
        assert!(excerpt.contains("model overloaded"), "{excerpt}");
    }

    #[test]
    fn a_key_echoed_by_the_server_is_not_quoted() {
        let variable = "AXSIGHT_TEST_VISION_KEY_ECHOED";
        std::env::set_var(variable, "sk-wrong-abcdef");
        let answer = json!({"error": {"message": "Incorrect API key provided: sk-wrong-abcdef"}});
        let (base_url, server) = serve_once("401 Unauthorized", answer.to_string());
        let result = ask_chat_endpoint(&endpoint(base_url, Some(variable)), b"png", "p", SECONDS);
        server.join().expect("the server thread");
        let message = result.expect_err("a 401").to_string();
        assert!(message.contains("HTTP 401"), "{message}");
        assert!(message.contains("[API key]"), "{message}");
        assert!(!message.contains("sk-wrong-abcdef"), "{message}");
    }

    #[test]
    fn a_refused_connection_names_the_url() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let base_url = format!("http://{}/v1", listener.local_addr().expect("its address"));
        drop(listener);
        let result = ask_chat_endpoint(&endpoint(base_url.clone(), None), b"png", "p", SECONDS);
        let Err(EndpointError::Connect { url, .. }) = &result else {
            panic!("not a connect error: {result:?}");
        };
        assert_eq!(url, &format!("{base_url}/chat/completions"));
        assert!(result.expect_err("refused").to_string().contains(&base_url));
    }

    #[test]
    fn a_silent_server_times_out() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let base_url = format!("http://{}", listener.local_addr().expect("its address"));
        // Reads the request, never answers, and ends when the client hangs up.
        let server = thread::spawn(move || {
            let (stream, _) = listener.accept().expect("a connection");
            let mut reader = BufReader::new(stream);
            read_request(&mut reader);
            let _ = reader.read_to_end(&mut Vec::new());
        });
        let timeout = Duration::from_millis(300);
        let result = ask_chat_endpoint(&endpoint(base_url, None), b"png", "p", timeout);
        assert!(
            matches!(result, Err(EndpointError::Timeout { .. })),
            "{result:?}"
        );
        server.join().expect("the server thread");
    }

    #[test]
    fn a_named_key_variable_must_be_set() {
        let variable = "AXSIGHT_TEST_VISION_KEY_NEVER_SET";
        let endpoint = endpoint("http://127.0.0.1:9/v1".to_string(), Some(variable));
        let error = ask_chat_endpoint(&endpoint, b"png", "p", SECONDS).expect_err("no key");
        assert_eq!(error, EndpointError::MissingKey(variable.to_string()));
        assert!(error.to_string().contains(variable));
    }

    #[test]
    fn completion_text_reads_strings_parts_and_says_what_is_wrong() {
        let text = |value: Value| completion_text(&value.to_string());
        assert_eq!(
            text(json!({"choices": [{"message": {"content": "hi"}}]})),
            Ok("hi".to_string())
        );
        assert_eq!(
            text(
                json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "image"}, "b"]}}]})
            ),
            Ok("ab".to_string())
        );
        let refusal =
            text(json!({"choices": [{"message": {"content": null, "refusal": "I can't"}}]}));
        assert!(refusal.is_err_and(|reason| reason.contains("I can't")));
        let error = text(json!({"error": {"message": "bad model"}}));
        assert!(error.is_err_and(|reason| reason.contains("bad model")));
        let empty = text(json!({"choices": []}));
        assert!(empty.is_err_and(|reason| reason.contains("choices[0].message.content")));
        assert!(completion_text("<html>502</html>").is_err_and(|reason| reason.contains("502")));
    }
}
