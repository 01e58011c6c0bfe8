/**
 * The business's default API version (`api_version`): the version its requests without
 * `X-API-Version` are served at. Read from the session's business (`getBusiness`), the
 * supported versions from the gateway descriptor (`getGatewayDescriptor`,
 * `endpoints.versioning.supported`), changed with `updateBusiness`. The newest version is
 * marked as the one recommended to new integrations. Webhook endpoints keep their own version
 * (shown on each endpoint).
 */
import { html, useState } from '../../preact-htm.js';
import { Problem, useLoad, useSubmit } from '../../ui.js';

/** The setting, inside the business's facts (`business` as getBusiness answered it). */
export function ApiVersionSetting({ api, business }) {
  const [current, setCurrent] = useState(business.api_version);
  const [chosen, setChosen] = useState(business.api_version);
  const [saved, setSaved] = useState(false);
  const descriptor = useLoad(() => api.get('/'), [api]);
  const supported = descriptor.data?.endpoints?.versioning?.supported ?? [current];
  const { onSubmit, busy, error } = useSubmit(async () => {
    setSaved(false);
    const updated = await api.patch(`/cl/v1/businesses/${business.id}`, { api_version: chosen });
    setCurrent(updated.api_version);
    setSaved(true);
  });
  return html`<form class="inline" onSubmit=${onSubmit} aria-describedby="api-version-help">
    <label for="api-version">Default API version</label>
    <select id="api-version" value=${chosen} onChange=${(e) => { setChosen(e.currentTarget.value); setSaved(false); }}>
      ${supported.map((v) => html`<option key=${v} value=${v}>${v}${v === current ? ' (current)' : ''}${v === supported[supported.length - 1] ? ' (recommended)' : ''}</option>`)}
    </select>
    <button type="submit" class="secondary" disabled=${busy || chosen === current}>Save</button>
    <small id="api-version-help" class="muted">Requests without an <code>X-API-Version</code> header are served at this version.</small>
    ${saved ? html`<p role="status">Saved: requests without the header now use ${current} (every instance within 5 seconds).</p>` : null}
    <${Problem} error=${error ?? descriptor.error} onRetry=${descriptor.error ? descriptor.reload : undefined} />
  </form>`;
}
