import { undrawable } from '../../report/figures/drawable';
import type { Figure } from '../../report/figures/figure';

const figure = (spec: object): Figure => ({ id: 'f', heading: 'What? This.', spec: spec as Figure['spec'] });
const x = { field: 't', type: 'quantitative' };

describe('a figure is drawable', () => {
  it('when every mark has rows with a finite value of each quantitative field', () => {
    expect(undrawable(figure({ data: { values: [{ t: 1 }] }, mark: 'point', encoding: { x } }))).toBeUndefined();
    // Faceted: the unit inherits the top-level rows.
    expect(
      undrawable(figure({ data: { values: [{ t: 1, w: 'a' }] }, facet: { field: 'w' }, spec: { mark: 'line', encoding: { x } } })),
    ).toBeUndefined();
  });

  it('not when a layer has no rows (Vega would draw an empty frame and warn of an infinite extent)', () => {
    const layered = {
      layer: [
        { data: { values: [{ t: 1 }] }, mark: 'line', encoding: { x } },
        { data: { values: [] }, mark: 'rule', encoding: { x } },
      ],
    };
    expect(undrawable(figure(layered))).toBe('a mark has no rows');
  });

  it('not when a plotted field has no finite value, the second end of a range included', () => {
    expect(undrawable(figure({ data: { values: [{ t: null }, { t: Infinity }] }, mark: 'point', encoding: { x } }))).toBe('no finite value of "t"');
    const range = {
      data: { values: [{ t: 1, a: 1, b: null }] },
      mark: 'rule',
      encoding: { x, y: { field: 'a', type: 'quantitative' }, y2: { field: 'b' } },
    };
    expect(undrawable(figure(range))).toBe('no finite value of "b"');
  });
});
