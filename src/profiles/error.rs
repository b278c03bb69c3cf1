//! A problem with a target profile or a file it names, reported with the
//! file, the place in it (line and column when known) and the field path.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a profile cannot be used. Displays as
/// `FILE[:LINE:COLUMN]: [FIELD: ]MESSAGE`, e.g.
/// `clusters/targets/x.yaml:5:3: spec.resource: missing field `kind``.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileError {
    /// The file at fault (the profile, or a CRD manifest it names).
    pub file: PathBuf,
    /// 1-based line and column, when the YAML parser knows them.
    pub location: Option<(usize, usize)>,
    /// The field path (`spec.supports.tags`), when the check that failed
    /// knows it; YAML errors carry theirs inside `message`.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl ProfileError {
    /// A problem with one field.
    pub fn field(file: &Path, field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            location: None,
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// A problem with the file as a whole.
    pub fn file(file: &Path, message: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            location: None,
            field: None,
            message: message.into(),
        }
    }

    /// A YAML syntax or shape error, `[FIELD.PATH: ]MESSAGE`, with its
    /// location kept apart.
    pub fn yaml(file: &Path, err: &crate::yaml::Error) -> Self {
        Self {
            file: file.to_path_buf(),
            location: err.location(),
            field: None,
            message: err.without_location(),
        }
    }
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some((line, column)) = self.location {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": ")?;
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for ProfileError {}
