/** `latency: 0.4`: every link's delay becomes 0.4 x its reference RTT from then on. */
import { scaleEpoch } from './scale-epoch';

export const latencyEpoch = scaleEpoch({
  key: 'latency',
  kind: 'latency-epoch',
  activity: 'applyLatencyEpoch',
  property: 'latency',
  factor: 'LSF',
  marker: { name: 'latency epoch', color: '#6a3d9a' },
  phrase: 'latency epochs',
  doc: { does: "every link's latency set to this factor times its reference (a latency epoch)", example: '{ at: 60, latency: 0.4 }' },
});
