//! Step 6, detect: the call's family, and the companions of it that exist — or the
//! abstention that ends the call.

use super::Detected;
use crate::call_ledger::Ledger;
use crate::compiled::Detection;
use crate::decision::JudgedCall;
use crate::line_format::{self, Abstain};
use crate::pipeline::Located;

/// The call's family with its existing companions, or `None` once the abstention is written.
pub(super) fn detect<'a>(located: &'a Located<'a>, ledger: &mut Ledger) -> Option<Detected<'a>> {
    let pack = &located.workspace.pack;
    let family = match located.scene.detection {
        Detection::NoSignal => {
            ledger.push(line_format::abstained(Abstain::NoSignal, None, 0.0));
            return None;
        }
        Detection::Ambiguous(f) => {
            let name = &pack.families[f].name;
            ledger.push(line_format::abstained(
                Abstain::AmbiguousTarget,
                Some(name),
                0.0,
            ));
            return None;
        }
        Detection::Family(f) => &pack.families[f],
    };
    let filtered = located.scene.filtered.as_ref()?;
    if filtered.existing.is_empty() {
        ledger.push(line_format::abstained(
            Abstain::NoCompanions,
            Some(&family.name),
            0.0,
        ));
        return None;
    }
    Some(Detected {
        call: JudgedCall {
            located,
            family,
            bases: &filtered.bases,
            filtered,
        },
    })
}
