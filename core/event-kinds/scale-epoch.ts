/**
 * Latency and bandwidth epochs differ only in what they scale: one factory keeps them the same
 * in every other respect (lane, plan wording, recording).
 */
import { appliedAt, defineEventKind, oneOrList, type FleetActivityName } from './event-kind';

interface ScaleEpochSpec<Key extends string, Kind extends string> {
  key: Key;
  kind: Kind;
  activity: FleetActivityName;
  /** The link property scaled, as `validate` names it. */
  property: 'latency' | 'bandwidth';
  /** The scaling factor's short name on figures (the hybrid-cloud papers' LSF/BSF). */
  factor: string;
  marker: { name: string; color: string };
  phrase: string;
  doc: { does: string; example: string };
}

export function scaleEpoch<const Key extends string, const Kind extends string>(spec: ScaleEpochSpec<Key, Kind>) {
  return defineEventKind({
    key: spec.key,
    kind: spec.kind,
    schema: oneOrList({ $ref: '#/definitions/scale' }),
    takesList: true,
    toAction: (scale: number) => ({ kind: spec.kind, scale }),
    plan: (a) => `every link's ${spec.property} set to ${a.scale} x the reference`,
    lane: 'network',
    duration: 'quick',
    apply: (a, { fleet }) => ({ activity: spec.activity, input: { fleet, scale: a.scale } }),
    outcome: (a, result) => appliedAt({ scale: a.scale }, result),
    label: (a) => `${spec.factor} ${a.scale}`,
    marker: spec.marker,
    phrase: spec.phrase,
    doc: spec.doc,
  });
}
