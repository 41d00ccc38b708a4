/**
 * Vega-Lite specs compiled and drawn to SVG in Node: no browser and no network involved, so a
 * report's figures are plain markup that opens anywhere.
 *
 * Why the loader: vega and vega-lite ship as ES modules whose graph has a top-level await (the
 * optional `canvas` import), which a CommonJS program (and jest) cannot `require`. Both packages
 * also ship self-contained UMD bundles; those are evaluated here with a CommonJS-style wrapper
 * so that vega-lite's `require("vega")` gets the very vega instance loaded beside it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type * as VegaModule from 'vega';
import type * as VegaLiteModule from 'vega-lite/build/index';
import type { TopLevelSpec } from 'vega-lite/build/index';

export type { TopLevelSpec };

interface Libraries {
  vega: typeof VegaModule;
  vegaLite: typeof VegaLiteModule;
}

let loaded: Libraries | undefined;

function bundleDir(pkg: string, exportedFile: string): string {
  // The packages' export maps expose only their schema files: resolve one to find the bundles.
  return path.dirname(require.resolve(`${pkg}/${exportedFile}`));
}

function evaluateUmd<T>(file: string, dependencies: Record<string, unknown>): T {
  const module = { exports: {} as Record<string, unknown> };
  const requireDependency = (id: string) => {
    if (!(id in dependencies)) throw new Error(`${path.basename(file)} requires "${id}", which the loader does not provide`);
    return dependencies[id];
  };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- evaluated on purpose (see the top of this file): the packages' own bundle, from node_modules
  const wrapper = new Function('exports', 'require', 'module', readFileSync(file, 'utf8')) as (
    exports: Record<string, unknown>,
    require: (id: string) => unknown,
    module: { exports: Record<string, unknown> },
  ) => void;
  wrapper(module.exports, requireDependency, module);
  return module.exports as T;
}

function libraries(): Libraries {
  if (!loaded) {
    const vega = evaluateUmd<typeof VegaModule>(path.join(bundleDir('vega', 'vega-schema.json'), 'vega.js'), {});
    const vegaLite = evaluateUmd<typeof VegaLiteModule>(path.join(bundleDir('vega-lite', 'vega-lite-schema.json'), 'vega-lite.min.js'), { vega });
    loaded = { vega, vegaLite };
  }
  return loaded;
}

export interface RenderedFigure {
  svg: string;
  /** What Vega and Vega-Lite warned about: a spec that does not fit its data. */
  warnings: string[];
}

/** Compiles a Vega-Lite spec and renders it headless, collecting warnings rather than printing them. */
export async function renderSvg(spec: TopLevelSpec): Promise<RenderedFigure> {
  const { vega, vegaLite } = libraries();
  const warnings: string[] = [];
  const logger = vega.logger(vega.Warn);
  logger.warn = (...args: unknown[]) => {
    warnings.push(args.map(String).join(' '));
    return logger;
  };
  const compiled = vegaLite.compile(spec, { logger }).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logger });
  try {
    return { svg: await view.toSVG(), warnings };
  } finally {
    view.finalize();
  }
}
