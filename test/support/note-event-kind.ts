/**
 * A toy event kind, written the way a new kind is: `note: "sydney is slow"` applies nothing, must
 * name a node of the fleet, and shows its text. Tests register it (registerEventKind) instead of
 * adding it to core/event-kinds/registry.ts.
 */
import { defineEventKind, oneOrList } from '../../core/event-kinds/event-kind';

export const note = defineEventKind({
  key: 'note',
  kind: 'note',
  schema: oneOrList({ type: 'string', minLength: 1 }),
  takesList: true,
  toAction: (text: string) => ({ kind: 'note', text }),
  check: (a, st) =>
    st.nodeNames.some((n) => a.text.includes(n)) ? undefined : `names no node of ${st.fleet.name}; mention one of: ${st.nodeNames.join(', ')}`,
  plan: (a) => `note "${a.text}"`,
  lane: 'measure',
  duration: 'quick',
  apply: () => undefined,
  outcome: (a) => ({ detail: { text: a.text } }),
  label: (a) => `note: ${a.text}`,
  marker: { name: 'note', color: '#000000' },
  phrase: 'notes',
  doc: { does: 'a note in the timeline (a kind the tests register)', example: '{ at: 1, note: hello }' },
});
