/**
 * "Export CSV" for a list: the list's CSV export operation (e.g. core `exportPayoutsCsv` at
 * `/payouts.csv`) asked with the filters the list shows, saved as a file (./download.js).
 * The export takes the list's filters but not its `limit` or `cursor`: it answers every row
 * the filters match, in the list's order, whatever their number.
 */
import { html } from './preact-htm.js';
import { Problem } from './ui.js';
import { useRequest } from './lists.js';
import { downloadText } from './download.js';

/**
 * A button that saves the list at `path` (its export operation) as `filename`, with `query`
 * (the list's query: its `limit` and `cursor` are left out), and the problem when it fails.
 * @param {{ api: any, path: string, query: Record<string, any>, filename: string, label?: string }} props
 */
export function ExportCsv({ api, path, query, filename, label = 'Export CSV' }) {
  const exporting = useRequest();
  const { limit, cursor, ...filters } = query ?? {};
  const save = () => exporting.run(async () => downloadText(filename, await api.text(path, { query: filters, accept: 'text/csv' })));
  return html`<button type="button" class="secondary" disabled=${exporting.busy} onClick=${save}>${exporting.busy ? 'Exporting…' : label}</button>
    ${exporting.error ? html`<div class="export-problem"><${Problem} error=${exporting.error} /></div>` : null}`;
}
