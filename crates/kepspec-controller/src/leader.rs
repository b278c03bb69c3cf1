//! Leader election on a coordination.k8s.io/v1 Lease, the way client-go's
//! leaderelection does it: the holder renews `renewTime` every retry period;
//! a candidate takes the lease over only once `renewTime + leaseDuration`
//! has passed; every write is guarded by the lease's resourceVersion, so two
//! candidates can never both win. Only the leader runs the controller.

use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::api::{Api, PostParams};
use kube::Client;
use tokio_util::sync::CancellationToken;

/// Timings, with client-go's kube-controller-manager defaults.
#[derive(Clone, Debug)]
pub struct LeaseTimings {
    /// How long a lease is valid after its last renewal.
    pub lease_duration: Duration,
    /// How long the leader keeps trying to renew before giving up.
    pub renew_deadline: Duration,
    /// How often candidates and the leader act.
    pub retry_period: Duration,
}

impl Default for LeaseTimings {
    fn default() -> Self {
        Self {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        }
    }
}

/// What a candidate does about the lease as it is now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeaseDecision {
    /// No lease exists: create it, holding it.
    Create,
    /// We hold it: renew it.
    Renew,
    /// Someone else's lease has expired: take it over.
    TakeOver,
    /// Someone else holds a valid lease: wait.
    Wait {
        /// Its holder.
        holder: String,
    },
}

/// Decides what to do about `lease` (pure).
pub fn decide(
    lease: Option<&Lease>,
    me: &str,
    now: jiff::Timestamp,
    timings: &LeaseTimings,
) -> LeaseDecision {
    let Some(spec) = lease.and_then(|l| l.spec.as_ref()) else {
        return if lease.is_none() {
            LeaseDecision::Create
        } else {
            LeaseDecision::TakeOver
        };
    };
    let holder = spec.holder_identity.clone().unwrap_or_default();
    if holder == me {
        return LeaseDecision::Renew;
    }
    if holder.is_empty() {
        return LeaseDecision::TakeOver;
    }
    let duration = spec
        .lease_duration_seconds
        .map(|s| Duration::from_secs(s.max(0) as u64))
        .unwrap_or(timings.lease_duration);
    let expired = match &spec.renew_time {
        None => true,
        Some(MicroTime(t)) => {
            let expiry =
                t.checked_add(jiff::SignedDuration::try_from(duration).unwrap_or_default());
            expiry.map_or(true, |e| e <= now)
        }
    };
    if expired {
        LeaseDecision::TakeOver
    } else {
        LeaseDecision::Wait { holder }
    }
}

fn held_by(
    me: &str,
    previous: Option<&LeaseSpec>,
    now: jiff::Timestamp,
    timings: &LeaseTimings,
) -> LeaseSpec {
    let same_holder = previous.and_then(|p| p.holder_identity.as_deref()) == Some(me);
    let transitions = previous.and_then(|p| p.lease_transitions).unwrap_or(0);
    LeaseSpec {
        holder_identity: Some(me.to_string()),
        lease_duration_seconds: Some(timings.lease_duration.as_secs() as i32),
        acquire_time: if same_holder {
            previous.and_then(|p| p.acquire_time.clone())
        } else {
            Some(MicroTime(now))
        },
        renew_time: Some(MicroTime(now)),
        lease_transitions: Some(if same_holder || previous.is_none() {
            transitions
        } else {
            transitions + 1
        }),
        ..LeaseSpec::default()
    }
}

/// One round of the election; returns whether we hold the lease afterwards.
async fn try_acquire_or_renew(
    api: &Api<Lease>,
    name: &str,
    me: &str,
    timings: &LeaseTimings,
) -> Result<bool, kube::Error> {
    let current = match api.get(name).await {
        Ok(l) => Some(l),
        Err(kube::Error::Api(s)) if s.code == 404 => None,
        Err(e) => return Err(e),
    };
    let now = jiff::Timestamp::now();
    match decide(current.as_ref(), me, now, timings) {
        LeaseDecision::Wait { .. } => Ok(false),
        LeaseDecision::Create => {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(name.to_string()),
                    ..ObjectMeta::default()
                },
                spec: Some(held_by(me, None, now, timings)),
            };
            match api.create(&PostParams::default(), &lease).await {
                Ok(_) => Ok(true),
                Err(kube::Error::Api(s)) if s.code == 409 => Ok(false),
                Err(e) => Err(e),
            }
        }
        LeaseDecision::Renew | LeaseDecision::TakeOver => {
            let Some(mut lease) = current else {
                return Ok(false);
            };
            lease.spec = Some(held_by(me, lease.spec.as_ref(), now, timings));
            // The resourceVersion carried by `lease` makes this a compare-and-swap.
            match api.replace(name, &PostParams::default(), &lease).await {
                Ok(_) => Ok(true),
                Err(kube::Error::Api(s)) if s.code == 409 => Ok(false),
                Err(e) => Err(e),
            }
        }
    }
}

/// Where the lease lives and who we are.
#[derive(Clone, Debug)]
pub struct Election {
    /// Namespace of the lease.
    pub namespace: String,
    /// Name of the lease.
    pub name: String,
    /// This candidate's identity.
    pub identity: String,
    /// Timings.
    pub timings: LeaseTimings,
}

/// Campaigns until `stop`; while leading, `lead` runs with a token that is
/// cancelled when leadership is lost or `stop` fires. Returns when `stop` fires.
pub async fn run<F, Fut>(
    client: Client,
    election: Election,
    stop: CancellationToken,
    lead: F,
) -> anyhow::Result<()>
where
    F: Fn(CancellationToken) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let api: Api<Lease> = Api::namespaced(client, &election.namespace);
    let t = &election.timings;
    while !stop.is_cancelled() {
        let acquired = try_acquire_or_renew(&api, &election.name, &election.identity, t)
            .await
            .unwrap_or(false);
        if !acquired {
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = tokio::time::sleep(t.retry_period) => continue,
            }
        }
        tracing::info!(identity = %election.identity, lease = %election.name, "became leader");
        let term = stop.child_token();
        let task = tokio::spawn(lead(term.clone()));
        let mut last_renewal = tokio::time::Instant::now();
        loop {
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = tokio::time::sleep(t.retry_period) => {}
            }
            match try_acquire_or_renew(&api, &election.name, &election.identity, t).await {
                Ok(true) => last_renewal = tokio::time::Instant::now(),
                Ok(false) => break,
                Err(err) if last_renewal.elapsed() > t.renew_deadline => {
                    tracing::warn!(%err, "could not renew the lease in time");
                    break;
                }
                Err(_) => {}
            }
        }
        term.cancel();
        let _ = task.await;
        tracing::info!(identity = %election.identity, "stopped leading");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(holder: &str, renewed_secs_ago: i64, duration: i32) -> Lease {
        let now = jiff::Timestamp::now();
        Lease {
            metadata: ObjectMeta::default(),
            spec: Some(LeaseSpec {
                holder_identity: Some(holder.into()),
                lease_duration_seconds: Some(duration),
                renew_time: Some(MicroTime(
                    now - jiff::SignedDuration::from_secs(renewed_secs_ago),
                )),
                ..LeaseSpec::default()
            }),
        }
    }

    #[test]
    fn decisions_follow_client_go() {
        let t = LeaseTimings::default();
        let now = jiff::Timestamp::now();
        assert_eq!(decide(None, "a", now, &t), LeaseDecision::Create);
        assert_eq!(
            decide(Some(&lease("a", 1, 15)), "a", now, &t),
            LeaseDecision::Renew
        );
        assert_eq!(
            decide(Some(&lease("b", 1, 15)), "a", now, &t),
            LeaseDecision::Wait { holder: "b".into() }
        );
        assert_eq!(
            decide(Some(&lease("b", 20, 15)), "a", now, &t),
            LeaseDecision::TakeOver
        );
        assert_eq!(
            decide(Some(&lease("", 1, 15)), "a", now, &t),
            LeaseDecision::TakeOver
        );
    }

    #[test]
    fn takeover_counts_a_transition_and_renewal_does_not() {
        let t = LeaseTimings::default();
        let now = jiff::Timestamp::now();
        let prev = lease("b", 20, 15).spec.unwrap();
        let taken = held_by("a", Some(&prev), now, &t);
        assert_eq!(taken.lease_transitions, Some(1));
        assert_eq!(taken.acquire_time, Some(MicroTime(now)));
        let renewed = held_by("a", Some(&taken), now, &t);
        assert_eq!(renewed.lease_transitions, Some(1));
        assert_eq!(renewed.acquire_time, Some(MicroTime(now)));
    }
}
