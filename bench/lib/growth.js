// Lookup latency at a dataset size: enrichment by email and the details lookup, each at a fixed
// rate (open loop, evenly spaced) over persons drawn across the whole table, so the figures at
// 100 000 and at 1 000 000 persons compare like for like.
'use strict';
const { openLoop } = require('./open-loop.js');
const { summarize, round } = require('./stats.js');

/**
 * `pick()` returns a sampled person { email, visitorId } (visitors already imported);
 * `startMeter()` (optional) as in load.js, with gateway, enrichment and postgres among its names.
 */
async function probeLatency({ gatewayUrl, apiKey, pick, ratePerSec, durationSec, startMeter }) {
  const auth = { authorization: `Bearer ${apiKey}` };
  const count = ratePerSec * durationSec;
  const run = async (kind) => {
    const stopMeter = startMeter ? startMeter() : null;
    const sent = await openLoop({
      url: kind === 'enrich' ? `${gatewayUrl}/visitors/enrichment` : `${gatewayUrl}/visitors/x/details`,
      method: kind === 'enrich' ? 'POST' : 'GET',
      headers: kind === 'enrich' ? { ...auth, 'content-type': 'application/json' } : auth,
      count,
      ratePerSec,
      nextBody: () => {
        const person = pick();
        return kind === 'enrich'
          ? { body: JSON.stringify({ email: person.email }), meta: null }
          : { body: '', path: `/visitors/${person.visitorId}/details`, meta: null };
      },
    });
    const cpu = stopMeter ? stopMeter() : null;
    const perRequest = (name) => (cpu && cpu.coresPct[name] !== undefined ? round(((cpu.coresPct[name] / 100) * cpu.wallSec * 1000) / sent.length, 3) : null);
    return {
      sent: sent.length,
      ok: sent.filter((x) => x.status === 200).length,
      latencyMs: summarize(sent.map((x) => x.latencyMs)),
      cpuMsPerRequest: cpu && { gateway: perRequest('gateway'), enrichment: perRequest('enrichment'), postgres: perRequest('postgres') },
    };
  };
  return { ratePerSec, durationSec, enrich: await run('enrich'), details: await run('details') };
}

module.exports = { probeLatency };
