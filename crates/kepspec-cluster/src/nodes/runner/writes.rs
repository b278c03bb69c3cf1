//! The simulator's writes, off its decision loop.
//!
//! A kubelet and a scheduler write for many pods at once; a loop that
//! waited for each write in turn would make a node's pods start one round
//! trip after another. The loop therefore records what a write will have
//! done before sending it (a pod as bound, a status as written, a pod as
//! being removed), and hands the write to one of [`WORKERS`] queues chosen
//! by the pod: the writes about one pod keep their order, those about
//! different pods overlap. A write that fails tells the loop what to undo
//! and what to look at again ([`Failed`]), as a failed synchronous write
//! did before.

use futures::future::BoxFuture;
use std::hash::{Hash, Hasher};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{Key, Wake};

/// How many writes may be in flight at once (each queue sends one at a
/// time).
pub(super) const WORKERS: usize = 8;

/// What the loop had assumed of a write that did not happen.
#[derive(Debug)]
pub(super) enum Undo {
    /// The pod (uid) is not bound by this pass.
    Assumed(String),
    /// The pod's (uid) status was not written.
    Written(String),
    /// The pod (uid) is not being removed.
    Removing(String),
    /// The pod (uid) was not marked unschedulable.
    Unschedulable(String),
    /// The pod (uid) was not rejected.
    Rejected(String),
}

/// A write that failed: what to undo, and what to look at again after the
/// retry delay.
#[derive(Debug)]
pub(super) struct Failed {
    pub undo: Option<Undo>,
    pub retry: Option<Wake>,
    /// An event this write was to create first: forgotten, so that a
    /// retry creates it instead of counting a repeat of it.
    pub unrecord: Option<EventKey>,
}

/// What makes an event a repeat of another: (pod uid, reason, message).
pub(super) type EventKey = (String, &'static str, String);

/// A write: Err when the loop must undo or retry something.
pub(super) type Write = BoxFuture<'static, Result<(), Failed>>;

/// The write queues.
pub(super) struct Writers {
    queues: Vec<mpsc::UnboundedSender<Write>>,
}

impl Writers {
    /// Starts the queues; failures come back on `failed`. They stop with
    /// `cancel` (writes not yet sent are dropped).
    pub(super) fn start(
        failed: mpsc::UnboundedSender<Failed>,
        cancel: CancellationToken,
    ) -> Writers {
        let queues = (0..WORKERS)
            .map(|_| {
                let (tx, mut rx) = mpsc::unbounded_channel::<Write>();
                let failed = failed.clone();
                let cancel = cancel.clone();
                tokio::spawn(async move {
                    loop {
                        let write = tokio::select! {
                            _ = cancel.cancelled() => break,
                            w = rx.recv() => match w {
                                Some(w) => w,
                                None => break,
                            },
                        };
                        let outcome = tokio::select! {
                            _ = cancel.cancelled() => break,
                            o = write => o,
                        };
                        if let Err(f) = outcome {
                            let _ = failed.send(f);
                        }
                    }
                });
                tx
            })
            .collect();
        Writers { queues }
    }

    /// Queues `write` behind the earlier writes about the pod `key`.
    pub(super) fn send(&self, key: &Key, write: Write) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut h);
        let i = usize::try_from(h.finish() % WORKERS as u64).unwrap_or(0);
        if let Some(q) = self.queues.get(i) {
            let _ = q.send(write);
        }
    }
}

/// A strategic-merge status patch of pod `name`, then (once it is written)
/// `event`; a pod already gone is no failure, any other error is `failed`.
pub(super) fn status_then_event(
    api: kube::Api<k8s_openapi::api::core::v1::Pod>,
    name: String,
    status: serde_json::Value,
    event: BoxFuture<'static, ()>,
    failed: Failed,
) -> Write {
    use futures::FutureExt;
    async move {
        let patch = kube::api::Patch::Strategic(status);
        match api
            .patch_status(&name, &kube::api::PatchParams::default(), &patch)
            .await
        {
            Ok(_) => {
                event.await;
                Ok(())
            }
            Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
            Err(e) => {
                let ns = api.namespace().unwrap_or_default().to_string();
                tracing::warn!("node simulator: status of {ns}/{name}: {e}");
                Err(failed)
            }
        }
    }
    .boxed()
}
