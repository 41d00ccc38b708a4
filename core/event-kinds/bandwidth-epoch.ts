/** `bandwidth: 0.5`: every link's rate cap becomes 0.5 x its reference bandwidth from then on. */
import { scaleEpoch } from './scale-epoch';

export const bandwidthEpoch = scaleEpoch({
  key: 'bandwidth',
  kind: 'bandwidth-epoch',
  activity: 'applyBandwidthEpoch',
  property: 'bandwidth',
  factor: 'BSF',
  marker: { name: 'bandwidth epoch', color: '#9e9ac8' },
  phrase: 'bandwidth epochs',
  doc: { does: "every link's bandwidth set to this factor times its reference (a bandwidth epoch)", example: '{ at: 60, bandwidth: 0.2 }' },
});
