/** `restore: sydney-pune/0`: a cut link carries traffic again, with the shaping it had. */
import { linkChange } from './link-state';

export const linkRestore = linkChange({
  key: 'restore',
  kind: 'link-restore',
  cutting: false,
  effect: 'restored',
  marker: { name: 'link restore', color: '#01665e' },
  phrase: 'links restored',
  doc: { does: 'a cut link carries packets again', example: '{ at: 50, restore: sydney-pune/0 }' },
});
