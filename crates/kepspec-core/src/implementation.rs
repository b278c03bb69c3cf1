//! Which implementation the bundled controller (and the embedded cluster's
//! admission) behaves as: the KEPs as written, or upstream
//! kube-controller-manager where it is known to differ.

/// Which implementation the controller behaves as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Implementation {
    /// KEP-3541 and KEP-961 as written.
    #[default]
    Kep,
    /// Upstream kube-controller-manager v1.37.
    UpstreamV1_37,
}

impl std::str::FromStr for Implementation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "kep" => Ok(Self::Kep),
            "upstream-v1.37" => Ok(Self::UpstreamV1_37),
            other => Err(format!(
                "unknown implementation `{other}`: expected kep or upstream-v1.37"
            )),
        }
    }
}
