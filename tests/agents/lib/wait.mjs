// Waiting for a condition, bounded: the bound only ends a run that went wrong, nothing is timed.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` (may be async) every `stepMs` until it holds or `limitMs` passed;
 * resolves to whether it held. */
export async function waitUntil(condition, { limitMs = 60_000, stepMs = 200 } = {}) {
  const end = Date.now() + limitMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > end) return false;
    await sleep(stepMs);
  }
}

/** Polls `value` until it gives the same answer `times` polls in a row (a process gone
 * quiet), within `limitMs`; resolves to whether it did. */
export async function waitForQuiet(value, { times = 6, stepMs = 500, limitMs = 60_000 } = {}) {
  let last;
  let same = 0;
  return waitUntil(async () => {
    const now = JSON.stringify(await value());
    same = now === last ? same + 1 : 0;
    last = now;
    return same >= times;
  }, { limitMs, stepMs });
}
