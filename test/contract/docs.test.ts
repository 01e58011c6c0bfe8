import { expect } from 'chai';
import { get } from '../support/client.js';
import { expectValidation } from '../support/assertions.js';

/** The API reference page over plain HTTP, a page of the service outside the documents (the browser check is in docsBrowser.test.ts). */
describe('API reference page (GET /docs)', () => {
  it('serves an HTML page that loads its scripts from this service, with a self-only Content-Security-Policy', async () => {
    const res = await get('/docs');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const scripts = [...String(res.body).matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).to.deep.equal(['/docs/assets/api-reference.js', '/docs/assets/configuration.js']);
    expect(String(res.body)).to.not.match(/https?:\/\//);
    // Both documents are linked visibly (their page, JSON and YAML), not only through Scalar's selector.
    const links = [...String(res.body).matchAll(/<a (?:aria-current="page" )?href="([^"]+)">([^<]+)<\/a>/g)].map((m) => `${m[2]} ${m[1]}`);
    expect(links).to.deep.equal([
      'Closed-loop API /docs?api=closed-loop',
      'JSON /openapi/closed-loop.json',
      'YAML /openapi/closed-loop.yaml',
      'Core API /docs?api=core',
      'JSON /openapi/core.json',
      'YAML /openapi/core.yaml',
      'Changelog /openapi/CHANGELOG.md',
      'v1 /docs?version=v1',
      'v2 /docs?version=v2',
      'v3 /docs?version=v3',
      'v4 /docs?version=v4',
    ]);
    expect(String(res.body)).to.include('<a aria-current="page" href="/docs?version=v1">v1</a>');
    for (const link of links) expect((await get(link.split(' ').pop()!)).status, link).to.equal(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("default-src 'self'").and.include("script-src 'self'").and.include("connect-src 'self'");
    expect(csp).to.not.match(/https?:|\*/);
  });

  it('shows the documents of the version picked by ?version=, and refuses an unknown one', async () => {
    const page = String((await get('/docs?version=v2')).body);
    const links = [...page.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).to.include.members(['/openapi/v2/closed-loop.json', '/openapi/v2/closed-loop.yaml', '/openapi/v2/core.json', '/openapi/v2/core.yaml']);
    expect(page).to.include('<a aria-current="page" href="/docs?version=v2">v2</a>');
    expectValidation(await get('/docs?version=v9'), '/query/version');
    expectValidation(await get('/docs?version=v1&version=v2'), '/query/version');
    expect((await get('/docs?next=true')).status, 'a parameter the page does not read').to.equal(200);
  });

  it('opens the document named by ?api=, and refuses an unknown one', async () => {
    expect((await get('/docs?api=core')).status).to.equal(200);
    expectValidation(await get('/docs?api=other'), '/query/api');
  });

  it('serves the Scalar bundle and its configuration: both documents on the page\'s own origin, no proxy, telemetry or web fonts', async () => {
    const bundle = await get('/docs/assets/api-reference.js');
    expect(bundle.status).to.equal(200);
    expect(bundle.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(String(bundle.body)).to.include('createApiReference');
    const config = await get('/docs/assets/configuration.js');
    expect(config.status).to.equal(200);
    const script = String(config.body);
    const json = JSON.parse(/^const configuration = (.*?);\n/s.exec(script)![1]);
    expect(json.sources.map((s: { url: string }) => s.url)).to.deep.equal(['/openapi/closed-loop.json', '/openapi/core.json']);
    // "Test request" and the code samples call the origin the page is served from.
    expect(json.sources.map((s: { servers: { url: string }[] }) => s.servers.map((server) => server.url))).to.deep.equal([['/cl/v1'], ['']]);
    expect(script).to.include('window.location.origin + server.url').and.match(/Scalar\.createApiReference\('#app', configuration\);\s*$/);
    expect(json).to.include({ telemetry: false, withDefaultFonts: false });
    expect(json).to.not.have.property('proxyUrl');
    for (const source of json.sources) expect(source.agent).to.deep.equal({ disabled: true });
  });

  it('answers 404 NOT_FOUND for a file it does not serve', async () => {
    for (const url of ['/docs/assets/other.js', '/docs/other', '/docs/assets']) {
      const res = await get(url);
      expect(res.status, url).to.equal(404);
      expect(res.body.code, url).to.equal('NOT_FOUND');
    }
  });
});
