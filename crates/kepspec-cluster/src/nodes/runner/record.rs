//! Recording Events, best effort (a failed write is logged, never retried).

use super::super::events::{event_object, PodEvent, Source};
use super::writes::EventKey;
use super::*;
use futures::future::BoxFuture;
use futures::FutureExt;
use k8s_openapi::api::core::v1::Event as CoreEvent;

impl Sim {
    /// Records `ev` about `pod`, queued behind the pod's earlier writes.
    pub(super) fn record(&mut self, pod: &Pod, ev: &PodEvent, source: Source<'_>) {
        let write = self.event_write(pod, ev, source);
        self.writers.send(&key_of(pod), write.map(Ok).boxed());
    }

    /// The key of `ev` about `pod` when recording it now creates a new
    /// event object (not a repeat of one recorded before).
    pub(super) fn new_event(&self, pod: &Pod, ev: &PodEvent) -> Option<EventKey> {
        let key = (uid_of(pod), ev.reason, ev.message.clone());
        (!self.recorded.contains_key(&key)).then_some(key)
    }

    /// The write recording `ev` about `pod`: a repeat of an earlier event
    /// raises its count and last time instead of creating another object
    /// (the event is taken as recorded once its write is made).
    pub(super) fn event_write(
        &mut self,
        pod: &Pod,
        ev: &PodEvent,
        source: Source<'_>,
    ) -> BoxFuture<'static, ()> {
        let now = Timestamp::now();
        let (ns, name) = key_of(pod);
        let api: Api<CoreEvent> = Api::namespaced(self.client.clone(), &ns);
        let key = (uid_of(pod), ev.reason, ev.message.clone());
        if let Some((event_name, count)) = self.recorded.get_mut(&key) {
            *count += 1;
            let patch = json!({"count": *count, "lastTimestamp": ts(now)});
            let event_name = event_name.clone();
            return async move {
                if let Err(e) = api
                    .patch(&event_name, &PatchParams::default(), &Patch::Merge(patch))
                    .await
                {
                    tracing::debug!("node simulator: event {ns}/{event_name}: {e}");
                }
            }
            .boxed();
        }
        self.event_seq += 1;
        let stamp = u64::try_from(now.as_nanosecond()).unwrap_or_default();
        let event_name = format!("{name}.{:x}", stamp.wrapping_add(self.event_seq));
        let body = event_object(pod, ev, &source, &event_name, now, now, 1);
        self.recorded.insert(key, (event_name.clone(), 1));
        async move {
            let created = match serde_json::from_value::<CoreEvent>(body) {
                Ok(obj) => api.create(&PostParams::default(), &obj).await.map(|_| ()),
                Err(e) => Err(kube::Error::SerdeError(e)),
            };
            if let Err(e) = created {
                tracing::debug!("node simulator: event {ns}/{event_name}: {e}");
            }
        }
        .boxed()
    }
}
