// The ring watcher's output as the adapter reads it (RingWatch.java prints it; no Cassandra here).
import { ringSnapshots } from '../../services/databases/cassandra/ring-watch';
import type { EndpointStatus } from '../../services/databases/cassandra/nodetool-status';

function feed(lines: string[]): EndpointStatus[][] {
  const rings: EndpointStatus[][] = [];
  const onLine = ringSnapshots((ring) => rings.push(ring));
  for (const line of lines) onLine(line);
  return rings;
}

test('each snapshot ends at `--` and holds every endpoint with its status and state', () => {
  const rings = feed([
    'UN  198.19.100.1  ring-watch',
    'UJ  198.19.100.4  ring-watch',
    '--',
    'UN  198.19.100.1  ring-watch',
    'DL  198.19.100.4  ring-watch',
    '--',
  ]);
  expect(rings).toEqual([
    [
      { up: true, state: 'N', address: '198.19.100.1' },
      { up: true, state: 'J', address: '198.19.100.4' },
    ],
    [
      { up: true, state: 'N', address: '198.19.100.1' },
      { up: false, state: 'L', address: '198.19.100.4' },
    ],
  ]);
});

test('a snapshot the node did not answer is an empty ring; an endpoint of unknown status is left out; a snapshot not ended is not handed over', () => {
  const rings = feed([
    '! java.io.IOException: Failed to retrieve RMIServer stub',
    '--',
    '?N  198.19.100.2  ring-watch',
    'UN  198.19.100.1  ring-watch',
    '--',
    'UN  198.19.100.3  ring-watch',
  ]);
  expect(rings).toEqual([[], [{ up: true, state: 'N', address: '198.19.100.1' }]]);
});
