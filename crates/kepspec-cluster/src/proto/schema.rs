//! The shape of the generated message table ([`super::table`]): what the
//! Go types of k8s.io/api say about each field, as go-to-protobuf and
//! encoding/json read them.

/// What a field holds (one value, or each element of a repeated field or
/// each value of a map).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// The generated table holds no field of the unsigned, double or Duration
// types today; the codec keeps them so a table generated from a later
// release needs no codec change.
#[allow(dead_code)]
pub(crate) enum Ty {
    String,
    Int32,
    Int64,
    Uint32,
    Uint64,
    Bool,
    Double,
    /// `[]byte`: base64 in JSON.
    Bytes,
    /// A message, by its index in [`super::table::MESSAGES`].
    Msg(usize),
    /// A named slice as a map value (authorization's `ExtraValue`): a
    /// message of one repeated field `items`, a plain array in JSON.
    Items(usize),
    /// metav1.Time: `{seconds, nanos}`, RFC 3339 seconds in JSON.
    Time,
    /// metav1.MicroTime: RFC 3339 with microseconds in JSON.
    MicroTime,
    /// metav1.Duration: `{duration}` in nanoseconds, Go's duration text in JSON.
    Duration,
    /// resource.Quantity: `{string}`.
    Quantity,
    /// intstr.IntOrString: `{type, intVal, strVal}`.
    IntOrString,
    /// runtime.RawExtension: `{raw}`, the raw JSON embedded.
    RawExtension,
    /// metav1.FieldsV1: `{Raw}`, the raw JSON embedded.
    FieldsV1,
}

/// How many values a field holds, and when it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Card {
    /// A plain Go value: always written, its zero value when unset.
    One,
    /// A Go pointer (or `[]byte`): written only when set.
    Ptr,
    /// A Go slice: one entry per element.
    Repeated,
    /// A Go map with keys of this type: one entry message per key.
    Map(Ty),
}

/// One field of a message.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field {
    /// The protobuf field number.
    pub num: u32,
    /// The JSON name (empty when inlined).
    pub json: &'static str,
    pub ty: Ty,
    pub card: Card,
    /// `omitempty`: an empty value is left out of the JSON.
    pub omit: bool,
    /// An embedded struct whose fields encoding/json promotes.
    pub inline: bool,
}

/// One message: a Go struct.
#[derive(Debug)]
pub(crate) struct Message {
    /// The Go type, `<import path>.<name>`.
    pub name: &'static str,
    pub fields: &'static [Field],
}

/// A kind protobuf bodies may carry.
#[derive(Debug)]
pub(crate) struct Kind {
    /// The API group (`""` for core, `meta.k8s.io` for the options and
    /// Status every group version carries).
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    /// Its message's index in [`super::table::MESSAGES`].
    pub msg: usize,
}
