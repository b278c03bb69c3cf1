//! What protobuf costs and saves: the size of a pod as the server stores
//! it in JSON and in protobuf, the time to write and read it either way,
//! and a list of pods asked for in each encoding through the server (whose
//! protobuf answers are made from its JSON ones, so they cost both).

use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, PostParams};
use kube::Client;
use serde_json::Value;

use super::report::{Row, Section};
use super::support::{bare_pod, client_as, create_namespace, BENCH_AGENT};
use super::Mode;
use crate::sim::Gr;
use crate::sim::{protobuf as proto, ClusterConfig, EmbeddedCluster};

const NS: &str = "bench-protobuf";

/// Sizes and times of both encodings.
pub(crate) async fn costs(mode: Mode) -> anyhow::Result<Section> {
    let mut s = Section::new("protobuf", "What protobuf costs and saves");
    let cluster = EmbeddedCluster::start(ClusterConfig::default()).await?;
    let client = client_as(&cluster, BENCH_AGENT)?;
    create_namespace(&client, NS).await?;
    let pods: Api<Pod> = Api::namespaced(client.clone(), NS);
    let count = mode.pick(100, 1_000);
    for i in 0..count {
        pods.create(&PostParams::default(), &bare_pod(&format!("pod-{i}"))?)
            .await?;
    }
    // A pod the kubelet has run: status, conditions, managedFields.
    let pod = running_pod(&cluster, "pod-0").await?;
    codec_rows(&mut s, &pod, mode.pick(1_000, 10_000))?;
    list_rows(&mut s, &client, count, mode.pick(5, 20)).await?;
    cluster.shutdown().await;
    s.note(
        "Sizes are of one pod as stored after the node simulator ran it, kind and apiVersion \
         included (protobuf: with its `k8s\\0` envelope). Encode and decode times are in this \
         process, from and to serde_json values, the form the store keeps. The list times \
         are whole requests through the server on loopback (median of the repetitions); a \
         protobuf answer is made from the JSON one, so the server pays for both.",
    );
    Ok(s)
}

async fn running_pod(cluster: &EmbeddedCluster, name: &str) -> anyhow::Result<Value> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (items, _) = cluster.store().list(&Gr::new("", "pods"), Some(NS));
        let found = items
            .into_iter()
            .find(|p| p["metadata"]["name"] == name && p["status"]["phase"] == "Running");
        if let Some(p) = found {
            let mut p = serde_json::Value::clone(&p);
            p["kind"] = "Pod".into();
            p["apiVersion"] = "v1".into();
            return Ok(p);
        }
        anyhow::ensure!(Instant::now() < deadline, "pod {name} never ran");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn codec_rows(s: &mut Section, pod: &Value, n: usize) -> anyhow::Result<()> {
    let json = serde_json::to_vec(pod)?;
    let pb = proto::encode(pod).map_err(|e| anyhow::anyhow!("{e}"))?;
    s.row(Row::info(
        "one running pod: JSON / protobuf bytes",
        1,
        format!(
            "{} / {} ({:.0} %)",
            json.len(),
            pb.len(),
            pb.len() as f64 * 100.0 / json.len() as f64
        ),
    ));
    let per = |t: Duration| format!("{:.1} µs", t.as_secs_f64() * 1e6 / n as f64);
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(serde_json::to_vec(std::hint::black_box(pod))?);
    }
    let json_enc = t.elapsed();
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(proto::encode(std::hint::black_box(pod)).ok());
    }
    let pb_enc = t.elapsed();
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(serde_json::from_slice::<Value>(std::hint::black_box(
            &json,
        ))?);
    }
    let json_dec = t.elapsed();
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(proto::decode(std::hint::black_box(&pb)).ok());
    }
    let pb_dec = t.elapsed();
    s.row(Row::info(
        "encode one pod: JSON / protobuf",
        n,
        format!("{} / {}", per(json_enc), per(pb_enc)),
    ));
    s.row(Row::info(
        "decode one pod: JSON / protobuf",
        n,
        format!("{} / {}", per(json_dec), per(pb_dec)),
    ));
    Ok(())
}

async fn list_rows(
    s: &mut Section,
    client: &Client,
    count: usize,
    reps: usize,
) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    for (label, accept) in [
        ("JSON", "application/json"),
        (
            "protobuf",
            "application/vnd.kubernetes.protobuf,application/json",
        ),
    ] {
        let mut times = Vec::with_capacity(reps);
        let mut bytes = 0;
        for _ in 0..reps {
            let req = http::Request::get(format!("/api/v1/namespaces/{NS}/pods"))
                .header(http::header::ACCEPT, accept)
                .body(kube::client::Body::empty())?;
            let t = Instant::now();
            let resp = client.send(req).await?;
            let body = resp.into_body().collect().await?.to_bytes();
            times.push(t.elapsed());
            bytes = body.len();
        }
        times.sort();
        rows.push((label, bytes, times[times.len() / 2]));
    }
    let [(_, jb, jt), (_, pb, pt)] = [rows[0], rows[1]];
    s.row(Row::info(
        "list of the pods: JSON / protobuf bytes",
        count,
        format!(
            "{jb} / {pb} ({:.0} %)",
            pb as f64 * 100.0 / jb.max(1) as f64
        ),
    ));
    s.row(Row::info(
        "list of the pods: JSON / protobuf request time",
        count,
        format!(
            "{:.1} ms / {:.1} ms",
            jt.as_secs_f64() * 1e3,
            pt.as_secs_f64() * 1e3
        ),
    ));
    Ok(())
}
