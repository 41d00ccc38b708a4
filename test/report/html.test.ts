import { buildReport } from '../../report/build-report';
import { renderHtml, scopeSvgIds } from '../../report/html';
import { renderSvg } from '../../report/vega';
import { cell, okSeries, phase, runRecord } from './builders';

describe('report page', () => {
  it('gives each figure its own SVG ids, so clip paths of two inline figures do not collide', () => {
    const svg = '<svg><defs><clipPath id="clip1"><rect/></clipPath></defs><g clip-path="url(#clip1)"><use href="#clip1"/></g></svg>';
    expect(scopeSvgIds(svg, 'fig-a')).toBe('<svg><defs><clipPath id="fig-a-clip1"><rect/></clipPath></defs><g clip-path="url(#fig-a-clip1)"><use href="#fig-a-clip1"/></g></svg>');
  });

  it('forbids loading anything, escapes recorded text, and shows a figure’s drawing warnings under it', async () => {
    const cells = [cell('c1', { database: 'redis' }, [phase('run', okSeries([5, 6, 7]))])];
    const run = runRecord('r1', cells, { experiment: 'quickstart', scenario: '<b>bold</b>', status: 'completed' });
    const model = buildReport(run, cells);
    const bad = await renderSvg({ data: { values: [{ a: 1 }] }, mark: 'point', encoding: { x: { field: 'a', type: 'quantitative' }, nope: { field: 'a' } } } as never);
    const html = renderHtml(model, new Map(model.figures.map((f) => [f.id, bad])));
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`);
    expect(html).toContain('&lt;b&gt;bold&lt;/b&gt;');
    expect(html).not.toContain('<b>bold</b>');
    expect(html).toMatch(/<p class="figure-warning">Drawing this figure: nope-encoding is dropped/);
  });
});
