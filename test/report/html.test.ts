import { buildReport } from '../../report/build-report';
import { renderHtml, scopeSvgIds } from '../../report/html';
import { renderSvg } from '../../report/vega';
import { cell, okSeries, phase, runRecord } from './builders';

describe('report page', () => {
  it('gives each figure its own SVG ids, so clip paths of two inline figures do not collide', () => {
    const svg = '<svg><defs><clipPath id="clip1"><rect/></clipPath></defs><g clip-path="url(#clip1)"><use href="#clip1"/></g></svg>';
    expect(scopeSvgIds(svg, 'fig-a')).toBe(
      '<svg><defs><clipPath id="fig-a-clip1"><rect/></clipPath></defs><g clip-path="url(#fig-a-clip1)"><use href="#fig-a-clip1"/></g></svg>',
    );
  });

  it('forbids loading anything, escapes recorded text, and shows a figure’s drawing warnings under it', async () => {
    const cells = [cell('c1', { database: 'redis' }, [phase('run', okSeries([5, 6, 7]))])];
    const run = runRecord('r1', cells, { experiment: 'quickstart', scenario: '<b>bold</b>', status: 'completed' });
    const model = buildReport(run, cells);
    const bad = await renderSvg({
      data: { values: [{ a: 1 }] },
      mark: 'point',
      encoding: { x: { field: 'a', type: 'quantitative' }, nope: { field: 'a' } },
    } as never);
    const html = renderHtml(model, new Map(model.figures.map((f) => [f.id, bad])));
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`);
    expect(html).toContain('&lt;b&gt;bold&lt;/b&gt;');
    expect(html).not.toContain('<b>bold</b>');
    expect(html).toMatch(/<p class="figure-warning">Drawing this figure: nope-encoding is dropped/);
  });

  it('shows the loss seed a re-run gives to repeat the drops, and says where it was not used', () => {
    const cells = [cell('c1', { database: 'redis' }, [phase('run', okSeries([5, 6, 7]))])];
    const seeded = runRecord('r1', cells, { lossSeed: 9007199254740991 });
    expect(renderHtml(buildReport(seeded, cells), new Map())).toContain(
      '<dt>loss seed</dt><dd>9007199254740991 (scenario lossSeed repeats the drops)</dd>',
    );
    const onVms = runRecord('r2', cells, { lossSeed: 5, inventory: { ...seeded.inventory, shaping: 'tc' } });
    expect(renderHtml(buildReport(onVms, cells), new Map())).toContain('<dd>5 (unused: netem on VMs draws its own)</dd>');
    expect(renderHtml(buildReport(runRecord('r3', cells), cells), new Map())).not.toContain('loss seed');
  });
});
