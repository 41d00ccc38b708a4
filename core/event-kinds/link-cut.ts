/** `cut: sydney-pune/0`: the link drops every packet both ways until restored. */
import { linkChange } from './link-state';

export const linkCut = linkChange({
  key: 'cut',
  kind: 'link-cut',
  cutting: true,
  effect: 'cut (both ways)',
  marker: { name: 'link cut', color: '#8c2d04' },
  phrase: 'link cuts',
  doc: { does: 'the link drops every packet, both ways, until restored', example: '{ at: 30, cut: sydney-pune/0 }' },
});
