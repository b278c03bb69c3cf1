//! Recording Events, best effort (a failed write is logged, never retried).

use super::super::events::{event_object, PodEvent, Source};
use super::*;
use k8s_openapi::api::core::v1::Event as CoreEvent;

impl Sim {
    /// Records `ev` about `pod`; a repeat of an earlier event raises its
    /// count and last time instead of creating another object.
    pub(super) async fn record(&mut self, pod: &Pod, ev: &PodEvent, source: Source<'_>) {
        let now = Timestamp::now();
        let (ns, name) = key_of(pod);
        let api: Api<CoreEvent> = Api::namespaced(self.client.clone(), &ns);
        let key = (uid_of(pod), ev.reason, ev.message.clone());
        if let Some((event_name, count)) = self.recorded.get_mut(&key) {
            *count += 1;
            let patch = json!({"count": *count, "lastTimestamp": ts(now)});
            if let Err(e) = api
                .patch(event_name, &PatchParams::default(), &Patch::Merge(patch))
                .await
            {
                tracing::debug!("node simulator: event {ns}/{event_name}: {e}");
            }
            return;
        }
        self.event_seq += 1;
        let stamp = u64::try_from(now.as_nanosecond()).unwrap_or_default();
        let event_name = format!("{name}.{:x}", stamp.wrapping_add(self.event_seq));
        let body = event_object(pod, ev, &source, &event_name, now, now, 1);
        let created = match serde_json::from_value::<CoreEvent>(body) {
            Ok(obj) => api.create(&PostParams::default(), &obj).await.map(|_| ()),
            Err(e) => Err(kube::Error::SerdeError(e)),
        };
        match created {
            Ok(()) => {
                self.recorded.insert(key, (event_name, 1));
            }
            Err(e) => tracing::debug!("node simulator: event {ns}/{event_name}: {e}"),
        }
    }
}
