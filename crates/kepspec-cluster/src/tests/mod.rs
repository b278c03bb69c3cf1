//! Integration tests of the embedded apiserver over HTTP.

mod access;
mod apply;
mod bad_input;
mod client;
mod deletion;
mod ephemeral;
mod fuzz;
mod in_process;
mod kinds;
mod kubectl;
mod patches;
mod protobuf;
mod python;
mod robustness;
mod stale;
mod watches;

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use super::{ClusterConfig, EmbeddedCluster};

/// A cluster without the node simulator.
pub(crate) async fn cluster() -> EmbeddedCluster {
    cluster_with(ClusterConfig {
        run_nodes: false,
        ..Default::default()
    })
    .await
}

/// A cluster with a custom config.
pub(crate) async fn cluster_with(cfg: ClusterConfig) -> EmbeddedCluster {
    EmbeddedCluster::start(cfg).await.unwrap()
}

/// A raw HTTP/1.1 response.
#[derive(Debug)]
pub(crate) struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    /// A header's value (names are lowercase).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
}

/// POSTs a JSON body with the cluster's token.
pub(crate) async fn post_json(c: &EmbeddedCluster, path: &str, body: &Value) -> RawResponse {
    raw(
        c,
        "POST",
        path,
        Some("application/json"),
        body.to_string().as_bytes(),
        true,
    )
    .await
}

/// Sends one request on a fresh connection (`Connection: close`) and reads the whole response.
pub(crate) async fn raw(
    c: &EmbeddedCluster,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: &[u8],
    auth: bool,
) -> RawResponse {
    let mut headers = Vec::new();
    if let Some(ct) = content_type {
        headers.push(("Content-Type", ct));
    }
    let token = format!("Bearer {}", c.token());
    if auth {
        headers.push(("Authorization", token.as_str()));
    }
    request(c, method, path, &headers, body).await
}

/// Sends one request with these headers (and no others but Host,
/// Connection and Content-Length) and reads the whole response.
pub(crate) async fn request(
    c: &EmbeddedCluster,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> RawResponse {
    let addr = c.url().trim_start_matches("http://").to_string();
    let mut s = TcpStream::connect(&addr).await.unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).await.unwrap();
    let _ = s.write_all(body).await;
    let mut buf = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut buf))
        .await
        .unwrap()
        .unwrap();
    parse_response(&buf)
}

fn parse_response(buf: &[u8]) -> RawResponse {
    let text = buf;
    let split = text
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("header end");
    let head = String::from_utf8_lossy(&text[..split]).to_string();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = text[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v == "chunked")
    {
        body = dechunk(&body);
    }
    RawResponse {
        status,
        headers,
        body,
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(p) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..p]).trim(), 16).unwrap_or(0);
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[p + 2..p + 2 + n]);
        b = &b[p + 4 + n..];
    }
}

/// An open watch stream read line by line.
pub(crate) struct WatchStream {
    reader: BufReader<TcpStream>,
    pending: std::collections::VecDeque<Value>,
}

impl WatchStream {
    /// Opens `GET path` (a watch URL) and consumes the response head.
    pub(crate) async fn open(c: &EmbeddedCluster, path: &str) -> (u16, WatchStream) {
        let addr = c.url().trim_start_matches("http://").to_string();
        let mut s = TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\n\r\n",
            c.token()
        );
        s.write_all(head.as_bytes()).await.unwrap();
        let mut reader = BufReader::new(s);
        let mut status = 0;
        loop {
            let mut l = String::new();
            reader.read_line(&mut l).await.unwrap();
            if status == 0 {
                status = l.split(' ').nth(1).unwrap().parse().unwrap();
            }
            if l == "\r\n" || l.is_empty() {
                break;
            }
        }
        (
            status,
            WatchStream {
                reader,
                pending: Default::default(),
            },
        )
    }

    /// The next event, or `None` at the end of the stream / after `wait`.
    pub(crate) async fn next(&mut self, wait: Duration) -> Option<Value> {
        if let Some(v) = self.pending.pop_front() {
            return Some(v);
        }
        tokio::time::timeout(wait, async {
            loop {
                let mut size = String::new();
                if self.reader.read_line(&mut size).await.ok()? == 0 {
                    return None;
                }
                let n = usize::from_str_radix(size.trim(), 16).ok()?;
                if n == 0 {
                    return None;
                }
                let mut chunk = vec![0u8; n + 2];
                self.reader.read_exact(&mut chunk).await.ok()?;
                let text = String::from_utf8_lossy(&chunk[..n]).to_string();
                for l in text.lines().filter(|l| !l.trim().is_empty()) {
                    self.pending.push_back(serde_json::from_str(l).ok()?);
                }
                if let Some(v) = self.pending.pop_front() {
                    return Some(v);
                }
            }
        })
        .await
        .ok()
        .flatten()
    }
}
