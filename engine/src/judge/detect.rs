//! Step 6, detect: the call's family, and the companions of it that exist — or the
//! abstention that ends the call.

use super::lines;
use super::{Detected, End};
use crate::call_ledger::Ledger;
use crate::compiled::Detection;
use crate::decision::JudgedCall;
use crate::line_format::Abstain;
use crate::pipeline::Located;

/// The call's family with its existing companions, or the abstention once its line is
/// written.
#[inline]
pub(super) fn detect<'a>(
    located: &'a Located<'a>,
    ledger: &mut Ledger,
) -> Result<Detected<'a>, End> {
    let pack = &located.workspace.pack;
    let family = match located.scene.detection {
        Detection::NoSignal => {
            lines::abstained(ledger, Abstain::NoSignal, None, 0.0);
            return Err(End::Abstained);
        }
        Detection::Ambiguous(f) => {
            let name = &pack.families[f].name;
            lines::abstained(ledger, Abstain::AmbiguousTarget, Some(name), 0.0);
            return Err(End::Abstained);
        }
        Detection::Family(f) => &pack.families[f],
    };
    let filtered = located.scene.filtered.as_ref().ok_or(End::Abstained)?;
    if filtered.existing.is_empty() {
        lines::abstained(ledger, Abstain::NoCompanions, Some(&family.name), 0.0);
        return Err(End::Abstained);
    }
    Ok(Detected {
        call: JudgedCall {
            located,
            family,
            bases: &filtered.bases,
            filtered,
        },
    })
}
