/**
 * The report as one self-contained HTML page: figures inline as SVG, styles and the PNG export
 * script inline, and a Content-Security-Policy that forbids loading anything, so the page opens
 * from disk with no network and cannot silently depend on it.
 */
import type { RunRecord } from '../core/run-record';
import { formatPath, pairName } from '../core/overlay-path';
import type { ReportModel } from './build-report';
import type { Table } from './tables';
import type { Figure } from './figures/figure';
import type { RenderedFigure } from './vega';

/** Inline styles, scripts and data: images only: the page can load nothing from anywhere. */
export const NO_NETWORK_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/**
 * Vega numbers its clip paths and gradients from 1 in every SVG it writes; inline in one page
 * they would collide, so each figure's ids get the figure's prefix.
 */
export function scopeSvgIds(svg: string, prefix: string): string {
  return svg
    .replace(/\bid="([^"]+)"/g, (_, id: string) => `id="${prefix}-${id}"`)
    .replace(/url\(#([^)]+)\)/g, (_, id: string) => `url(#${prefix}-${id})`)
    .replace(/href="#([^"]+)"/g, (_, id: string) => `href="#${prefix}-${id}"`);
}

// Draws a figure's inline SVG onto a canvas at `scale` and returns a PNG data URL. The PNG
// buttons use it, and so does the CLI (through headless Chromium) to write <figure>.png files.
export const PNG_SCRIPT = `
(function () {
  function figurePng(id, scale) {
    var svg = document.querySelector('#fig-' + id + ' svg');
    if (!svg) return Promise.reject(new Error('no figure ' + id));
    var width = svg.width.baseVal.value, height = svg.height.baseVal.value;
    var xml = new XMLSerializer().serializeToString(svg);
    return new Promise(function (resolve, reject) {
      var image = new Image();
      image.onload = function () {
        var canvas = document.createElement('canvas');
        canvas.width = Math.round(width * scale);
        canvas.height = Math.round(height * scale);
        var context = canvas.getContext('2d');
        context.fillStyle = '#ffffff';
        context.fillRect(0, 0, canvas.width, canvas.height);
        context.scale(scale, scale);
        context.drawImage(image, 0, 0, width, height);
        resolve(canvas.toDataURL('image/png'));
      };
      image.onerror = function () { reject(new Error('could not draw figure ' + id)); };
      image.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(xml);
    });
  }
  window.fragbenchFigurePng = figurePng;
  document.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-png]');
    if (!button) return;
    figurePng(button.getAttribute('data-png'), 2).then(function (url) {
      var link = document.createElement('a');
      link.href = url;
      link.download = button.getAttribute('data-png') + '.png';
      link.click();
    });
  });
})();
`;

/** The report's look (the compare page shares it). */
export const REPORT_STYLE = `
  :root { color-scheme: light; }
  body { font: 14px/1.45 'DejaVu Sans', Helvetica, Arial, sans-serif; color: #1a1a1a; margin: 0; background: #fafafa; }
  header { padding: 18px 28px 10px; background: #fff; border-bottom: 1px solid #ddd; }
  header h1 { font-size: 20px; margin: 0 0 4px; }
  header .question { font-size: 16px; margin: 0 0 6px; }
  header .meta { color: #555; margin: 0; }
  .layout { display: grid; grid-template-columns: minmax(0, 1fr) 330px; gap: 20px; padding: 18px 28px; align-items: start; }
  main section { background: #fff; border: 1px solid #ddd; border-radius: 4px; padding: 12px 16px; margin-bottom: 18px; }
  main h2 { font-size: 15px; font-weight: 600; margin: 0 0 8px; }
  .chart { overflow-x: auto; }
  /* Scaled down, not cropped, when the page is narrower than the figure (legends sit on the right). */
  .chart svg { display: block; max-width: 100%; height: auto; }
  button[data-png] { margin-top: 6px; font-size: 12px; }
  aside { position: sticky; top: 12px; background: #fff; border: 1px solid #ddd; border-radius: 4px; padding: 12px 14px; font-size: 13px; max-height: calc(100vh - 40px); overflow: auto; }
  aside h2 { font-size: 14px; margin: 12px 0 6px; }
  aside h2:first-child { margin-top: 0; }
  aside dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0; }
  aside dt { color: #555; }
  aside dd { margin: 0; word-break: break-word; }
  aside dl.stacked { display: block; }
  aside dl.stacked dt { font-family: 'DejaVu Sans Mono', monospace; font-size: 12px; color: #333; }
  aside dl.stacked dd { margin: 0 0 6px 12px; }
  aside pre { font-size: 11px; white-space: pre-wrap; word-break: break-word; }
  table { border-collapse: collapse; font-size: 12.5px; }
  .table { overflow-x: auto; }
  th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; white-space: nowrap; }
  th { background: #f3f3f3; font-weight: 600; white-space: normal; min-width: 60px; max-width: 130px; vertical-align: bottom; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
  .notes, .figure-warning { color: #8a4b00; }
  .validity { padding: 0.5em 1em; border-radius: 4px; }
  .validity.flagged { background: #fde0dd; border: 2px solid #c51b8a; color: #49006a; font-weight: 600; }
  .validity.ok { background: #e5f5e0; border: 1px solid #31a354; }
  @media (max-width: 1000px) { .layout { grid-template-columns: minmax(0, 1fr); } aside { position: static; max-height: none; } }
`;

/** A self-contained page's start, to its <body>: the no-network policy, the title and the inline style. */
export function pageHead(title: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${NO_NETWORK_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>`;
}

/** stacked: each value under its name, for long setting names. */
function definitionList(entries: [string, string][], empty: string, stacked = false): string {
  if (entries.length === 0) return `<p>${escapeHtml(empty)}</p>`;
  return `<dl${stacked ? ' class="stacked"' : ''}>${entries.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
}

const iso = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');

function duration(run: RunRecord): string {
  if (run.finishedAt === undefined) return 'still running';
  const s = Math.round((run.finishedAt - run.startedAt) / 1000);
  return s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min` : s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

/** The seed a re-run gives as its scenario's `lossSeed` to repeat the drops, where the shaper draws from it. */
function lossSeedEntry(seed: number, shaping: string): [string, string] {
  return ['loss seed', shaping === 'emulator' ? `${seed} (scenario lossSeed repeats the drops)` : `${seed} (unused: netem on VMs draws its own)`];
}

function aside(run: RunRecord): string {
  const inventory = run.inventory;
  const sites = new Map<string, string[]>();
  for (const node of inventory.nodes) sites.set(node.site, [...(sites.get(node.site) ?? []), node.name]);
  const fleet: [string, string][] = [
    ['inventory', `${inventory.name} (${inventory.source})`],
    ['nodes', String(inventory.nodes.length)],
    ['links', String(inventory.links.length)],
    ['client', inventory.clientNode],
    ['shaping', inventory.shaping],
    ...(run.lossSeed === undefined ? [] : [lossSeedEntry(run.lossSeed, inventory.shaping)]),
    ...[...sites].map(([site, nodes]): [string, string] => [`site ${site}`, nodes.join(', ')]),
  ];
  return `<aside>
  <h2>Non-default settings</h2>
  ${definitionList(Object.entries(run.nonDefaultSettings), 'None: every database ran with its defaults.', true)}
  <h2>Versions</h2>
  ${definitionList(Object.entries(run.versions), 'Not recorded.')}
  <h2>Fleet</h2>
  ${definitionList(fleet, '')}
  ${
    inventory.overlay?.paths
      ? `<h2>Overlay paths at the start</h2>\n  ${definitionList(
          inventory.overlay.paths.map((p): [string, string] => [pairName(p), formatPath(p)]),
          '',
          true,
        )}`
      : ''
  }
  <h2>Scenario settings</h2>
  <details><summary>as run</summary><pre>${escapeHtml(JSON.stringify(run.settings, null, 2))}</pre></details>
</aside>`;
}

/** A report table as a section: heading, then the table (numbers right-aligned). */
export function tableHtml(table: Table): string {
  const cls = (i: number) => (table.numeric[i] ? ' class="num"' : '');
  const head = table.columns.map((c, i) => `<th${cls(i)}>${escapeHtml(c)}</th>`).join('');
  const body = table.rows.map((row) => `<tr>${row.map((v, i) => `<td${cls(i)}>${escapeHtml(v)}</td>`).join('')}</tr>`).join('\n');
  return `<section id="table-${table.id}"><h2>${escapeHtml(table.heading)}</h2><div class="table"><table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div></section>`;
}

/** A drawn figure as the report shows it: its heading, the SVG, any warning, and its PNG button (`saved` says where else the PNG is). */
export function figureSection(figure: Figure, rendered: RenderedFigure | undefined, saved?: string): string {
  const title = `Download this figure as a PNG${saved ? ` (${saved})` : ''}`;
  return `<section class="figure" id="fig-${figure.id}">
  <h2>${escapeHtml(figure.heading)}</h2>
  <div class="chart">${scopeSvgIds(rendered?.svg ?? '', figure.id)}</div>
  ${(rendered?.warnings ?? []).map((w) => `<p class="figure-warning">Drawing this figure: ${escapeHtml(w)}</p>`).join('')}
  <button type="button" data-png="${figure.id}" title="${escapeHtml(title)}">PNG</button>
</section>`;
}

/** rendered: figure id -> its SVG and any warnings, which are shown under the figure. */
export function renderHtml(model: ReportModel, rendered: Map<string, RenderedFigure>): string {
  const { run } = model;
  const figures = model.figures.map((f) => figureSection(f, rendered.get(f.id), `also saved beside this page as ${f.id}.png`)).join('\n');
  const validity = model.validity
    ? `<section class="validity ${model.validity.flagged ? 'flagged' : 'ok'}">${model.validity.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}</section>`
    : '';
  const notes = model.notes.length > 0 ? `<section class="notes">${model.notes.map((n) => `<p>${escapeHtml(n)}</p>`).join('')}</section>` : '';
  return `${pageHead(`${run.scenario} · ${run.runId} · fragbench`, REPORT_STYLE)}
<body>
<header>
  <h1>${escapeHtml(run.experiment)}${run.experiment === run.scenario ? '' : ` <small>(scenario ${escapeHtml(run.scenario)})</small>`}</h1>
  <p class="question">${escapeHtml(model.question)}</p>
  <p class="meta">Run ${escapeHtml(run.runId)} · ${escapeHtml(run.status)} · started ${iso(run.startedAt)} · ${duration(run)} · ${model.cells.length} cell${model.cells.length === 1 ? '' : 's'}</p>
</header>
<div class="layout">
<main>
${validity}
${notes}
${figures}
${model.tables.map(tableHtml).join('\n')}
</main>
${aside(run)}
</div>
<script>${PNG_SCRIPT}</script>
</body>
</html>
`;
}
