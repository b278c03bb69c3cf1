//! The KEP-3541 draft's `EnforcedRollingUpdate` strategy on the API side
//! (kep-3541-draft-enforced-rolling-update.md, "API Changes"): a third
//! `updateStrategy.type` with its own `enforcedRollingUpdate` block, of the
//! same type as `rollingUpdate` (`partition`, `maxUnavailable`), behind the
//! gate `EnforcedRollingUpdateInStatefulSet` ("Feature Enablement and
//! Rollback": kube-apiserver and kube-controller-manager).
//!
//! The draft states no validation rules; these follow upstream's for the
//! other strategies, and are kepspec's choice:
//! - gate off: the block is dropped unless the stored object already uses
//!   it (upstream's `dropDisabledFields` pattern), and the type is refused
//!   as any unsupported type is (`must be 'RollingUpdate' or 'OnDelete'`),
//!   unless the stored object already has it (a downgrade keeps it stored);
//! - the block is validated as `rollingUpdate` is, and is only allowed with
//!   its type, as `rollingUpdate` is only allowed with RollingUpdate.

use kepspec_core::Lookup as _;
use serde_json::{Map, Value};

use super::fielderr::FieldError;
use super::ApiGates;

/// The strategy type the draft adds.
pub(crate) const TYPE: &str = "EnforcedRollingUpdate";
/// Its parameter block under `spec.updateStrategy`.
pub(crate) const BLOCK: &str = "enforcedRollingUpdate";
const PATH: &str = "spec.updateStrategy.enforcedRollingUpdate";

fn strategy_type(obj: &Value) -> Option<&str> {
    obj.lookup("/spec/updateStrategy/type")
        .and_then(Value::as_str)
}

fn uses_block(obj: &Value) -> bool {
    obj.lookup("/spec/updateStrategy/enforcedRollingUpdate")
        .is_some_and(|v| !v.is_null())
}

/// Whether `type: EnforcedRollingUpdate` may be written: the gate is on, or
/// the stored object already has it.
pub(crate) fn allowed(gates: &ApiGates, old: Option<&Value>) -> bool {
    gates.enforced_rolling_update_in_statefulset
        || old.is_some_and(|o| strategy_type(o) == Some(TYPE))
}

/// With the gate off, a block the stored object does not already use is
/// dropped.
pub(crate) fn drop_disabled(obj: &mut Value, old: Option<&Value>, gates: &ApiGates) {
    if gates.enforced_rolling_update_in_statefulset || old.is_some_and(uses_block) {
        return;
    }
    if let Some(Value::Object(s)) = obj.pointer_mut("/spec/updateStrategy") {
        s.remove(BLOCK);
    }
}

/// The block's errors: only allowed with its type; validated as
/// `rollingUpdate` is (`validate_rolling_update` is passed in).
pub(crate) fn validate(
    strategy: &Map<String, Value>,
    validate_rolling: impl Fn(&Map<String, Value>, &str) -> Vec<FieldError>,
    render: impl Fn(&Value) -> String,
) -> Vec<FieldError> {
    let Some(block) = strategy.get(BLOCK).filter(|v| !v.is_null()) else {
        return Vec::new();
    };
    let type_ = strategy.get("type").and_then(Value::as_str).unwrap_or("");
    if type_ != TYPE {
        return vec![FieldError::invalid(
            PATH,
            render(block),
            "only allowed for updateStrategy 'EnforcedRollingUpdate'",
        )];
    }
    match block {
        Value::Object(ru) => validate_rolling(ru, PATH),
        _ => Vec::new(),
    }
}
