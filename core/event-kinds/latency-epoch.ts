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
});
